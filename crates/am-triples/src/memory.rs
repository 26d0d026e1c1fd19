//! `InMemoryTripleStore`: the dependency-free, volatile, vector-capable reference
//! store. Every other store must answer as it does.
//!
//! Spec: stores.md "InMemoryTripleStore" and "Shared behavior".

use crate::assertion::TripleAssertion;
use crate::embed::TextEmbedder;
use crate::error::{Error, Result};
use crate::pin::{self, EmbeddingPin};
use crate::query::{Order, TripleQuery};
use crate::store::{self, Capabilities, FeedPage, ReadAccelerator, TripleStore};
use crate::text::canonical_text;
use crate::vector;
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, MutexGuard};

struct Row {
    assertion: TripleAssertion,
    vector: Option<Vec<f32>>,
}

#[derive(Default)]
struct State {
    rows: Vec<Row>,
    by_id: HashMap<String, usize>,
    /// Row positions per subject, in insertion order (subjects never change).
    by_subject: HashMap<String, Vec<usize>>,
    pin: Option<EmbeddingPin>,
    warnings: Vec<String>,
}

/// A volatile triple store in process memory.
///
/// With an embedder, `add` embeds each assertion's canonical text (record edges
/// never embed) and `query_text` ranks by cosine. Insertion order is the change
/// feed's position (1-based) and the tie order of every query.
pub struct InMemoryTripleStore {
    /// The live embedder (swapped by `replace_vectors`).
    embedder: std::sync::RwLock<Option<Arc<dyn TextEmbedder>>>,
    vector_column: String,
    state: Mutex<State>,
    guard: crate::guard::GuardSlot,
    /// Held by every write (and by the in-memory graph's transactions) from
    /// before the guard to after the change; a write barrier holds it.
    write_lock: Arc<crate::WriteLock>,
}

impl std::fmt::Debug for InMemoryTripleStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InMemoryTripleStore")
            .field("rows", &self.lock().rows.len())
            .finish()
    }
}

impl InMemoryTripleStore {
    /// A new empty store, vector-capable when `embedder` is given.
    pub fn new(embedder: Option<Arc<dyn TextEmbedder>>) -> Self {
        InMemoryTripleStore {
            embedder: std::sync::RwLock::new(embedder),
            vector_column: crate::query::DEFAULT_VECTOR_COLUMN.to_owned(),
            state: Mutex::new(State::default()),
            guard: crate::guard::GuardSlot::new(),
            write_lock: crate::WriteLock::new("the write lock of an InMemoryTripleStore"),
        }
    }

    /// Name the column this store writes its vectors under (default `vector`).
    ///
    /// A semantic query ranks the rows that hold a vector in the query's
    /// `vector_column`: a query naming another column finds no vectors and returns
    /// nothing, as in AbstractMemory.
    pub fn with_vector_column(mut self, column: &str) -> Self {
        let c = crate::assertion::py_strip(column);
        if !c.is_empty() {
            self.vector_column = c.to_owned();
        }
        self
    }

    /// A new store with a creation pin (`source = "creation"`).
    ///
    /// # Errors
    /// `Refused` when the embedder's known identity contradicts the pin.
    pub fn with_pin(embedder: Option<Arc<dyn TextEmbedder>>, pin: EmbeddingPin) -> Result<Self> {
        if let Some(e) = &embedder {
            pin.check_embedder(e.as_ref())?;
        }
        let store = Self::new(embedder);
        store.lock().pin = Some(pin);
        Ok(store)
    }

