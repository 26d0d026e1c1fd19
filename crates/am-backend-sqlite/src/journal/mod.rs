//! `SQLiteJournal`: AbstractMemory's `memj_*` tables in the home's file, over the
//! home's one connection, so a graph revision and its closures commit in one
//! transaction (the `*_in` methods append inside a caller's open transaction).
//!
//! Spec: api.md "The journal"; troubleshooting.md "Durability and replay";
//! ../shared/spec/oracle-0.3.2/schema.sql (`memj_*`); oracle `journal_sqlite.py`.
//!
//! Storage model (as 0.3.2): one table per family, `seq INTEGER PRIMARY KEY`, and a
//! single-row `memj_seq` counter advanced in the same transaction as the rows, so
//! the axis never drifts from the records. `memj_selected_counts` is maintained as
//! 0.3.2 maintains it. This port adds `memj_versions` (0.5.2's understanding
//! versions) and two checkpointed count logs (`memj_selected_log`, `memj_pair_log`,
//! kept through `memj_count_logs.high_water`) so that `selected_count` and
//! `pair_selected_count` as of any seq are one probe plus a bounded index walk
//! (`counts.rs`); a home last written by Python is caught up on open.

mod append;
mod batch;
mod counts;
mod read;
mod rows;
pub mod schema;

use crate::home::{SharedConn, SqliteHome};
use am_journal::journal::normalize_all;
use am_journal::{
    ActiveMemorySnapshot, BindingFilter, ClosureFilter, ClosureRecord, EventFilter, JournalRecord,
    MemoryEvent, MemoryJournal, ReconstructionTrace, Result, ScopeBinding, TraceFilter,
    UnderstandingVersion, ValenceEvent, ValenceFilter, VersionFilter,
};
use counts::CountCache;
use rows::storage;
use rusqlite::{Connection, TransactionBehavior};
use std::sync::{Arc, Mutex, MutexGuard};

/// The durable journal of one SQLite home.
///
/// The trait methods lock the home's connection and run their own `BEGIN
/// IMMEDIATE` transaction. A caller that already holds the connection (a graph
/// revision writing its rows and closures together) uses the `*_in` methods with
/// its open transaction instead: the connection's mutex is not re-entrant, so a
/// trait method called while the same thread holds it would wait forever. Open
/// that transaction `IMMEDIATE` when other processes may write the file: a
/// deferred one that reads the seq counter and then writes can meet `SQLITE_BUSY`
/// on the upgrade (reported as `Storage`, nothing written).
///
/// # Examples
/// ```
/// # use am_backend_sqlite::{SqliteHome, journal::SQLiteJournal};
/// # use am_journal::{EventKind, MemoryEvent, MemoryJournal};
/// # let dir = tempfile::tempdir().unwrap();
/// let home = SqliteHome::open(dir.path().join("home.sqlite3")).unwrap();
/// let journal = SQLiteJournal::open(&home).unwrap();
/// journal.append_events(&[MemoryEvent::on_record(EventKind::Selected, "r1", "session", "s1")]).unwrap();
/// assert_eq!(journal.current_seq().unwrap(), 1);
/// ```
///
/// A handle (and its clones) keeps the count states of the keys it appended
/// (`counts::CountCache`), valid while the home's seq high-water mark is the
/// one the handle committed; any other writer's commit makes the next append
/// read them from the home again.
#[derive(Debug, Clone)]
pub struct SQLiteJournal {
    conn: SharedConn,
    cache: Arc<Mutex<CountCache>>,
    /// The host's commit guard (shared by clones of the handle).
    guard: Arc<am_triples::GuardSlot>,
    /// What a write barrier holds: the home's write lock (held by every
    /// append) and its file.
    fence: am_triples::WriteFence,
    /// Where the journal commits (its connection's file).
    key: am_triples::HomeKey,
}

