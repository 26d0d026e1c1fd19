//! The store's write path: `add` (canonicalize, embed outside any transaction,
//! insert in one `BEGIN IMMEDIATE` transaction with the pin check and the FTS5
//! sync) and the window changes of `close_assertion` / `narrow_assertion`.
//!
//! Spec: stores.md "SQLiteTripleStore" and "Shared behavior"; api.md "Layer 1".

use super::{BatchVectors, SQLiteTripleStore, codec, pin, schema};
use crate::error::Result;
use am_triples::TripleAssertion;
use am_triples::pin::{self as tpin, EmbeddingPin};
use am_triples::store as tstore;
use am_triples::text::{canonical_text, is_record_edge};
use rusqlite::{TransactionBehavior, params};
use std::collections::HashMap;

impl SQLiteTripleStore {
    /// The body of [`TripleStore::add`](am_triples::store::TripleStore::add).
    pub(super) fn add_rows(
        &self,
        assertions: &[TripleAssertion],
    ) -> am_triples::Result<Vec<String>> {
        let mut pending = assertions
            .iter()
            .map(TripleAssertion::canonicalized)
            .collect::<am_triples::Result<Vec<_>>>()?;
        if pending.is_empty() {
            return Ok(Vec::new());
        }
        for a in &mut pending {
            if a.assertion_id.is_none() {
                a.assertion_id = Some(uuid::Uuid::new_v4().to_string());
            }
        }
        let texts: Vec<String> = pending.iter().map(canonical_text).collect();
        let (vectors, dim) = self.embed_batch(&pending, &texts)?;
        if let Some(w) = self.insert_batch(&pending, &texts, &vectors, dim)? {
            self.push_warning(w);
        }
        Ok(pending.into_iter().filter_map(|a| a.assertion_id).collect())
    }

    /// The body of `close_assertion`.
    pub(super) fn close_row(
        &self,
        assertion_id: &str,
        valid_until: &str,
    ) -> am_triples::Result<bool> {
        let (id, end) = tstore::window_args(assertion_id, valid_until)?;
        Ok(self.change_window(&id, |current| Ok(tstore::close_rule(current, &end)))?)
    }

    /// The body of `narrow_assertion`.
    pub(super) fn narrow_row(
        &self,
        assertion_id: &str,
        valid_until: &str,
    ) -> am_triples::Result<bool> {
        let (id, end) = tstore::window_args(assertion_id, valid_until)?;
        Ok(self.change_window(&id, |current| tstore::narrow_rule(&id, current, &end))?)
    }

    /// Embed the non-edge rows of a canonical batch (before any transaction).
    fn embed_batch(
        &self,
        pending: &[TripleAssertion],
        canonical: &[String],
    ) -> Result<(BatchVectors, Option<usize>)> {
        let Some(embedder) = self.embedder() else {
            return Ok((HashMap::new(), None));
        };
        let embeddable: Vec<(usize, String)> = pending
            .iter()
            .enumerate()
            .filter(|(_, a)| !is_record_edge(a))
            .map(|(i, _)| (i, canonical[i].clone()))
            .collect();
        if embeddable.is_empty() {
            return Ok((HashMap::new(), None));
        }
        let texts: Vec<String> = embeddable.iter().map(|(_, t)| t.clone()).collect();
        let out = match embedder.embed_texts(&texts) {
            Ok(o) => o,
            Err(e) => {
                let pin = self.load_pin()?;
                return Err(e
                    .with_suffix(&EmbeddingPin::failure_suffix(pin.as_ref()))
                    .into());
            }
        };
        if out.len() != texts.len() {
            return Err(am_triples::Error::Embedder(format!(
                "embedder returned {} vectors for {} texts (zero rows written)",
                out.len(),
                texts.len()
            ))
            .into());
        }
        let dim = tpin::batch_dimension(&out)?;
        Ok((
            embeddable.into_iter().map(|(i, _)| i).zip(out).collect(),
            dim,
        ))
    }

    fn insert_batch(
        &self,
        pending: &[TripleAssertion],
        canonical: &[String],
        vectors: &HashMap<usize, Vec<f32>>,
        dim: Option<usize>,
    ) -> Result<Option<String>> {
        let embedder_model = self.embedder().and_then(|e| e.model_id());
        self.with_conn(|c| {
            let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
            let mut warning = None;
            if let Some(d) = dim {
                match pin::load(&tx, &self.table)? {
                    Some(mut p) => {
                        p.check_add_dimension(d)?;
                        if p.dimension.is_none() {
                            p.dimension = Some(d);
                            pin::store(&tx, &self.table, &p)?;
                        }
                    }
                    None => {
                        let p = tpin::build_pin(
                            embedder_model.as_deref(),
                            Some(d),
                            tpin::PIN_SOURCE_FIRST_WRITE,
                            Some(tpin::CLAIMED_BY_EMBEDDER_ATTRIBUTE),
                        )?;
                        warning = Some(format!(
                            "#FALLBACK: embedding pin created at FIRST WRITE ({}); this home predates \
                             creation-time pinning — creation pinning is the contract for new homes",
                            EmbeddingPin::note(Some(&p))
                        ));
                        pin::store(&tx, &self.table, &p)?;
                    }
                }
            }
            {
                let mut stmt = tx.prepare_cached(&format!(
                    "INSERT OR IGNORE INTO {} (assertion_id, subject, predicate, object, scope, owner_id, \
                     observed_at, valid_from, valid_until, confidence, provenance_json, attributes_json, \
                     text, embedding) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
                    self.table
                ))?;
                for (i, a) in pending.iter().enumerate() {
                    let prov = codec::encode_object(&a.provenance)
                        .map_err(|e| am_triples::Error::invalid(format!("provenance: {e}")))?;
                    let attrs = codec::encode_object(&a.attributes)
                        .map_err(|e| am_triples::Error::invalid(format!("attributes: {e}")))?;
                    stmt.execute(params![
                        a.assertion_id,
                        a.subject,
                        a.predicate,
                        a.object,
                        a.scope,
                        a.owner_id,
                        a.observed_at,
                        a.valid_from,
                        a.valid_until,
                        a.confidence,
                        prov.as_ref(),
                        attrs.as_ref(),
                        canonical[i],
                        vectors.get(&i).map(|v| codec::encode_f32(v)),
                    ])?;
                }
            }
            schema::sync_fts_index(&tx, &self.table)?;
            tx.commit()?;
            Ok(warning)
        })
    }

    /// Apply a window rule to one row's `valid_until` in one transaction.
    fn change_window(
        &self,
        id: &str,
        rule: impl FnOnce(Option<&str>) -> am_triples::Result<Option<String>>,
    ) -> Result<bool> {
        self.with_conn(|c| {
            let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
            let current: Option<Option<String>> = {
                let mut stmt = tx.prepare(&format!(
                    "SELECT valid_until FROM {} WHERE assertion_id = ?1",
                    self.table
                ))?;
                let mut rows = stmt.query([id])?;
                match rows.next()? {
                    None => None,
                    Some(r) => Some(r.get::<_, Option<String>>(0)?),
                }
            };
            let Some(current) = current else {
                return Ok(false);
            };
            let current = current
                .map(|s| am_triples::assertion::py_strip(&s).to_owned())
                .filter(|s| !s.is_empty());
            let Some(new_end) = rule(current.as_deref())? else {
                return Ok(false);
            };
            tx.execute(
                &format!(
                    "UPDATE {} SET valid_until = ?1 WHERE assertion_id = ?2",
                    self.table
                ),
                params![new_end, id],
            )?;
            tx.commit()?;
            Ok(true)
        })
    }
}