    /// The live embedder.
    fn live_embedder(&self) -> Option<Arc<dyn TextEmbedder>> {
        self.embedder
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic while holding the lock cannot leave a half-written row: every
        // mutation below is prepared before the lock and applied without fallible steps.
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The store's write lock (re-entrant): a writer that commits this
    /// store's rows in a transaction of its own (the in-memory graph) holds
    /// it for the whole transaction, as the store's own writes do.
    pub fn write_lock(&self) -> &Arc<crate::WriteLock> {
        &self.write_lock
    }

    /// Number of stored rows.
    pub fn len(&self) -> usize {
        self.lock().rows.len()
    }

    /// Whether the store holds no rows.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Rewrite one row's provenance in place; `false` when no row has the id.
    ///
    /// For the memory graph's adoption only (api.md "MemoryGraph": an `import` or
    /// `migration` revision rewrites an adopted row's provenance to the graph
    /// shape, the old one kept in the graph's history); not part of
    /// [`TripleStore`].
    pub fn replace_provenance(&self, assertion_id: &str, provenance: crate::JsonMap) -> bool {
        let mut st = self.lock();
        let Some(&pos) = st.by_id.get(assertion_id) else {
            return false;
        };
        st.rows[pos].assertion.provenance = provenance;
        true
    }
}

impl TripleStore for InMemoryTripleStore {
    fn capabilities(&self) -> Capabilities {
        Capabilities {
            close_assertion: true,
            narrow_assertion: true,
            change_feed: true,
            vector_search: true,
            digest_rewrite: true,
            persistent: false,
            cross_process_writers: false,
        }
    }

    fn install_commit_guard(&self, guard: &crate::CommitGuard) -> Result<()> {
        self.guard.install(guard, "this InMemoryTripleStore")
    }

    fn commit_guard(&self) -> Option<crate::CommitGuard> {
        self.guard.get().cloned()
    }

    fn write_fence(&self) -> crate::WriteFence {
        crate::WriteFence {
            locks: vec![self.write_lock.clone()],
            ..crate::WriteFence::default()
        }
    }

    fn preview_vectors(&self, rows: &[TripleAssertion]) -> Result<Option<Vec<Option<Vec<f32>>>>> {
        let canonical = rows
            .iter()
            .map(TripleAssertion::canonicalized)
            .collect::<Result<Vec<_>>>()?;
        let embedder = self.live_embedder();
        let texts: Vec<String> = match &embedder {
            Some(_) => canonical.iter().map(canonical_text).collect(),
            None => return Ok(Some(vec![None; rows.len()])),
        };
        let embedded = store::embed_rows(embedder.as_deref(), &canonical, &texts, || {
            Ok(self.lock().pin.clone())
        })?;
        Ok(Some(embedded.vectors))
    }

    fn add(&self, assertions: &[TripleAssertion]) -> Result<Vec<String>> {
        let added = self.add_with_warnings(assertions)?;
        self.lock().warnings.extend(added.warnings);
        Ok(added.ids)
    }

    fn add_with_warnings(&self, assertions: &[TripleAssertion]) -> Result<crate::Added> {
        let mut warnings = Vec::new();
        let mut pending = assertions
            .iter()
            .map(TripleAssertion::canonicalized)
            .collect::<Result<Vec<_>>>()?;
        for a in &mut pending {
            if a.assertion_id.is_none() {
                a.assertion_id = Some(uuid::Uuid::new_v4().to_string());
            }
        }
        // Only embedded rows need their canonical text.
        let embedder = self.live_embedder();
        let texts: Vec<String> = match &embedder {
            Some(_) => pending.iter().map(canonical_text).collect(),
            None => Vec::new(),
        };
        let embedded = store::embed_rows(embedder.as_deref(), &pending, &texts, || {
            Ok(self.lock().pin.clone())
        })?;
        let dim = embedded.dimension;
        let zero_warning = embedded.warning;
        let mut vectors: HashMap<usize, Vec<f32>> = embedded
            .vectors
            .into_iter()
            .enumerate()
            .filter_map(|(i, v)| v.map(|v| (i, v)))
            .collect();
        let ids = pending
            .iter()
            .filter_map(|a| a.assertion_id.clone())
            .collect();
        let _write = self.write_lock.write();
        let mut st = self.lock();
        // The commit guard, under the write lock, before the first change.
        if !pending.is_empty() {
            self.guard.check(crate::CommitPoint::StoreAdd)?;
        }
        if let Some(d) = dim {
            match &mut st.pin {
                Some(p) => {
                    p.check_add_dimension(d)?;
                    if p.dimension.is_none() {
                        p.dimension = Some(d);
                    }
                }
                None => {
                    let model = embedder.as_ref().and_then(|e| e.model_id());
                    let p = pin::build_pin(
                        model.as_deref(),
                        Some(d),
                        pin::PIN_SOURCE_FIRST_WRITE,
                        Some(pin::CLAIMED_BY_EMBEDDER_ATTRIBUTE),
                    )?;
                    warnings.push(format!(
                        "#FALLBACK: embedding pin created at FIRST WRITE ({}); creation pinning is the contract for new homes",
                        EmbeddingPin::note(Some(&p))
                    ));
                    st.pin = Some(p);
                }
            }
        }
        for (i, a) in pending.into_iter().enumerate() {
            let id = a.assertion_id.clone().unwrap_or_default();
            if st.by_id.contains_key(&id) {
                continue; // store-level id idempotency
            }
            let pos = st.rows.len();
            st.by_id.insert(id, pos);
            st.by_subject
                .entry(a.subject.clone())
                .or_default()
                .push(pos);
            st.rows.push(Row {
                assertion: a,
                vector: vectors.remove(&i),
            });
        }
        warnings.extend(zero_warning);
        Ok(crate::Added { ids, warnings })
    }