impl SQLiteJournal {
    /// Open the journal of `home`: create the missing `memj_*` tables and indexes
    /// (idempotent; no other table is touched) and catch the count logs up.
    /// A read-only home ([`SqliteHome::read_only`]) is opened as it is.
    ///
    /// # Errors
    /// `Storage` when SQLite fails.
    pub fn open(home: &SqliteHome) -> Result<Self> {
        if home.read_only() {
            // Nothing may be written: the tables are read as they are (the
            // count logs answer exactly however far behind they are).
            return Ok(Self::handle(home.conn(), home.write_fence()));
        }
        Self::with_fence(home.conn(), home.write_fence())
    }

    fn handle(conn: SharedConn, fence: am_triples::WriteFence) -> Self {
        SQLiteJournal {
            key: crate::home::home_key_of(&conn),
            conn,
            cache: Arc::new(Mutex::new(CountCache::new())),
            guard: Arc::new(am_triples::GuardSlot::new()),
            fence,
        }
    }

    /// A handle on `home`'s connection for appends inside that home's
    /// transactions (the `*_in` methods), whose `memj_*` tables a journal of
    /// the same file has opened already: it creates nothing and holds no
    /// guard of its own.
    pub(crate) fn appending_in(home: &SqliteHome) -> Self {
        Self::handle(home.conn(), home.write_fence())
    }

    /// Open the journal over a home's shared connection (see [`SQLiteJournal::open`]),
    /// with a write lock of its own: a write barrier through this handle holds
    /// that lock and no file ([`SQLiteJournal::open`] shares the home's lock and
    /// file).
    ///
    /// # Errors
    /// `Storage` when SQLite fails.
    pub fn from_conn(conn: SharedConn) -> Result<Self> {
        let fence = am_triples::WriteFence {
            locks: vec![am_triples::WriteLock::new(
                "the write lock of a SQLiteJournal connection",
            )],
            ..am_triples::WriteFence::default()
        };
        Self::with_fence(conn, fence)
    }

    fn with_fence(conn: SharedConn, fence: am_triples::WriteFence) -> Result<Self> {
        let journal = Self::handle(conn, fence);
        let mut guard = journal.lock();
        let tx = guard
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(storage)?;
        schema::ensure_schema(&tx).map_err(storage)?;
        let hw = append::current_seq(&tx)?;
        append::catch_up_count_logs(&tx, hw, &mut CountCache::new())?;
        tx.commit().map_err(storage)?;
        drop(guard);
        Ok(journal)
    }

    /// The shared connection this journal writes through.
    pub fn conn(&self) -> SharedConn {
        SharedConn::clone(&self.conn)
    }

    fn lock(&self) -> MutexGuard<'_, Connection> {
        // rusqlite rolls back an open transaction on drop, so a panic while holding
        // the lock leaves no half-written append behind.
        self.conn
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Run `f` in one `BEGIN IMMEDIATE` transaction with this handle's count
    /// cache. The cache is kept only when the home's high-water mark is the one
    /// this handle last committed, and describes the new mark only once the
    /// commit succeeded (a failure leaves it marked invalid).
    fn write<T>(&self, f: impl FnOnce(&Connection, &mut CountCache) -> Result<T>) -> Result<T> {
        // The home's write lock around the whole append (a write barrier
        // waits for it), then the connection.
        let _write = self.fence.locks.first().map(am_triples::WriteLock::write);
        let mut guard = self.lock();
        let out = Self::write_in(&mut guard, &self.cache, &self.guard, f);
        out.map_err(|e| crate::error::at_home(e, &guard))
    }

    fn write_in<T>(
        guard: &mut Connection,
        cache: &Mutex<CountCache>,
        commit_guard: &am_triples::GuardSlot,
        f: impl FnOnce(&Connection, &mut CountCache) -> Result<T>,
    ) -> Result<T> {
        let tx = guard
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(storage)?;
        // Lock order: the connection, then the cache.
        let mut cache = cache
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        cache.begin(append::current_seq(&tx)?);
        let out = f(&tx, &mut cache)?;
        let hw = append::current_seq(&tx)?;
        // The commit guard, inside the transaction, right before COMMIT; a
        // refusal drops `tx` (ROLLBACK) and leaves the cache unsettled.
        commit_guard.check(am_triples::CommitPoint::Journal)?;
        tx.commit().map_err(storage)?;
        cache.settle(hw);
        Ok(out)
    }

