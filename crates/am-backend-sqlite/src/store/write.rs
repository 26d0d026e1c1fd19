//! The store's write path: `add` (canonicalize, embed outside any transaction,
//! insert in one `BEGIN IMMEDIATE` transaction with the pin check and the FTS5
//! keyword rows) and the window changes of `close_assertion` /
//! `narrow_assertion`, plus the same steps exposed for a caller that owns the
//! transaction (the memory graph, the memory system's one-transaction formation):
//! [`SQLiteTripleStore::prepare_rows`], [`SQLiteTripleStore::insert_prepared_in`],
//! [`SQLiteTripleStore::end_row_in`], [`SQLiteTripleStore::narrow_row_in`] and
//! [`SQLiteTripleStore::read_row_in`].
//!
//! Spec: stores.md "SQLiteTripleStore" and "Shared behavior"; api.md "Layer 1".
//!
//! # The in-transaction contract
//! Every `*_in` function takes `tx`, the home's connection inside a transaction
//! the caller opened and will commit or roll back. The caller must hold the
//! home's connection lock (`SqliteHome::conn()`, locked) for the whole
//! transaction, and open it `BEGIN IMMEDIATE`
//! (`conn.transaction_with_behavior(TransactionBehavior::Immediate)`) so the pin
//! check and the keyword-index cursor read what no other writer can change before
//! the commit. Nothing these functions write is visible to another connection
//! before the caller commits, and a rollback undoes all of it (rows, keyword
//! rows, the first-write pin, the cursor). A connection in autocommit mode (no
//! open transaction) is refused with `InvalidInput`, nothing written.

use super::{BatchVectors, SQLiteTripleStore, codec, pin, schema};
use crate::error::Result;
use am_triples::TripleAssertion;
use am_triples::pin::{self as tpin, EmbeddingPin};
use am_triples::store as tstore;
use am_triples::text::canonical_text;
use rusqlite::{Connection, TransactionBehavior, params};
use serde_json::Value;
use std::collections::HashSet;

/// One row of a [`PreparedRows`] batch: the canonical assertion with its id,
/// its canonical text, its encoded JSON maps and its float32 vector bytes.
#[derive(Debug, Clone)]
struct PreparedRow {
    assertion: TripleAssertion,
    text: String,
    provenance_json: String,
    attributes_json: String,
    embedding: Option<Vec<u8>>,
    keyword_indexed: bool,
}

/// A write batch made ready OUTSIDE any transaction by
/// [`SQLiteTripleStore::prepare_rows`]: every assertion canonicalized, given its
/// id (a fresh UUID v4 when none was supplied), its canonical text (the `text`
/// column and the FTS5 row), its `provenance_json` / `attributes_json`, and its
/// float32 vector (non-edge rows, when the store has an embedder). Inserting it
/// ([`SQLiteTripleStore::insert_prepared_in`]) does no embedding and no
/// encoding, so the caller's transaction holds the write lock only for the
/// inserts.
#[derive(Debug, Clone, Default)]
pub struct PreparedRows {
    rows: Vec<PreparedRow>,
    /// The batch's vector dimension (`None`: no vectors).
    dim: Option<usize>,
    /// The embedder's model id, for a first-write pin.
    embedder_model: Option<String>,
    /// The `#FALLBACK` warning of rows whose text embedded to the zero vector
    /// (they are stored without a vector).
    zero_vector_warning: Option<String>,
}

impl PreparedRows {
    /// Number of rows in the batch.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// Whether the batch holds no row.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The canonical assertions, in input order, each with its `assertion_id`.
    pub fn assertions(&self) -> impl Iterator<Item = &TripleAssertion> {
        self.rows.iter().map(|r| &r.assertion)
    }

    /// The assertion ids, in input order (what `add` returns).
    pub fn assertion_ids(&self) -> Vec<String> {
        self.rows
            .iter()
            .map(|r| r.assertion.assertion_id.clone().unwrap_or_default())
            .collect()
    }

    /// The vector dimension of the batch (`None` when no row carries a vector).
    pub fn dimension(&self) -> Option<usize> {
        self.dim
    }

    /// The vectors the rows will be stored with, by assertion id (a row
    /// without a vector is absent).
    pub fn vectors(&self) -> std::collections::HashMap<String, Vec<f32>> {
        self.rows
            .iter()
            .filter_map(|r| {
                let bytes = r.embedding.as_ref()?;
                let v = bytes
                    .chunks_exact(4)
                    .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                    .collect();
                Some((r.assertion.assertion_id.clone()?, v))
            })
            .collect()
    }
}

