//! The write barrier: the bumper's half of the Stop fence.
//!
//! The commit guard runs inside each write transaction while the host moves
//! what it compares under a lock of its own, so "the guard passes, the host
//! bumps, the COMMIT lands after the Stop" is a real interleaving. A host
//! wraps its bump in a barrier ([`acquire`], `MemorySystem::write_barrier`):
//! while the [`BarrierHold`] lives, every transaction whose guard has passed
//! has committed, none commits, and every later one calls its guard after
//! the block.
//!
//! What a store or journal offers the barrier is its [`WriteFence`]: the
//! in-process [`WriteLock`]s its writers hold for a whole write transaction
//! (guard and COMMIT included), and the files whose write lock a barrier
//! takes (SQLite: `BEGIN IMMEDIATE` on a connection of its own, which waits
//! for every other connection's write transaction, in this process or
//! another, and holds off new ones; it writes nothing and ends with
//! ROLLBACK). A type without them (LanceDB) is named in
//! [`BarrierHold::uncovered`] with a `#FALLBACK` warning.
//!
//! Lock order (an architecture invariant): the in-process locks in the
//! writers' own nesting order (the store's, then the journal's when it is
//! another lock), then one file lock per distinct file (the store's, then the
//! journal's); released in reverse.
//!
//! Spec: api.md "Layer 2: the MemorySystem facade", "Write barrier".

use crate::error::{Error, ErrorKind, Result};
use std::cell::RefCell;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::ThreadId;
use std::time::{Duration, Instant};

/// Who holds a [`WriteLock`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    Writer,
    Barrier,
}

#[derive(Debug, Default)]
struct Owner {
    holder: Option<(ThreadId, Role, String)>,
    depth: u32,
}

/// An in-process write lock, re-entrant within one thread: every write
/// transaction of a store or journal holds it from before its first write
/// to after its COMMIT (so a barrier holding it waits for a transaction
/// whose guard passed), and a barrier holds it for its block.
#[derive(Debug)]
pub struct WriteLock {
    name: String,
    owner: Mutex<Owner>,
    freed: Condvar,
}

/// A held [`WriteLock`]; released on drop.
#[derive(Debug)]
pub struct WriteLockGuard {
    lock: Arc<WriteLock>,
}

impl Drop for WriteLockGuard {
    fn drop(&mut self) {
        let mut o = self.lock.state();
        o.depth -= 1;
        if o.depth == 0 {
            o.holder = None;
            self.lock.freed.notify_all();
        }
    }
}

impl WriteLock {
    /// A lock named `name` in barrier messages ("the write lock of home.sqlite3").
    pub fn new(name: impl Into<String>) -> Arc<Self> {
        Arc::new(WriteLock {
            name: name.into(),
            owner: Mutex::new(Owner::default()),
            freed: Condvar::new(),
        })
    }

    /// The lock's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    fn state(&self) -> std::sync::MutexGuard<'_, Owner> {
        // The owner record is updated without fallible steps.
        self.owner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Hold the lock for one write transaction (re-entering when this thread
    /// holds it already, as a writer or as a barrier).
    pub fn write(self: &Arc<Self>) -> WriteLockGuard {
        self.hold(Role::Writer, None)
            .unwrap_or_else(|_| unreachable!("a writer waits without a deadline"))
    }

    fn hold(
        self: &Arc<Self>,
        role: Role,
        deadline: Option<Instant>,
    ) -> std::result::Result<WriteLockGuard, String> {
        let me = std::thread::current();
        let mut o = self.state();
        loop {
            match &o.holder {
                None => {
                    let who = me
                        .name()
                        .map_or_else(|| format!("{:?}", me.id()), str::to_owned);
                    o.holder = Some((me.id(), role, who));
                    o.depth = 1;
                    break;
                }
                Some((id, _, _)) if *id == me.id() => {
                    o.depth += 1;
                    break;
                }
                Some((_, held_as, who)) => {
                    let held_as = *held_as;
                    let who = who.clone();
                    match deadline {
                        None => {
                            o = self
                                .freed
                                .wait(o)
                                .unwrap_or_else(std::sync::PoisonError::into_inner);
                        }
                        Some(d) => {
                            let now = Instant::now();
                            if now >= d {
                                let as_what = match held_as {
                                    Role::Writer => "a writer",
                                    Role::Barrier => "another barrier",
                                };
                                return Err(format!(
                                    "{} (held by {as_what} on thread {who})",
                                    self.name
                                ));
                            }
                            o = self
                                .freed
                                .wait_timeout(o, d - now)
                                .unwrap_or_else(std::sync::PoisonError::into_inner)
                                .0;
                        }
                    }
                }
            }
        }
        Ok(WriteLockGuard { lock: self.clone() })
    }

    /// Whether this thread holds the lock as a writer (inside a write
    /// transaction).
    fn held_by_this_writer(&self) -> bool {
        let me = std::thread::current().id();
        matches!(&self.state().holder, Some((id, Role::Writer, _)) if *id == me)
    }
}

/// A file whose write lock a barrier can take (the SQLite home file).
pub trait FileLock: Send + Sync {
    /// The file.
    fn path(&self) -> &Path;

