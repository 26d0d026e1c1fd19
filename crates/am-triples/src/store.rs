//! The `TripleStore` trait, its `Capabilities`, its optional
//! `ReadAccelerator` (with the fallbacks a store without one gets), and the
//! window rules every store shares (`close_assertion`, `narrow_assertion`).
//!
//! Spec: api.md "TripleStore protocol and the three stores"; stores.md "Shared
//! behavior".

use crate::assertion::{JsonMap, TripleAssertion, py_strip};
use crate::embed::TextEmbedder;
use crate::error::{Error, Result};
use crate::lent::{Lent, lend_map_keys, lend_text_keys};
use crate::pin::EmbeddingPin;
use crate::query::TripleQuery;
use crate::timestamp;
use std::collections::HashSet;

/// What a store offers beyond `add`/`query`/`close`. The conformance suite selects
/// its checks from these; a behaviour that legitimately differs is a capability.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Capabilities {
    /// `close_assertion` sets an open window's end in place.
    pub close_assertion: bool,
    /// `narrow_assertion` moves a closed window's end earlier in place.
    pub narrow_assertion: bool,
    /// `assertions_after` serves a bounded change feed.
    pub change_feed: bool,
    /// `query_text` / `query_vector` rank by cosine.
    pub vector_search: bool,
    /// A record's digest row can be rewritten in place (layer-2 understanding verbs).
    pub digest_rewrite: bool,
    /// The data survives the process.
    pub persistent: bool,
    /// Several processes may write one home with serialized writers.
    pub cross_process_writers: bool,
}

/// What [`TripleStore::add_with_warnings`] wrote: the ids in input order
/// (rows already stored included) and the warnings this write raised.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Added {
    /// Every row's assertion id, in input order.
    pub ids: Vec<String>,
    /// The `#FALLBACK` warnings of this write, in order.
    pub warnings: Vec<String>,
}

/// One page of the change feed: `(position, assertion)` rows and the next cursor.
#[derive(Debug, Clone, PartialEq)]
pub struct FeedPage {
    /// Rows strictly after the cursor, in insertion (rowid) order.
    pub rows: Vec<(i64, TripleAssertion)>,
    /// The cursor to pass next (unchanged when nothing is new).
    pub next_cursor: i64,
}

/// The default page size of `assertions_after`.
pub const DEFAULT_FEED_LIMIT: usize = 1000;

/// An append-only triple store: the minimal contract every store keeps.
/// The reads a store can only answer faster (from an index of its own) are
/// not part of it: they are the optional [`ReadAccelerator`], found through
/// [`TripleStore::accelerator`] and called on a `dyn TripleStore` with their
/// fallbacks.
///
/// # Contract
/// - `add` canonicalizes every assertion ([`TripleAssertion::canonicalized`]),
///   stamps an id on those without one (uuid4), and returns the ids in input
///   order. A refused batch (bad timestamp, bad vector, wrong dimension, embedder
///   failure) writes zero rows.
/// - `query` applies every filter of [`TripleQuery`]; non-semantic results order
///   by `observed_at` in the query's direction, ties by insertion order in the same
///   direction, then apply `limit` (`<= 0` unbounded).
/// - Semantic queries rank by the reference cosine, ties by insertion order (oldest
///   first), drop scores below `min_score`, and stamp `attributes._retrieval`
///   `{score, metric: "cosine"}`. `query_text` without an embedder is
///   `InvalidInput` naming the missing embedder (no keyword fallback).
/// - NaN, infinite and empty vectors are refused at write and at query; a
///   caller's zero-norm query vector is refused. An embedder's zero vector for a
///   row at write (a text with no known token) stores that row without a
///   vector, with one `#FALLBACK` warning per batch ([`embedded_batch`](crate::embed::embedded_batch)).
/// - There is no delete. The only in-place changes are the window ones below
///   and, with the `digest_rewrite` capability, a record digest row's reading
///   ([`TripleStore::apply_digest_rewrite`]: object, attributes, canonical text,
///   keyword entry, vector; never its id, terms, scope, owner or times).
pub trait TripleStore: Send + Sync {
    /// What this store offers.
    fn capabilities(&self) -> Capabilities;

    /// Append assertions; returns their ids in input order.
    ///
    /// # Errors
    /// `InvalidInput` for bad timestamps or vectors, `DimensionMismatch` against
    /// the pin, `Embedder` when embedding fails; nothing is written on error.
    fn add(&self, assertions: &[TripleAssertion]) -> Result<Vec<String>>;

    /// [`TripleStore::add`], returning the `#FALLBACK` warnings this very
    /// write raised (a first-write pin, a row stored without a vector) with
    /// its ids instead of leaving them for [`TripleStore::take_warnings`], so
    /// a caller never reads another thread's warnings. Layer 2 writes through
    /// this one.
    ///
    /// The default calls `add` then drains `take_warnings` (right for a
    /// store used by one thread); the stores of this workspace override it.
    ///
    /// # Errors
    /// As [`TripleStore::add`].
    fn add_with_warnings(&self, assertions: &[TripleAssertion]) -> Result<Added> {
        let ids = self.add(assertions)?;
        Ok(Added {
            ids,
            warnings: self.take_warnings(),
        })
    }

    /// Read assertions matching `q`.
    ///
    /// # Errors
    /// `InvalidInput` for a bad query (timestamps, vectors, `query_text` without
    /// an embedder); `DimensionMismatch` for a query vector against the pin.
    fn query(&self, q: &TripleQuery) -> Result<Vec<TripleAssertion>>;