    fn read<T>(&self, f: impl FnOnce(&Connection) -> Result<T>) -> Result<T> {
        let guard = self.lock();
        f(&guard).map_err(|e| crate::error::at_home(e, &guard))
    }

    /// Append events inside the caller's open transaction on this home's connection
    /// (`&rusqlite::Transaction` derefs to `&Connection`); all-or-nothing with it.
    ///
    /// # Errors
    /// `InvalidInput` for an invalid event (nothing written); `Storage`.
    pub fn append_events_in(
        &self,
        conn: &Connection,
        events: &[MemoryEvent],
    ) -> Result<Vec<MemoryEvent>> {
        let items = normalize_all(events, MemoryEvent::normalized)?;
        append::events(conn, items, &mut CountCache::new())
    }

    /// Append a binding inside the caller's open transaction.
    ///
    /// # Errors
    /// `InvalidInput` for an invalid binding (nothing written); `Storage`.
    pub fn append_binding_in(
        &self,
        conn: &Connection,
        binding: &ScopeBinding,
    ) -> Result<ScopeBinding> {
        let b = binding.normalized()?;
        append::bindings(conn, vec![b], &mut CountCache::new()).map(|mut v| v.remove(0))
    }

    /// Append bindings (all-or-nothing) through the journal's own transaction.
    ///
    /// # Errors
    /// `InvalidInput` for an invalid binding (nothing written); `Storage`.
    pub fn append_bindings(&self, bindings: &[ScopeBinding]) -> Result<Vec<ScopeBinding>> {
        let items = normalize_all(bindings, ScopeBinding::normalized)?;
        self.write(|c, k| append::bindings(c, items, k))
    }

    /// Append bindings inside the caller's open transaction (all-or-nothing).
    ///
    /// # Errors
    /// `InvalidInput` for an invalid binding (nothing written); `Storage`.
    pub fn append_bindings_in(
        &self,
        conn: &Connection,
        bindings: &[ScopeBinding],
    ) -> Result<Vec<ScopeBinding>> {
        let items = normalize_all(bindings, ScopeBinding::normalized)?;
        append::bindings(conn, items, &mut CountCache::new())
    }

    /// Append closures inside the caller's open transaction (a graph revision and
    /// its closures commit together).
    ///
    /// # Errors
    /// `InvalidInput` for an invalid closure (nothing written); `Storage`.
    pub fn append_closures_in(
        &self,
        conn: &Connection,
        closures: &[ClosureRecord],
    ) -> Result<Vec<ClosureRecord>> {
        let items = normalize_all(closures, ClosureRecord::normalized)?;
        append::closures(conn, items, &mut CountCache::new())
    }

    /// Append a trace inside the caller's open transaction.
    ///
    /// # Errors
    /// `InvalidInput` for an invalid trace (nothing written); `Storage`.
    pub fn append_trace_in(
        &self,
        conn: &Connection,
        trace: &ReconstructionTrace,
    ) -> Result<ReconstructionTrace> {
        append::trace(conn, trace.normalized()?, &mut CountCache::new())
    }

    /// Append a snapshot inside the caller's open transaction.
    ///
    /// # Errors
    /// `InvalidInput` for an invalid snapshot (nothing written); `Storage`.
    pub fn append_snapshot_in(
        &self,
        conn: &Connection,
        snapshot: &ActiveMemorySnapshot,
    ) -> Result<ActiveMemorySnapshot> {
        append::snapshot(conn, snapshot.normalized()?, &mut CountCache::new())
    }

    /// Append valence events inside the caller's open transaction.
    ///
    /// # Errors
    /// `InvalidInput` for an invalid event (nothing written); `Storage`.
    pub fn append_valence_in(
        &self,
        conn: &Connection,
        events: &[ValenceEvent],
    ) -> Result<Vec<ValenceEvent>> {
        let items = normalize_all(events, ValenceEvent::normalized)?;
        append::valence(conn, items, &mut CountCache::new())
    }

    /// Append an understanding version inside the caller's open transaction (a
    /// rewrite's row update and its version commit together).
    ///
    /// # Errors
    /// `InvalidInput` for an invalid version (nothing written); `Storage`.
    pub fn append_version_in(
        &self,
        conn: &Connection,
        version: &UnderstandingVersion,
    ) -> Result<UnderstandingVersion> {
        append::version(conn, version.normalized()?, &mut CountCache::new())
    }