    /// Take the file's write lock, waiting until `deadline` (`None`: wait);
    /// the token releases it on drop (writing nothing).
    ///
    /// # Errors
    /// `Timeout` when a writer still holds it at the deadline; `Storage`.
    fn lock(&self, deadline: Option<Instant>) -> Result<Box<dyn Send>>;
}

impl fmt::Debug for dyn FileLock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FileLock")
            .field("path", &self.path())
            .finish()
    }
}

/// What a store or journal offers a write barrier.
#[derive(Clone, Default)]
pub struct WriteFence {
    /// The in-process locks its writers hold, in their nesting order.
    pub locks: Vec<Arc<WriteLock>>,
    /// The files whose write lock covers its other writers.
    pub files: Vec<Arc<dyn FileLock>>,
    /// Set when the type takes no lock a barrier can hold: its name.
    pub uncovered: Option<String>,
}

impl fmt::Debug for WriteFence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WriteFence")
            .field(
                "locks",
                &self.locks.iter().map(|l| l.name()).collect::<Vec<_>>(),
            )
            .field(
                "files",
                &self.files.iter().map(|l| l.path()).collect::<Vec<_>>(),
            )
            .field("uncovered", &self.uncovered)
            .finish()
    }
}

impl WriteFence {
    /// The fence of a type without locks a barrier can hold.
    pub fn uncovered(type_name: &str) -> Self {
        WriteFence {
            uncovered: Some(type_name.to_owned()),
            ..WriteFence::default()
        }
    }
}

/// The barrier's timeout: `waiting_for` names the lock or file a writer
/// still held when `timeout` elapsed (everything acquired was released).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WriteBarrierTimeout {
    /// The lock or file still held.
    pub waiting_for: String,
    /// The timeout that elapsed.
    pub timeout: Duration,
}

impl fmt::Display for WriteBarrierTimeout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "write barrier timed out after {:?} waiting for {}; everything it acquired was released",
            self.timeout, self.waiting_for
        )
    }
}

impl std::error::Error for WriteBarrierTimeout {}

// The error's constructor for a timeout lives beside the timeout, so that
// error.rs names nothing of this module.
impl Error {
    /// A write barrier's timeout elapsed: kind [`ErrorKind::Timeout`], the
    /// [`WriteBarrierTimeout`] (naming the lock or file a writer still held)
    /// kept as the source.
    pub fn barrier_timeout(timeout: WriteBarrierTimeout) -> Self {
        Error::from_source(ErrorKind::Timeout, "", timeout)
    }
}

thread_local! {
    /// Files this thread's barriers hold (a nested barrier does not lock them again).
    static FILES_HELD: RefCell<Vec<PathBuf>> = const { RefCell::new(Vec::new()) };
}

struct HeldFile {
    path: PathBuf,
    _token: Box<dyn Send>,
}

impl Drop for HeldFile {
    fn drop(&mut self) {
        FILES_HELD.with(|f| {
            let mut f = f.borrow_mut();
            if let Some(i) = f.iter().rposition(|p| *p == self.path) {
                f.remove(i);
            }
        });
    }
}

