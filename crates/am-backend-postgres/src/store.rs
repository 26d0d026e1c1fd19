//! `PostgresTripleStore`: layer 1 on PostgreSQL.
//!
//! Every write is one PostgreSQL transaction that first takes the table's
//! transaction-scoped advisory lock ([`crate::schema::lock_writers`]), so
//! writers on every host serialize; the change feed's `position` is the
//! table's head plus one under that lock, so it never gaps or repeats and a
//! reader never sees a later position before an earlier one. The commit guard
//! runs inside the transaction right before its COMMIT. Semantic queries
//! score every candidate in Rust with the reference cosine every store uses.

use crate::pool::Pool;
use crate::schema::{self, COLUMNS, pg};
use am_triples::pin::{self as tpin, EmbeddingPin};
use am_triples::store::{self, Capabilities, FeedPage, TripleStore};
use am_triples::{
    Added, CommitGuard, CommitPoint, Error, GuardSlot, Order, Result, TextEmbedder,
    TripleAssertion, TripleQuery, WriteFence, WriteLock, canonical_text,
};
use postgres::GenericClient;
use postgres::types::ToSql;
use std::collections::HashSet;
use std::sync::{Arc, Mutex};

/// How a [`PostgresTripleStore`] is opened.
#[derive(Debug, Clone)]
pub struct PostgresStoreOptions {
    /// The creation pin: written on a pinless store, checked against a stored one.
    pub embedding_pin: Option<EmbeddingPin>,
    /// The table (`[a-z_][a-z0-9_]*`); its meta table is `{table}_meta`.
    pub table: String,
    /// The vector column a semantic query must name to rank this store's vectors.
    pub vector_column: String,
}

impl Default for PostgresStoreOptions {
    fn default() -> Self {
        PostgresStoreOptions {
            embedding_pin: None,
            table: "triples".to_owned(),
            vector_column: am_triples::query::DEFAULT_VECTOR_COLUMN.to_owned(),
        }
    }
}

/// A triple store in a PostgreSQL database, shared by every process that
/// opens the same database and table.
pub struct PostgresTripleStore {
    pool: Pool,
    table: String,
    vector_column: String,
    embedder: Option<Arc<dyn TextEmbedder>>,
    warnings: Mutex<Vec<String>>,
    guard: GuardSlot,
    /// Held by this process's writes from before their transaction to after
    /// its COMMIT: an in-process write barrier holds it.
    write_lock: Arc<WriteLock>,
}

impl std::fmt::Debug for PostgresTripleStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PostgresTripleStore")
            .field("table", &self.table)
            .finish_non_exhaustive()
    }
}

fn load_pin(c: &mut impl GenericClient, table: &str) -> Result<Option<EmbeddingPin>> {
    schema::meta_get(c, table, schema::META_EMBEDDING_PIN)?
        .map(|s| EmbeddingPin::from_json(&s))
        .transpose()
}

fn store_pin(c: &mut impl GenericClient, table: &str, pin: &EmbeddingPin) -> Result<()> {
    schema::meta_set(c, table, schema::META_EMBEDDING_PIN, &pin.to_json())
}

/// One stored row with its vector (when read).
struct Stored {
    assertion: TripleAssertion,
    vector: Option<Vec<f32>>,
}

