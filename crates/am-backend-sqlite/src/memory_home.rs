//! `SqliteMemoryHome`: a mind's store and journal on one `SqliteHome`
//! connection, written together in ONE `BEGIN IMMEDIATE` transaction
//! ([`am_journal::MemoryHome`]).
//!
//! Spec: api.md `remember_many` ("Formation (typed records)"); architecture.md
//! "A write is one transaction or nothing".

use crate::error::{Error, Result};
use crate::journal::SQLiteJournal;
use crate::store::SQLiteTripleStore;
use crate::store::rewrite::RewrittenRow;
use crate::store::write::PreparedRows;
use am_journal::home::{HomeResult, check_guards};
use am_journal::{
    HomeTx, JournalTx, MemoryHome, MemoryJournal, PreparedBatch, ScopeBinding, StoreTx, TableReads,
    TablesTx, TaskReads, TasksTx, UnderstandingVersion,
};
use am_triples::CommitPoint;
use am_triples::rewrite::{DigestRewrite, PreparedRewrite};
use am_triples::{TripleAssertion, TripleStore};
use rusqlite::{Connection, TransactionBehavior};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// A store and a journal over one [`crate::SqliteHome`] connection.
///
/// # Contract
/// - [`MemoryHome::prepare_rows`] canonicalizes the rows, skips those already
///   stored and embeds the rest, outside any transaction
///   ([`SQLiteTripleStore::prepare_fresh_rows`]).
/// - [`MemoryHome::transaction`] holds the home's connection for the whole
///   body and runs it inside ONE `BEGIN IMMEDIATE` transaction: every write
///   issued through its [`HomeTx`] commits in one COMMIT when `body` returns
///   `Ok`, and a `body` error (a failing write included) rolls all of them back
///   (rows, keyword rows, a first-write pin, journal records, `memj_seq`,
///   a digest row rewritten in place with its keyword entry and vector).
///   Warnings of the added rows (a first-write pin's `#FALLBACK`) are the
///   transaction's answer after the COMMIT (none on a rollback).
/// - The body must not call the home's views ([`MemoryHome::store`],
///   [`MemoryHome::journal`]) nor open another transaction on this home: the
///   connection is held by the body's transaction.
#[derive(Clone)]
pub struct SqliteMemoryHome {
    sqlite_store: Arc<SQLiteTripleStore>,
    sqlite_journal: Arc<SQLiteJournal>,
    store: Arc<dyn TripleStore>,
    journal: Arc<dyn MemoryJournal>,
    /// Whether the `memq_*` tables are open ([`MemoryHome::open_task_queue`]).
    tasks: Arc<AtomicBool>,
    /// The queue's live set, kept in process (`crate::tasks::TaskCache`).
    task_cache: Arc<Mutex<crate::tasks::TaskCache>>,
}

impl std::fmt::Debug for SqliteMemoryHome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteMemoryHome")
            .field("path", &self.sqlite_store.home().path())
            .finish_non_exhaustive()
    }
}

impl SqliteMemoryHome {
    /// The home of `store` and `journal`, which must be views of one
    /// `SqliteHome` (the same connection).
    ///
    /// # Errors
    /// `InvalidInput` when they are views of two homes (two connections),
    /// naming both files.
    pub fn new(store: Arc<SQLiteTripleStore>, journal: Arc<SQLiteJournal>) -> Result<Self> {
        if !Arc::ptr_eq(&journal.conn(), &store.home().conn()) {
            return Err(Error::from(am_triples::Error::invalid(format!(
                "a SQLite memory home needs its store and journal on one SqliteHome connection, got a store \
                 of {} and a journal on another connection",
                store.home().path().display()
            ))));
        }
        Ok(SqliteMemoryHome {
            store: store.clone(),
            journal: journal.clone(),
            sqlite_store: store,
            sqlite_journal: journal,
            tasks: Arc::new(AtomicBool::new(false)),
            task_cache: Arc::default(),
        })
    }