    /// Release resources. Idempotent.
    ///
    /// # Errors
    /// `Storage` when the backend fails to close cleanly.
    fn close(&self) -> Result<()>;

    /// Set `valid_until` on an assertion whose window is open. `true` when a row
    /// changed; `false` for an unknown id or an already-closed window.
    ///
    /// # Errors
    /// `InvalidInput` for an empty id or a `valid_until` that is not a timestamp;
    /// `Unsupported` when the store does not offer it.
    fn close_assertion(&self, assertion_id: &str, valid_until: &str) -> Result<bool> {
        let _ = (assertion_id, valid_until);
        Err(Error::unsupported(
            "close_assertion is not offered by this store",
        ))
    }

    /// Move an already-closed window's end earlier. `true` when it moved; `false`
    /// for an unknown id or an end already at or before `valid_until` (instants).
    ///
    /// # Errors
    /// `InvalidInput` for an open window, an empty argument or a non-timestamp;
    /// `Unsupported` when the store does not offer it.
    fn narrow_assertion(&self, assertion_id: &str, valid_until: &str) -> Result<bool> {
        let _ = (assertion_id, valid_until);
        Err(Error::unsupported(
            "narrow_assertion is not offered by this store",
        ))
    }

    /// The change feed: rows strictly after `cursor` in insertion order, at most
    /// `limit`, optionally within one scope and owner.
    ///
    /// # Errors
    /// `InvalidInput` for `limit == 0`; `Unsupported` without the capability.
    fn assertions_after(
        &self,
        cursor: i64,
        scope: Option<&str>,
        owner_id: Option<&str>,
        limit: usize,
    ) -> Result<FeedPage> {
        let _ = (cursor, scope, owner_id, limit);
        Err(Error::unsupported(
            "assertions_after is not offered by this store",
        ))
    }

    /// The change feed's head: the cursor after the newest row (0 when the
    /// store is empty), the `next_cursor` a read of the whole feed ends at. A
    /// reader that keeps its state from other reads starts following the
    /// feed here. The default reads the feed to its end.
    ///
    /// # Errors
    /// As [`TripleStore::assertions_after`].
    fn feed_head(&self) -> Result<i64> {
        let mut cursor = 0;
        loop {
            let page = self.assertions_after(cursor, None, None, 10_000)?;
            if page.rows.is_empty() {
                return Ok(page.next_cursor.max(cursor));
            }
            cursor = page.next_cursor;
        }
    }

    /// Make a digest-row rewrite ready outside any transaction
    /// ([`crate::rewrite::prepare_rewrite`]: the new canonical text, and its
    /// vector computed with this store's own embedder). Writes nothing.
    ///
    /// # Errors
    /// `Unsupported` when the store has no `digest_rewrite` capability (the
    /// default); `NotFound` / `Conflict` for a row that is not stored or
    /// differs from the expected one; `Embedder`, `DimensionMismatch`.
    fn prepare_digest_rewrite(
        &self,
        rewrite: &crate::rewrite::DigestRewrite,
    ) -> Result<crate::rewrite::PreparedRewrite> {
        let _ = rewrite;
        Err(Error::unsupported(
            "digest rewrite in place is not offered by this store (no digest_rewrite capability)",
        ))
    }

    /// Apply a prepared digest-row rewrite as one write of its own (its own
    /// transaction, its commit guard called at `point`): the row's `object`,
    /// `attributes`, canonical text, keyword entry and vector. A home
    /// transaction writes it through `StoreTx` instead, with the journal's
    /// version rows.
    ///
    /// # Errors
    /// `Unsupported` without the capability (the default); `Conflict` when the
    /// stored row differs from the expected one, `NotFound` when it is gone;
    /// the guard's refusal. Nothing is written on error.
    fn apply_digest_rewrite(
        &self,
        prepared: &crate::rewrite::PreparedRewrite,
        point: crate::CommitPoint,
    ) -> Result<()> {
        let _ = (prepared, point);
        Err(Error::unsupported(
            "digest rewrite in place is not offered by this store (no digest_rewrite capability)",
        ))
    }

    /// The stored vector of one assertion, if any.
    ///
    /// # Errors
    /// `Storage` on backend failure.
    fn stored_vector(&self, assertion_id: &str) -> Result<Option<Vec<f32>>> {
        let _ = assertion_id;
        Ok(None)
    }

    /// Whether this store keeps a file meta sidecar ([`TripleStore::file_meta`]);
    /// `false` (the default) for stores without a file.
    fn has_file_meta(&self) -> bool {
        false
    }

    /// One key of the store file's meta sidecar (`{table}_meta`), as stored;
    /// `None` when absent or when the store keeps no sidecar. A pure read
    /// (the operator's reads look for the `compaction` history here).
    ///
    /// # Errors
    /// `Storage` on backend failure.
    fn file_meta(&self, key: &str) -> Result<Option<String>> {
        let _ = key;
        Ok(None)
    }

    /// Swap every stored vector for `vectors` (assertion id → vector) in one
    /// step, all or nothing: rows absent from `vectors` become vectorless,
    /// the new `pin` is written last, and `embedder` (when given) becomes the
    /// live embedder. A zero vector leaves its row vectorless with one
    /// `#FALLBACK` warning, as `add` does. Returns the rows that now hold a
    /// vector. The default refuses: the store has no atomic vector swap.
    ///
    /// # Errors
    /// `Unsupported` by default; `InvalidInput` for an empty, NaN or
    /// infinite vector; `DimensionMismatch` for mixed dimensions or one other
    /// than the pin's; `Refused` when `embedder` contradicts `pin`;
    /// `Conflict` when the store no longer holds `expected_row_count` rows.
    /// Nothing is written on error.
    fn replace_vectors(
        &self,
        vectors: &std::collections::HashMap<String, Vec<f32>>,
        pin: &EmbeddingPin,
        expected_row_count: usize,
        embedder: Option<std::sync::Arc<dyn TextEmbedder>>,
    ) -> Result<usize> {
        let _ = (vectors, pin, expected_row_count, embedder);
        Err(Error::unsupported(
            "this store has no atomic vector swap (replace_vectors): the re-embed repair runs on \
             the SQLite and in-memory stores",
        ))
    }