/// A held write barrier: the Rust form of the spec's context manager. Drop
/// it to release (files first, then locks, in reverse order).
pub struct BarrierHold {
    /// The in-process locks held, in acquisition order.
    pub locks: Vec<String>,
    /// The files whose write lock is held (or was held already by this
    /// thread's outer barrier), in acquisition order.
    pub files: Vec<String>,
    /// The stores or journals the barrier cannot cover.
    pub uncovered: Vec<String>,
    /// `#FALLBACK` warnings (one per uncovered type).
    pub warnings: Vec<String>,
    held_files: Vec<HeldFile>,
    held_locks: Vec<WriteLockGuard>,
}

impl fmt::Debug for BarrierHold {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BarrierHold")
            .field("locks", &self.locks)
            .field("files", &self.files)
            .field("uncovered", &self.uncovered)
            .finish_non_exhaustive()
    }
}

impl Drop for BarrierHold {
    fn drop(&mut self) {
        while self.held_files.pop().is_some() {}
        while self.held_locks.pop().is_some() {}
    }
}

/// Take a write barrier over `fences` (the store's, then the journal's):
/// their locks in order, then their files in order, each distinct one once.
///
/// # Errors
/// [`Error::barrier_timeout`] when `timeout` elapses (everything acquired is
/// released); `InvalidInput` when this thread is inside a memory write
/// transaction on one of the locks (the barrier would wait for itself).
pub fn acquire(fences: &[WriteFence], timeout: Option<Duration>) -> Result<BarrierHold> {
    let deadline = timeout.map(|t| Instant::now() + t);
    let mut locks: Vec<&Arc<WriteLock>> = Vec::new();
    let mut files: Vec<&Arc<dyn FileLock>> = Vec::new();
    let mut uncovered = Vec::new();
    for f in fences {
        for l in &f.locks {
            if !locks.iter().any(|k| Arc::ptr_eq(k, l)) {
                locks.push(l);
            }
        }
        for file in &f.files {
            if !files.iter().any(|k| k.path() == file.path()) {
                files.push(file);
            }
        }
        if let Some(u) = &f.uncovered
            && !uncovered.contains(u)
        {
            uncovered.push(u.clone());
        }
    }
    if let Some(l) = locks.iter().find(|l| l.held_by_this_writer()) {
        return Err(Error::invalid(format!(
            "write_barrier taken inside a memory write transaction of its own thread ({}): it would wait \
             for itself; take the barrier outside the transaction",
            l.name()
        )));
    }
    let timed_out = |waiting_for: String| {
        Error::barrier_timeout(WriteBarrierTimeout {
            waiting_for,
            timeout: timeout.unwrap_or_default(),
        })
    };
    let mut hold = BarrierHold {
        locks: Vec::new(),
        files: Vec::new(),
        warnings: uncovered
            .iter()
            .map(|u| {
                format!(
                    "#FALLBACK: write_barrier cannot cover {u}: it takes no lock around its writes, so at most \
                     one write per concurrent writer whose guard passed before the bump may land after it"
                )
            })
            .collect(),
        uncovered,
        held_files: Vec::new(),
        held_locks: Vec::new(),
    };
    for l in locks {
        // On an error `hold` drops here and releases what it holds.
        let g = l.hold(Role::Barrier, deadline).map_err(timed_out)?;
        hold.locks.push(l.name().to_owned());
        hold.held_locks.push(g);
    }
    for f in files {
        let path = f.path().to_path_buf();
        hold.files.push(path.display().to_string());
        if FILES_HELD.with(|h| h.borrow().contains(&path)) {
            continue; // this thread's outer barrier holds it
        }
        let token = f.lock(deadline).map_err(|e| {
            if e.kind() == crate::ErrorKind::Timeout {
                timed_out(format!("the write lock of the file {}", path.display()))
            } else {
                e
            }
        })?;
        FILES_HELD.with(|h| h.borrow_mut().push(path.clone()));
        hold.held_files.push(HeldFile {
            path,
            _token: token,
        });
    }
    Ok(hold)
}
