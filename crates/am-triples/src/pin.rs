//! The embedding-space pin: one store = one embedding space.
//!
//! Spec: stores.md "Embedding-space pin"; api.md "Maintenance" (`build_pin`).
//! The pin storage is each backend's; the rules live here so backends cannot drift.

use crate::embed::TextEmbedder;
use crate::error::{Error, Result};
use crate::timestamp;
use serde::{Deserialize, Serialize};

/// `source` of a pin declared when the home is created.
pub const PIN_SOURCE_CREATION: &str = "creation";
/// `source` of a pin written at a legacy store's first embedded write.
pub const PIN_SOURCE_FIRST_WRITE: &str = "first-write";
/// `source` of a pin written by the re-embed repair pass.
pub const PIN_SOURCE_REEMBED: &str = "reembed";
/// `claimed_by` of a model id read off the bound embedder, never verified.
pub const CLAIMED_BY_EMBEDDER_ATTRIBUTE: &str = "embedder-attribute";

/// A store's declared embedding space. JSON field order matches AbstractMemory's
/// compact pin JSON in the `{table}_meta` sidecar.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct EmbeddingPin {
    /// The model identity, when known.
    pub model_id: Option<String>,
    /// The vector dimension, when known.
    pub dimension: Option<usize>,
    /// `creation`, `first-write` or `reembed`.
    pub source: String,
    /// When the pin was written (canonical UTC text).
    pub pinned_at: String,
    /// Who claimed the model id when the operator did not vouch for it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claimed_by: Option<String>,
}

/// Build a normalized pin. At least one of `model_id` / `dimension` must be present.
///
/// # Errors
/// `InvalidInput` when both are absent or the dimension is 0.
pub fn build_pin(
    model_id: Option<&str>,
    dimension: Option<usize>,
    source: &str,
    claimed_by: Option<&str>,
) -> Result<EmbeddingPin> {
    let mid = model_id
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned);
    if dimension == Some(0) {
        return Err(Error::invalid(
            "embedding pin dimension must be >= 1, got 0",
        ));
    }
    if mid.is_none() && dimension.is_none() {
        return Err(Error::invalid(
            "an embedding pin needs a model_id and/or a dimension — pinning nothing would enforce nothing",
        ));
    }
    let source = if source.trim().is_empty() {
        PIN_SOURCE_CREATION
    } else {
        source
    };
    Ok(EmbeddingPin {
        claimed_by: claimed_by
            .filter(|c| !c.is_empty() && mid.is_some())
            .map(str::to_owned),
        model_id: mid,
        dimension,
        source: source.to_owned(),
        pinned_at: timestamp::now_utc(),
    })
}

/// The refusals of opening a store: a declared pin that contradicts the stored
/// one (model or dimension), and an embedder whose known identity contradicts
/// the pin in force (the stored one, else the declared one).
/// Spec: stores.md "Embedding-space pin".
///
/// # Errors
/// `Refused` naming both pins, or the embedder and the pin.
pub fn check_at_open(
    stored: Option<&EmbeddingPin>,
    declared: Option<&EmbeddingPin>,
    embedder: Option<&dyn TextEmbedder>,
) -> Result<()> {
    if let (Some(s), Some(d)) = (stored, declared) {
        let model_clash = matches!((&s.model_id, &d.model_id), (Some(a), Some(b)) if a != b);
        let dim_clash = matches!((s.dimension, d.dimension), (Some(a), Some(b)) if a != b);
        if model_clash || dim_clash {
            return Err(Error::refused(format!(
                "embedding-space mismatch: the store is pinned to {} but the declared pin says {} — \
                 no silent mixing of embedding spaces (open it with the pinned embedder, or move the home to the new model with \
                 `am reembed`)",
                EmbeddingPin::note(Some(s)),
                EmbeddingPin::note(Some(d))
            )));
        }
    }
    if let (Some(p), Some(e)) = (stored.or(declared), embedder) {
        p.check_embedder(e)?;
    }
    Ok(())
}

/// The pin a caller declares when it creates a store, validated and normalized
/// by [`build_pin`] (a blank `source` becomes [`PIN_SOURCE_CREATION`]), keeping
/// the caller's `pinned_at` (the moment the operator chose the space) when given.
///
/// # Errors
/// `InvalidInput` as [`build_pin`].
pub fn declared_pin(declared: Option<&EmbeddingPin>) -> Result<Option<EmbeddingPin>> {
    let Some(p) = declared else {
        return Ok(None);
    };
    let source = if p.source.trim().is_empty() {
        PIN_SOURCE_CREATION
    } else {
        &p.source
    };
    let mut built = build_pin(
        p.model_id.as_deref(),
        p.dimension,
        source,
        p.claimed_by.as_deref(),
    )?;
    if !p.pinned_at.trim().is_empty() {
        built.pinned_at.clone_from(&p.pinned_at);
    }
    Ok(Some(built))
}