/// What [`SQLiteTripleStore::insert_prepared_in`] did inside the caller's
/// transaction (none of it visible before the caller commits).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct InsertedRows {
    /// The batch's assertion ids in input order (ids that already existed
    /// included, as `add` returns them).
    pub ids: Vec<String>,
    /// Rows actually inserted (`INSERT OR IGNORE`: an existing id is skipped).
    pub written: usize,
    /// Warnings to report once the caller commits (the `#FALLBACK` of a
    /// first-write pin, of rows stored without a vector because their text
    /// embedded to the zero vector); hand them to [`SQLiteTripleStore::record_warnings`]
    /// after the commit so `take_warnings` reports them, drop them on rollback.
    pub warnings: Vec<String>,
}

/// Whether AbstractMemory 0.3.2's keyword index takes a row: any non-null
/// `attributes.record_edge` or `attributes.bookkeeping` keeps it out (the
/// `json_extract(...) IS NULL` test of `schema::sync_fts_index`).
pub(super) fn keyword_indexed(a: &TripleAssertion) -> bool {
    let absent = |k: &str| matches!(a.attributes.get(k), None | Some(Value::Null));
    absent("record_edge") && absent("bookkeeping")
}

/// Canonicalize a write batch and give each assertion without an id a fresh
/// UUID v4 (the first step of `add`).
fn canonical_batch(assertions: &[TripleAssertion]) -> Result<Vec<TripleAssertion>> {
    let mut pending = assertions
        .iter()
        .map(TripleAssertion::canonicalized)
        .collect::<am_triples::Result<Vec<_>>>()?;
    for a in &mut pending {
        if a.assertion_id.is_none() {
            a.assertion_id = Some(uuid::Uuid::new_v4().to_string());
        }
    }
    Ok(pending)
}

/// Refuse a connection that is not inside a transaction.
pub(super) fn require_transaction(tx: &Connection, what: &str) -> Result<()> {
    if tx.is_autocommit() {
        return Err(am_triples::Error::invalid(format!(
            "{what} expects the home's connection inside an open transaction (BEGIN IMMEDIATE, \
             the caller commits), got a connection in autocommit mode; nothing written"
        ))
        .into());
    }
    Ok(())
}

impl SQLiteTripleStore {
    /// The body of [`TripleStore::add_with_warnings`](am_triples::store::TripleStore::add_with_warnings):
    /// [`Self::prepare_rows`], then one `BEGIN IMMEDIATE` transaction of
    /// [`Self::insert_prepared_in`].
    pub(super) fn add_rows(
        &self,
        assertions: &[TripleAssertion],
    ) -> am_triples::Result<am_triples::Added> {
        let prepared = self.prepare_rows(assertions)?;
        if prepared.is_empty() {
            return Ok(am_triples::Added::default());
        }
        let _write = self.state.home.write_lock().write();
        let inserted = self.with_conn(|c| {
            let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
            let inserted = self.insert_prepared_in(&tx, &prepared)?;
            self.state.guard.check(am_triples::CommitPoint::StoreAdd)?;
            tx.commit()?;
            Ok(inserted)
        })?;
        Ok(am_triples::Added {
            ids: inserted.ids,
            warnings: inserted.warnings,
        })
    }

    /// Make a batch ready for a caller's transaction, skipping the rows already
    /// stored (the SQLite home's `prepare_rows`,
    /// [`crate::SqliteMemoryHome`]): canonicalize every row and give it its id
    /// ([`Self::prepare_rows`]'s rules), then prepare (embed) only the rows whose
    /// `assertion_id` is not stored yet, outside any transaction (a stored row is
    /// neither embedded nor written again). Returns every row's id in input order
    /// (as `add` returns them) and the prepared fresh rows.
    ///
    /// # Errors
    /// As [`Self::prepare_rows`]; `Storage` when the stored-id probe fails.
    pub fn prepare_fresh_rows(
        &self,
        rows: &[TripleAssertion],
    ) -> Result<(Vec<String>, PreparedRows)> {
        let pending = canonical_batch(rows)?;
        let ids: Vec<String> = pending
            .iter()
            .map(|a| a.assertion_id.clone().unwrap_or_default())
            .collect();
        // Rows already stored are neither embedded again nor re-inserted.
        let stored = self.stored_ids(&ids.iter().map(String::as_str).collect::<Vec<_>>())?;
        let fresh = pending
            .into_iter()
            .filter(|a| {
                a.assertion_id
                    .as_ref()
                    .is_none_or(|id| !stored.contains(id))
            })
            .collect();
        let prepared = self.prepare_canonical(fresh)?;
        Ok((ids, prepared))
    }

