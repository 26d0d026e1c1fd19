//! `LanceDBTripleStore`: the append-only triple store on a LanceDB table.
//!
//! Spec: stores.md "LanceDBTripleStore" and "Shared behavior"; api.md "TripleStore
//! protocol and the three stores"; getting-started §4.

use crate::filter::{self, quote_literal};
use crate::runtime::Runtime;
use crate::schema::{self, NewRow, SEQ, StoredRow};
use crate::search;
use am_triples::pin::{self as tpin, EmbeddingPin};
use am_triples::store::{FeedPage, resolve_query_vector};
use am_triples::text::canonical_text;
use am_triples::vector;
use am_triples::{
    Capabilities, Error, Order, ReadAccelerator, Result, TextEmbedder, TripleAssertion,
    TripleQuery, TripleStore, canonicalize_term,
};
use arrow_array::cast::AsArray;
use arrow_array::types::Int64Type;
use arrow_array::{Int64Array, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema};
use futures::TryStreamExt;
use lancedb::query::{ExecutableQuery, QueryBase, Select};
use lancedb::table::NewColumnTransform;
use lancedb::{Connection, Table};
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, MutexGuard};

/// The key of the embedding pin in the `{table}_meta` table.
pub const META_EMBEDDING_PIN: &str = "embedding_pin";

/// How a [`LanceDBTripleStore`] opens its table.
#[derive(Debug, Clone, Default)]
pub struct LanceStoreOptions {
    /// The triple table (`None`: `triple_assertions`); must match
    /// `[A-Za-z_][A-Za-z0-9_]*`. Its pin lives in `{table}_meta`.
    pub table_name: Option<String>,
    /// The vector column (`None`: `vector`); same rule as the table name, and not
    /// the name of a row column.
    pub vector_column: Option<String>,
    /// The creation pin: written on a pinless store, checked against a stored one.
    pub embedding_pin: Option<EmbeddingPin>,
    /// Options handed to LanceDB's object store (credentials, region, endpoint)
    /// for `s3://`, `gs://` and `az://` URIs (feature `object-store`).
    pub storage_options: Vec<(String, String)>,
}

/// The LanceDB triple store: append-only assertions in one LanceDB table under
/// `uri`, structured queries compiled into a quoted `where` clause, and cosine
/// vector search.
///
/// # Contract
/// Everything [`TripleStore`] states, answering exactly as
/// `am_triples::InMemoryTripleStore` does on the same inputs, plus:
/// - The table has the explicit Arrow schema of [`crate::schema`]; `seq` records
///   the insertion order (ties of every query, change-feed positions).
/// - Filter values enter the `where` clause only as quoted literals
///   ([`crate::filter::quote_literal`]); every row read is re-checked with the
///   shared row predicate.
/// - Semantic queries use LanceDB's flat cosine search to propose candidates and
///   re-score them with the reference cosine, fetching more until a bound proves
///   no row left out could enter the answer ([`crate::search`]): rows, order and
///   scores are `am_triples::vector::rank_by_cosine`'s, ties oldest-inserted
///   first. `_retrieval` is `{score, metric: "cosine", distance: 1 - score}`.
/// - The embedding pin lives in `{table}_meta`, an append-only key/value table
///   (the newest row of a key wins).
/// - Not offered ([`Capabilities`]): `close_assertion`, `narrow_assertion`
///   (`Unsupported`, backlog 0057), in-place digest rewrite (backlog 0059), and
///   serialized writers across processes (LanceDB takes no cross-process write
///   lock: two processes appending at once may allocate the same `seq`).
/// - The public API is synchronous; the async runtime is private to the crate
///   and lives on its own thread (callable from inside a caller's runtime).
pub struct LanceDBTripleStore {
    rt: Runtime,
    conn: Connection,
    /// The `uri` the store was opened with (resolved for a local directory).
    uri: String,
    table_name: String,
    vector_column: String,
    embedder: Option<Arc<dyn TextEmbedder>>,
    state: Mutex<State>,
    /// The host's commit guard (docs/stores.md "LanceDB and the Stop
    /// fence": called before the table's commits, which no transaction
    /// wraps).
    guard: am_triples::GuardSlot,
}

struct State {
    table: Option<Table>,
    meta: Option<Table>,
    /// The fixed size of the table's vector column, when it has one.
    vector_dim: Option<usize>,
    next_seq: i64,
    next_meta_seq: i64,
    pin: Option<EmbeddingPin>,
    warnings: Vec<String>,
}

impl std::fmt::Debug for LanceDBTripleStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LanceDBTripleStore")
            .field("table", &self.table_name)
            .field("vector_column", &self.vector_column)
            .finish_non_exhaustive()
    }
}

pub(crate) fn storage(what: &str) -> impl FnOnce(lancedb::Error) -> Error + '_ {
    move |e| Error::storage(format!("LanceDB {what}: {e}")).with_source(e)
}