    /// The one-transaction home of a store and a journal handed over as
    /// trait objects (`am_journal::join::shared_home`, which
    /// `MemorySystem::new` / `with_options` ask first): `store` and `journal`
    /// stay the home's views (a forwarding wrapper keeps its reads and single
    /// writes), while a transaction writes `sqlite_store` directly and
    /// appends the journal's records on the store's connection. `None` when
    /// the journal commits elsewhere (its [`MemoryJournal::home_key`] is not
    /// the store's file or connection). Two connections of one file share a
    /// transaction too: it runs on the store's connection (the journal's
    /// appends inside it are plain SQL over the same tables), and SQLite's
    /// file lock serializes it with the journal connection's own appends.
    pub fn joined(
        store: Arc<dyn TripleStore>,
        sqlite_store: Arc<SQLiteTripleStore>,
        journal: Arc<dyn MemoryJournal>,
    ) -> Option<Self> {
        let own = sqlite_store.home_member()?.home;
        if journal.home_key()? != own {
            return None;
        }
        let sqlite_journal = Arc::new(SQLiteJournal::appending_in(sqlite_store.home()));
        Some(SqliteMemoryHome {
            sqlite_store,
            sqlite_journal,
            store,
            journal,
            tasks: Arc::new(AtomicBool::new(false)),
            task_cache: Arc::default(),
        })
    }

    /// The default store (`triples`, [`crate::SqliteStoreOptions`]'s defaults
    /// with `embedder`) and the journal of `home`, as one memory home.
    ///
    /// # Errors
    /// As [`SQLiteTripleStore::with_home`] and [`SQLiteJournal::open`] (the
    /// journal's error with its kind).
    pub fn open(
        home: &crate::SqliteHome,
        embedder: Option<Arc<dyn am_triples::TextEmbedder>>,
        options: crate::SqliteStoreOptions,
    ) -> Result<Self> {
        let store = Arc::new(SQLiteTripleStore::with_home(home, embedder, options)?);
        let journal = Arc::new(SQLiteJournal::open(home).map_err(Error::from)?);
        Self::new(store, journal)
    }

    /// The store as its concrete type.
    pub fn sqlite_store(&self) -> &Arc<SQLiteTripleStore> {
        &self.sqlite_store
    }

    /// The journal as its concrete type: the one given to
    /// [`SqliteMemoryHome::new`]; for a [`joined`](SqliteMemoryHome::joined)
    /// home, a handle on the store's connection that its transactions append
    /// through (no guard of its own: the guards checked are the views').
    pub fn sqlite_journal(&self) -> &Arc<SQLiteJournal> {
        &self.sqlite_journal
    }
}

/// One open transaction of a [`SqliteMemoryHome`].
struct SqliteHomeTx<'a> {
    conn: &'a Connection,
    store: &'a SQLiteTripleStore,
    journal: &'a SQLiteJournal,
    /// Warnings of the rows added, reported after the COMMIT.
    warnings: Vec<String>,
    /// Rows rewritten in place, whose caches are patched after the COMMIT.
    rewritten: Vec<RewrittenRow>,
    /// The queue's rows (when the home's queue is open).
    tasks: Option<crate::tasks::SqlTasks<'a>>,
    /// The home's own tables (the table kit; with the queue).
    tables: Option<crate::tables::SqlTables<'a>>,
}

impl StoreTx for SqliteHomeTx<'_> {
    fn add(&mut self, rows: &PreparedBatch) -> HomeResult<Vec<String>> {
        let Some(prepared) = rows.payload::<PreparedRows>() else {
            return Err(am_triples::Error::invalid(
                "a SQLite home transaction adds only rows its own home prepared, got a batch prepared by \
                 another home",
            ));
        };
        if !prepared.is_empty() {
            let inserted = self.store.insert_prepared_in(self.conn, prepared)?;
            self.warnings.extend(inserted.warnings);
        }
        Ok(rows.ids.clone())
    }

    fn rewrite_digest(&mut self, rewrite: &PreparedRewrite) -> HomeResult<()> {
        let done = self.store.rewrite_row_in(self.conn, rewrite)?;
        self.rewritten.push(done);
        Ok(())
    }
}

