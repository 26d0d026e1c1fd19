//! The `TextEmbedder` trait: text in, one f32 vector per text out.
//!
//! Spec: api.md "Embedders"; FAQ "What embedding interface do I need to implement?".

use crate::error::Result;

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