    /// The store's embedding pin, if any.
    ///
    /// # Errors
    /// `Storage` on backend failure.
    fn embedding_pin(&self) -> Result<Option<EmbeddingPin>> {
        Ok(None)
    }

    /// The vectors `add` would store `rows` with (the store's own embedder,
    /// the same rules: edges and engine state get none, a zero vector is
    /// none), computed without writing anything; `None` when this store
    /// cannot say (the default). A home that embeds at write time answers
    /// formation's placement through it.
    ///
    /// # Errors
    /// As `add`'s embedding refuses (`Embedder`, `InvalidInput`).
    fn preview_vectors(&self, rows: &[TripleAssertion]) -> Result<Option<Vec<Option<Vec<f32>>>>> {
        let _ = rows;
        Ok(None)
    }

    /// Whether `add` embeds the rows it stores: `Some(true)` when the store
    /// has an embedder (a non-edge row gets a vector, unless its text embeds
    /// to the zero vector), `Some(false)` when it has none (every row is
    /// stored vectorless), `None` when the store cannot say (the default).
    /// Layer 2 asks it before a write that must not be vectorless (an
    /// engram under a pin).
    fn embeds_on_add(&self) -> Option<bool> {
        None
    }

    /// This store's [`ReadAccelerator`]: the reads it answers from indexes
    /// of its own, faster than [`TripleStore::query`] would. The default,
    /// `None`, leaves every such read to its fallback (the table on
    /// [`ReadAccelerator`]); a store that implements the accelerator returns
    /// itself. A forwarding wrapper that does not forward it gets the
    /// fallbacks, which answer the same rows.
    fn accelerator(&self) -> Option<&dyn ReadAccelerator> {
        None
    }

    /// Drain the `#FALLBACK` warnings the store has raised since the last call
    /// (first-write pins, scan fallbacks) outside [`TripleStore::add_with_warnings`]:
    /// layer 1's counterpart of the Python store's `RuntimeWarning`s, for a
    /// caller of [`TripleStore::add`]. Layer 2 takes a write's warnings from
    /// the write itself.
    fn take_warnings(&self) -> Vec<String> {
        Vec::new()
    }

    /// Install the host's commit guard: from now on every write transaction of
    /// this store calls it immediately before its COMMIT, once per outermost
    /// transaction, with the commit point ([`crate::CommitPoint`]); a refusal
    /// rolls the write back and returns [`Error::guard_refusal`](crate::Error::guard_refusal).
    /// Installing the same guard again is a no-op.
    ///
    /// # Errors
    /// `Unsupported` naming the type for a store whose writes cannot call a
    /// guard (the default); `InvalidInput` when a different guard is installed
    /// already.
    fn install_commit_guard(&self, guard: &crate::CommitGuard) -> Result<()> {
        let _ = guard;
        Err(crate::guard::unsupported_guard(
            std::any::type_name::<Self>(),
        ))
    }

    /// The installed commit guard, if any (a graph connector or a home over
    /// this store calls it for the transactions it commits).
    fn commit_guard(&self) -> Option<crate::CommitGuard> {
        None
    }

    /// What a write barrier holds to cover this store's writers
    /// ([`crate::barrier`]): the in-process locks its write transactions
    /// hold and the files whose write lock covers other connections. The
    /// default covers nothing (the type is named in `BarrierHold::uncovered`).
    fn write_fence(&self) -> crate::WriteFence {
        crate::WriteFence::uncovered(std::any::type_name::<Self>())
    }

    /// This store's place in a transaction home a journal can share
    /// ([`crate::home_key`]): where it commits and the handle under which
    /// its backend enrolled it (`am_journal::join`), so that
    /// `am_journal::join::shared_home` writes it and a journal of the same
    /// [`HomeKey`](crate::HomeKey) in ONE transaction. The SQLite store
    /// answers its file; a forwarding wrapper may answer its inner store's
    /// member (a shared transaction then writes the inner store directly).
    /// The default, `None`, joins no other part's transaction.
    fn home_member(&self) -> Option<crate::HomeMember> {
        None
    }
}

