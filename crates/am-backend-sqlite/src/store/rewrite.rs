//! The in-place rewrite of one record digest row (the one mutable cell of a
//! home): `object`, `attributes_json`, the canonical `text`, its FTS5 keyword
//! entry and its `embedding`, inside the caller's transaction
//! ([`SQLiteTripleStore::rewrite_row_in`]), and the in-process caches brought
//! up to date after the commit ([`SQLiteTripleStore::after_rewrite`]).
//!
//! Freshness of the other handles' caches: a rewrite that replaces a keyword
//! entry bumps `fts_generation`, one that replaces a vector bumps
//! `vector_generation`, in the same transaction; a handle whose cache was
//! built at another generation rebuilds it. The handle that wrote patches its
//! own caches in place instead (the matrix row, the mirror's postings), when
//! they were at the generation the rewrite moved from.
//!
//! Spec: stores.md "Shared behavior" ("The one mutable cell"); api.md
//! "Understanding: in-place rewrites and versions" (`rewrite_digest`: "one
//! transaction appends the version rows, updates the row, replaces its
//! keyword-index entry and writes its new vector").

use super::write::{keyword_indexed, require_transaction};
use super::{SQLiteTripleStore, codec, lock, schema};
use crate::error::Result;
use am_triples::rewrite::{PreparedRewrite, VectorChange, check_expected, rewritten_row};
use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};

/// What [`SQLiteTripleStore::rewrite_row_in`] changed, for the caches once
/// the caller has committed.
#[derive(Debug, Clone)]
pub struct RewrittenRow {
    rowid: i64,
    scope: String,
    owner_id: Option<String>,
    /// The vector generation the rewrite moved from and the row's new vector,
    /// when its vector changed.
    vector: Option<(i64, Option<Vec<f32>>)>,
    /// The keyword generation the rewrite moved from and the old and new
    /// indexed text, when its keyword entry changed.
    keywords: Option<(i64, Vec<u8>, Vec<u8>)>,
}

impl SQLiteTripleStore {
    /// Make a digest-row rewrite ready outside any transaction
    /// ([`am_triples::rewrite::prepare_rewrite`] with this store's embedder and
    /// pin, over the stored row).
    ///
    /// # Errors
    /// As `prepare_rewrite`; `Storage` when SQLite fails.
    pub fn prepare_rewrite_row(
        &self,
        rewrite: &am_triples::rewrite::DigestRewrite,
    ) -> Result<PreparedRewrite> {
        let (current, vectored) = self.with_conn(|c| {
            let row = self.read_row_in(c, &rewrite.assertion_id)?;
            let vectored: bool = c
                .prepare_cached(&format!(
                    "SELECT embedding IS NOT NULL FROM {} WHERE assertion_id = ?1",
                    self.state.table
                ))?
                .query_row([rewrite.assertion_id.trim()], |r| r.get(0))
                .optional()?
                .unwrap_or(false);
            Ok((row, vectored))
        })?;
        let pin = self.load_pin()?;
        Ok(am_triples::rewrite::prepare_rewrite(
            self.embedder().as_deref(),
            pin.as_ref(),
            current.as_ref(),
            vectored,
            rewrite,
        )?)
    }