    /// Make a write batch ready outside any transaction (spec: stores.md
    /// "Shared behavior", `add`): canonicalize every assertion (the rules of
    /// [`TripleAssertion::canonicalized`]), give each without an id a fresh UUID
    /// v4, compute its canonical text, encode its JSON maps, and embed the
    /// non-edge rows with the store's embedder (if any). A row whose text embeds
    /// to the zero vector is kept without a vector and the batch carries one
    /// `#FALLBACK` warning ([`am_triples::embed::embedded_batch`]). Takes no lock
    /// on the home.
    ///
    /// # Errors
    /// `InvalidInput` for an assertion canonicalization refuses or a vector that
    /// is empty, NaN or infinite; `DimensionMismatch` for a batch mixing
    /// dimensions; `Embedder` when the embedder fails (the message names the
    /// store's pin). Nothing is written in any case.
    pub fn prepare_rows(&self, assertions: &[TripleAssertion]) -> Result<PreparedRows> {
        self.prepare_canonical(canonical_batch(assertions)?)
    }

    /// The ids of `ids` already stored (one primary-key probe each, one
    /// statement; outside any transaction).
    fn stored_ids(&self, ids: &[&str]) -> Result<HashSet<String>> {
        if ids.is_empty() {
            return Ok(HashSet::new());
        }
        let list = serde_json::to_string(ids)
            .map_err(|e| am_triples::Error::storage(format!("id list: {e}")))?;
        self.with_conn(|c| {
            let mut stmt = c.prepare_cached(&format!(
                "SELECT assertion_id FROM {} WHERE assertion_id IN (SELECT value FROM json_each(?1))",
                self.state.table
            ))?;
            let found = stmt
                .query_map([list], |r| r.get::<_, String>(0))?
                .collect::<rusqlite::Result<HashSet<_>>>()?;
            Ok(found)
        })
    }

    /// [`Self::prepare_rows`] of a batch already canonicalized with its ids.
    fn prepare_canonical(&self, pending: Vec<TripleAssertion>) -> Result<PreparedRows> {
        if pending.is_empty() {
            return Ok(PreparedRows::default());
        }
        let texts: Vec<String> = pending.iter().map(canonical_text).collect();
        let (mut vectors, dim, zero_vector_warning) = self.embed_batch(&pending, &texts)?;
        let embedder_model = if dim.is_some() {
            self.embedder().and_then(|e| e.model_id())
        } else {
            None
        };
        let mut rows = Vec::with_capacity(pending.len());
        for (i, (a, text)) in pending.into_iter().zip(texts).enumerate() {
            let provenance_json = codec::encode_object(&a.provenance)
                .map_err(|e| am_triples::Error::invalid(format!("provenance: {e}")))?
                .into_owned();
            let attributes_json = codec::encode_object(&a.attributes)
                .map_err(|e| am_triples::Error::invalid(format!("attributes: {e}")))?
                .into_owned();
            rows.push(PreparedRow {
                keyword_indexed: keyword_indexed(&a),
                embedding: vectors.remove(&i).map(|v| codec::encode_f32(&v)),
                assertion: a,
                text,
                provenance_json,
                attributes_json,
            });
        }
        Ok(PreparedRows {
            rows,
            dim,
            embedder_model,
            zero_vector_warning,
        })
    }