impl EmbeddingPin {
    /// The pin as compact JSON (`{"model_id":..,"dimension":..,...}`), as stored.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// Parse a stored pin.
    ///
    /// # Errors
    /// `Storage` when the stored text is not a pin.
    pub fn from_json(s: &str) -> Result<EmbeddingPin> {
        serde_json::from_str(s)
            .map_err(|e| Error::storage(format!("malformed embedding pin {s:?}: {e}")))
    }

    /// One-line rendering for error text: `model@dimd (source, claimed by X)`.
    pub fn note(pin: Option<&EmbeddingPin>) -> String {
        let Some(pin) = pin else {
            return "unpinned".to_owned();
        };
        let model = pin.model_id.as_deref().unwrap_or("unknown-model");
        let dim = pin.dimension.map_or("?".to_owned(), |d| d.to_string());
        let mut inside = vec![];
        if !pin.source.is_empty() {
            inside.push(pin.source.clone());
        }
        if let Some(c) = &pin.claimed_by {
            inside.push(format!("claimed by {c}"));
        }
        if inside.is_empty() {
            format!("{model}@{dim}d")
        } else {
            format!("{model}@{dim}d ({})", inside.join(", "))
        }
    }

    /// The suffix embed-time failures carry: `[store pin: <note>]`.
    pub fn failure_suffix(pin: Option<&EmbeddingPin>) -> String {
        format!("[store pin: {}]", Self::note(pin))
    }

    /// Refuse an embedder whose known identity contradicts this pin (at open).
    ///
    /// # Errors
    /// `Refused` naming both identities.
    pub fn check_embedder(&self, embedder: &dyn TextEmbedder) -> Result<()> {
        if let (Some(pinned), Some(model)) = (&self.model_id, embedder.model_id())
            && pinned != &model
        {
            return Err(Error::refused(format!(
                "embedder model {model:?} contradicts the store's embedding pin {} — one store is one embedding space; \
                 open it with the pinned embedder, or move the home to the new model with `am reembed` \
                 (`reembed_store`: every vector re-derived, swapped all or nothing)",
                Self::note(Some(self))
            )));
        }
        if let (Some(pinned), Some(dim)) = (self.dimension, embedder.dimension())
            && pinned != dim
        {
            return Err(Error::refused(format!(
                "embedder dimension {dim} contradicts the store's embedding pin {}",
                Self::note(Some(self))
            )));
        }
        Ok(())
    }

    /// Refuse a write batch whose vectors have another dimension than the pin.
    ///
    /// # Errors
    /// `DimensionMismatch`.
    pub fn check_add_dimension(&self, dim: usize) -> Result<()> {
        match self.dimension {
            Some(p) if p != dim => Err(Error::dimension_mismatch(format!(
                "write refused: vectors of dimension {dim}, store pinned to {} (zero rows written)",
                Self::note(Some(self))
            ))),
            _ => Ok(()),
        }
    }

    /// Refuse a query vector whose dimension contradicts the pin.
    ///
    /// # Errors
    /// `DimensionMismatch`.
    pub fn check_query_dimension(&self, dim: usize) -> Result<()> {
        match self.dimension {
            Some(p) if p != dim => Err(Error::dimension_mismatch(format!(
                "query vector of dimension {dim}, store pinned to {}",
                Self::note(Some(self))
            ))),
            _ => Ok(()),
        }
    }
}

/// Check that every vector of one write batch has the same dimension; returns it.
///
/// # Errors
/// `DimensionMismatch` for a mixed batch; `InvalidInput` for a
/// vector that is empty, zero, NaN or infinite.
pub fn batch_dimension(vectors: &[Vec<f32>]) -> Result<Option<usize>> {
    let mut dim = None;
    for (i, v) in vectors.iter().enumerate() {
        crate::vector::validate_vector(v).map_err(|e| e.with_prefix(&format!("vector {i}")))?;
        match dim {
            None => dim = Some(v.len()),
            Some(d) if d != v.len() => {
                return Err(Error::dimension_mismatch(format!(
                    "one write batch mixes dimensions {d} and {} (vector {i})",
                    v.len()
                )));
            }
            _ => {}
        }
    }
    Ok(dim)
}
