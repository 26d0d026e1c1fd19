//! The homes a server holds open: one per name, opened on first use (or at
//! start for `--home`), each with the server's hooks (the stop flag as
//! `cancelled`, a commit guard raised at shutdown) and a write gate that
//! serializes the server's writes to that home while reads run beside them.

use crate::ctx::Ctx;
use crate::error::{CliError, CliResult};
use crate::exec::command::home_embedder;
use crate::home::{self, Engine, HomeSpec, PinnedClock};
use am_graph::graph::MemoryGraph;
use am_ops::{ClockChange, Host, OpError, OpResult};
use am_system::{MemorySystem, ReconstructConfig};
use am_triples::{CommitGuard, ErrorKind};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// The file extension of a home in `--homes DIR` (`DIR/<name>.sqlite3`).
pub const HOME_EXT: &str = "sqlite3";

/// The server-wide flags every home's hooks read.
#[derive(Debug, Clone, Default)]
pub struct Flags {
    /// Set on SIGTERM / SIGINT: running passes see `cancelled() == true` and
    /// `should_continue() == false` at their next sub-phase boundary; replay
    /// streams end.
    pub stopping: Arc<AtomicBool>,
    /// Raised inside each home's `write_barrier` after the grace period:
    /// every commit refuses from then on.
    pub guard_raised: Arc<AtomicBool>,
}

impl Flags {
    /// Whether the server is stopping.
    pub fn is_stopping(&self) -> bool {
        self.stopping.load(Ordering::SeqCst)
    }
}

/// One open home.
pub struct Served {
    /// The home's name (its file stem).
    pub name: String,
    /// Its file.
    pub path: PathBuf,
    engine: Engine,
    clock: PinnedClock,
    /// The hooks every call on this home runs with.
    pub host: Host,
    /// Held by a writing call for its duration: the server's writes to one
    /// home run one at a time, its reads beside them.
    pub write_gate: Mutex<()>,
}

impl std::fmt::Debug for Served {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Served")
            .field("name", &self.name)
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

impl Served {
    /// The open memory system.
    pub fn system(&self) -> &MemorySystem {
        &self.engine.system
    }

    /// A table home over this served home, for one call.
    pub fn as_home(&self) -> ServedHome<'_> {
        ServedHome(self)
    }

    /// Run `op` with its JSON arguments; a writing op holds the home's
    /// write gate. The answer carries the call's warnings and what the home
    /// raised beside it.
    ///
    /// # Errors
    /// As [`am_ops::dispatch`]; the session ops refused (`Unsupported`).
    pub fn call(&self, op: &str, args: am_triples::JsonMap) -> OpResult<am_ops::Answer> {
        self.call_with(op, args, &self.host)
    }

    /// [`Served::call`] with other hooks (a job's: its progress sink and
    /// its own cancel flag beside the server's).
    ///
    /// # Errors
    /// As [`Served::call`].
    pub fn call_with(
        &self,
        op: &str,
        args: am_triples::JsonMap,
        host: &Host,
    ) -> OpResult<am_ops::Answer> {
        refuse_session_op(op)?;
        let verb = am_ops::find(op).ok_or_else(|| am_ops::unknown_op(op))?;
        let _gate = verb.writes.then(|| {
            self.write_gate
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
        });
        let mut home = self.as_home();
        let answer = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            am_ops::dispatch(&mut home, op, args, host)
        }))
        .unwrap_or_else(|_| {
            Err(OpError::internal(format!(
                "internal failure while running {op}"
            )))
        })?;
        let raised = self.system().take_warnings();
        Ok(answer.with_warnings(raised))
    }

    /// Answer one exec line (the protocol of docs/exec.md); a line whose
    /// op writes holds the write gate.
    pub fn exec_line(&self, line: &str) -> Option<serde_json::Value> {
        let writes = serde_json::from_str::<serde_json::Value>(line)
            .ok()
            .and_then(|v| v.get("op").and_then(|o| o.as_str()).map(str::to_owned))
            .and_then(|op| am_ops::find(&op))
            .is_some_and(|v| v.writes);
        let _gate = writes.then(|| {
            self.write_gate
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
        });
        let mut home = self.as_home();
        crate::exec::answer_line(&mut home, &self.host, line, |h| {
            h.0.system().take_warnings()
        })
        .map(|(v, _)| v)
    }

    /// Raise the commit guard inside the home's write barrier: no write is
    /// mid-transaction when it rises, and every commit after it refuses.
    ///
    /// # Errors
    /// The barrier's `Timeout` when a writer still holds the home.
    pub fn raise_guard(&self, flags: &Flags, timeout: std::time::Duration) -> CliResult<()> {
        let hold = self.system().write_barrier(Some(timeout))?;
        flags.guard_raised.store(true, Ordering::SeqCst);
        drop(hold);
        Ok(())
    }
}