    /// Insert a prepared batch inside the caller's transaction `tx` (see the
    /// module's "in-transaction contract": the home's connection, its lock held,
    /// `BEGIN IMMEDIATE` open; the caller commits or rolls back).
    ///
    /// In order: the embedding-pin check of a vectored batch (a stored pin's
    /// dimension must match; a pinless store gets its first-write pin, whose
    /// `#FALLBACK` warning is returned in [`InsertedRows::warnings`]); the rows,
    /// `INSERT OR IGNORE` (an existing `assertion_id` is skipped, keeping the
    /// stored row); the FTS5 keyword rows of the inserted rows (record edges and
    /// bookkeeping rows excluded, as AbstractMemory 0.3.2 excludes them) and the
    /// `fts_high_water` cursor. When rows written by another writer sit above the
    /// cursor, the keyword index is brought up to date by the scan
    /// [`schema::sync_fts_index`] instead (same rows).
    ///
    /// # Errors
    /// `InvalidInput` when `tx` is not inside a transaction; `DimensionMismatch`
    /// when the batch's dimension contradicts the stored pin; `Storage` when
    /// SQLite fails. On an error the caller must roll back (the transaction may
    /// hold part of the batch).
    pub fn insert_prepared_in(&self, tx: &Connection, rows: &PreparedRows) -> Result<InsertedRows> {
        require_transaction(tx, "insert_prepared_in")?;
        let mut warnings = Vec::new();
        if let Some(d) = rows.dim {
            match pin::load(tx, &self.state.table)? {
                Some(mut p) => {
                    p.check_add_dimension(d)?;
                    if p.dimension.is_none() {
                        p.dimension = Some(d);
                        pin::store(tx, &self.state.table, &p)?;
                    }
                }
                None => {
                    let p = tpin::build_pin(
                        rows.embedder_model.as_deref(),
                        Some(d),
                        tpin::PIN_SOURCE_FIRST_WRITE,
                        Some(tpin::CLAIMED_BY_EMBEDDER_ATTRIBUTE),
                    )?;
                    warnings.push(format!(
                        "#FALLBACK: embedding pin created at FIRST WRITE ({}); this home predates \
                         creation-time pinning — creation pinning is the contract for new homes",
                        EmbeddingPin::note(Some(&p))
                    ));
                    pin::store(tx, &self.state.table, &p)?;
                }
            }
        }
        warnings.extend(rows.zero_vector_warning.clone());
        let ids = rows.assertion_ids();
        if rows.is_empty() {
            return Ok(InsertedRows {
                ids,
                written: 0,
                warnings,
            });
        }
        let high_water = schema::meta_int(tx, &self.state.table, schema::META_FTS_HIGH_WATER)?;
        let max_before: i64 = tx
            .prepare_cached(&format!(
                "SELECT COALESCE(MAX(rowid), 0) FROM {}",
                self.state.table
            ))?
            .query_row([], |r| r.get(0))?;
        let mut written = 0usize;
        let mut keyword_rows: Vec<(i64, &str)> = Vec::new();
        {
            let mut stmt = tx.prepare_cached(&format!(
                "INSERT OR IGNORE INTO {} (assertion_id, subject, predicate, object, scope, owner_id, \
                 observed_at, valid_from, valid_until, confidence, provenance_json, attributes_json, \
                 text, embedding) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
                self.state.table
            ))?;
            for r in &rows.rows {
                let a = &r.assertion;
                let n = stmt.execute(params![
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
                    r.provenance_json,
                    r.attributes_json,
                    r.text,
                    r.embedding,
                ])?;
                if n > 0 {
                    written += n;
                    if r.keyword_indexed {
                        keyword_rows.push((tx.last_insert_rowid(), r.text.as_str()));
                    }
                }
            }
        }
        if high_water < max_before {
            // Rows another writer left unindexed sit above the cursor: the scan
            // indexes them and ours alike.
            schema::sync_fts_index(tx, &self.state.table)?;
        } else if written > 0 {
            let mut stmt = tx.prepare_cached(&format!(
                "INSERT INTO {}_fts (rowid, text) VALUES (?1, ?2)",
                self.state.table
            ))?;
            for (rowid, text) in &keyword_rows {
                stmt.execute(params![rowid, text])?;
            }
            let new_high: i64 = tx
                .prepare_cached(&format!(
                    "SELECT COALESCE(MAX(rowid), 0) FROM {}",
                    self.state.table
                ))?
                .query_row([], |r| r.get(0))?;
            schema::meta_set(
                tx,
                &self.state.table,
                schema::META_FTS_HIGH_WATER,
                &new_high.max(high_water).to_string(),
            )?;
        }
        Ok(InsertedRows {
            ids,
            written,
            warnings,
        })
    }

    /// Report warnings of a committed in-transaction write (an
    /// [`InsertedRows::warnings`]) through this store's `take_warnings`.
    pub fn record_warnings(&self, warnings: impl IntoIterator<Item = String>) {
        for w in warnings {
            self.push_warning(w);
        }
    }

    /// `close_assertion` inside the caller's transaction (module contract):
    /// set `valid_until` of the row `assertion_id` when its window is open.
    /// Returns `true` when the row changed; `false` for an unknown id or an
    /// already closed window.
    ///
    /// # Errors
    /// `InvalidInput` for an empty id, a `valid_until` that is not a timestamp, or
    /// `tx` outside a transaction; `Storage` when SQLite fails.
    pub fn end_row_in(
        &self,
        tx: &Connection,
        assertion_id: &str,
        valid_until: &str,
    ) -> Result<bool> {
        require_transaction(tx, "end_row_in")?;
        let (id, end) = tstore::window_args(assertion_id, valid_until)?;
        self.change_window_in(tx, &id, |current| Ok(tstore::close_rule(current, &end)))
    }

