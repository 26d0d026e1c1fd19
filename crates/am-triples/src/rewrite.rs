//! The one mutable cell of a store: a formed record's digest row, rewritten in
//! place by the layer-2 understanding verbs (`rewrite_digest`, `retitle`,
//! `narrate_dream`, `revert_digest`).
//!
//! A rewrite replaces the row's `object` and `attributes`, and with them its
//! canonical text, its keyword-index entry and its vector; the assertion id,
//! terms, scope, owner, times, confidence and provenance never change. The
//! vector is computed first, outside any transaction, with the store's own
//! (pinned) embedder ([`prepare_rewrite`]); the write then happens inside the
//! caller's transaction (`am_journal::MemoryHome`), together with the journal's
//! version rows.
//!
//! Spec: stores.md "Shared behavior" ("The one mutable cell is a formed
//! record's digest row"); api.md "Understanding: in-place rewrites and versions".

use crate::assertion::{JsonMap, TripleAssertion};
use crate::embed::TextEmbedder;
use crate::error::{Error, Result};
use crate::pin::EmbeddingPin;
use crate::text::canonical_text;

/// One digest row's new reading, as an understanding verb asks for it.
///
/// The row as the verb read it (`expected_object`, `expected_attributes`) is a
/// compare-and-set: the write refuses with kind `Conflict` when the stored row
/// differs (another writer moved it), nothing written.
#[derive(Debug, Clone, PartialEq)]
pub struct DigestRewrite {
    /// The digest row's assertion id.
    pub assertion_id: String,
    /// The row's `object` as read.
    pub expected_object: String,
    /// The row's `attributes` as read.
    pub expected_attributes: JsonMap,
    /// The new `object` (the digest text).
    pub object: String,
    /// The new `attributes`, whole.
    pub attributes: JsonMap,
}

/// What a rewrite does to the row's stored vector.
#[derive(Debug, Clone, PartialEq)]
pub enum VectorChange {
    /// The canonical text is unchanged (or the store holds no vectors): the
    /// vector stands.
    Keep,
    /// The new text's vector.
    Set(Vec<f32>),
    /// The embedder gave the zero vector for the new text (no known token):
    /// the row is stored without a vector, as `add` stores such a row.
    Clear,
}

/// A [`DigestRewrite`] made ready outside any transaction: the new canonical
/// text and the vector change.
#[derive(Debug, Clone, PartialEq)]
pub struct PreparedRewrite {
    /// The rewrite as asked.
    pub rewrite: DigestRewrite,
    /// The row's canonical text before the rewrite (the keyword entry to replace).
    pub old_text: String,
    /// The row's canonical text after it (the `text` column, the keyword entry).
    pub text: String,
    /// The vector change.
    pub vector: VectorChange,
}

impl PreparedRewrite {
    /// Whether the row's vector changes.
    pub fn vector_rewritten(&self) -> bool {
        !matches!(self.vector, VectorChange::Keep)
    }
}

/// The row `current` would become under `rewrite` (terms and everything else
/// kept).
pub fn rewritten_row(current: &TripleAssertion, rewrite: &DigestRewrite) -> TripleAssertion {
    let mut row = current.clone();
    row.object.clone_from(&rewrite.object);
    row.attributes.clone_from(&rewrite.attributes);
    row
}

/// Refuse a rewrite whose stored row differs from what the verb read.
///
/// # Errors
/// `Conflict` naming the row; `NotFound` for a row that is not stored.
pub fn check_expected<'a>(
    current: Option<&'a TripleAssertion>,
    rewrite: &DigestRewrite,
) -> Result<&'a TripleAssertion> {
    let Some(row) = current else {
        return Err(Error::not_found(format!(
            "digest rewrite of {}: no stored row has that assertion id; nothing written",
            rewrite.assertion_id
        )));
    };
    if row.object != rewrite.expected_object || row.attributes != rewrite.expected_attributes {
        return Err(Error::conflict(format!(
            "digest rewrite of {}: the stored row changed since it was read (another writer moved it); \
             nothing written",
            rewrite.assertion_id
        )));
    }
    Ok(row)
}

/// Make a rewrite ready, as every store does: refuse a row that is not a
/// record digest, compute the new canonical text, and when it differs from
/// the old one embed it with the store's `embedder` (one `embed_texts` call),
/// checked against the store's `pin`. `current` is the stored row and
/// `vectored` whether it holds a vector.
///
/// # Errors
/// `InvalidInput` for a row that is not a record digest (a record edge or a
/// plain assertion) or whose stored row differs from the expected one
/// (`Conflict`); `Embedder` when the embedder fails or returns other than one
/// valid vector, or when the text changes on a vectored row and the store has
/// no embedder; `DimensionMismatch` against the pin. Nothing is written.
pub fn prepare_rewrite(
    embedder: Option<&dyn TextEmbedder>,
    pin: Option<&EmbeddingPin>,
    current: Option<&TripleAssertion>,
    vectored: bool,
    rewrite: &DigestRewrite,
) -> Result<PreparedRewrite> {
    let current = check_expected(current, rewrite)?;
    if !crate::text::is_record_digest(current) {
        return Err(Error::invalid(format!(
            "digest rewrite of {}: only a record's digest row (predicate dcterms:abstract with a \
             record_kind) is rewritten in place, got a {} row",
            rewrite.assertion_id, current.predicate
        )));
    }
    let old_text = canonical_text(current);
    let text = canonical_text(&rewritten_row(current, rewrite));
    let vector = if text == old_text || crate::text::is_engine_state(current) {
        VectorChange::Keep
    } else {
        match embedder {
            None if vectored => {
                return Err(Error::embedder(format!(
                    "digest rewrite of {}: the row holds a vector and the store has no embedder to \
                     compute the new one; nothing written",
                    rewrite.assertion_id
                )));
            }
            None => VectorChange::Keep,
            Some(e) => {
                let out = e
                    .embed_texts(std::slice::from_ref(&text))
                    .map_err(|err| err.with_suffix(&EmbeddingPin::failure_suffix(pin)))?;
                if out.len() != 1 {
                    return Err(Error::embedder(format!(
                        "embedder returned {} vectors for 1 text (nothing written)",
                        out.len()
                    )));
                }
                let checked = crate::embed::embedded_batch(out).map_err(|err| {
                    err.with_kind(crate::ErrorKind::Embedder)
                        .with_prefix("digest rewrite embedding")
                })?;
                match checked.vectors.into_iter().next().flatten() {
                    None => VectorChange::Clear,
                    Some(v) => {
                        if let Some(p) = pin {
                            p.check_add_dimension(v.len())?;
                        }
                        VectorChange::Set(v)
                    }
                }
            }
        }
    };
    Ok(PreparedRewrite {
        rewrite: rewrite.clone(),
        old_text,
        text,
        vector,
    })
}