/// The session ops (`clock`, `reopen`) belong to an `am exec` session: a
/// server's homes are shared, so it refuses them.
///
/// # Errors
/// `Unsupported` for `clock` and `reopen`.
pub fn refuse_session_op(op: &str) -> OpResult<()> {
    if matches!(op, "clock" | "reopen") {
        return Err(OpError::new(
            ErrorKind::Unsupported,
            format!(
                "{op} is a session-only op (am exec): a served home is shared by every client, so the server \
                 keeps its clock and keeps it open"
            ),
        ));
    }
    Ok(())
}

/// The verb table's home over a served home: the system, its graph; the
/// session ops and another home (`replay_into`) refused.
pub struct ServedHome<'a>(&'a Served);

impl am_ops::Home for ServedHome<'_> {
    fn system(&self) -> OpResult<&MemorySystem> {
        Ok(self.0.system())
    }

    fn graph(&self) -> OpResult<MemoryGraph> {
        crate::exec::engine_graph(&self.0.engine, self.0.clock.as_clock())
    }

    fn clock(&self, _: ClockChange) -> OpResult<String> {
        refuse_session_op("clock").map(|()| String::new())
    }

    fn reopen(&mut self) -> OpResult<i64> {
        refuse_session_op("reopen").map(|()| 0)
    }
}

/// Where a server's homes are: the one `--home` names, or `--homes DIR`.
#[derive(Debug, Clone)]
pub enum Place {
    /// One home, named by its file stem.
    One {
        /// The stem.
        name: String,
        /// The file.
        path: PathBuf,
    },
    /// Every `<name>.sqlite3` in a directory.
    Dir(PathBuf),
}

/// The homes a server holds open.
pub struct Homes {
    place: Place,
    ctx: Ctx,
    config: ReconstructConfig,
    flags: Flags,
    open: Mutex<HashMap<String, Arc<Served>>>,
}

impl std::fmt::Debug for Homes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Homes")
            .field("place", &self.place)
            .finish_non_exhaustive()
    }
}

/// Check a home name from a URL: a plain file stem (letters, digits, `-`,
/// `_`, `.`; not starting with `.`; no `..`; at most 128 bytes), never a
/// path.
///
/// # Errors
/// `InvalidInput` naming the rule.
pub fn check_name(name: &str) -> CliResult<()> {
    let ok = !name.is_empty()
        && name.len() <= 128
        && !name.starts_with('.')
        && !name.contains("..")
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if ok {
        Ok(())
    } else {
        Err(CliError::invalid(format!(
            "a home is named by its plain file stem (letters, digits, '-', '_', '.'; not starting with '.', no \
             '..', at most 128 bytes), never a path; got {name:?}"
        )))
    }
}

impl Homes {
    /// The homes of `place`, opened with `ctx`'s embedder flags and
    /// `config` as their recall profile.
    pub fn new(place: Place, ctx: Ctx, config: ReconstructConfig, flags: Flags) -> Homes {
        Homes {
            place,
            ctx,
            config,
            flags,
            open: Mutex::new(HashMap::new()),
        }
    }

    /// The server-wide flags.
    pub fn flags(&self) -> &Flags {
        &self.flags
    }

    /// The one home `--home` names (`None` for `--homes DIR`).
    pub fn single(&self) -> Option<&str> {
        match &self.place {
            Place::One { name, .. } => Some(name),
            Place::Dir(_) => None,
        }
    }