impl PostgresTripleStore {
    /// Open (creating the tables when missing) the store at `config`, a
    /// libpq-style connection string (`host=… user=… dbname=…`) or a
    /// `postgres://` URL. The connection string is never echoed in an error.
    ///
    /// # Errors
    /// `InvalidInput` for a malformed connection string or table name;
    /// `Storage` when the server cannot be reached; `Refused` when the
    /// embedder or the declared pin contradicts the stored pin.
    pub fn open(
        config: &str,
        embedder: Option<Arc<dyn TextEmbedder>>,
        options: PostgresStoreOptions,
    ) -> Result<Self> {
        schema::check_table_name(&options.table)?;
        let config = config
            .parse::<postgres::Config>()
            .map_err(|e| Error::invalid(format!("not a PostgreSQL connection string: {e}")))?;
        let pool = Pool::new(config);
        let table = options.table;
        {
            let mut client = pool.get().map_err(pg)?;
            schema::ensure(&mut client, &table)?;
            let stored = load_pin(&mut *client, &table)?;
            let declared = tpin::declared_pin(options.embedding_pin.as_ref())?;
            tpin::check_at_open(stored.as_ref(), declared.as_ref(), embedder.as_deref())?;
            if stored.is_none()
                && let Some(d) = &declared
            {
                let mut tx = client.transaction().map_err(pg)?;
                schema::lock_writers(&mut tx, &table)?;
                // Another host may have pinned between our read and this lock.
                if load_pin(&mut tx, &table)?.is_none() {
                    store_pin(&mut tx, &table, d)?;
                }
                tx.commit().map_err(pg)?;
            }
        }
        let vector_column = {
            let c = am_triples::assertion::py_strip(&options.vector_column);
            if c.is_empty() {
                am_triples::query::DEFAULT_VECTOR_COLUMN.to_owned()
            } else {
                c.to_owned()
            }
        };
        Ok(PostgresTripleStore {
            pool,
            write_lock: WriteLock::new(format!(
                "the write lock of a PostgresTripleStore ({table})"
            )),
            table,
            vector_column,
            embedder,
            warnings: Mutex::new(Vec::new()),
            guard: GuardSlot::new(),
        })
    }

    /// The table this store writes.
    pub fn table(&self) -> &str {
        &self.table
    }

    fn client(&self) -> Result<crate::pool::Pooled<'_>> {
        self.pool.get().map_err(pg)
    }

    fn read_pin(&self) -> Result<Option<EmbeddingPin>> {
        load_pin(&mut *self.client()?, &self.table)
    }

    fn warnings(&self) -> std::sync::MutexGuard<'_, Vec<String>> {
        self.warnings
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// One row by id, with whether it holds a vector.
    fn row_by_id(
        &self,
        c: &mut impl GenericClient,
        id: &str,
        for_update: bool,
    ) -> Result<Option<(TripleAssertion, bool)>> {
        let sql = format!(
            "SELECT {COLUMNS}, embedding IS NOT NULL FROM {} WHERE assertion_id = $1{}",
            self.table,
            if for_update { " FOR UPDATE" } else { "" }
        );
        let Some(r) = c.query_opt(&sql, &[&id]).map_err(pg)? else {
            return Ok(None);
        };
        let (_, a) = schema::row_to_assertion(&r)?;
        Ok(Some((a, r.get::<_, bool>(13))))
    }

    /// A window change (`close_assertion` / `narrow_assertion`) as one
    /// transaction: `rule` maps the current end to the new one.
    fn change_window(
        &self,
        id: &str,
        point: CommitPoint,
        rule: impl FnOnce(Option<&str>) -> Result<Option<String>>,
    ) -> Result<bool> {
        let _write = self.write_lock.write();
        let mut client = self.client()?;
        let mut tx = client.transaction().map_err(pg)?;
        schema::lock_writers(&mut tx, &self.table)?;
        let Some(row) = tx
            .query_opt(
                &format!(
                    "SELECT valid_until FROM {} WHERE assertion_id = $1",
                    self.table
                ),
                &[&id],
            )
            .map_err(pg)?
        else {
            return Ok(false);
        };
        let current: Option<String> = row.get(0);
        let Some(new_end) = rule(current.as_deref())? else {
            return Ok(false);
        };
        tx.execute(
            &format!(
                "UPDATE {} SET valid_until = $2 WHERE assertion_id = $1",
                self.table
            ),
            &[&id, &new_end],
        )
        .map_err(pg)?;
        self.guard.check(point)?;
        tx.commit().map_err(pg)?;
        Ok(true)
    }
}