    /// The high-water mark read inside the caller's transaction.
    ///
    /// # Errors
    /// `Storage`.
    pub fn current_seq_in(&self, conn: &Connection) -> Result<i64> {
        append::current_seq(conn)
    }
}

impl MemoryJournal for SQLiteJournal {
    fn install_commit_guard(&self, guard: &am_triples::CommitGuard) -> Result<()> {
        self.guard.install(guard, "this SQLiteJournal")
    }

    fn commit_guard(&self) -> Option<am_triples::CommitGuard> {
        self.guard.get().cloned()
    }

    fn write_fence(&self) -> am_triples::WriteFence {
        self.fence.clone()
    }

    fn home_key(&self) -> Option<am_triples::HomeKey> {
        Some(self.key.clone())
    }

    fn append_events(&self, events: &[MemoryEvent]) -> Result<Vec<MemoryEvent>> {
        let items = normalize_all(events, MemoryEvent::normalized)?;
        if items.is_empty() {
            return Ok(Vec::new());
        }
        self.write(|c, k| append::events(c, items, k))
    }

    fn events(&self, filter: &EventFilter) -> Result<Vec<MemoryEvent>> {
        let f = filter.normalized()?;
        self.read(|c| read::events(c, &f))
    }

    fn append_binding(&self, binding: &ScopeBinding) -> Result<ScopeBinding> {
        let b = binding.normalized()?;
        self.write(|c, k| append::bindings(c, vec![b], k))
            .map(|mut v| v.remove(0))
    }

    fn append_bindings(&self, bindings: &[ScopeBinding]) -> Result<Vec<ScopeBinding>> {
        // The inherent method: one all-or-nothing transaction.
        SQLiteJournal::append_bindings(self, bindings)
    }

    fn bindings(&self, filter: &BindingFilter) -> Result<Vec<ScopeBinding>> {
        let f = filter.normalized();
        self.read(|c| read::bindings(c, &f))
    }

    fn fold_bindings_for(
        &self,
        record_ids: &[String],
        until_seq: Option<i64>,
    ) -> Result<std::collections::HashMap<String, Vec<ScopeBinding>>> {
        self.read(|c| batch::fold_bindings_for(c, record_ids, until_seq))
    }

    fn hidden_bindings(
        &self,
        scope: &str,
        owner_id: &str,
        until_seq: Option<i64>,
    ) -> Result<Vec<ScopeBinding>> {
        let f = BindingFilter {
            scope: Some(scope.to_owned()),
            owner_id: Some(owner_id.to_owned()),
            until_seq,
            ..BindingFilter::default()
        }
        .normalized();
        self.read(|c| {
            read::hidden_bindings(
                c,
                f.scope.as_deref().unwrap_or_default(),
                f.owner_id.as_deref().unwrap_or_default(),
                f.until_seq,
            )
        })
    }

    fn append_closure(&self, closure: &ClosureRecord) -> Result<ClosureRecord> {
        let item = closure.normalized()?;
        self.write(|c, k| append::closures(c, vec![item], k))
            .map(|mut v| v.remove(0))
    }

    /// One `BEGIN IMMEDIATE` transaction for the whole batch (all or nothing).
    fn append_closures(&self, closures: &[ClosureRecord]) -> Result<Vec<ClosureRecord>> {
        let items = normalize_all(closures, ClosureRecord::normalized)?;
        self.write(|c, k| append::closures(c, items, k))
    }

    fn closures(&self, filter: &ClosureFilter) -> Result<Vec<ClosureRecord>> {
        self.read(|c| read::closures(c, filter))
    }

    fn append_trace(&self, trace: &ReconstructionTrace) -> Result<ReconstructionTrace> {
        let t = trace.normalized()?;
        self.write(|c, k| append::trace(c, t, k))
    }

    fn traces(&self, filter: &TraceFilter) -> Result<Vec<ReconstructionTrace>> {
        self.read(|c| read::traces(c, filter))
    }