/// The optional accelerator of a [`TripleStore`] (object_store's pattern: a
/// minimal trait, and an extension a store implements when it can): reads a
/// store answers from an index of its own, without changing a row of any
/// answer. A store offers it through [`TripleStore::accelerator`]; a caller
/// holding a `dyn TripleStore` calls the same methods on it, which use the
/// accelerator when there is one and the fallback otherwise:
///
/// | Read | Fallback without an accelerator |
/// | --- | --- |
/// | [`subjects_with_predicate`](ReadAccelerator::subjects_with_predicate) | one `query` per subject (`limit` 1) |
/// | [`rank_positions`](ReadAccelerator::rank_positions) | `None`: the caller runs the semantic `query` |
/// | [`query_keywords`](ReadAccelerator::query_keywords) | `Unsupported` (no keyword index): reconstruction's keyword discovery warns `#FALLBACK` and re-scores by token scan |
/// | [`keyword_positions`](ReadAccelerator::keyword_positions) | `None`: the caller reads `query_keywords` |
/// | [`keyword_scores`](ReadAccelerator::keyword_scores) | `None`: the hybrid keyword channel warns `#FALLBACK` and reads `query_keywords` |
/// | [`query_narrow`](ReadAccelerator::query_narrow) | `query`, then each row's attributes and provenance cut to the kept keys |
/// | [`assertions_after_narrow`](ReadAccelerator::assertions_after_narrow) | `assertions_after`, each row cut likewise |
///
/// Every method defaults to its fallback, so a store overrides only the
/// reads it accelerates. In this workspace: the SQLite store (all seven: a
/// subject index, the matrix cache's partitions, the FTS5 keyword index,
/// structured and feed reads that decode only the kept JSON keys),
/// the in-memory store and the LanceDB store (`subjects_with_predicate` in
/// one pass over their rows).
pub trait ReadAccelerator: TripleStore {
    /// Which of `subjects` have at least one row of `predicate` (each
    /// compared as [`TripleStore::query`] compares a `subject` and a
    /// `predicate`); answers the inputs as given. A pre-filter for callers
    /// that then read those subjects' rows.
    ///
    /// # Errors
    /// As [`TripleStore::query`].
    fn subjects_with_predicate(
        &self,
        subjects: &[String],
        predicate: &str,
    ) -> Result<HashSet<String>> {
        subjects_by_query(self, subjects, predicate)
    }

    /// The ranking a semantic `query(q)` would return, without its rows:
    /// `(position, score)` best first (positions are the change feed's, as in
    /// [`TripleStore::assertions_after`]; scores bit-identical to the
    /// `_retrieval.score` the query stamps). `Ok(None)` when the store does
    /// not serve this query this way (the default; or a query it would answer
    /// by another path): the caller then runs `query`. A caller holding the
    /// rows by position (layer 2's recall index) skips their decoding.
    ///
    /// # Errors
    /// As `query` would fail for `q`.
    fn rank_positions(&self, q: &TripleQuery) -> Result<Option<Vec<(i64, f64)>>> {
        let _ = q;
        Ok(None)
    }

    /// Keyword discovery over the store's keyword index: rows of `scope` (and
    /// `owner_id`; `None` is any owner) matching any of `tokens`, best match
    /// first, at most `limit`. Reconstruction's keyword channel uses it when
    /// `ReconstructConfig.keyword_discovery` is on.
    ///
    /// # Errors
    /// `Unsupported` when the store has no keyword index (the default).
    fn query_keywords(
        &self,
        tokens: &[String],
        scope: &str,
        owner_id: Option<&str>,
        limit: usize,
    ) -> Result<Vec<TripleAssertion>> {
        let _ = (tokens, scope, owner_id, limit);
        Err(no_keyword_index())
    }

    /// Keyword discovery as change-feed positions: the positions of the rows
    /// `query_keywords(tokens, scope, owner_id, limit)` returns among the rows
    /// whose position lies in `positions` (inclusive), in the same order, without
    /// reading the rows. A caller holding those rows (layer 2's recall index,
    /// which knows the position range of a scope/owner's rows) serves them
    /// itself. `Ok(None)` when the store cannot answer this way (the default):
    /// call `query_keywords`.
    ///
    /// # Errors
    /// As `query_keywords`.
    fn keyword_positions(
        &self,
        tokens: &[String],
        scope: &str,
        owner_id: Option<&str>,
        limit: usize,
        positions: (i64, i64),
    ) -> Result<Option<Vec<i64>>> {
        let _ = (tokens, scope, owner_id, limit, positions);
        Ok(None)
    }

    /// [`ReadAccelerator::keyword_positions`] with each row's BM25 score: the
    /// same positions in the same order, each with its score as a positive
    /// number (higher is better; FTS5's `-bm25()`), so a caller can weigh rare
    /// terms and normalize per cue. `Ok(None)` when the store cannot answer
    /// this way (the default).
    ///
    /// # Errors
    /// As `query_keywords`.
    fn keyword_scores(
        &self,
        tokens: &[String],
        scope: &str,
        owner_id: Option<&str>,
        limit: usize,
        positions: (i64, i64),
    ) -> Result<Option<Vec<(i64, f64)>>> {
        let _ = (tokens, scope, owner_id, limit, positions);
        Ok(None)
    }

    /// The rows `query(q)` returns, in its order, each whole except its
    /// `attributes` and `provenance`, which hold only the keys `keep` names
    /// (with their values as stored). A whole-pair scan that reads a few
    /// keys of every row (sleep's reports) skips decoding the rest.
    ///
    /// # Errors
    /// As [`TripleStore::query`].
    fn query_narrow(&self, q: &TripleQuery, keep: Narrow<'_>) -> Result<Vec<TripleAssertion>> {
        narrow_by_query(self, q, keep)
    }

