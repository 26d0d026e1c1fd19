//! `reembed_store` / `reembed_home`: move a home to a new embedding space
//! (a new model, or a new dimension) — the one sanctioned space change.
//!
//! Vectors are derived data: every stored text (every row but the formation
//! edges) is re-embedded with the new embedder FIRST, before anything is
//! written, so an embedder failure leaves the home as it was. The swap is
//! then the store's one atomic `replace_vectors` (one SQLite transaction;
//! one step under the in-memory store's lock): every vector replaced, rows
//! the new embedder left out vectorless, the new pin written LAST inside it,
//! the new embedder live from then on. A reader sees the old index and pin
//! or the new ones, never a mix; a re-run starts over (nothing is staged
//! where a read could see it). The swap refuses, nothing written, when the
//! store's row count moved between the scan and the swap (another writer:
//! run it over a closed home).
//!
//! Then the act is journaled: a bookkeeping `claim` record (old and new
//! model and dimension, the rows vectored) forms in `(marker_scope,
//! owner_id)`, so the life stream shows when retrieval geometry changed.
//! The marker is a second write after the swap (as in 0.3.2): a crash
//! between the two leaves the new space pinned and no marker. Its
//! idempotency key is 0.3.2's `reembed|<owner>|<stamp>` plus the journal's
//! seq, so two re-embeds under one pinned clock leave two markers.
//!
//! Refusals before any write: `batch_size` 0, an embedder that answers a
//! batch with another number of vectors, vectors of mixed dimensions, or
//! vectors whose dimension is not the one the embedder declares.
//!
//! Spec: api.md "Maintenance, health, and operator tools"
//! (`reembed_store`, `reembed_home`); operator.md §6b. Report keys follow
//! AbstractMemory 0.3.2.

use std::collections::HashMap;
use std::sync::Arc;

use am_triples::pin::{PIN_SOURCE_REEMBED, build_pin};
use am_triples::text::{canonical_text, is_record_edge};
use am_triples::{EmbeddingPin, TextEmbedder, TripleQuery};
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::error::{Error, Result};
use crate::formation::args::RememberMany;
use crate::formation::records::MemoryRecordInput;
use crate::kinds::RecordKind;
use crate::system::MemorySystem;

/// `reembed_store(system, *, embedder, owner_id, model_id=None,
/// marker_scope="life", reason="operator reembed", batch_size=64)`'s
/// keywords (the new embedder is passed beside them).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReembedStore {
    /// The owner whose life stream carries the marker.
    pub owner_id: String,
    /// The new space's model id when the embedder does not name one.
    #[serde(default)]
    pub model_id: Option<String>,
    /// The marker's scope.
    #[serde(default = "default_marker_scope")]
    pub marker_scope: String,
    /// Why (kept on the marker).
    #[serde(default = "default_reason")]
    pub reason: String,
    /// Texts per embed call (at least 1).
    #[serde(default = "default_batch")]
    pub batch_size: usize,
}

fn default_marker_scope() -> String {
    "life".to_owned()
}
fn default_reason() -> String {
    "operator reembed".to_owned()
}
fn default_batch() -> usize {
    64
}

impl ReembedStore {
    /// A re-embed whose marker lands in `owner_id`'s `life`.
    pub fn new(owner_id: &str) -> Self {
        ReembedStore {
            owner_id: owner_id.to_owned(),
            model_id: None,
            marker_scope: default_marker_scope(),
            reason: default_reason(),
            batch_size: default_batch(),
        }
    }
}

/// What a re-embed did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Reembedded {
    /// Every row of the store.
    pub rows: usize,
    /// Rows that now hold a vector.
    pub vectored: usize,
    /// Formation edges (never embedded).
    pub skipped_edges: usize,
    /// The pin before.
    pub old_pin: Option<EmbeddingPin>,
    /// The pin now (`source` `reembed`).
    pub new_pin: EmbeddingPin,
    /// The marker record's graph id.
    pub marker_record_id: String,
}

