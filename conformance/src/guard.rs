//! The commit-guard test harness every backend's `commit_guard` suite shares:
//! a host guard that records every call and refuses on demand with the host's
//! own error type ([`Stopped`]), and the checks a refusal must pass (kind
//! `Refused`, the commit point, the host's error unchanged).
//!
//! Spec: api.md "Layer 2: the MemorySystem facade", "Commit guard".

use am_triples::{CommitGuard, CommitPoint, Error, ErrorKind, TripleStore};
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};

/// The host's own error type, which must reach the caller unchanged: the
/// commit point the guard refused.
#[derive(Debug)]
pub struct Stopped(pub String);

impl std::fmt::Display for Stopped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "stopped by the operator at {}", self.0)
    }
}

impl std::error::Error for Stopped {}

/// Which commits the guard refuses.
#[derive(Debug, Clone, Default)]
enum Refusing {
    #[default]
    Nothing,
    Everything,
    Only(Vec<CommitPoint>),
}

/// A host's guard that records the point of every call (in order) and
/// refuses with [`Stopped`] while told to. Clones share the record; every
/// [`RecordingGuard::guard`] of one recorder is the same guard (installing it
/// on a store and its journal is what `MemorySystem` with `commit_guard`
/// does), and two recorders' guards are different guards.
#[derive(Clone)]
pub struct RecordingGuard {
    calls: Arc<Mutex<Vec<String>>>,
    refusing: Arc<Mutex<Refusing>>,
    guard: CommitGuard,
}

impl Default for RecordingGuard {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for RecordingGuard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RecordingGuard")
            .field("calls", &self.calls)
            .field("refusing", &self.refusing)
            .finish_non_exhaustive()
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl RecordingGuard {
    /// A recorder that passes every commit.
    pub fn new() -> Self {
        let calls: Arc<Mutex<Vec<String>>> = Arc::default();
        let refusing: Arc<Mutex<Refusing>> = Arc::default();
        let guard = {
            let (calls, refusing) = (Arc::clone(&calls), Arc::clone(&refusing));
            CommitGuard::new(move |point| {
                lock(&calls).push(point.to_owned());
                let refuse = match &*lock(&refusing) {
                    Refusing::Nothing => false,
                    Refusing::Everything => true,
                    Refusing::Only(points) => points.iter().any(|p| p.as_str() == point),
                };
                if refuse {
                    Err(Box::new(Stopped(point.to_owned())))
                } else {
                    Ok(())
                }
            })
        };
        RecordingGuard {
            calls,
            refusing,
            guard,
        }
    }

    /// This recorder's guard.
    pub fn guard(&self) -> CommitGuard {
        self.guard.clone()
    }

    /// Install the guard on `store` and `journal` (what `MemorySystem` with
    /// `commit_guard` does).
    ///
    /// # Panics
    /// When either refuses the guard.
    pub fn install(&self, store: &dyn TripleStore, journal: &dyn am_journal::MemoryJournal) {
        store
            .install_commit_guard(&self.guard)
            .expect("the store takes the guard");
        journal
            .install_commit_guard(&self.guard)
            .expect("the journal takes the guard");
    }

    /// Refuse every commit from now on (`true`) or none (`false`).
    pub fn refuse(&self, all: bool) {
        *lock(&self.refusing) = if all {
            Refusing::Everything
        } else {
            Refusing::Nothing
        };
    }

    /// Refuse only the commits at `points` from now on.
    pub fn refuse_only(&self, points: &[CommitPoint]) {
        *lock(&self.refusing) = Refusing::Only(points.to_vec());
    }

    /// The points called since the last `take`, in order (and forget them).
    pub fn take(&self) -> Vec<String> {
        std::mem::take(&mut *lock(&self.calls))
    }
}

/// The wire names of `points`, what [`RecordingGuard::take`] answers for them.
pub fn names(points: &[CommitPoint]) -> Vec<String> {
    points.iter().map(|p| p.as_str().to_owned()).collect()
}

/// Check that `err` is the guard's refusal at `point` carrying the host's
/// own [`Stopped`] error unchanged; `what` names the write in the panic.
///
/// # Panics
/// When it is not.
pub fn assert_refused_at(err: &Error, point: CommitPoint, what: &str) {
    assert_eq!(err.kind(), ErrorKind::Refused, "{what}: {err}");
    let refusal = err
        .guard_refusal()
        .unwrap_or_else(|| panic!("{what}: not a guard refusal: {err}"));
    assert_eq!(refusal.point(), point, "{what}");
    let host_error = refusal
        .source_error()
        .downcast_ref::<Stopped>()
        .unwrap_or_else(|| panic!("{what}: the guard's own error type is lost: {err}"));
    assert_eq!(host_error.0, point.as_str(), "{what}");
}

/// Every file under `dir` (recursively) with its bytes, keyed by path: what a
/// refused write must leave unchanged.
///
/// # Panics
/// When `dir` cannot be read.
pub fn files_under(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).expect("read the directory") {
            let p = e.expect("a directory entry").path();
            if p.is_dir() {
                todo.push(p);
            } else {
                out.insert(
                    p.display().to_string(),
                    std::fs::read(&p).expect("read the file"),
                );
            }
        }
    }
    out
}