    /// The rows [`ReadAccelerator::query_narrow`] returns, in its order, each
    /// lent to `visit` as a [`NarrowRow`] for the length of the call instead
    /// of built as an owned row: a whole-pair scan that keeps a little of
    /// each row (sleep's reports) copies only what it keeps. The default
    /// reads `query_narrow` and lends each of its rows. `visit` must not
    /// call the store (a store may hold its connection for the read).
    ///
    /// # Errors
    /// As [`ReadAccelerator::query_narrow`]; rows already visited stay
    /// visited when a later row fails.
    fn visit_narrow(
        &self,
        q: &TripleQuery,
        keep: Narrow<'_>,
        visit: &mut dyn FnMut(NarrowRow<'_>),
    ) -> Result<()> {
        for row in self.query_narrow(q, keep)? {
            visit(NarrowRow::of(&row));
        }
        Ok(())
    }

    /// The rows [`ReadAccelerator::visit_narrow`] lends, each with its
    /// stored attributes JSON text lent as [`NarrowRow::attributes_text`]
    /// (its `attributes` left empty) when the store keeps that text: a scan
    /// that reads a few keys of every row by position
    /// ([`NarrowRow::lend_attributes`]) skips building a map per row. The
    /// default lends what `visit_narrow` lends (no text, the kept keys
    /// decoded), which `lend_attributes` reads the same. `visit` must not
    /// call the store.
    ///
    /// # Errors
    /// As [`ReadAccelerator::visit_narrow`].
    fn visit_narrow_text(
        &self,
        q: &TripleQuery,
        keep: Narrow<'_>,
        visit: &mut dyn FnMut(NarrowRow<'_>),
    ) -> Result<()> {
        self.visit_narrow(q, keep, visit)
    }

    /// The page [`TripleStore::assertions_after`] returns, each row cut as
    /// [`ReadAccelerator::query_narrow`] cuts it.
    ///
    /// # Errors
    /// As [`TripleStore::assertions_after`].
    fn assertions_after_narrow(
        &self,
        cursor: i64,
        scope: Option<&str>,
        owner_id: Option<&str>,
        limit: usize,
        keep: Narrow<'_>,
    ) -> Result<FeedPage> {
        feed_by_page(self, cursor, scope, owner_id, limit, keep)
    }

    /// The page [`ReadAccelerator::assertions_after_narrow`] returns, each
    /// row lent to `visit` with its position (as
    /// [`ReadAccelerator::visit_narrow`] lends them) instead of built;
    /// answers how many rows the page held and its `next_cursor`. The
    /// default reads that page and lends its rows. `visit` must not call
    /// the store.
    ///
    /// # Errors
    /// As [`TripleStore::assertions_after`].
    fn visit_after_narrow(
        &self,
        cursor: i64,
        scope: Option<&str>,
        owner_id: Option<&str>,
        limit: usize,
        keep: Narrow<'_>,
        visit: &mut dyn FnMut(i64, NarrowRow<'_>),
    ) -> Result<(usize, i64)> {
        Ok(lend_page(
            self.assertions_after_narrow(cursor, scope, owner_id, limit, keep)?,
            visit,
        ))
    }
}

/// Lend a feed page's rows; `(rows, next_cursor)`.
fn lend_page(page: FeedPage, visit: &mut dyn FnMut(i64, NarrowRow<'_>)) -> (usize, i64) {
    for (pos, row) in &page.rows {
        visit(*pos, NarrowRow::of(row));
    }
    (page.rows.len(), page.next_cursor)
}

/// `assertions_after_narrow` without an accelerator: the whole page, cut.
fn feed_by_page<S: TripleStore + ?Sized>(
    store: &S,
    cursor: i64,
    scope: Option<&str>,
    owner_id: Option<&str>,
    limit: usize,
    keep: Narrow<'_>,
) -> Result<FeedPage> {
    let mut page = store.assertions_after(cursor, scope, owner_id, limit)?;
    for (_, row) in &mut page.rows {
        keep.apply(row);
    }
    Ok(page)
}

/// The JSON keys a [`ReadAccelerator::query_narrow`] read keeps.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Narrow<'a> {
    /// The `attributes` keys kept.
    pub attributes: &'a [&'a str],
    /// The `provenance` keys kept.
    pub provenance: &'a [&'a str],
}

impl Narrow<'_> {
    /// Cut `row`'s attributes and provenance to the kept keys (their order
    /// and values unchanged).
    pub fn apply(&self, row: &mut TripleAssertion) {
        row.attributes
            .retain(|k, _| self.attributes.contains(&k.as_str()));
        row.provenance
            .retain(|k, _| self.provenance.contains(&k.as_str()));
    }
}

/// One row of a [`ReadAccelerator::visit_narrow`] read, borrowed for the
/// visit: the fields of the [`TripleAssertion`] `query_narrow` would return
/// that a scan reads (its `attributes` and `provenance` cut to the kept
/// keys), each equal to that row's.
#[derive(Debug, Clone, Copy)]
pub struct NarrowRow<'r> {
    /// [`TripleAssertion::assertion_id`].
    pub assertion_id: Option<&'r str>,
    /// [`TripleAssertion::subject`].
    pub subject: &'r str,
    /// [`TripleAssertion::predicate`].
    pub predicate: &'r str,
    /// [`TripleAssertion::object`].
    pub object: &'r str,
    /// [`TripleAssertion::observed_at`].
    pub observed_at: &'r str,
    /// [`TripleAssertion::attributes`], the kept keys only.
    pub attributes: &'r JsonMap,
    /// [`TripleAssertion::provenance`], the kept keys only.
    pub provenance: &'r JsonMap,
    /// The row's stored `attributes` JSON text, lent by a
    /// [`ReadAccelerator::visit_narrow_text`] read whose store keeps it
    /// (`attributes` is then empty: the kept keys are read from this text,
    /// [`NarrowRow::lend_attributes`]); `None` otherwise.
    pub attributes_text: Option<&'r str>,
}