impl MemorySystem {
    /// Re-derive every vector of the store with `embedder` and swap them in
    /// atomically, pin last, then journal the act (see the module doc).
    /// `progress` is told `(embedded, of)` after each batch.
    ///
    /// # Errors
    /// `InvalidInput` for `batch_size` 0, a blank owner, an embedder that
    /// answers a batch with another count, mixed dimensions, a dimension
    /// other than the one the embedder declares, or no vector and no model
    /// id; `Unsupported` for a store with no vector swap; `Conflict` when the
    /// store changed between scan and swap; the embedder's failure. Nothing
    /// is written on any of them.
    pub fn reembed_store(
        &self,
        args: &ReembedStore,
        embedder: Arc<dyn TextEmbedder>,
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<Reembedded> {
        if args.batch_size == 0 {
            return Err(Error::invalid(
                "reembed_store: batch_size must be at least 1, got 0",
            ));
        }
        if args.owner_id.trim().is_empty() {
            return Err(Error::invalid(
                "reembed_store needs an owner_id: whose life stream carries the marker",
            ));
        }
        let store = self.store.as_ref();
        let old_pin = store.embedding_pin()?;
        let rows = store.query(&TripleQuery {
            limit: 0,
            ..TripleQuery::default()
        })?;
        let expected = rows.len();
        let embeddable: Vec<_> = rows
            .iter()
            .filter(|a| !is_record_edge(a) && a.assertion_id.is_some())
            .collect();
        let skipped_edges = expected - embeddable.len();
        let declared = embedder.dimension().filter(|d| *d > 0);
        let mut vectors: HashMap<String, Vec<f32>> = HashMap::with_capacity(embeddable.len());
        let mut dimension: Option<usize> = None;
        let mut done = 0usize;
        for batch in embeddable.chunks(args.batch_size) {
            let texts: Vec<String> = batch.iter().map(|a| canonical_text(a)).collect();
            let out = embedder.embed_texts(&texts)?;
            if out.len() != batch.len() {
                return Err(Error::invalid(format!(
                    "reembed_store: the embedder answered {} vectors for {} texts; nothing was written",
                    out.len(),
                    batch.len()
                )));
            }
            for (a, v) in batch.iter().zip(out) {
                if let Some(d) = declared
                    && v.len() != d
                {
                    return Err(Error::invalid(format!(
                        "reembed_store refused the embedder: it declares dimension {d} but embedded a \
                         text as a vector of {}; nothing was written",
                        v.len()
                    )));
                }
                match dimension {
                    None => dimension = Some(v.len()),
                    Some(d) if d != v.len() => {
                        return Err(Error::invalid(format!(
                            "reembed_store: the embedder produced mixed dimensions ({d} and {}); \
                             nothing was written",
                            v.len()
                        )));
                    }
                    Some(_) => {}
                }
                vectors.insert(a.assertion_id.clone().unwrap_or_default(), v);
            }
            done += batch.len();
            progress(done, embeddable.len());
        }
        let new_model = args
            .model_id
            .as_deref()
            .map(str::trim)
            .filter(|m| !m.is_empty())
            .map(str::to_owned)
            .or_else(|| embedder.model_id());
        let dimension = dimension.or(declared);
        if new_model.is_none() && dimension.is_none() {
            return Err(Error::invalid(
                "reembed_store: no vector and no model identity (an empty store and an anonymous \
                 embedder): nothing names the new space; pass model_id",
            ));
        }
        let mut new_pin = build_pin(new_model.as_deref(), dimension, PIN_SOURCE_REEMBED, None)?;
        // Pinned at the system's clock (a host's pinned clock), not the wall.
        new_pin.pinned_at = self.now()?;
        let vectored = store.replace_vectors(&vectors, &new_pin, expected, Some(embedder))?;

        let old_model = old_pin.as_ref().and_then(|p| p.model_id.clone());
        let old_dim = old_pin.as_ref().and_then(|p| p.dimension);
        let stamp = self.now()?;
        let digest = format!(
            "The vector index was re-derived by an operator re-embed at {stamp}: {}{} -> {} ({}d); \
             {vectored} of {expected} rows hold a vector. The memories and their history are \
             untouched; which memories sit near each other may change.",
            old_model.as_deref().unwrap_or("unpinned"),
            old_dim.map_or(String::new(), |d| format!(" ({d}d)")),
            new_model.as_deref().unwrap_or("unknown model"),
            dimension.map_or("?".to_owned(), |d| d.to_string()),
        );
        let mut marker = MemoryRecordInput::new(
            RecordKind::Claim,
            "reembed: embedding space migrated",
            &digest,
        );
        for (k, v) in [
            ("bookkeeping", json!(true)),
            ("maintenance", json!("reembed")),
            ("reason", json!(args.reason)),
            ("old_model_id", json!(old_model)),
            ("old_dimension", json!(old_dim)),
            ("new_model_id", json!(new_model)),
            ("new_dimension", json!(dimension)),
            ("rows_vectored", json!(vectored)),
        ] {
            marker.attributes.insert(k.to_owned(), v);
        }
        // The journal's position joins 0.3.2's `reembed|owner|stamp`: under
        // a pinned clock two re-embeds share a stamp, and 0.3.2's key would
        // make the second marker a replay of the first (no marker at all).
        let seq = self.current_seq()?;
        let key = format!("reembed|{}|{stamp}|{seq}", args.owner_id.trim());
        let ids = self
            .remember_many(&RememberMany::new(
                vec![marker],
                &args.marker_scope,
                &args.owner_id,
                &key,
            ))?
            .value;
        Ok(Reembedded {
            rows: expected,
            vectored,
            skipped_edges,
            old_pin,
            new_pin,
            marker_record_id: ids.into_iter().next().unwrap_or_default(),
        })
    }

    /// `reembed_home`: [`reembed_store`](MemorySystem::reembed_store) under
    /// the name the operator guide uses.
    ///
    /// # Errors
    /// As `reembed_store`.
    pub fn reembed_home(
        &self,
        args: &ReembedStore,
        embedder: Arc<dyn TextEmbedder>,
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<Reembedded> {
        self.reembed_store(args, embedder, progress)
    }
}