    fn query(&self, q: &TripleQuery) -> Result<Vec<TripleAssertion>> {
        let q = q.canonicalized()?;
        let pin = self.lock().pin.clone();
        let qv = store::resolve_query_vector(&q, self.live_embedder().as_deref(), pin.as_ref())?;
        let st = self.lock();
        // An id or subject lookup reads its rows through an index (in insertion
        // order) instead of scanning every row.
        let matching: Vec<&Row> = match (&q.assertion_ids, &q.subject) {
            (None, Some(subject)) => st
                .by_subject
                .get(subject)
                .map(|positions| {
                    positions
                        .iter()
                        .map(|&i| &st.rows[i])
                        .filter(|r| q.matches(&r.assertion))
                        .collect()
                })
                .unwrap_or_default(),
            (Some(ids), _) => {
                let mut positions: Vec<usize> = ids
                    .iter()
                    .filter_map(|id| st.by_id.get(id).copied())
                    .collect();
                positions.sort_unstable();
                positions.dedup();
                positions
                    .into_iter()
                    .map(|i| &st.rows[i])
                    .filter(|r| q.matches(&r.assertion))
                    .collect()
            }
            (None, None) => st.rows.iter().filter(|r| q.matches(&r.assertion)).collect(),
        };
        if let Some(qv) = qv {
            if let Some(p) = &pin {
                p.check_query_dimension(qv.len())?;
            }
            let ranked = vector::rank_by_cosine_fast(
                &qv,
                matching.iter().copied(),
                |r| {
                    if q.vector_column == self.vector_column {
                        r.vector.as_deref()
                    } else {
                        None
                    }
                },
                q.min_score,
                q.effective_limit(),
            );
            return Ok(ranked
                .into_iter()
                .map(|(i, score)| {
                    let mut a = matching[i].assertion.clone();
                    store::stamp_retrieval(&mut a, score, None);
                    a
                })
                .collect());
        }
        // Stable sort on observed_at: ties keep insertion order, reversed for desc.
        let mut out: Vec<&Row> = matching;
        out.sort_by(|a, b| a.assertion.observed_at.cmp(&b.assertion.observed_at));
        if q.order == Order::Desc {
            out.reverse();
        }
        let n = q.effective_limit().unwrap_or(usize::MAX);
        Ok(out
            .into_iter()
            .take(n)
            .map(|r| r.assertion.clone())
            .collect())
    }

    fn close(&self) -> Result<()> {
        Ok(())
    }

    fn close_assertion(&self, assertion_id: &str, valid_until: &str) -> Result<bool> {
        let (id, end) = store::window_args(assertion_id, valid_until)?;
        let _write = self.write_lock.write();
        let mut st = self.lock();
        let Some(&pos) = st.by_id.get(&id) else {
            return Ok(false);
        };
        let row = &mut st.rows[pos].assertion;
        match store::close_rule(row.valid_until.as_deref(), &end) {
            Some(new_end) => {
                self.guard.check(crate::CommitPoint::StoreCloseAssertion)?;
                row.valid_until = Some(new_end);
                Ok(true)
            }
            None => Ok(false),
        }
    }