/// The SQL filters of a canonicalized query that SQL can apply exactly
/// (every one but the object, whose literal rule reads the attributes).
fn where_clause(q: &TripleQuery, params: &mut Vec<Box<dyn ToSql + Sync>>) -> String {
    let mut sql = String::from(" WHERE TRUE");
    let mut push = |clause: &str, v: Box<dyn ToSql + Sync>| {
        params.push(v);
        sql.push_str(&clause.replace('?', &format!("${}", params.len())));
    };
    if let Some(s) = &q.subject {
        push(" AND subject = ?", Box::new(s.clone()));
    }
    if let Some(p) = &q.predicate {
        push(" AND predicate = ?", Box::new(p.clone()));
    }
    if let Some(s) = &q.scope {
        push(" AND scope = ?", Box::new(s.clone()));
    }
    if let Some(o) = &q.owner_id {
        push(" AND owner_id = ?", Box::new(o.clone()));
    }
    if let Some(ids) = &q.assertion_ids {
        push(" AND assertion_id = ANY(?)", Box::new(ids.clone()));
    }
    if let Some(s) = &q.since {
        push(" AND observed_at COLLATE \"C\" >= ?", Box::new(s.clone()));
    }
    if let Some(u) = &q.until {
        push(" AND observed_at COLLATE \"C\" <= ?", Box::new(u.clone()));
    }
    if let Some(at) = &q.active_at {
        push(
            " AND (valid_from IS NULL OR valid_from COLLATE \"C\" <= ?)",
            Box::new(at.clone()),
        );
        push(
            " AND (valid_until IS NULL OR valid_until COLLATE \"C\" > ?)",
            Box::new(at.clone()),
        );
    }
    sql
}

impl TripleStore for PostgresTripleStore {
    fn capabilities(&self) -> Capabilities {
        Capabilities {
            close_assertion: true,
            narrow_assertion: true,
            change_feed: true,
            vector_search: true,
            digest_rewrite: true,
            persistent: true,
            cross_process_writers: true,
        }
    }

    fn install_commit_guard(&self, guard: &CommitGuard) -> Result<()> {
        self.guard.install(guard, "this PostgresTripleStore")
    }

    fn commit_guard(&self) -> Option<CommitGuard> {
        self.guard.get().cloned()
    }

    fn write_fence(&self) -> WriteFence {
        WriteFence {
            locks: vec![self.write_lock.clone()],
            ..WriteFence::default()
        }
    }

    fn add(&self, assertions: &[TripleAssertion]) -> Result<Vec<String>> {
        let added = self.add_with_warnings(assertions)?;
        self.warnings().extend(added.warnings);
        Ok(added.ids)
    }

    fn add_with_warnings(&self, assertions: &[TripleAssertion]) -> Result<Added> {
        let mut pending = assertions
            .iter()
            .map(TripleAssertion::canonicalized)
            .collect::<Result<Vec<_>>>()?;
        for a in &mut pending {
            if a.assertion_id.is_none() {
                a.assertion_id = Some(uuid::Uuid::new_v4().to_string());
            }
        }
        let texts: Vec<String> = pending.iter().map(canonical_text).collect();
        let embedded = store::embed_rows(self.embedder.as_deref(), &pending, &texts, || {
            self.read_pin()
        })?;
        let ids: Vec<String> = pending
            .iter()
            .filter_map(|a| a.assertion_id.clone())
            .collect();
        let mut warnings = Vec::new();
        if pending.is_empty() {
            return Ok(Added { ids, warnings });
        }
        let _write = self.write_lock.write();
        let mut client = self.client()?;
        let mut tx = client.transaction().map_err(pg)?;
        schema::lock_writers(&mut tx, &self.table)?;
        if let Some(d) = embedded.dimension {
            match load_pin(&mut tx, &self.table)? {
                Some(mut p) => {
                    p.check_add_dimension(d)?;
                    if p.dimension.is_none() {
                        p.dimension = Some(d);
                        store_pin(&mut tx, &self.table, &p)?;
                    }
                }
                None => {
                    let model = self.embedder.as_ref().and_then(|e| e.model_id());
                    let p = tpin::build_pin(
                        model.as_deref(),
                        Some(d),
                        tpin::PIN_SOURCE_FIRST_WRITE,
                        Some(tpin::CLAIMED_BY_EMBEDDER_ATTRIBUTE),
                    )?;
                    warnings.push(format!(
                        "#FALLBACK: embedding pin created at FIRST WRITE ({}); creation pinning is \
                         the contract for new homes",
                        EmbeddingPin::note(Some(&p))
                    ));
                    store_pin(&mut tx, &self.table, &p)?;
                }
            }
        }
        // Store-level id idempotency: ids already stored, or earlier in this batch.
        let mut seen: HashSet<String> = tx
            .query(
                &format!(
                    "SELECT assertion_id FROM {} WHERE assertion_id = ANY($1)",
                    self.table
                ),
                &[&ids],
            )
            .map_err(pg)?
            .iter()
            .map(|r| r.get(0))
            .collect();
        let head: i64 = tx
            .query_one(
                &format!("SELECT COALESCE(MAX(position), 0) FROM {}", self.table),
                &[],
            )
            .map_err(pg)?
            .get(0);
        let mut cols = Columns::default();
        for ((a, text), vector) in pending.into_iter().zip(texts).zip(embedded.vectors) {
            let id = a.assertion_id.clone().unwrap_or_default();
            if !seen.insert(id) {
                continue;
            }
            cols.push(
                head + i64::try_from(cols.position.len() + 1).unwrap_or(i64::MAX),
                a,
                text,
                vector,
            )?;
        }
        if !cols.position.is_empty() {
            cols.insert(&mut tx, &self.table)?;
        }
        self.guard.check(CommitPoint::StoreAdd)?;
        tx.commit().map_err(pg)?;
        warnings.extend(embedded.warning);
        Ok(Added { ids, warnings })
    }