    /// The names of the homes served: the one `--home` names, or every
    /// `<name>.sqlite3` of `--homes DIR` whose stem is a home name, sorted.
    pub fn names(&self) -> Vec<String> {
        match &self.place {
            Place::One { name, .. } => vec![name.clone()],
            Place::Dir(dir) => {
                let mut out: Vec<String> = std::fs::read_dir(dir)
                    .into_iter()
                    .flatten()
                    .flatten()
                    .filter_map(|e| {
                        let p = e.path();
                        (p.extension().and_then(|x| x.to_str()) == Some(HOME_EXT) && p.is_file())
                            .then(|| p.file_stem().and_then(|s| s.to_str()).map(str::to_owned))
                            .flatten()
                    })
                    .filter(|n| check_name(n).is_ok())
                    .collect();
                out.sort();
                out
            }
        }
    }

    /// Every home open now.
    pub fn opened(&self) -> Vec<Arc<Served>> {
        self.open
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .values()
            .cloned()
            .collect()
    }

    /// The home named `name` when it is open already (no file is touched:
    /// a request on an open home needs no thread of the pool to find it).
    pub fn get_open(&self, name: &str) -> Option<Arc<Served>> {
        self.open
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(name)
            .cloned()
    }

    /// The home named `name`, opened on first use. A home that does not
    /// exist yet in `--homes DIR` is created only when `create` (a write
    /// asked with `?create=true`).
    ///
    /// # Errors
    /// `InvalidInput` for a name that is not a plain stem; `NotFound` for a
    /// home this server does not serve, or a missing one without `create`;
    /// the open's refusal.
    pub fn get(&self, name: &str, create: bool) -> CliResult<Arc<Served>> {
        check_name(name)?;
        let mut open = self
            .open
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(s) = open.get(name) {
            return Ok(Arc::clone(s));
        }
        let path = match &self.place {
            Place::One { name: one, path } => {
                if one != name {
                    return Err(CliError::engine(
                        ErrorKind::NotFound,
                        format!("this server serves the home {one:?} only, not {name:?}"),
                    ));
                }
                path.clone()
            }
            Place::Dir(dir) => {
                let path = dir.join(format!("{name}.{HOME_EXT}"));
                if !path.is_file() && !create {
                    return Err(CliError::engine(
                        ErrorKind::NotFound,
                        format!(
                            "no home {name:?} in {} (a writing call with ?create=true creates it)",
                            dir.display()
                        ),
                    ));
                }
                path
            }
        };
        let served = Arc::new(self.open_home(name, &path)?);
        open.insert(name.to_owned(), Arc::clone(&served));
        Ok(served)
    }

    fn open_home(&self, name: &str, path: &Path) -> CliResult<Served> {
        let spec = home_embedder(&self.ctx, path, false)?;
        let embedder = self.ctx.build_embedder(&spec)?;
        let clock = PinnedClock::wall();
        let engine = home::open_queued_with(
            &HomeSpec::Sqlite(path.to_path_buf()),
            embedder.clone(),
            &clock,
            true,
            self.config.clone(),
        )?;
        for w in engine.system.take_warnings() {
            eprintln!("am serve: {name}: warning: {w}");
        }
        let raised = Arc::clone(&self.flags.guard_raised);
        let guard = CommitGuard::new(move |_point| {
            if raised.load(Ordering::SeqCst) {
                Err("the server is shutting down: its commit guard is raised".into())
            } else {
                Ok(())
            }
        });
        engine.system.store().install_commit_guard(&guard)?;
        engine.system.journal().install_commit_guard(&guard)?;
        let mut host = Host::default();
        host.embedder = embedder;
        host.commit_guard = Some(guard);
        let (s1, s2) = (
            Arc::clone(&self.flags.stopping),
            Arc::clone(&self.flags.stopping),
        );
        host.cancelled = Some(Arc::new(move || s1.load(Ordering::SeqCst)));
        host.should_continue = Some(Arc::new(move || !s2.load(Ordering::SeqCst)));
        Ok(Served {
            name: name.to_owned(),
            path: path.to_path_buf(),
            engine,
            clock,
            host,
            write_gate: Mutex::new(()),
        })
    }
}
