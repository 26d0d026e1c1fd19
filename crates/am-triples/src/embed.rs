//! The `TextEmbedder` trait: text in, one f32 vector per text out; and the
//! check every write applies to what an embedder answered for one batch
//! ([`embedded_batch`], [`zero_vector_warning`]).
//!
//! Spec: api.md "Embedders"; FAQ "What embedding interface do I need to implement?".

use crate::error::{Error, Result};

/// Anything that turns texts into vectors.
///
/// # Contract
/// - `embed_texts` returns exactly one vector per input text, in input order, all
///   of one dimension; a failure is an [`crate::ErrorKind::Embedder`] (or
///   `Timeout`) error, never a partial answer.
/// - `model_id` and `dimension` report the embedding space when known, so stores
///   pin the space at creation and refuse a contradicting embedder at open.
pub trait TextEmbedder: Send + Sync {
    /// Embed each text; one vector per text, in order.
    ///
    /// # Errors
    /// An error of kind `Embedder` or `Timeout` when the embedder fails.
    fn embed_texts(&self, texts: &[String]) -> Result<Vec<Vec<f32>>>;

    /// The model identity, when known (the pin's `model_id`).
    fn model_id(&self) -> Option<String> {
        None
    }

    /// The vector dimension, when known without embedding anything.
    fn dimension(&self) -> Option<usize> {
        None
    }
}

// A forwarding wrapper forwards every method: a default here would answer
// for the embedder it holds.
#[deny(clippy::missing_trait_methods)]
impl<T: TextEmbedder + ?Sized> TextEmbedder for std::sync::Arc<T> {
    fn embed_texts(&self, texts: &[String]) -> Result<Vec<Vec<f32>>> {
        (**self).embed_texts(texts)
    }
    fn model_id(&self) -> Option<String> {
        (**self).model_id()
    }
    fn dimension(&self) -> Option<usize> {
        (**self).dimension()
    }
}

// A forwarding wrapper forwards every method: a default here would answer
// for the embedder it holds.
#[deny(clippy::missing_trait_methods)]
impl<T: TextEmbedder + ?Sized> TextEmbedder for Box<T> {
    fn embed_texts(&self, texts: &[String]) -> Result<Vec<Vec<f32>>> {
        (**self).embed_texts(texts)
    }
    fn model_id(&self) -> Option<String> {
        (**self).model_id()
    }
    fn dimension(&self) -> Option<usize> {
        (**self).dimension()
    }
}

/// An embedder's vectors for one write batch, checked: see [`embedded_batch`].
#[derive(Debug, Clone, PartialEq)]
pub struct EmbeddedBatch {
    /// One entry per embedded text, in order: `None` where the embedder returned
    /// the zero vector (the row is stored without a vector).
    pub vectors: Vec<Option<Vec<f32>>>,
    /// The dimension of the kept vectors (`None`: no vector kept).
    pub dimension: Option<usize>,
    /// How many texts embedded to the zero vector.
    pub zero_rows: usize,
}

/// Check an embedder's output for one write batch, as both stores do.
///
/// A zero vector (every value `0.0`: the embedder found no known token, e.g. an
/// emoji-only text or `"\0"` under the offline embedder) is not refused: its row
/// is stored WITHOUT a vector (exact, keyword and structured reads find it,
/// vector queries do not), reported by [`zero_vector_warning`] once per batch.
/// Every other vector must be valid and all kept vectors share one dimension.
///
/// # Errors
/// `InvalidInput` for an empty vector or a NaN/infinite value (naming the
/// vector's index in the batch); `DimensionMismatch` for kept vectors of mixed
/// dimensions. The caller writes nothing on an error.
pub fn embedded_batch(out: Vec<Vec<f32>>) -> Result<EmbeddedBatch> {
    let mut dimension: Option<usize> = None;
    let mut zero_rows = 0usize;
    let mut vectors = Vec::with_capacity(out.len());
    for (i, v) in out.into_iter().enumerate() {
        if !v.is_empty() && v.iter().all(|x| *x == 0.0) {
            zero_rows += 1;
            vectors.push(None);
            continue;
        }
        crate::vector::validate_vector(&v).map_err(|e| e.with_prefix(&format!("vector {i}")))?;
        match dimension {
            None => dimension = Some(v.len()),
            Some(d) if d != v.len() => {
                return Err(Error::dimension_mismatch(format!(
                    "one write batch mixes dimensions {d} and {} (vector {i})",
                    v.len()
                )));
            }
            Some(_) => {}
        }
        vectors.push(Some(v));
    }
    Ok(EmbeddedBatch {
        vectors,
        dimension,
        zero_rows,
    })
}

/// The `#FALLBACK` warning of a write batch whose embedder returned the zero
/// vector for `zero_rows` of its `embedded` texts (one warning per batch).
pub fn zero_vector_warning(zero_rows: usize, embedded: usize) -> String {
    format!(
        "#FALLBACK: the embedder returned the zero vector for {zero_rows} of {embedded} text(s) of this \
         write batch (no known token, e.g. emoji-only text); those rows are stored WITHOUT a vector: \
         exact, keyword and structured reads find them, vector queries do not"
    )
}