/// `[A-Za-z_][A-Za-z0-9_]*`, or `InvalidInput` naming `what`.
fn checked_name(what: &str, name: Option<&str>, default: &str) -> Result<String> {
    let name = name
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .unwrap_or(default);
    let mut chars = name.chars();
    let ok = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
    if ok {
        Ok(name.to_owned())
    } else {
        Err(Error::invalid(format!(
            "{what} must match [A-Za-z_][A-Za-z0-9_]*, got {name:?}"
        )))
    }
}

/// Read every batch of a plain (non-vector) query.
pub(crate) async fn scan(
    table: &Table,
    where_: Option<String>,
    columns: &[&str],
) -> Result<Vec<RecordBatch>> {
    let mut q = table.query().select(Select::columns(columns));
    if let Some(w) = where_ {
        q = q.only_if(w);
    }
    q.execute()
        .await
        .map_err(storage("query"))?
        .try_collect::<Vec<_>>()
        .await
        .map_err(storage("read"))
}

pub(crate) async fn open_table(conn: &Connection, name: &str) -> Result<Option<Table>> {
    match conn.open_table(name).execute().await {
        Ok(t) => Ok(Some(t)),
        Err(lancedb::Error::TableNotFound { .. }) => Ok(None),
        Err(e) => Err(storage("open_table")(e)),
    }
}

/// The largest `seq` in `table` (0 when empty).
async fn max_seq(table: &Table) -> Result<i64> {
    let mut m = 0;
    for b in scan(table, None, &[SEQ]).await? {
        if let Some(a) = b
            .column_by_name(SEQ)
            .and_then(|a| a.as_primitive_opt::<Int64Type>())
        {
            m = a.iter().flatten().fold(m, i64::max);
        }
    }
    Ok(m)
}

fn meta_schema() -> Arc<Schema> {
    Arc::new(Schema::new(vec![
        Field::new("key", DataType::Utf8, false),
        Field::new("value", DataType::Utf8, false),
        Field::new(SEQ, DataType::Int64, false),
    ]))
}

/// The newest value of `key` in the meta table, and the next meta `seq`.
async fn read_meta(meta: &Table, key: &str) -> Result<(Option<String>, i64)> {
    let mut best: Option<(i64, String)> = None;
    let mut top = 0;
    for b in scan(meta, None, &["key", "value", SEQ]).await? {
        let keys = b
            .column_by_name("key")
            .and_then(|a| a.as_string_opt::<i32>());
        let values = b
            .column_by_name("value")
            .and_then(|a| a.as_string_opt::<i32>());
        let seqs = b
            .column_by_name(SEQ)
            .and_then(|a| a.as_primitive_opt::<Int64Type>());
        let (Some(keys), Some(values), Some(seqs)) = (keys, values, seqs) else {
            return Err(Error::storage(
                "LanceDB meta table lacks its key/value/seq columns",
            ));
        };
        for i in 0..b.num_rows() {
            let s = seqs.value(i);
            top = top.max(s);
            if keys.value(i) == key && best.as_ref().is_none_or(|(bs, _)| s > *bs) {
                best = Some((s, values.value(i).to_owned()));
            }
        }
    }
    Ok((best.map(|(_, v)| v), top + 1))
}

impl LanceDBTripleStore {
    /// Open (creating on first write) the store under `uri`: a local directory,
    /// or with the `object-store` feature an `s3://`, `gs://` or `az://` URI.
    ///
    /// Opening reads the table's schema, its insertion counter and the stored
    /// pin; it writes only a declared creation pin on a pinless store. The table
    /// itself is created by the first `add` (with the explicit schema; the vector
    /// column once the dimension is known).
    ///
    /// # Errors
    /// `InvalidInput` for a bad table or vector column name or a bad declared
    /// pin; `Refused` for a table this store did not write (missing or mistyped
    /// columns) and for an embedder or declared pin contradicting the stored pin
    /// (nothing written); `Storage` when LanceDB fails.
    pub fn open(
        uri: &str,
        embedder: Option<Arc<dyn TextEmbedder>>,
        options: LanceStoreOptions,
    ) -> Result<Self> {
        let table_name = checked_name(
            "table_name",
            options.table_name.as_deref(),
            schema::DEFAULT_TABLE,
        )?;
        let vector_column = checked_name(
            "vector_column",
            options.vector_column.as_deref(),
            am_triples::query::DEFAULT_VECTOR_COLUMN,
        )?;
        if schema::row_columns().contains(&vector_column.as_str()) || vector_column == schema::NORM2
        {
            return Err(Error::invalid(format!(
                "vector_column must not name a row column, got {vector_column:?}"
            )));
        }
        let declared = tpin::declared_pin(options.embedding_pin.as_ref())?;
        let rt = Runtime::start()?;
        let uri_owned = uri.to_owned();
        let storage_options = options.storage_options.clone();
        let conn = rt.run(async move {
            lancedb::connect(&uri_owned)
                .storage_options(storage_options)
                // Every read sees the latest committed version, also one written
                // through another handle or process.
                .read_consistency_interval(std::time::Duration::ZERO)
                .execute()
                .await
                .map_err(storage("connect"))
        })?;
        let (c, tn, vc) = (conn.clone(), table_name.clone(), vector_column.clone());
        let (table, vector_dim, next_seq, meta, stored_pin, next_meta_seq) =
            rt.run(async move {
                let table = open_table(&c, &tn).await?;
                let (dim, next) = match &table {
                    None => (None, 1),
                    Some(t) => {
                        let s = t.schema().await.map_err(storage("schema"))?;
                        let dim = schema::check_schema(&s, &tn, &vc)?;
                        (dim, max_seq(t).await? + 1)
                    }
                };
                let meta = open_table(&c, &format!("{tn}_meta")).await?;
                let (pin, next_meta) = match &meta {
                    None => (None, 1),
                    Some(m) => read_meta(m, META_EMBEDDING_PIN).await?,
                };
                Ok((table, dim, next, meta, pin, next_meta))
            })?;
        let stored = stored_pin
            .as_deref()
            .map(EmbeddingPin::from_json)
            .transpose()?;
        tpin::check_at_open(stored.as_ref(), declared.as_ref(), embedder.as_deref())?;
        let store = LanceDBTripleStore {
            rt,
            conn,
            uri: resolved_uri(uri),
            table_name,
            vector_column,
            embedder,
            guard: am_triples::GuardSlot::new(),
            state: Mutex::new(State {
                table,
                meta,
                vector_dim,
                next_seq,
                next_meta_seq,
                pin: stored.clone(),
                warnings: Vec::new(),
            }),
        };
        if stored.is_none()
            && let Some(d) = declared
        {
            let mut st = store.lock();
            store.write_pin(&mut st, &d)?;
            st.pin = Some(d);
        }
        Ok(store)
    }