    fn query(&self, q: &TripleQuery) -> Result<Vec<TripleAssertion>> {
        let q = q.canonicalized()?;
        let pin = if q.is_semantic() {
            self.read_pin()?
        } else {
            None
        };
        let qv = store::resolve_query_vector(&q, self.embedder.as_deref(), pin.as_ref())?;
        if let (Some(qv), Some(p)) = (&qv, &pin) {
            p.check_query_dimension(qv.len())?;
        }
        let mut params: Vec<Box<dyn ToSql + Sync>> = Vec::new();
        let filter = where_clause(&q, &mut params);
        let with_vectors = qv.is_some() && q.vector_column == self.vector_column;
        let mut sql = format!(
            "SELECT {COLUMNS}{} FROM {}{filter}",
            if with_vectors { ", embedding" } else { "" },
            self.table
        );
        // Without an object filter (applied below, in Rust) and a ranking,
        // SQL orders and limits: observed_at as bytes, ties by position, in
        // the query's direction.
        let sql_limits = qv.is_none() && q.object.is_none();
        if sql_limits {
            let dir = if q.order == Order::Desc {
                "DESC"
            } else {
                "ASC"
            };
            sql.push_str(&format!(
                " ORDER BY observed_at COLLATE \"C\" {dir}, position {dir}"
            ));
            if let Some(n) = q.effective_limit() {
                sql.push_str(&format!(" LIMIT {n}"));
            }
        } else {
            sql.push_str(" ORDER BY position");
        }
        let refs: Vec<&(dyn ToSql + Sync)> = params.iter().map(|p| &**p as _).collect();
        let rows = self.client()?.query(&sql, &refs).map_err(pg)?;
        let mut matching = Vec::with_capacity(rows.len());
        for r in &rows {
            let (_, assertion) = schema::row_to_assertion(r)?;
            if !q.matches(&assertion) {
                continue;
            }
            let vector = if with_vectors {
                r.get::<_, Option<&[u8]>>(13)
                    .and_then(schema::decode_vector)
            } else {
                None
            };
            matching.push(Stored { assertion, vector });
        }
        if let Some(qv) = qv {
            let ranked = am_triples::vector::rank_by_cosine_fast(
                &qv,
                matching.iter(),
                |r| r.vector.as_deref(),
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
        let mut out: Vec<TripleAssertion> = matching.into_iter().map(|s| s.assertion).collect();
        if !sql_limits {
            // Stable: ties keep insertion order, reversed for desc.
            out.sort_by(|a, b| a.observed_at.cmp(&b.observed_at));
            if q.order == Order::Desc {
                out.reverse();
            }
            if let Some(n) = q.effective_limit() {
                out.truncate(n);
            }
        }
        Ok(out)
    }

    fn close(&self) -> Result<()> {
        self.pool.clear();
        Ok(())
    }

    fn close_assertion(&self, assertion_id: &str, valid_until: &str) -> Result<bool> {
        let (id, end) = store::window_args(assertion_id, valid_until)?;
        self.change_window(&id, CommitPoint::StoreCloseAssertion, |current| {
            Ok(store::close_rule(current, &end))
        })
    }

    fn narrow_assertion(&self, assertion_id: &str, valid_until: &str) -> Result<bool> {
        let (id, end) = store::window_args(assertion_id, valid_until)?;
        let rule_id = id.clone();
        self.change_window(&id, CommitPoint::StoreNarrowAssertion, move |current| {
            store::narrow_rule(&rule_id, current, &end)
        })
    }

    fn assertions_after(
        &self,
        cursor: i64,
        scope: Option<&str>,
        owner_id: Option<&str>,
        limit: usize,
    ) -> Result<FeedPage> {
        let store::FeedArgs {
            start,
            scope,
            owner_id: owner,
        } = store::feed_args(cursor, scope, owner_id, limit)?;
        let mut client = self.client()?;
        // One snapshot: the page and the head agree.
        let mut tx = client
            .build_transaction()
            .isolation_level(postgres::IsolationLevel::RepeatableRead)
            .read_only(true)
            .start()
            .map_err(pg)?;
        let mut params: Vec<Box<dyn ToSql + Sync>> = vec![Box::new(start)];
        let mut sql = format!("SELECT {COLUMNS} FROM {} WHERE position > $1", self.table);
        if let Some(s) = scope {
            params.push(Box::new(s));
            sql.push_str(&format!(" AND scope = ${}", params.len()));
        }
        if let Some(o) = owner {
            params.push(Box::new(o));
            sql.push_str(&format!(" AND owner_id = ${}", params.len()));
        }
        sql.push_str(&format!(
            " ORDER BY position LIMIT {}",
            i64::try_from(limit).unwrap_or(i64::MAX)
        ));
        let refs: Vec<&(dyn ToSql + Sync)> = params.iter().map(|p| &**p as _).collect();
        let rows = tx
            .query(&sql, &refs)
            .map_err(pg)?
            .iter()
            .map(schema::row_to_assertion)
            .collect::<Result<Vec<_>>>()?;
        let next = if rows.len() == limit {
            rows.last().map_or(start, |(p, _)| *p)
        } else {
            let head: i64 = tx
                .query_one(
                    &format!("SELECT COALESCE(MAX(position), 0) FROM {}", self.table),
                    &[],
                )
                .map_err(pg)?
                .get(0);
            head.max(start)
        };
        tx.commit().map_err(pg)?;
        Ok(FeedPage {
            rows,
            next_cursor: next,
        })
    }

    fn stored_vector(&self, assertion_id: &str) -> Result<Option<Vec<f32>>> {
        let id = am_triples::assertion::py_strip(assertion_id);
        if id.is_empty() {
            return Ok(None);
        }
        let row = self
            .client()?
            .query_opt(
                &format!(
                    "SELECT embedding FROM {} WHERE assertion_id = $1",
                    self.table
                ),
                &[&id],
            )
            .map_err(pg)?;
        Ok(row.and_then(|r| {
            r.get::<_, Option<Vec<u8>>>(0)
                .and_then(|b| schema::decode_vector(&b))
        }))
    }

    fn embedding_pin(&self) -> Result<Option<EmbeddingPin>> {
        self.read_pin()
    }

    fn preview_vectors(&self, rows: &[TripleAssertion]) -> Result<Option<Vec<Option<Vec<f32>>>>> {
        let canonical = rows
            .iter()
            .map(TripleAssertion::canonicalized)
            .collect::<Result<Vec<_>>>()?;
        if self.embedder.is_none() {
            return Ok(Some(vec![None; rows.len()]));
        }
        let texts: Vec<String> = canonical.iter().map(canonical_text).collect();
        let embedded = store::embed_rows(self.embedder.as_deref(), &canonical, &texts, || {
            self.read_pin()
        })?;
        Ok(Some(embedded.vectors))
    }

    fn embeds_on_add(&self) -> Option<bool> {
        Some(self.embedder.is_some())
    }

    fn prepare_digest_rewrite(
        &self,
        rewrite: &am_triples::DigestRewrite,
    ) -> Result<am_triples::PreparedRewrite> {
        let (current, pin) = {
            let mut client = self.client()?;
            let current = self.row_by_id(
                &mut *client,
                am_triples::assertion::py_strip(&rewrite.assertion_id),
                false,
            )?;
            (current, load_pin(&mut *client, &self.table)?)
        };
        am_triples::rewrite::prepare_rewrite(
            self.embedder.as_deref(),
            pin.as_ref(),
            current.as_ref().map(|(a, _)| a),
            current.as_ref().is_some_and(|(_, v)| *v),
            rewrite,
        )
    }

    fn apply_digest_rewrite(
        &self,
        prepared: &am_triples::PreparedRewrite,
        point: CommitPoint,
    ) -> Result<()> {
        let id = am_triples::assertion::py_strip(&prepared.rewrite.assertion_id).to_owned();
        let _write = self.write_lock.write();
        let mut client = self.client()?;
        let mut tx = client.transaction().map_err(pg)?;
        schema::lock_writers(&mut tx, &self.table)?;
        let current = self.row_by_id(&mut tx, &id, true)?;
        am_triples::rewrite::check_expected(current.as_ref().map(|(a, _)| a), &prepared.rewrite)?;
        let attributes = schema::encode_map(&prepared.rewrite.attributes)?;
        let base = format!(
            "UPDATE {} SET object = $2, attributes_json = $3, text = $4",
            self.table
        );
        let (obj, text) = (&prepared.rewrite.object, &prepared.text);
        match &prepared.vector {
            am_triples::VectorChange::Keep => tx.execute(
                &format!("{base} WHERE assertion_id = $1"),
                &[&id, obj, &attributes, text],
            ),
            am_triples::VectorChange::Set(v) => tx.execute(
                &format!("{base}, embedding = $5 WHERE assertion_id = $1"),
                &[&id, obj, &attributes, text, &schema::encode_vector(v)],
            ),
            am_triples::VectorChange::Clear => tx.execute(
                &format!("{base}, embedding = NULL WHERE assertion_id = $1"),
                &[&id, obj, &attributes, text],
            ),
        }
        .map_err(pg)?;
        self.guard.check(point)?;
        tx.commit().map_err(pg)
    }

    fn take_warnings(&self) -> Vec<String> {
        std::mem::take(&mut *self.warnings())
    }
}

/// One write batch as column arrays, inserted with one `UNNEST` statement.
#[derive(Default)]
struct Columns {
    position: Vec<i64>,
    assertion_id: Vec<String>,
    subject: Vec<String>,
    predicate: Vec<String>,
    object: Vec<String>,
    scope: Vec<String>,
    owner_id: Vec<Option<String>>,
    observed_at: Vec<String>,
    valid_from: Vec<Option<String>>,
    valid_until: Vec<Option<String>>,
    confidence: Vec<Option<f64>>,
    provenance: Vec<String>,
    attributes: Vec<String>,
    text: Vec<String>,
    embedding: Vec<Option<Vec<u8>>>,
}

impl Columns {
    fn push(
        &mut self,
        position: i64,
        a: TripleAssertion,
        text: String,
        vector: Option<Vec<f32>>,
    ) -> Result<()> {
        self.provenance.push(schema::encode_map(&a.provenance)?);
        self.attributes.push(schema::encode_map(&a.attributes)?);
        self.position.push(position);
        self.assertion_id.push(a.assertion_id.unwrap_or_default());
        self.subject.push(a.subject);
        self.predicate.push(a.predicate);
        self.object.push(a.object);
        self.scope.push(a.scope);
        self.owner_id.push(a.owner_id);
        self.observed_at.push(a.observed_at);
        self.valid_from.push(a.valid_from);
        self.valid_until.push(a.valid_until);
        self.confidence.push(a.confidence);
        self.text.push(text);
        self.embedding
            .push(vector.map(|v| schema::encode_vector(&v)));
        Ok(())
    }

    fn insert(&self, tx: &mut impl GenericClient, table: &str) -> Result<()> {
        tx.execute(
            &format!(
                "INSERT INTO {table} (position, assertion_id, subject, predicate, object, scope, \
                 owner_id, observed_at, valid_from, valid_until, confidence, provenance_json, \
                 attributes_json, text, embedding) \
                 SELECT * FROM UNNEST($1::int8[], $2::text[], $3::text[], $4::text[], $5::text[], \
                 $6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::float8[], \
                 $12::text[], $13::text[], $14::text[], $15::bytea[])"
            ),
            &[
                &self.position,
                &self.assertion_id,
                &self.subject,
                &self.predicate,
                &self.object,
                &self.scope,
                &self.owner_id,
                &self.observed_at,
                &self.valid_from,
                &self.valid_until,
                &self.confidence,
                &self.provenance,
                &self.attributes,
                &self.text,
                &self.embedding,
            ],
        )
        .map_err(pg)?;
        Ok(())
    }
}