    /// `narrow_assertion` inside the caller's transaction (module contract):
    /// move `valid_until` earlier. Returns `true` when the row changed; `false`
    /// for an unknown id or an end that is not strictly earlier.
    ///
    /// # Errors
    /// `InvalidInput` for an empty id, a non-timestamp, an open window (closing
    /// is [`Self::end_row_in`]'s job), or `tx` outside a transaction; `Storage`
    /// when SQLite fails.
    pub fn narrow_row_in(
        &self,
        tx: &Connection,
        assertion_id: &str,
        valid_until: &str,
    ) -> Result<bool> {
        require_transaction(tx, "narrow_row_in")?;
        let (id, end) = tstore::window_args(assertion_id, valid_until)?;
        self.change_window_in(tx, &id, |current| tstore::narrow_rule(&id, current, &end))
    }

    /// The row `assertion_id` as the caller's transaction sees it (its own
    /// uncommitted writes included), decoded as a structured read decodes it;
    /// `None` for an unknown or blank id. Needs the connection lock but not a
    /// transaction.
    ///
    /// # Errors
    /// `Storage` when SQLite fails.
    pub fn read_row_in(
        &self,
        tx: &Connection,
        assertion_id: &str,
    ) -> Result<Option<TripleAssertion>> {
        let id = am_triples::assertion::py_strip(assertion_id);
        if id.is_empty() {
            return Ok(None);
        }
        let mut stmt = tx.prepare_cached(&format!(
            "SELECT {} FROM {} WHERE assertion_id = ?1",
            codec::ASSERTION_COLUMNS,
            self.state.table
        ))?;
        let mut rows = stmt.query([id])?;
        Ok(match rows.next()? {
            None => None,
            Some(r) => Some(codec::row_to_assertion(r)?.1),
        })
    }

    /// The body of `close_assertion`: [`Self::end_row_in`] in one transaction.
    pub(super) fn close_row(
        &self,
        assertion_id: &str,
        valid_until: &str,
    ) -> am_triples::Result<bool> {
        let (id, end) = tstore::window_args(assertion_id, valid_until)?;
        Ok(self.change_window(
            &id,
            am_triples::CommitPoint::StoreCloseAssertion,
            |current| Ok(tstore::close_rule(current, &end)),
        )?)
    }

    /// The body of `narrow_assertion`: [`Self::narrow_row_in`] in one transaction.
    pub(super) fn narrow_row(
        &self,
        assertion_id: &str,
        valid_until: &str,
    ) -> am_triples::Result<bool> {
        let (id, end) = tstore::window_args(assertion_id, valid_until)?;
        Ok(self.change_window(
            &id,
            am_triples::CommitPoint::StoreNarrowAssertion,
            |current| tstore::narrow_rule(&id, current, &end),
        )?)
    }

    /// Embed the non-edge rows of a canonical batch (before any transaction):
    /// the vectors by batch index, their dimension, and the `#FALLBACK` warning
    /// of rows whose text embedded to the zero vector (stored without one).
    fn embed_batch(
        &self,
        pending: &[TripleAssertion],
        canonical: &[String],
    ) -> Result<(BatchVectors, Option<usize>, Option<String>)> {
        let embedded = tstore::embed_rows(self.embedder().as_deref(), pending, canonical, || {
            self.load_pin().map_err(Into::into)
        })?;
        let vectors = embedded
            .vectors
            .into_iter()
            .enumerate()
            .filter_map(|(i, v)| v.map(|v| (i, v)))
            .collect();
        Ok((vectors, embedded.dimension, embedded.warning))
    }

    /// Apply a window rule to one row's `valid_until` in one transaction.
    fn change_window(
        &self,
        id: &str,
        point: am_triples::CommitPoint,
        rule: impl FnOnce(Option<&str>) -> am_triples::Result<Option<String>>,
    ) -> Result<bool> {
        let _write = self.state.home.write_lock().write();
        self.with_conn(|c| {
            let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
            let changed = self.change_window_in(&tx, id, rule)?;
            if changed {
                self.state.guard.check(point)?;
                tx.commit()?;
            }
            Ok(changed)
        })
    }

    /// Apply a window rule to one row's `valid_until` inside `tx`.
    fn change_window_in(
        &self,
        tx: &Connection,
        id: &str,
        rule: impl FnOnce(Option<&str>) -> am_triples::Result<Option<String>>,
    ) -> Result<bool> {
        let current: Option<Option<String>> = {
            let mut stmt = tx.prepare_cached(&format!(
                "SELECT valid_until FROM {} WHERE assertion_id = ?1",
                self.state.table
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
        tx.prepare_cached(&format!(
            "UPDATE {} SET valid_until = ?1 WHERE assertion_id = ?2",
            self.state.table
        ))?
        .execute(params![new_end, id])?;
        Ok(true)
    }
}