    /// The store's location: the `uri` it was opened with, resolved to an
    /// absolute path for a local directory (so two spellings of one directory
    /// agree).
    pub fn uri(&self) -> &str {
        &self.uri
    }

    pub(crate) fn runtime(&self) -> &Runtime {
        &self.rt
    }

    pub(crate) fn connection(&self) -> &Connection {
        &self.conn
    }

    /// The triple table's handle, once the table exists.
    pub(crate) fn table_handle(&self) -> Option<Table> {
        self.lock().table.clone()
    }

    /// Every stored row with its vector, in insertion order.
    ///
    /// # Errors
    /// `Storage` when LanceDB fails.
    pub(crate) fn all_rows(&self) -> Result<Vec<StoredRow>> {
        let (table, has_vectors) = {
            let st = self.lock();
            (st.table.clone(), st.vector_dim.is_some())
        };
        let Some(table) = table else {
            return Ok(Vec::new());
        };
        let mut cols = row_columns_owned();
        if has_vectors {
            cols.push(self.vector_column.clone());
        }
        self.read_rows(&table, None, cols, None)
    }

    /// The stored rows matching the SQL `where_` (built from quoted literals),
    /// without vectors, in insertion order.
    ///
    /// # Errors
    /// `Storage` when LanceDB fails.
    pub(crate) fn rows_where(&self, where_: String) -> Result<Vec<StoredRow>> {
        let Some(table) = self.table_handle() else {
            return Ok(Vec::new());
        };
        self.read_rows(&table, Some(where_), row_columns_owned(), None)
    }

    /// Set one text column of the row `assertion_id` to `value` in place (the
    /// graph connector's window and adoption changes); returns how many rows
    /// changed.
    ///
    /// # Errors
    /// `Storage` when LanceDB fails.
    pub(crate) fn set_column(&self, assertion_id: &str, column: &str, value: &str) -> Result<u64> {
        let Some(table) = self.table_handle() else {
            return Ok(0);
        };
        let filter = format!("assertion_id = {}", quote_literal(assertion_id));
        let (column, value) = (column.to_owned(), quote_literal(value));
        self.rt.run(async move {
            let out = table
                .update()
                .only_if(filter)
                .column(column, value)
                .execute()
                .await
                .map_err(storage("update"))?;
            Ok(out.rows_updated)
        })
    }

    /// The table's name.
    pub fn table_name(&self) -> &str {
        &self.table_name
    }