    fn append_snapshot(&self, snapshot: &ActiveMemorySnapshot) -> Result<ActiveMemorySnapshot> {
        let s = snapshot.normalized()?;
        self.write(|c, k| append::snapshot(c, s, k))
    }

    fn snapshots(&self, filter: &TraceFilter) -> Result<Vec<ActiveMemorySnapshot>> {
        self.read(|c| read::snapshots(c, filter))
    }

    fn append_selection(
        &self,
        events: &[MemoryEvent],
        snapshot: &ActiveMemorySnapshot,
    ) -> Result<(Vec<MemoryEvent>, ActiveMemorySnapshot)> {
        // One transaction: a commit's events and its snapshot land together or not at all.
        let items = normalize_all(events, MemoryEvent::normalized)?;
        let s = snapshot.normalized()?;
        self.write(|c, k| {
            let stored = if items.is_empty() {
                Vec::new()
            } else {
                append::events(c, items, k)?
            };
            Ok((stored, append::snapshot(c, s, k)?))
        })
    }

    fn append_recall(
        &self,
        trace: &ReconstructionTrace,
        listed: &[MemoryEvent],
    ) -> Result<(ReconstructionTrace, Vec<MemoryEvent>)> {
        // One transaction: a recall's trace and its listed events land together
        // or not at all, in one durable commit.
        let t = trace.normalized()?;
        let items = normalize_all(listed, MemoryEvent::normalized)?;
        self.write(|c, k| {
            let stored = append::trace(c, t, k)?;
            let events = if items.is_empty() {
                Vec::new()
            } else {
                append::events(c, items, k)?
            };
            Ok((stored, events))
        })
    }

    fn append_valence(&self, events: &[ValenceEvent]) -> Result<Vec<ValenceEvent>> {
        let items = normalize_all(events, ValenceEvent::normalized)?;
        if items.is_empty() {
            return Ok(Vec::new());
        }
        self.write(|c, k| append::valence(c, items, k))
    }

    fn valence_events(&self, filter: &ValenceFilter) -> Result<Vec<ValenceEvent>> {
        let f = filter.normalized()?;
        self.read(|c| read::valence(c, &f))
    }

    fn append_version(&self, version: &UnderstandingVersion) -> Result<UnderstandingVersion> {
        let v = version.normalized()?;
        self.write(|c, k| append::version(c, v, k))
    }

    fn versions(&self, filter: &VersionFilter) -> Result<Vec<UnderstandingVersion>> {
        self.read(|c| read::versions(c, filter))
    }

    fn replay_records(&self, since_seq: i64, until_seq: Option<i64>) -> Result<Vec<JournalRecord>> {
        self.read(|c| read::replay(c, since_seq, until_seq))
    }

    fn visit_replay_times(
        &self,
        since_seq: i64,
        until_seq: Option<i64>,
        visit: &mut dyn FnMut(&'static str, &str),
    ) -> Result<()> {
        self.read(|c| read::replay_times(c, since_seq, until_seq, &mut *visit))
    }

    fn revision_records(
        &self,
        since_seq: i64,
        until_seq: Option<i64>,
    ) -> Result<Vec<UnderstandingVersion>> {
        self.read(|c| read::revisions(c, since_seq, until_seq))
    }

    fn selected_count(&self, record_id: &str, until_seq: Option<i64>) -> Result<u64> {
        self.read(|c| read::selected_count(c, record_id.trim(), until_seq))
    }

    fn pair_selected_count(&self, pair: (&str, &str), until_seq: Option<i64>) -> Result<u64> {
        self.read(|c| read::pair_selected_count(c, pair, until_seq))
    }

    fn seq_at(&self, iso_ts: &str) -> Result<i64> {
        let ts = am_triples::timestamp::normalize_timestamp(iso_ts)?;
        self.read(|c| read::seq_at(c, &ts))
    }

    fn current_seq(&self) -> Result<i64> {
        self.read(append::current_seq)
    }

    /// The connection's `total_changes()`: every committed row change made
    /// through this home's connection moves it (a C call, no statement).
    fn write_mark(&self) -> Option<u64> {
        Some(self.lock().total_changes())
    }
}