impl<'r> NarrowRow<'r> {
    /// The view of an owned row (already cut, or read whole).
    #[must_use]
    pub fn of(row: &'r TripleAssertion) -> NarrowRow<'r> {
        NarrowRow {
            assertion_id: row.assertion_id.as_deref(),
            subject: &row.subject,
            predicate: &row.predicate,
            object: &row.object,
            observed_at: &row.observed_at,
            attributes: &row.attributes,
            provenance: &row.provenance,
            attributes_text: None,
        }
    }

    /// The values of `keys` among the row's attributes, by index: read from
    /// [`NarrowRow::attributes_text`] when the store lent it, else from
    /// [`NarrowRow::attributes`]; the same values either way
    /// ([`crate::lent`]).
    #[must_use]
    pub fn lend_attributes<const N: usize>(&self, keys: &[&str; N]) -> [Option<Lent<'r>>; N] {
        match self.attributes_text {
            Some(text) => lend_text_keys(Some(text), keys),
            None => lend_map_keys(self.attributes, keys),
        }
    }
}

/// `query_narrow` without an accelerator: the whole rows, cut.
fn narrow_by_query<S: TripleStore + ?Sized>(
    store: &S,
    q: &TripleQuery,
    keep: Narrow<'_>,
) -> Result<Vec<TripleAssertion>> {
    let mut rows = store.query(q)?;
    for row in &mut rows {
        keep.apply(row);
    }
    Ok(rows)
}

/// The accelerated reads on any store: its [`ReadAccelerator`] when it has
/// one, else the fallback the table on [`ReadAccelerator`] names.
impl dyn TripleStore + '_ {
    /// [`ReadAccelerator::subjects_with_predicate`], or one `query` per subject.
    ///
    /// # Errors
    /// As [`TripleStore::query`].
    pub fn subjects_with_predicate(
        &self,
        subjects: &[String],
        predicate: &str,
    ) -> Result<HashSet<String>> {
        match self.accelerator() {
            Some(a) => a.subjects_with_predicate(subjects, predicate),
            None => subjects_by_query(self, subjects, predicate),
        }
    }

    /// [`ReadAccelerator::rank_positions`], or `None` (run the query).
    ///
    /// # Errors
    /// As [`TripleStore::query`] would fail for `q`.
    pub fn rank_positions(&self, q: &TripleQuery) -> Result<Option<Vec<(i64, f64)>>> {
        match self.accelerator() {
            Some(a) => a.rank_positions(q),
            None => Ok(None),
        }
    }

    /// [`ReadAccelerator::query_keywords`], or `Unsupported` (no keyword index).
    ///
    /// # Errors
    /// `Unsupported` without a keyword index; the index's failure.
    pub fn query_keywords(
        &self,
        tokens: &[String],
        scope: &str,
        owner_id: Option<&str>,
        limit: usize,
    ) -> Result<Vec<TripleAssertion>> {
        match self.accelerator() {
            Some(a) => a.query_keywords(tokens, scope, owner_id, limit),
            None => Err(no_keyword_index()),
        }
    }

    /// [`ReadAccelerator::keyword_positions`], or `None` (read `query_keywords`).
    ///
    /// # Errors
    /// As [`ReadAccelerator::query_keywords`].
    pub fn keyword_positions(
        &self,
        tokens: &[String],
        scope: &str,
        owner_id: Option<&str>,
        limit: usize,
        positions: (i64, i64),
    ) -> Result<Option<Vec<i64>>> {
        match self.accelerator() {
            Some(a) => a.keyword_positions(tokens, scope, owner_id, limit, positions),
            None => Ok(None),
        }
    }

    /// [`ReadAccelerator::query_narrow`], or `query` with each row cut.
    ///
    /// # Errors
    /// As [`TripleStore::query`].
    pub fn query_narrow(&self, q: &TripleQuery, keep: Narrow<'_>) -> Result<Vec<TripleAssertion>> {
        match self.accelerator() {
            Some(a) => a.query_narrow(q, keep),
            None => narrow_by_query(self, q, keep),
        }
    }