    /// The vector column's name.
    pub fn vector_column(&self) -> &str {
        &self.vector_column
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // Every mutation of the state follows a committed LanceDB write (or
        // precedes none): a poisoned lock holds nothing torn.
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Append the pin to `{table}_meta` (creating it).
    fn write_pin(&self, st: &mut State, pin: &EmbeddingPin) -> Result<()> {
        let batch = RecordBatch::try_new(
            meta_schema(),
            vec![
                Arc::new(StringArray::from(vec![META_EMBEDDING_PIN])),
                Arc::new(StringArray::from(vec![pin.to_json()])),
                Arc::new(Int64Array::from(vec![st.next_meta_seq])),
            ],
        )
        .map_err(|e| Error::storage(format!("cannot build the pin batch: {e}")).with_source(e))?;
        let meta = st.meta.clone();
        let conn = self.conn.clone();
        let name = format!("{}_meta", self.table_name);
        let meta = self.rt.run(async move {
            match meta {
                Some(m) => {
                    m.add(batch).execute().await.map_err(storage("add pin"))?;
                    Ok(m)
                }
                None => conn
                    .create_table(name, batch)
                    .execute()
                    .await
                    .map_err(storage("create meta table")),
            }
        })?;
        st.meta = Some(meta);
        st.next_meta_seq += 1;
        Ok(())
    }

    /// Rows matching `where_` with `columns`, decoded, re-checked with the row
    /// predicate when `q` is given, in insertion order.
    fn read_rows(
        &self,
        table: &Table,
        where_: Option<String>,
        columns: Vec<String>,
        q: Option<&TripleQuery>,
    ) -> Result<Vec<StoredRow>> {
        let t = table.clone();
        let vc = self.vector_column.clone();
        let mut rows = self.rt.run(async move {
            let cols: Vec<&str> = columns.iter().map(String::as_str).collect();
            let mut out = Vec::new();
            for b in scan(&t, where_, &cols).await? {
                out.extend(schema::from_batch(&b, &vc)?);
            }
            Ok(out)
        })?;
        if let Some(q) = q {
            rows.retain(|r| q.matches(&r.assertion));
        }
        rows.sort_by_key(|r| r.seq);
        Ok(rows)
    }

    /// Rank the rows matching `q` against `qv` with the reference cosine
    /// (see [`crate::search`] for how LanceDB's search is used and checked).
    fn semantic(
        &self,
        table: &Table,
        q: &TripleQuery,
        qv: &[f32],
        dim: usize,
    ) -> Result<Vec<(StoredRow, f64)>> {
        let mut cols = row_columns_owned();
        cols.push(self.vector_column.clone());
        let scan = || -> Result<Vec<(StoredRow, f64)>> {
            let rows = self.read_rows(table, filter::where_clause(q), cols.clone(), Some(q))?;
            let ranked = vector::rank_by_cosine_fast(
                qv,
                rows.iter(),
                |r| r.vector.as_deref(),
                q.min_score,
                q.effective_limit(),
            );
            Ok(take(rows, ranked))
        };
        let (Some(k), Some(eps)) = (q.effective_limit(), search::lance_eps(dim)) else {
            return scan();
        };
        if qv.len() != dim || !(search::NORM2_MIN..=search::NORM2_MAX).contains(&schema::norm2(qv))
        {
            return scan();
        }
        let outliers = self.read_rows(
            table,
            filter::and(filter::where_clause(q), Some(search::out_of_range())),
            cols.clone(),
            Some(q),
        )?;
        let mut fetch = search::first_fetch(k);
        loop {
            let batches = self.rt.run(search::knn(
                table.clone(),
                qv.to_vec(),
                self.vector_column.clone(),
                search::round_filter(q),
                fetch,
                cols.clone(),
            ))?;
            let (candidates, distances) = search::decode_knn(&batches, &self.vector_column)?;
            let exhausted = candidates.len() < fetch;
            let mut pool: Vec<StoredRow> = candidates
                .into_iter()
                .filter(|r| q.matches(&r.assertion))
                .chain(outliers.iter().cloned())
                .collect();
            pool.sort_by_key(|r| r.seq);
            match search::judge(q, qv, &pool, &distances, exhausted, eps, k) {
                search::Verdict::Exact(ranked) => return Ok(take(pool, ranked)),
                search::Verdict::Scan => return scan(),
                search::Verdict::FetchMore => fetch = fetch.saturating_mul(4),
            }
        }
    }

    /// The ids among `ids` already stored.
    fn existing_ids(&self, table: &Table, ids: &[&str]) -> Result<HashSet<String>> {
        let mut found = HashSet::new();
        for chunk in ids.chunks(filter::MAX_IDS_IN_CLAUSE) {
            let list: Vec<String> = chunk.iter().map(|i| quote_literal(i)).collect();
            let rows = self.read_rows(
                table,
                Some(format!("assertion_id IN ({})", list.join(", "))),
                vec!["assertion_id".into(), SEQ.into()],
                None,
            )?;
            found.extend(rows.into_iter().filter_map(|r| r.assertion.assertion_id));
        }
        Ok(found)
    }
}

/// Rows canonicalized and embedded before any write ([`LanceDBTripleStore::prepare`]).
#[derive(Debug, Clone)]
pub(crate) struct Prepared {
    /// The canonical assertions, each with its id, in the order given.
    pub(crate) rows: Vec<TripleAssertion>,
    /// `canonical_text` of each row.
    pub(crate) texts: Vec<String>,
    /// Each row's vector (`None`: an edge, a zero vector, or no embedder).
    pub(crate) vectors: Vec<Option<Vec<f32>>>,
    /// The dimension of the batch's vectors, when it has any.
    pub(crate) dimension: Option<usize>,
    /// The `#FALLBACK` warning of zero vectors kept vectorless.
    pub(crate) zero_warning: Option<String>,
}

impl Prepared {
    /// The rows' ids, in order.
    pub(crate) fn ids(&self) -> Vec<String> {
        self.rows
            .iter()
            .filter_map(|a| a.assertion_id.clone())
            .collect()
    }
}

impl LanceDBTripleStore {
    /// Canonicalize (stamping a fresh id where none is given) and embed
    /// `assertions`, writing nothing: the first half of `add`, also what the
    /// graph connector stages (`crate::graph`).
    ///
    /// # Errors
    /// `InvalidInput` for a malformed assertion; `Embedder` when embedding fails
    /// or returns a wrong count or an invalid vector.
    pub(crate) fn prepare(&self, assertions: &[TripleAssertion]) -> Result<Prepared> {
        let mut pending = assertions
            .iter()
            .map(TripleAssertion::canonicalized)
            .collect::<Result<Vec<_>>>()?;
        for a in &mut pending {
            if a.assertion_id.is_none() {
                a.assertion_id = Some(uuid_v4());
            }
        }
        let texts: Vec<String> = pending.iter().map(canonical_text).collect();
        // A zero vector keeps its row without a vector (one #FALLBACK warning
        // per batch), as on every store.
        let embedded =
            am_triples::store::embed_rows(self.embedder.as_deref(), &pending, &texts, || {
                Ok(self.lock().pin.clone())
            })?;
        let vectors = embedded.vectors;
        let dim = embedded.dimension;
        let zero_warning = embedded.warning;
        Ok(Prepared {
            rows: pending,
            texts,
            vectors,
            dimension: dim,
            zero_warning,
        })
    }