impl JournalTx for SqliteHomeTx<'_> {
    fn append_bindings(&mut self, bindings: &[ScopeBinding]) -> HomeResult<()> {
        self.journal
            .append_bindings_in(self.conn, bindings)
            .map(|_| ())
            .map_err(|e| {
                if e.kind() == am_triples::ErrorKind::InvalidInput {
                    e
                } else {
                    e.with_prefix("journal append_bindings (the transaction's other writes were rolled back too)")
                }
            })
    }

    fn append_versions(&mut self, versions: &[UnderstandingVersion]) -> HomeResult<()> {
        let checked = versions
            .iter()
            .map(UnderstandingVersion::normalized)
            .collect::<am_journal::Result<Vec<_>>>()?;
        for v in &checked {
            self.journal.append_version_in(self.conn, v)?;
        }
        Ok(())
    }

    fn append_closures(&mut self, closures: &[am_journal::ClosureRecord]) -> HomeResult<()> {
        self.journal
            .append_closures_in(self.conn, closures)
            .map(|_| ())
            .map_err(|e| {
                if e.kind() == am_triples::ErrorKind::InvalidInput {
                    e
                } else {
                    e.with_prefix("journal append_closures (the transaction's other writes were rolled back too)")
                }
            })
    }

    fn append_events(&mut self, events: &[am_journal::MemoryEvent]) -> HomeResult<()> {
        self.journal
            .append_events_in(self.conn, events)
            .map(|_| ())
            .map_err(|e| {
                if e.kind() == am_triples::ErrorKind::InvalidInput {
                    e
                } else {
                    e.with_prefix("journal append_events (the transaction's other writes were rolled back too)")
                }
            })
    }

    fn append_valence(&mut self, events: &[am_journal::ValenceEvent]) -> HomeResult<()> {
        self.journal
            .append_valence_in(self.conn, events)
            .map(|_| ())
            .map_err(|e| {
                if e.kind() == am_triples::ErrorKind::InvalidInput {
                    e
                } else {
                    e.with_prefix("journal append_valence (the transaction's other writes were rolled back too)")
                }
            })
    }

    fn append_recall(
        &mut self,
        trace: &am_journal::ReconstructionTrace,
        events: &[am_journal::MemoryEvent],
    ) -> HomeResult<()> {
        // The trace and its events validated before either is written.
        let checked = events
            .iter()
            .map(am_journal::MemoryEvent::normalized)
            .collect::<am_journal::Result<Vec<_>>>()?;
        let trace = trace.normalized()?;
        self.journal
            .append_trace_in(self.conn, &trace)
            .and_then(|_| {
                if checked.is_empty() {
                    Ok(())
                } else {
                    self.journal.append_events_in(self.conn, &checked).map(|_| ())
                }
            })
            .map_err(|e| {
                if e.kind() == am_triples::ErrorKind::InvalidInput {
                    e
                } else {
                    e.with_prefix("journal append_recall (the transaction's other writes were rolled back too)")
                }
            })
    }
}

impl HomeTx for SqliteHomeTx<'_> {
    fn store(&mut self) -> &mut dyn StoreTx {
        self
    }
    fn journal(&mut self) -> &mut dyn JournalTx {
        self
    }
    fn tasks(&mut self) -> HomeResult<&mut dyn TasksTx> {
        match &mut self.tasks {
            Some(t) => Ok(t),
            None => Err(am_journal::home::no_task_queue()),
        }
    }
    fn tables(&mut self) -> HomeResult<&mut dyn TablesTx> {
        match &mut self.tables {
            Some(t) => Ok(t),
            None => Err(am_journal::home::no_task_queue()),
        }
    }
}

impl MemoryHome for SqliteMemoryHome {
    fn store(&self) -> &Arc<dyn TripleStore> {
        &self.store
    }

    fn journal(&self) -> &Arc<dyn MemoryJournal> {
        &self.journal
    }

    fn prepare_rows(&self, rows: &[TripleAssertion]) -> HomeResult<PreparedBatch> {
        let (ids, prepared) = self
            .sqlite_store
            .prepare_fresh_rows(rows)
            .map_err(am_triples::Error::from)?;
        let vectors = prepared.vectors();
        Ok(PreparedBatch::new(ids, Box::new(prepared)).with_vectors(vectors))
    }

    fn check_rewrite(&self) -> HomeResult<()> {
        Ok(())
    }

    fn prepare_rewrite(&self, rewrite: &DigestRewrite) -> HomeResult<PreparedRewrite> {
        Ok(self.sqlite_store.prepare_rewrite_row(rewrite)?)
    }

    fn has_task_queue(&self) -> bool {
        self.tasks.load(Ordering::Acquire)
    }

    fn open_task_queue(&self) -> HomeResult<()> {
        if self.has_task_queue() {
            return Ok(());
        }
        let _write = self.sqlite_store.home().write_lock().write();
        let shared = self.sqlite_store.home().conn();
        let conn = shared
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        crate::tasks::create(&conn)?;
        self.tasks.store(true, Ordering::Release);
        Ok(())
    }