    fn narrow_assertion(&self, assertion_id: &str, valid_until: &str) -> Result<bool> {
        let (id, end) = store::window_args(assertion_id, valid_until)?;
        let _write = self.write_lock.write();
        let mut st = self.lock();
        let Some(&pos) = st.by_id.get(&id) else {
            return Ok(false);
        };
        let row = &mut st.rows[pos].assertion;
        match store::narrow_rule(&id, row.valid_until.as_deref(), &end)? {
            Some(new_end) => {
                self.guard.check(crate::CommitPoint::StoreNarrowAssertion)?;
                row.valid_until = Some(new_end);
                Ok(true)
            }
            None => Ok(false),
        }
    }

    fn feed_head(&self) -> Result<i64> {
        Ok(i64::try_from(self.lock().rows.len()).unwrap_or(i64::MAX))
    }

    fn assertions_after(
        &self,
        cursor: i64,
        scope: Option<&str>,
        owner_id: Option<&str>,
        limit: usize,
    ) -> Result<FeedPage> {
        let store::FeedArgs {
            start: cursor,
            scope,
            owner_id: owner,
        } = store::feed_args(cursor, scope, owner_id, limit)?;
        let st = self.lock();
        let start = usize::try_from(cursor).unwrap_or(usize::MAX);
        let mut rows = Vec::new();
        let mut next = cursor;
        for (i, r) in st.rows.iter().enumerate().skip(start) {
            let pos = i64::try_from(i + 1).unwrap_or(i64::MAX);
            next = pos;
            if scope.as_deref().is_none_or(|s| s == r.assertion.scope)
                && owner
                    .as_deref()
                    .is_none_or(|o| r.assertion.owner_id.as_deref() == Some(o))
            {
                rows.push((pos, r.assertion.clone()));
                if rows.len() == limit {
                    break;
                }
            }
        }
        Ok(FeedPage {
            rows,
            next_cursor: next,
        })
    }

    fn stored_vector(&self, assertion_id: &str) -> Result<Option<Vec<f32>>> {
        let st = self.lock();
        Ok(st
            .by_id
            .get(assertion_id.trim())
            .and_then(|&p| st.rows[p].vector.clone()))
    }

    fn embedding_pin(&self) -> Result<Option<EmbeddingPin>> {
        Ok(self.lock().pin.clone())
    }

    fn replace_vectors(
        &self,
        vectors: &HashMap<String, Vec<f32>>,
        pin: &EmbeddingPin,
        expected_row_count: usize,
        embedder: Option<Arc<dyn TextEmbedder>>,
    ) -> Result<usize> {
        let mut ids: Vec<&String> = vectors.keys().collect();
        ids.sort();
        let ordered: Vec<Vec<f32>> = ids.iter().map(|id| vectors[*id].clone()).collect();
        let checked = crate::embed::embedded_batch(ordered)?;
        if let Some(d) = checked.dimension {
            pin.check_add_dimension(d)?;
        }
        if let Some(e) = &embedder {
            pin.check_embedder(e.as_ref())?;
        }
        let _write = self.write_lock.write();
        let mut st = self.lock();
        if st.rows.len() != expected_row_count {
            return Err(Error::conflict(format!(
                "vector swap refused: the store changed mid-pass ({} rows now, \
                 {expected_row_count} expected); nothing was written",
                st.rows.len()
            )));
        }
        self.guard.check(crate::CommitPoint::StoreReplaceVectors)?;
        // Every step below is infallible: the swap lands whole.
        for r in &mut st.rows {
            r.vector = None;
        }
        let mut changed = 0usize;
        for (id, v) in ids.iter().zip(checked.vectors) {
            if let (Some(&pos), Some(v)) = (st.by_id.get(id.as_str()), v) {
                st.rows[pos].vector = Some(v);
                changed += 1;
            }
        }
        st.pin = Some(pin.clone());
        if checked.zero_rows > 0 {
            st.warnings.push(crate::embed::zero_vector_warning(
                checked.zero_rows,
                ids.len(),
            ));
        }
        drop(st);
        if let Some(e) = embedder {
            *self
                .embedder
                .write()
                .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(e);
        }
        Ok(changed)
    }