    /// The pin a write of `dim`-dimensional vectors leaves behind when it must
    /// write one (`None`: none to write), after checking the dimension against
    /// the stored pin and the table's vector column.
    fn pin_after(&self, st: &State, dim: Option<usize>) -> Result<Option<EmbeddingPin>> {
        let mut new_pin: Option<EmbeddingPin> = None;
        if let Some(d) = dim {
            match &st.pin {
                Some(p) => {
                    p.check_add_dimension(d)?;
                    if p.dimension.is_none() {
                        let mut p = p.clone();
                        p.dimension = Some(d);
                        new_pin = Some(p);
                    }
                }
                None => {
                    let model = self.embedder.as_ref().and_then(|e| e.model_id());
                    new_pin = Some(tpin::build_pin(
                        model.as_deref(),
                        Some(d),
                        tpin::PIN_SOURCE_FIRST_WRITE,
                        Some(tpin::CLAIMED_BY_EMBEDDER_ATTRIBUTE),
                    )?);
                }
            }
            if let Some(v) = st.vector_dim
                && v != d
            {
                return Err(Error::dimension_mismatch(format!(
                    "write refused: vectors of dimension {d}, the table's vector column {:?} holds {v} (zero rows written)",
                    self.vector_column
                )));
            }
        }
        Ok(new_pin)
    }

    /// Check that `prepared` could be written (its dimension against the pin and
    /// the vector column), writing nothing.
    ///
    /// # Errors
    /// `DimensionMismatch`, as [`LanceDBTripleStore::insert_prepared`] would.
    pub(crate) fn check_prepared(&self, prepared: &Prepared) -> Result<()> {
        let st = self.lock();
        self.pin_after(&st, prepared.dimension).map(|_| ())
    }