    fn read_tasks(&self, body: &mut dyn FnMut(&dyn TaskReads) -> HomeResult<()>) -> HomeResult<()> {
        if !self.has_task_queue() {
            return Err(am_journal::home::no_task_queue());
        }
        let shared = self.sqlite_store.home().conn();
        let mut conn = shared
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        // One snapshot for the whole read.
        let tx = conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Deferred)
            .map_err(crate::error::sqlite)?;
        body(&crate::tasks::SqlTasks::new(&tx, &self.task_cache))
    }

    fn read_tables(
        &self,
        body: &mut dyn FnMut(&dyn TableReads) -> HomeResult<()>,
    ) -> HomeResult<()> {
        if !self.has_task_queue() {
            return Err(am_journal::home::no_task_queue());
        }
        let shared = self.sqlite_store.home().conn();
        let mut conn = shared
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        // One snapshot for the whole read; a table not created yet reads
        // empty, and nothing is written.
        let tx = conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Deferred)
            .map_err(crate::error::sqlite)?;
        body(&crate::tables::SqlTables::new(&tx))
    }

    fn transaction(
        &self,
        point: CommitPoint,
        body: &mut dyn FnMut(&mut dyn HomeTx) -> HomeResult<()>,
    ) -> HomeResult<Vec<String>> {
        // The home's write lock around the whole transaction (a write
        // barrier waits for it), then the connection.
        let _write = self.sqlite_store.home().write_lock().write();
        let shared = self.sqlite_store.home().conn();
        let mut conn = shared
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let (warnings, rewritten) = self
            .transaction_in(&mut conn, point, body)
            .map_err(|e| crate::error::at_home(e, &conn))?;
        drop(conn);
        for done in rewritten {
            self.sqlite_store.after_rewrite(done);
        }
        Ok(warnings)
    }
}

impl SqliteMemoryHome {
    /// The body of [`MemoryHome::transaction`] on the locked connection;
    /// returns the warnings the writes raised and the rows it rewrote.
    fn transaction_in(
        &self,
        conn: &mut rusqlite::Connection,
        point: CommitPoint,
        body: &mut dyn FnMut(&mut dyn HomeTx) -> HomeResult<()>,
    ) -> HomeResult<(Vec<String>, Vec<RewrittenRow>)> {
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(crate::error::sqlite)?;
        let mut open = SqliteHomeTx {
            conn: &tx,
            store: &self.sqlite_store,
            journal: &self.sqlite_journal,
            warnings: Vec::new(),
            rewritten: Vec::new(),
            tasks: self
                .tasks
                .load(Ordering::Acquire)
                .then(|| crate::tasks::SqlTasks::new(&tx, &self.task_cache)),
            tables: self
                .tasks
                .load(Ordering::Acquire)
                .then(|| crate::tables::SqlTables::new(&tx)),
        };
        // On an error `tx` drops here and rolls everything back.
        body(&mut open)?;
        let warnings = std::mem::take(&mut open.warnings);
        let rewritten = std::mem::take(&mut open.rewritten);
        // The commit guard(s), inside the transaction, right before COMMIT:
        // the store's, and the journal's when it is another guard.
        check_guards(&*self.store, &*self.journal, point)?;
        let staged = match open.tasks.take() {
            Some(t) => t.finish()?,
            None => None,
        };
        drop(open);
        tx.commit().map_err(crate::error::sqlite)?;
        if let Some(staged) = staged {
            self.task_cache
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .apply(staged);
        }
        Ok((warnings, rewritten))
    }
}

/// The SQLite store's side of `am_journal::join`: a store enrolled there
/// joins a journal of its file in a [`SqliteMemoryHome`].
impl am_journal::join::JoinsJournal for crate::store::state::StoreState {
    fn join(
        self: Arc<Self>,
        store: Arc<dyn TripleStore>,
        journal: Arc<dyn MemoryJournal>,
    ) -> Option<Arc<dyn MemoryHome>> {
        let sqlite_store = Arc::new(SQLiteTripleStore::from_state(self));
        SqliteMemoryHome::joined(store, sqlite_store, journal)
            .map(|h| Arc::new(h) as Arc<dyn MemoryHome>)
    }
}