    /// Rewrite one digest row inside the caller's open transaction (see the
    /// module's in-transaction contract in `write.rs`): the stored row must be
    /// the one the rewrite expected; its keyword entry is deleted with the
    /// text it was indexed with and inserted with the new text (rows below
    /// the `fts_high_water` cursor only; rows above it are indexed later from
    /// the new text), its columns updated, its vector written or cleared, and
    /// the generations bumped. Hand the result to [`Self::after_rewrite`]
    /// after the commit (drop it on rollback).
    ///
    /// # Errors
    /// `InvalidInput` outside a transaction; `NotFound` / `Conflict` when the
    /// row is gone or changed since it was read; `Storage`.
    pub fn rewrite_row_in(
        &self,
        tx: &Connection,
        prepared: &PreparedRewrite,
    ) -> Result<RewrittenRow> {
        require_transaction(tx, "rewrite_row_in")?;
        let table = &self.state.table;
        let rw = &prepared.rewrite;
        let current = self.read_row_in(tx, &rw.assertion_id)?;
        let current = check_expected(current.as_ref(), rw)?;
        let new_row = rewritten_row(current, rw);
        let (rowid, stored_text): (i64, Vec<u8>) = tx
            .prepare_cached(&format!(
                "SELECT rowid, CAST(COALESCE(text, '') AS BLOB) FROM {table} WHERE assertion_id = ?1"
            ))?
            .query_row([rw.assertion_id.trim()], |r| Ok((r.get(0)?, r.get(1)?)))?;
        let attributes_json = codec::encode_object(&rw.attributes)
            .map_err(|e| am_triples::Error::invalid(format!("attributes: {e}")))?
            .into_owned();
        let new_text = prepared.text.as_bytes().to_vec();
        let was_indexed = keyword_indexed(current);
        let is_indexed = keyword_indexed(&new_row);
        let fts_high_water = schema::meta_int(tx, table, schema::META_FTS_HIGH_WATER)?;
        let keyword_change = rowid <= fts_high_water
            && (was_indexed || is_indexed)
            && (was_indexed != is_indexed || stored_text != new_text);
        if keyword_change && was_indexed {
            tx.prepare_cached(&format!(
                "INSERT INTO {table}_fts ({table}_fts, rowid, text) VALUES ('delete', ?1, ?2)"
            ))?
            .execute(params![rowid, stored_text])?;
        }
        tx.prepare_cached(&format!(
            "UPDATE {table} SET object = ?1, attributes_json = ?2, text = ?3 WHERE rowid = ?4"
        ))?
        .execute(params![rw.object, attributes_json, prepared.text, rowid])?;
        let vector = match &prepared.vector {
            VectorChange::Keep => None,
            change => {
                let v = match change {
                    VectorChange::Set(v) => Some(v.clone()),
                    _ => None,
                };
                tx.prepare_cached(&format!(
                    "UPDATE {table} SET embedding = ?1 WHERE rowid = ?2"
                ))?
                .execute(params![v.as_deref().map(codec::encode_f32), rowid])?;
                let generation = schema::meta_int(tx, table, schema::META_VECTOR_GENERATION)?;
                schema::bump_vector_generation(tx, table)?;
                Some((generation, v))
            }
        };
        if keyword_change && is_indexed {
            tx.prepare_cached(&format!(
                "INSERT INTO {table}_fts (rowid, text) VALUES (?1, ?2)"
            ))?
            .execute(params![rowid, prepared.text])?;
        }
        let keywords = if keyword_change {
            let generation = schema::meta_int(tx, table, schema::META_FTS_GENERATION)?;
            schema::meta_set(
                tx,
                table,
                schema::META_FTS_GENERATION,
                &(generation + 1).to_string(),
            )?;
            let old = if was_indexed { stored_text } else { Vec::new() };
            let new = if is_indexed { new_text } else { Vec::new() };
            Some((generation, old, new))
        } else {
            None
        };
        Ok(RewrittenRow {
            rowid,
            scope: current.scope.clone(),
            owner_id: current.owner_id.clone(),
            vector,
            keywords,
        })
    }

    /// Bring this handle's caches up to date with a committed rewrite: the
    /// matrix cache's row and the keyword mirror's postings are patched in
    /// place when they were built at the generation the rewrite moved from;
    /// otherwise (or when a patch cannot be exact) they rebuild on their next
    /// use.
    pub fn after_rewrite(&self, done: RewrittenRow) {
        if let Some((generation, v)) = &done.vector {
            let mut cache = lock(&self.state.cache);
            if let Some(c) = cache.as_mut() {
                c.patch_row(
                    *generation,
                    done.rowid,
                    v.as_deref(),
                    &done.scope,
                    done.owner_id.as_deref(),
                );
            }
        }
        if let Some((generation, old, new)) = &done.keywords {
            let mut mirror = lock(&self.state.keywords);
            if let Some(m) = mirror.as_mut() {
                m.patch_row(*generation, done.rowid, old, new);
            }
        }
    }

    /// [`TripleStore::apply_digest_rewrite`](am_triples::TripleStore::apply_digest_rewrite):
    /// [`Self::rewrite_row_in`] in one `BEGIN IMMEDIATE` transaction of its own,
    /// the guard called at `point` before the COMMIT.
    pub(super) fn apply_rewrite(
        &self,
        prepared: &PreparedRewrite,
        point: am_triples::CommitPoint,
    ) -> Result<()> {
        let _write = self.state.home.write_lock().write();
        let done = self.with_conn(|c| {
            let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
            let done = self.rewrite_row_in(&tx, prepared)?;
            self.state.guard.check(point)?;
            tx.commit()?;
            Ok(done)
        })?;
        self.after_rewrite(done);
        Ok(())
    }
}