    /// Write prepared rows (ids already stored, or repeated, are skipped), the
    /// vector column a table lacks, and the pin a first embedded write creates:
    /// the second half of `add`.
    ///
    /// # Errors
    /// `DimensionMismatch` against the pin or the vector column (nothing
    /// written); `Storage` when LanceDB fails.
    /// Write a prepared batch; returns the `#FALLBACK` warnings the write
    /// raised (a first-write pin, rows stored without a vector), which the
    /// caller reports ([`Self::note_warnings`] or with its result).
    pub(crate) fn insert_prepared(&self, prepared: &Prepared) -> Result<Vec<String>> {
        let mut warnings = Vec::new();
        let Prepared {
            rows: pending,
            texts,
            vectors,
            dimension: dim,
            zero_warning,
        } = prepared;
        let dim = *dim;
        let ids = prepared.ids();
        let mut st = self.lock();
        // The pin (and the vector column) decide before anything is written.
        let new_pin = self.pin_after(&st, dim)?;
        // Store-level id idempotency: an id already stored (or repeated in the
        // batch) is skipped, its id still returned.
        let existing = match &st.table {
            Some(t) => {
                let id_refs: Vec<&str> = ids.iter().map(String::as_str).collect();
                self.existing_ids(t, &id_refs)?
            }
            None => HashSet::new(),
        };
        let mut seen: HashSet<&str> = HashSet::new();
        let mut rows: Vec<NewRow<'_>> = Vec::new();
        let mut seq = st.next_seq;
        for (i, a) in pending.iter().enumerate() {
            let id = a.assertion_id.as_deref().unwrap_or_default();
            if existing.contains(id) || !seen.insert(id) {
                continue;
            }
            rows.push(NewRow {
                assertion: a,
                seq,
                text: texts[i].clone(),
                vector: vectors[i].as_deref(),
            });
            seq += 1;
        }
        // The commit guard, under the store's lock, immediately before this
        // add's first LanceDB commit (the table write, a new vector column,
        // the pin). LanceDB has no transaction around them to roll back, so
        // the guard stands before its commits (a refusal writes nothing);
        // a write barrier cannot hold them off (docs/stores.md).
        if !rows.is_empty() || new_pin.is_some() {
            self.guard.check(am_triples::CommitPoint::StoreAdd)?;
        }
        let want_dim = st.vector_dim.or(dim).or_else(|| {
            st.pin
                .as_ref()
                .and_then(|p| p.dimension)
                .or_else(|| self.embedder.as_ref().and_then(|e| e.dimension()))
        });
        if !rows.is_empty() {
            let table = st.table.clone();
            let add_vector_column = table.is_some() && st.vector_dim.is_none() && dim.is_some();
            let schema_dim = if table.is_none() || add_vector_column {
                want_dim
            } else {
                st.vector_dim
            };
            let schema = schema::table_schema(&self.vector_column, schema_dim)?;
            let batch = schema::to_batch(&rows, &schema)?;
            let conn = self.conn.clone();
            let name = self.table_name.clone();
            let vc = self.vector_column.clone();
            let table = self.rt.run(async move {
                match table {
                    None => conn
                        .create_table(name, batch)
                        .execute()
                        .await
                        .map_err(storage("create table")),
                    Some(t) => {
                        if add_vector_column && let Some(d) = schema_dim {
                            let fields = schema::vector_fields(&vc, d)?;
                            t.add_columns()
                                .transform(NewColumnTransform::AllNulls(Arc::new(Schema::new(
                                    fields,
                                ))))
                                .execute()
                                .await
                                .map_err(storage("add the vector column"))?;
                        }
                        t.add(batch).execute().await.map_err(storage("add"))?;
                        Ok(t)
                    }
                }
            })?;
            st.table = Some(table);
            st.vector_dim = schema_dim;
            st.next_seq = seq;
        }
        if let Some(p) = new_pin {
            let first_write = st.pin.is_none();
            self.write_pin(&mut st, &p)?;
            if first_write {
                warnings.push(format!(
                    "#FALLBACK: embedding pin created at FIRST WRITE ({}); creation pinning is the contract for new homes",
                    EmbeddingPin::note(Some(&p))
                ));
            }
            st.pin = Some(p);
        }
        warnings.extend(zero_warning.iter().cloned());
        Ok(warnings)
    }

    /// Keep `warnings` for [`TripleStore::take_warnings`] (a write whose
    /// caller has no result to carry them).
    pub(crate) fn note_warnings(&self, warnings: Vec<String>) {
        self.lock().warnings.extend(warnings);
    }
}

/// Stamp `_retrieval = {score, metric: "cosine", distance: 1 - score}`.
fn with_retrieval(mut a: TripleAssertion, score: f64) -> TripleAssertion {
    am_triples::store::stamp_retrieval(&mut a, score, Some(1.0 - score));
    a
}

/// The ranked rows themselves, in rank order.
fn take(rows: Vec<StoredRow>, ranked: Vec<(usize, f64)>) -> Vec<(StoredRow, f64)> {
    let mut slots: Vec<Option<StoredRow>> = rows.into_iter().map(Some).collect();
    ranked
        .into_iter()
        .filter_map(|(i, score)| slots.get_mut(i).and_then(Option::take).map(|r| (r, score)))
        .collect()
}

fn row_columns_owned() -> Vec<String> {
    schema::row_columns()
        .into_iter()
        .map(str::to_owned)
        .collect()
}

impl TripleStore for LanceDBTripleStore {
    fn capabilities(&self) -> Capabilities {
        Capabilities {
            close_assertion: false,
            narrow_assertion: false,
            change_feed: true,
            vector_search: true,
            digest_rewrite: false,
            persistent: true,
            cross_process_writers: false,
        }
    }

    fn add(&self, assertions: &[TripleAssertion]) -> Result<Vec<String>> {
        let added = self.add_with_warnings(assertions)?;
        self.note_warnings(added.warnings);
        Ok(added.ids)
    }

    fn add_with_warnings(&self, assertions: &[TripleAssertion]) -> Result<am_triples::Added> {
        let prepared = self.prepare(assertions)?;
        let warnings = self.insert_prepared(&prepared)?;
        Ok(am_triples::Added {
            ids: prepared.ids(),
            warnings,
        })
    }

