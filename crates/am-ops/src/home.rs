//! What a front end gives the table to run a verb on: its open home.

use crate::error::{OpError, OpResult};
use am_graph::graph::MemoryGraph;
use am_journal::cold_cut::{ColdCut, ColdCutReport, ColdCutVerification};
use am_system::MemorySystem;
use am_triples::{EmbeddingPin, ErrorKind, TextEmbedder};
use std::path::Path;
use std::sync::Arc;

/// A change of a session's pinned clock (`clock`).
#[derive(Debug, Clone, PartialEq)]
pub enum ClockChange {
    /// Only read it.
    Read,
    /// Pin it at this ISO-8601 instant.
    Set(String),
    /// Move it forward by this many seconds.
    Advance(f64),
}

/// A front end's open home: the memory system the verbs run on, and the
/// memory graph over the same home. The session ops (`clock`, `reopen`) are
/// offered only by a front end with a session of its own (`am exec`): the
/// defaults refuse them as `Unsupported`.
pub trait Home {
    /// The open memory system.
    ///
    /// # Errors
    /// A failure when the home is closed (a reopen that failed).
    fn system(&self) -> OpResult<&MemorySystem>;

    /// The memory graph over this home (opened per call; its clock the
    /// system's).
    ///
    /// # Errors
    /// `Unsupported` for a home without a graph connector.
    fn graph(&self) -> OpResult<MemoryGraph>;

    /// The memory graph over another home, at `path` (`replay_into`'s target).
    ///
    /// # Errors
    /// `Unsupported` where the front end opens no other home; the open's
    /// refusal otherwise.
    fn graph_at(&self, path: &str) -> OpResult<MemoryGraph> {
        let _ = path;
        Err(OpError::new(
            ErrorKind::Unsupported,
            "this front end opens no other home (replay_into)",
        ))
    }

    /// The refusal of a queue op (`op`) on a home opened without its task
    /// queue, in the front end's words (`am exec` names `--task-queue`); the
    /// default keeps the system's (`e`).
    fn no_queue(&self, op: &str, e: OpError) -> OpError {
        let _ = op;
        e
    }

    /// Read or move the session's pinned clock; answers now.
    ///
    /// # Errors
    /// `Unsupported` where the front end has no pinned clock; `InvalidInput`
    /// for an instant it cannot read.
    fn clock(&self, change: ClockChange) -> OpResult<String> {
        let _ = change;
        Err(OpError::new(
            ErrorKind::Unsupported,
            "clock is an op of a session with a pinned clock (am exec --clock)",
        ))
    }

    /// Build the embedder a verb takes as its `embedder` argument from the
    /// front end's embedder spec (`am exec`: `offline`, `openai:<url>#<model>`,
    /// ...): `reembed_store`'s new space.
    ///
    /// # Errors
    /// `Unsupported` where the front end builds no embedder from a spec;
    /// `InvalidInput` for a spec it cannot read.
    fn build_embedder(&self, spec: &str) -> OpResult<Arc<dyn TextEmbedder>> {
        Err(OpError::new(
            ErrorKind::Unsupported,
            format!(
                "this front end builds no embedder from a spec (got {spec:?}); run the re-embed with `am reembed` or `am exec --home PATH`"
            ),
        ))
    }

    /// The home moved to another embedding space (`reembed_store`): a front
    /// end that reopens the home opens it with `embedder` from now on. The
    /// default keeps nothing.
    fn embedder_moved(&mut self, embedder: Arc<dyn TextEmbedder>) {
        let _ = embedder;
    }

    /// Rebuild the home FILE at `src` as a new file at `dst` with its
    /// attention-event mass cut (`journal_cold_cut`; `at` is the instant
    /// its compaction record carries). A path function: the cut reads
    /// `src` (any home file, this one or another) and writes only `dst`.
    ///
    /// # Errors
    /// `Unsupported` where the front end cuts no file (a server: a client
    /// names no path on the server's disk); the cut's refusal otherwise.
    fn journal_cold_cut(
        &self,
        src: &Path,
        dst: &Path,
        args: &ColdCut,
        at: &str,
    ) -> OpResult<ColdCutReport> {
        let _ = (src, dst, args, at);
        Err(no_files("journal_cold_cut"))
    }

    /// The parity checks between a home file and its rebuilt cut
    /// (`verify_cold_cut`). A path function, reading both files.
    ///
    /// # Errors
    /// `Unsupported` where the front end reads no file a call names; the
    /// verify's refusal otherwise.
    fn verify_cold_cut(&self, src: &Path, dst: &Path) -> OpResult<ColdCutVerification> {
        let _ = (src, dst);
        Err(no_files("verify_cold_cut"))
    }

    /// The embedding pin of the SQLite store file at `path`
    /// (`read_embedding_pin`): a pure peek that opens no store (a read-only
    /// connection; never creates the file, a table or the schema). `None`
    /// for a missing file, a file that is no home, no pin or an unreadable
    /// one. `table_name` is the store's table (`None`: `triples`).
    ///
    /// # Errors
    /// `Unsupported` where the front end reads no file a call names (a
    /// server); `InvalidInput` for a table name that is not a plain SQL
    /// identifier.
    fn read_embedding_pin(
        &self,
        path: &Path,
        table_name: Option<&str>,
    ) -> OpResult<Option<EmbeddingPin>> {
        let _ = (path, table_name);
        Err(no_files("read_embedding_pin"))
    }

    /// Close and reopen the home (a restart); answers the journal's seq.
    ///
    /// # Errors
    /// `Unsupported` where the front end keeps the home open.
    fn reopen(&mut self) -> OpResult<i64> {
        Err(OpError::new(
            ErrorKind::Unsupported,
            "reopen is an op of a session (am exec); this front end keeps its home open",
        ))
    }
}

/// The refusal of a path function by a front end that touches no file a
/// call names.
fn no_files(op: &str) -> OpError {
    OpError::new(
        ErrorKind::Unsupported,
        format!(
            "{op} works on home files named by path, and this front end opens no file a call names; run it with `am exec` or the Python package (the cold cut also with `am cold-cut`)"
        ),
    )
}