    fn embeds_on_add(&self) -> Option<bool> {
        Some(self.live_embedder().is_some())
    }

    fn prepare_digest_rewrite(
        &self,
        rewrite: &crate::rewrite::DigestRewrite,
    ) -> Result<crate::rewrite::PreparedRewrite> {
        let (current, vectored, pin) = {
            let st = self.lock();
            let row = st
                .by_id
                .get(rewrite.assertion_id.trim())
                .map(|&p| &st.rows[p]);
            (
                row.map(|r| r.assertion.clone()),
                row.is_some_and(|r| r.vector.is_some()),
                st.pin.clone(),
            )
        };
        crate::rewrite::prepare_rewrite(
            self.live_embedder().as_deref(),
            pin.as_ref(),
            current.as_ref(),
            vectored,
            rewrite,
        )
    }

    fn apply_digest_rewrite(
        &self,
        prepared: &crate::rewrite::PreparedRewrite,
        point: crate::CommitPoint,
    ) -> Result<()> {
        let _write = self.write_lock.write();
        let mut st = self.lock();
        let pos = st.by_id.get(prepared.rewrite.assertion_id.trim()).copied();
        crate::rewrite::check_expected(pos.map(|p| &st.rows[p].assertion), &prepared.rewrite)?;
        let Some(pos) = pos else {
            return Err(Error::internal("a checked row has a position"));
        };
        // The commit guard, under the write lock, before the change.
        self.guard.check(point)?;
        let row = &mut st.rows[pos];
        row.assertion.object.clone_from(&prepared.rewrite.object);
        row.assertion
            .attributes
            .clone_from(&prepared.rewrite.attributes);
        match &prepared.vector {
            crate::rewrite::VectorChange::Keep => {}
            crate::rewrite::VectorChange::Set(v) => row.vector = Some(v.clone()),
            crate::rewrite::VectorChange::Clear => row.vector = None,
        }
        Ok(())
    }

    fn take_warnings(&self) -> Vec<String> {
        std::mem::take(&mut self.lock().warnings)
    }

    fn accelerator(&self) -> Option<&dyn ReadAccelerator> {
        Some(self)
    }
}

/// `subjects_with_predicate` through the subject index, under one lock.
impl ReadAccelerator for InMemoryTripleStore {
    fn subjects_with_predicate(
        &self,
        subjects: &[String],
        predicate: &str,
    ) -> Result<HashSet<String>> {
        let st = self.lock();
        let mut out = HashSet::new();
        for s in subjects {
            // The filters `query` would apply, canonicalized as it does (a
            // blank term filters nothing).
            let q = TripleQuery {
                subject: Some(s.clone()),
                predicate: Some(predicate.to_owned()),
                ..TripleQuery::default()
            }
            .canonicalized()?;
            let found = match &q.subject {
                Some(subject) => st
                    .by_subject
                    .get(subject)
                    .is_some_and(|rows| rows.iter().any(|&i| q.matches(&st.rows[i].assertion))),
                None => st.rows.iter().any(|r| q.matches(&r.assertion)),
            };
            if found {
                out.insert(s.clone());
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_query_naming_another_vector_column_finds_no_vectors() {
        let store = InMemoryTripleStore::new(None);
        let mut a = TripleAssertion::new("a", "b", "c");
        a.assertion_id = Some("x".into());
        store.add(&[a]).unwrap();
        store.lock().rows[0].vector = Some(vec![1.0, 0.0]);
        let mut q = TripleQuery {
            query_vector: Some(vec![1.0, 0.0]),
            ..TripleQuery::default()
        };
        assert_eq!(store.query(&q).unwrap().len(), 1);
        q.vector_column = "other".into();
        assert!(store.query(&q).unwrap().is_empty());
        let renamed = InMemoryTripleStore::new(None).with_vector_column("other");
        renamed.add(&[TripleAssertion::new("a", "b", "c")]).unwrap();
        renamed.lock().rows[0].vector = Some(vec![1.0, 0.0]);
        assert_eq!(renamed.query(&q).unwrap().len(), 1);
    }
}