    fn query(&self, q: &TripleQuery) -> Result<Vec<TripleAssertion>> {
        let q = q.canonicalized()?;
        let pin = self.lock().pin.clone();
        let qv = resolve_query_vector(&q, self.embedder.as_deref(), pin.as_ref())?;
        if let (Some(v), Some(p)) = (&qv, &pin) {
            p.check_query_dimension(v.len())?;
        }
        let (table, vector_dim) = {
            let st = self.lock();
            (st.table.clone(), st.vector_dim)
        };
        let Some(table) = table else {
            return Ok(Vec::new());
        };
        let where_ = filter::where_clause(&q);
        if let Some(qv) = qv {
            let Some(dim) = vector_dim.filter(|_| q.vector_column == self.vector_column) else {
                // No vectors under the query's column: nothing ranks.
                return Ok(Vec::new());
            };
            return Ok(self
                .semantic(&table, &q, &qv, dim)?
                .into_iter()
                .map(|(row, score)| with_retrieval(row.assertion, score))
                .collect());
        }
        let mut rows = self.read_rows(&table, where_, row_columns_owned(), Some(&q))?;
        // Insertion order first (read_rows), then a stable sort on observed_at:
        // ties keep insertion order, reversed for desc.
        rows.sort_by(|a, b| a.assertion.observed_at.cmp(&b.assertion.observed_at));
        if q.order == Order::Desc {
            rows.reverse();
        }
        let n = q.effective_limit().unwrap_or(usize::MAX);
        Ok(rows.into_iter().take(n).map(|r| r.assertion).collect())
    }

    fn close(&self) -> Result<()> {
        Ok(())
    }

    fn assertions_after(
        &self,
        cursor: i64,
        scope: Option<&str>,
        owner_id: Option<&str>,
        limit: usize,
    ) -> Result<FeedPage> {
        let am_triples::store::FeedArgs {
            start: cursor,
            scope,
            owner_id,
        } = am_triples::store::feed_args(cursor, scope, owner_id, limit)?;
        let Some(table) = self.lock().table.clone() else {
            return Ok(FeedPage {
                rows: Vec::new(),
                next_cursor: cursor,
            });
        };
        let q = TripleQuery {
            scope,
            owner_id,
            ..TripleQuery::default()
        }
        .canonicalized()?;
        let after = format!("{SEQ} > {cursor}");
        let rows = self.read_rows(
            &table,
            filter::and(Some(after.clone()), filter::where_clause(&q)),
            row_columns_owned(),
            Some(&q),
        )?;
        if rows.len() >= limit {
            let rows: Vec<(i64, TripleAssertion)> = rows
                .into_iter()
                .take(limit)
                .map(|r| (r.seq, r.assertion))
                .collect();
            let next_cursor = rows.last().map_or(cursor, |(s, _)| *s);
            return Ok(FeedPage { rows, next_cursor });
        }
        // Fewer than a page: the cursor moves past every row scanned.
        let t = table.clone();
        let last = self.rt.run(async move {
            let mut m = cursor;
            for b in scan(&t, Some(after), &[SEQ]).await? {
                if let Some(a) = b
                    .column_by_name(SEQ)
                    .and_then(|a| a.as_primitive_opt::<Int64Type>())
                {
                    m = a.iter().flatten().fold(m, i64::max);
                }
            }
            Ok(m)
        })?;
        Ok(FeedPage {
            rows: rows.into_iter().map(|r| (r.seq, r.assertion)).collect(),
            next_cursor: last,
        })
    }

    fn stored_vector(&self, assertion_id: &str) -> Result<Option<Vec<f32>>> {
        let (table, has_vectors) = {
            let st = self.lock();
            (st.table.clone(), st.vector_dim.is_some())
        };
        let (Some(table), true) = (table, has_vectors) else {
            return Ok(None);
        };
        let rows = self.read_rows(
            &table,
            Some(format!(
                "assertion_id = {}",
                quote_literal(assertion_id.trim())
            )),
            vec![
                "assertion_id".into(),
                SEQ.into(),
                self.vector_column.clone(),
            ],
            None,
        )?;
        Ok(rows.into_iter().next().and_then(|r| r.vector))
    }

    fn embedding_pin(&self) -> Result<Option<EmbeddingPin>> {
        Ok(self.lock().pin.clone())
    }

    fn embeds_on_add(&self) -> Option<bool> {
        Some(self.embedder.is_some())
    }

    fn take_warnings(&self) -> Vec<String> {
        std::mem::take(&mut self.lock().warnings)
    }

    fn install_commit_guard(&self, guard: &am_triples::CommitGuard) -> Result<()> {
        self.guard.install(guard, "this LanceDBTripleStore")
    }

    fn commit_guard(&self) -> Option<am_triples::CommitGuard> {
        self.guard.get().cloned()
    }