    /// [`ReadAccelerator::visit_narrow`], or `query` with each row cut and
    /// lent.
    ///
    /// # Errors
    /// As [`TripleStore::query`].
    pub fn visit_narrow(
        &self,
        q: &TripleQuery,
        keep: Narrow<'_>,
        visit: &mut dyn FnMut(NarrowRow<'_>),
    ) -> Result<()> {
        match self.accelerator() {
            Some(a) => a.visit_narrow(q, keep, visit),
            None => {
                for row in narrow_by_query(self, q, keep)? {
                    visit(NarrowRow::of(&row));
                }
                Ok(())
            }
        }
    }

    /// [`ReadAccelerator::visit_narrow_text`], or `query` with each row
    /// cut and lent (no text).
    ///
    /// # Errors
    /// As [`TripleStore::query`].
    pub fn visit_narrow_text(
        &self,
        q: &TripleQuery,
        keep: Narrow<'_>,
        visit: &mut dyn FnMut(NarrowRow<'_>),
    ) -> Result<()> {
        match self.accelerator() {
            Some(a) => a.visit_narrow_text(q, keep, visit),
            None => {
                for row in narrow_by_query(self, q, keep)? {
                    visit(NarrowRow::of(&row));
                }
                Ok(())
            }
        }
    }

    /// [`ReadAccelerator::assertions_after_narrow`], or `assertions_after`
    /// with each row cut.
    ///
    /// # Errors
    /// As [`TripleStore::assertions_after`].
    pub fn assertions_after_narrow(
        &self,
        cursor: i64,
        scope: Option<&str>,
        owner_id: Option<&str>,
        limit: usize,
        keep: Narrow<'_>,
    ) -> Result<FeedPage> {
        match self.accelerator() {
            Some(a) => a.assertions_after_narrow(cursor, scope, owner_id, limit, keep),
            None => feed_by_page(self, cursor, scope, owner_id, limit, keep),
        }
    }

    /// [`ReadAccelerator::visit_after_narrow`], or `assertions_after` with
    /// each row cut and lent.
    ///
    /// # Errors
    /// As [`TripleStore::assertions_after`].
    pub fn visit_after_narrow(
        &self,
        cursor: i64,
        scope: Option<&str>,
        owner_id: Option<&str>,
        limit: usize,
        keep: Narrow<'_>,
        visit: &mut dyn FnMut(i64, NarrowRow<'_>),
    ) -> Result<(usize, i64)> {
        match self.accelerator() {
            Some(a) => a.visit_after_narrow(cursor, scope, owner_id, limit, keep, visit),
            None => Ok(lend_page(
                feed_by_page(self, cursor, scope, owner_id, limit, keep)?,
                visit,
            )),
        }
    }

    /// [`ReadAccelerator::keyword_scores`], or `None` (no BM25 scores).
    ///
    /// # Errors
    /// As [`ReadAccelerator::query_keywords`].
    pub fn keyword_scores(
        &self,
        tokens: &[String],
        scope: &str,
        owner_id: Option<&str>,
        limit: usize,
        positions: (i64, i64),
    ) -> Result<Option<Vec<(i64, f64)>>> {
        match self.accelerator() {
            Some(a) => a.keyword_scores(tokens, scope, owner_id, limit, positions),
            None => Ok(None),
        }
    }
}

/// `subjects_with_predicate` without an index: one `query` per subject.
fn subjects_by_query<S: TripleStore + ?Sized>(
    store: &S,
    subjects: &[String],
    predicate: &str,
) -> Result<HashSet<String>> {
    let mut out = HashSet::new();
    for s in subjects {
        let found = store.query(&TripleQuery {
            subject: Some(s.clone()),
            predicate: Some(predicate.to_owned()),
            limit: 1,
            ..TripleQuery::default()
        })?;
        if !found.is_empty() {
            out.insert(s.clone());
        }
    }
    Ok(out)
}

/// The refusal of keyword discovery on a store without a keyword index.
fn no_keyword_index() -> Error {
    Error::unsupported("query_keywords: this store has no keyword index")
}

/// The change feed's arguments as every store reads them
/// ([`TripleStore::assertions_after`]): the cursor clamped at 0, the scope
/// canonical, the owner stripped (`None` when blank).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FeedArgs {
    /// Rows strictly after this position are read.
    pub start: i64,
    /// The canonical scope filter, if any.
    pub scope: Option<String>,
    /// The stripped owner filter, if any.
    pub owner_id: Option<String>,
}

/// Validate and canonicalize `assertions_after`'s arguments: one rule for every
/// store.
///
/// # Errors
/// `InvalidInput` for `limit == 0`.
pub fn feed_args(
    cursor: i64,
    scope: Option<&str>,
    owner_id: Option<&str>,
    limit: usize,
) -> Result<FeedArgs> {
    if limit == 0 {
        return Err(Error::invalid("limit must be a positive int, got 0"));
    }
    Ok(FeedArgs {
        start: cursor.max(0),
        scope: scope.map(crate::assertion::canonical_scope),
        owner_id: crate::assertion::strip_optional(owner_id),
    })
}

/// Validate `close_assertion`/`narrow_assertion` arguments; returns the trimmed id
/// and the canonical `valid_until`.
///
/// # Errors
/// `InvalidInput` for an empty id, an empty `valid_until`, or a non-timestamp.
pub fn window_args(assertion_id: &str, valid_until: &str) -> Result<(String, String)> {
    let id = py_strip(assertion_id);
    if id.is_empty() {
        return Err(Error::invalid(
            "assertion_id must be a non-empty string, got an empty one",
        ));
    }
    if py_strip(valid_until).is_empty() {
        return Err(Error::invalid(
            "valid_until must be a non-empty timestamp, got an empty one",
        ));
    }
    Ok((id.to_owned(), timestamp::normalize_timestamp(valid_until)?))
}

/// The `close_assertion` rule: `Some(new_end)` when the window is open, `None`
/// (no change) when it is already closed.
pub fn close_rule(current_end: Option<&str>, valid_until: &str) -> Option<String> {
    match current_end {
        None => Some(valid_until.to_owned()),
        Some(_) => None,
    }
}

/// The `narrow_assertion` rule: `Ok(Some(new_end))` when `valid_until` is strictly
/// earlier than the current end (compared as instants), `Ok(None)` otherwise.
///
/// # Errors
/// `InvalidInput` when the window is open (closing is `close_assertion`'s job).
pub fn narrow_rule(
    assertion_id: &str,
    current_end: Option<&str>,
    valid_until: &str,
) -> Result<Option<String>> {
    let Some(end) = current_end else {
        return Err(Error::invalid(format!(
            "narrow_assertion needs a closed window, but {assertion_id} is open (use close_assertion)"
        )));
    };
    // Stored ends written by older homes may not be canonical: compare instants.
    let current = timestamp::parse_timestamp(end)?;
    let new = timestamp::parse_timestamp(valid_until)?;
    Ok((new < current).then(|| valid_until.to_owned()))
}

/// The vectors of one write batch: one entry per row (`None` for a record edge,
/// which is never embedded, and for a text the embedder gave the zero vector),
/// the batch's dimension, and its zero-vector `#FALLBACK` warning.
#[derive(Debug, Clone, PartialEq)]
pub struct BatchEmbedding {
    /// One per row, in row order.
    pub vectors: Vec<Option<Vec<f32>>>,
    /// The dimension of the kept vectors, when any.
    pub dimension: Option<usize>,
    /// [`zero_vector_warning`](crate::embed::zero_vector_warning) when some text embedded to the zero vector.
    pub warning: Option<String>,
}

/// Embed one write batch as every store does: the canonical `texts` of the
/// `rows` that are not record edges nor engine state (a topic record,
/// [`crate::text::is_engine_state`]), in one `embed_texts` call, checked by
/// [`embedded_batch`](crate::embed::embedded_batch). Without an embedder (or with only edges) every entry is
/// `None`. `pin` is read only when the embedder fails, so that the error names
/// the store's pin. Spec: stores.md "Shared behavior".
///
/// # Errors
/// `Embedder` when the embedder fails (the message ends with the pin,
/// [`EmbeddingPin::failure_suffix`]) or returns a vector count other than the
/// text count; [`embedded_batch`](crate::embed::embedded_batch)'s errors; `pin`'s error. The caller writes
/// nothing on an error.
pub fn embed_rows(
    embedder: Option<&dyn TextEmbedder>,
    rows: &[TripleAssertion],
    texts: &[String],
    pin: impl FnOnce() -> Result<Option<EmbeddingPin>>,
) -> Result<BatchEmbedding> {
    let mut batch = BatchEmbedding {
        vectors: vec![None; rows.len()],
        dimension: None,
        warning: None,
    };
    let Some(embedder) = embedder else {
        return Ok(batch);
    };
    let embeddable: Vec<usize> = (0..rows.len())
        .filter(|&i| {
            !crate::text::is_record_edge(&rows[i]) && !crate::text::is_engine_state(&rows[i])
        })
        .collect();
    if embeddable.is_empty() {
        return Ok(batch);
    }
    let asked: Vec<String> = embeddable.iter().map(|&i| texts[i].clone()).collect();
    let out = match embedder.embed_texts(&asked) {
        Ok(out) => out,
        Err(e) => return Err(e.with_suffix(&EmbeddingPin::failure_suffix(pin()?.as_ref()))),
    };
    if out.len() != asked.len() {
        return Err(Error::embedder(format!(
            "embedder returned {} vectors for {} texts (zero rows written)",
            out.len(),
            asked.len()
        )));
    }
    let checked = crate::embed::embedded_batch(out)?;
    batch.dimension = checked.dimension;
    if checked.zero_rows > 0 {
        batch.warning = Some(crate::embed::zero_vector_warning(
            checked.zero_rows,
            asked.len(),
        ));
    }
    for (i, v) in embeddable.into_iter().zip(checked.vectors) {
        batch.vectors[i] = v;
    }
    Ok(batch)
}

/// The query vector of `q`: its `query_vector` as given, or its `query_text`
/// embedded by `embedder`; `None` for a query with neither (structured only).
/// Every store resolves a semantic query through this one function, so the
/// refusals cannot drift between stores. Spec: stores.md "Shared behavior".
///
/// # Errors
/// `InvalidInput` when `query_text` is given and the store has no embedder
/// (there is no keyword fallback); `Embedder` when the embedder fails (the
/// message ends with the store's `pin`, [`EmbeddingPin::failure_suffix`]),
/// returns other than one vector, or returns an empty, zero or non-finite one.
pub fn resolve_query_vector(
    q: &TripleQuery,
    embedder: Option<&dyn TextEmbedder>,
    pin: Option<&EmbeddingPin>,
) -> Result<Option<Vec<f32>>> {
    if let Some(v) = &q.query_vector {
        return Ok(Some(v.clone()));
    }
    let Some(text) = &q.query_text else {
        return Ok(None);
    };
    let Some(embedder) = embedder else {
        return Err(Error::invalid(
            "query_text requires a configured embedder (construct the store with an embedder, \
             or pass query_vector / structured filters); there is no keyword fallback",
        ));
    };
    let mut out = embedder
        .embed_texts(std::slice::from_ref(text))
        .map_err(|e| e.with_suffix(&EmbeddingPin::failure_suffix(pin)))?;
    if out.len() != 1 {
        return Err(Error::embedder(format!(
            "expected 1 query vector, got {}",
            out.len()
        )));
    }
    let v = out.remove(0);
    crate::vector::validate_vector(&v).map_err(|e| {
        e.with_kind(crate::ErrorKind::Embedder)
            .with_prefix("query embedding")
    })?;
    Ok(Some(v))
}

/// Stamp a semantic query's score on a row (stores.md "Shared behavior"):
/// `attributes._retrieval` gets `score`, then `distance` when the store reports
/// one, then `metric` (`"cosine"`) unless it is already set; a `_retrieval` that
/// is not an object is replaced. Every store stamps through here.
pub fn stamp_retrieval(a: &mut TripleAssertion, score: f64, distance: Option<f64>) {
    let retrieval = a
        .attributes
        .entry("_retrieval")
        .or_insert_with(|| serde_json::Value::Object(serde_json::Map::new()));
    if !retrieval.is_object() {
        *retrieval = serde_json::Value::Object(serde_json::Map::new());
    }
    if let serde_json::Value::Object(m) = retrieval {
        m.insert("score".into(), serde_json::Value::from(score));
        if let Some(d) = distance {
            m.insert("distance".into(), serde_json::Value::from(d));
        }
        m.entry("metric")
            .or_insert_with(|| serde_json::Value::from(crate::vector::METRIC_COSINE));
    }
}

/// The score a semantic query stamped on a row ([`stamp_retrieval`]:
/// `attributes._retrieval.score`); `None` for a row no ranking stamped.
/// Every reader of the stamp reads through here.
pub fn retrieval_score(a: &TripleAssertion) -> Option<f64> {
    a.attributes
        .get("_retrieval")
        .and_then(|r| r.get("score"))
        .and_then(serde_json::Value::as_f64)
}