    fn accelerator(&self) -> Option<&dyn ReadAccelerator> {
        Some(self)
    }
}

/// `subjects_with_predicate` in one filtered scan per
/// [`filter::MAX_IDS_IN_CLAUSE`] subjects (`predicate = … AND subject IN
/// (…)`, every value a quoted literal) instead of one query per subject. A
/// blank subject or predicate (which `query` does not filter on) is asked
/// alone. The keyword reads and `rank_positions` keep their fallbacks: no
/// keyword index, and the semantic query ranks its own rows.
impl ReadAccelerator for LanceDBTripleStore {
    fn subjects_with_predicate(
        &self,
        subjects: &[String],
        predicate: &str,
    ) -> Result<HashSet<String>> {
        let predicate = canonicalize_term(predicate);
        let mut by_canonical: HashMap<String, Vec<&String>> = HashMap::new();
        let mut out = HashSet::new();
        for s in subjects {
            let c = canonicalize_term(s);
            if c.is_empty() || predicate.is_empty() {
                let found = self.query(&TripleQuery {
                    subject: Some(s.clone()),
                    predicate: Some(predicate.clone()),
                    limit: 1,
                    ..TripleQuery::default()
                })?;
                if !found.is_empty() {
                    out.insert(s.clone());
                }
            } else {
                by_canonical.entry(c).or_default().push(s);
            }
        }
        let keys: Vec<&String> = by_canonical.keys().collect();
        for chunk in keys.chunks(filter::MAX_IDS_IN_CLAUSE) {
            let list: Vec<String> = chunk.iter().map(|k| quote_literal(k)).collect();
            let where_ = format!(
                "predicate = {} AND subject IN ({})",
                quote_literal(&predicate),
                list.join(", ")
            );
            for row in self.rows_where(where_)? {
                // The clause is a pre-filter: the row predicate decides.
                if row.assertion.predicate != predicate {
                    continue;
                }
                if let Some(inputs) = by_canonical.get(&row.assertion.subject) {
                    out.extend(inputs.iter().map(|s| (*s).clone()));
                }
            }
        }
        Ok(out)
    }
}

/// A local directory's absolute path (as the graph's per-mind registry keys it);
/// any other URI as given.
fn resolved_uri(uri: &str) -> String {
    if uri.contains("://") {
        return uri.to_owned();
    }
    std::fs::canonicalize(uri)
        .or_else(|_| std::path::absolute(uri))
        .map_or_else(|_| uri.to_owned(), |p| p.to_string_lossy().into_owned())
}

fn uuid_v4() -> String {
    uuid::Uuid::new_v4().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Values that would change a naively built clause's structure.
    const HOSTILE: &[&str] = &[
        "o'brien",
        "x' or '1'='1",
        "' or 1=1 --",
        r"back\slash",
        r"ends with \",
        r"\'",
        "''",
        "a'; drop table triple_assertions; --",
        "null",
        "select * from t",
        "line\nbreak",
    ];

    /// The ids the compiled clause alone selects (no row predicate after it).
    fn clause_only(s: &LanceDBTripleStore, q: &TripleQuery) -> Vec<String> {
        let q = q.canonicalized().unwrap();
        let table = s.lock().table.clone().unwrap();
        s.read_rows(&table, filter::where_clause(&q), row_columns_owned(), None)
            .unwrap()
            .into_iter()
            .filter_map(|r| r.assertion.assertion_id)
            .collect()
    }

    #[test]
    fn the_where_clause_alone_matches_hostile_values_literally() {
        let dir = tempfile::tempdir().unwrap();
        let s = LanceDBTripleStore::open(
            &dir.path().join("kg").to_string_lossy(),
            None,
            LanceStoreOptions::default(),
        )
        .unwrap();
        let mut rows = vec![TripleAssertion::new("decoy", "decoy", "decoy").with_id("decoy")];
        for (i, h) in HOSTILE.iter().enumerate() {
            rows.push(
                TripleAssertion::new(h, h, h)
                    .with_scope(h)
                    .with_owner(h)
                    .with_id(&format!("row-{i}")),
            );
        }
        s.add(&rows).unwrap();
        for (i, h) in HOSTILE.iter().enumerate() {
            let want = vec![format!("row-{i}")];
            let v = Some((*h).to_owned());
            for q in [
                TripleQuery {
                    subject: v.clone(),
                    ..TripleQuery::default()
                },
                TripleQuery {
                    predicate: v.clone(),
                    ..TripleQuery::default()
                },
                TripleQuery {
                    object: v.clone(),
                    ..TripleQuery::default()
                },
                TripleQuery {
                    scope: v.clone(),
                    ..TripleQuery::default()
                },
                TripleQuery {
                    owner_id: v.clone(),
                    ..TripleQuery::default()
                },
                TripleQuery {
                    assertion_ids: Some(vec![format!("row-{i}")]),
                    ..TripleQuery::default()
                },
            ] {
                assert_eq!(clause_only(&s, &q), want, "{q:?}");
            }
        }
        assert_eq!(
            clause_only(
                &s,
                &TripleQuery {
                    assertion_ids: Some(vec!["x') OR ('1'='1".into()]),
                    ..TripleQuery::default()
                }
            ),
            Vec::<String>::new()
        );
    }
}
