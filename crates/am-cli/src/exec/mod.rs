//! `am exec`: the engine driven by JSON lines (design/EXEC-PROTOCOL.md). One
//! operation a line in, one JSON answer a line out, flushed before the next
//! line is read; a pinned, steppable clock; `reopen` to test durability.

mod args;
mod author;
pub mod command;
mod entity;
mod graph;
mod nulls;
mod observe;
mod ops;
mod tasks;
mod understanding;

use crate::error::{CliError, CliResult, kind_name};
use crate::home::{self, Engine, HomeSpec, PinnedClock};
use am_system::Warned;
use am_triples::TextEmbedder;
use serde::Serialize;
use serde_json::{Map, Value, json};
use std::cell::RefCell;
use std::io::{BufRead, Write};
use std::sync::Arc;

/// An op's answer as JSON: the serde form of the engine's typed result (every
/// op module answers through here).
fn to_json<T: Serialize>(v: &T) -> CliResult<Value> {
    serde_json::to_value(v).map_err(|e| CliError::failure(format!("cannot encode the answer: {e}")))
}

pub use args::Args;

/// One exec session: the home, its embedder and the engine clock.
pub struct Session {
    spec: HomeSpec,
    embedder: Option<Arc<dyn TextEmbedder>>,
    clock: PinnedClock,
    engine: Option<Engine>,
    /// The warnings the current op's result carried (see [`Session::warned`]).
    raised: RefCell<Vec<String>>,
    /// The commit guard of `--guard-file`, installed again on a reopen.
    guard: Option<am_triples::CommitGuard>,
    /// Whether the home was opened with its task queue (`--task-queue`).
    task_queue: bool,
}

impl Session {
    /// Open the home without its task queue (the unit tests' sessions).
    ///
    /// # Errors
    /// As [`home::open`].
    #[cfg(test)]
    pub fn open(
        spec: HomeSpec,
        embedder: Option<Arc<dyn TextEmbedder>>,
        clock: PinnedClock,
    ) -> CliResult<Self> {
        Self::open_queued(spec, embedder, clock, false)
    }

    /// Open the home, with its memory task queue when `task_queue`
    /// (`am exec --task-queue`: the `tasks.*` ops).
    ///
    /// # Errors
    /// As [`home::open`].
    pub fn open_queued(
        spec: HomeSpec,
        embedder: Option<Arc<dyn TextEmbedder>>,
        clock: PinnedClock,
        task_queue: bool,
    ) -> CliResult<Self> {
        let engine = home::open_queued(&spec, embedder.clone(), &clock, task_queue)?;
        // What opening the home raised (a volatile in-memory journal, an
        // upgrade note) belongs to no op's answer: it goes to standard error.
        for w in engine.system.take_warnings() {
            eprintln!("am exec: warning: {w}");
        }
        Ok(Session {
            spec,
            embedder,
            clock,
            engine: Some(engine),
            raised: RefCell::new(Vec::new()),
            guard: None,
            task_queue,
        })
    }

    /// Guard every memory write of the session with a commit guard that
    /// refuses while `path` exists (`am exec --guard-file PATH`): a refused
    /// op answers with error kind `Refused`, its message naming the commit
    /// point and the file.
    ///
    /// # Errors
    /// As `install_commit_guard` (a store or journal that cannot call one).
    pub fn guard_with_file(&mut self, path: std::path::PathBuf) -> CliResult<()> {
        let guard = am_triples::CommitGuard::new(move |_point| {
            if path.exists() {
                Err(format!("the guard file {} exists (Stop)", path.display()).into())
            } else {
                Ok(())
            }
        });
        self.install_guard(&guard)?;
        self.guard = Some(guard);
        Ok(())
    }

    fn install_guard(&self, guard: &am_triples::CommitGuard) -> CliResult<()> {
        let system = &self.engine()?.system;
        system.store().install_commit_guard(guard)?;
        system.journal().install_commit_guard(guard)?;
        Ok(())
    }

    /// The open engine.
    ///
    /// # Errors
    /// A failure when a previous `reopen` failed to reopen the home.
    pub fn engine(&self) -> CliResult<&Engine> {
        self.engine
            .as_ref()
            .ok_or_else(|| CliError::failure("the home is closed (a reopen failed)"))
    }

    /// The answer of a verb whose result carries its warnings: the value,
    /// with the warnings kept for the answer line's `warnings`.
    ///
    /// # Errors
    /// A failure to encode the value.
    pub fn warned<T: Serialize>(&self, result: Warned<T>) -> CliResult<Value> {
        self.raised.borrow_mut().extend(result.warnings);
        to_json(&result.value)
    }

    /// The engine clock.
    pub fn clock(&self) -> &PinnedClock {
        &self.clock
    }

    /// Close and reopen the home (a restart).
    ///
    /// # Errors
    /// Unsupported for the in-memory home (it would lose everything); the
    /// open's refusal otherwise.
    pub fn reopen(&mut self) -> CliResult<i64> {
        if self.spec == HomeSpec::Memory {
            return Err(CliError::engine(
                am_triples::ErrorKind::Unsupported,
                "reopen needs a durable home: run exec with --home PATH (the in-memory home does not survive a restart)",
            ));
        }
        if let Some(e) = self.engine.take() {
            e.system.close()?;
            e.system.store().close()?;
        }
        let engine = home::open_queued(
            &self.spec,
            self.embedder.clone(),
            &self.clock,
            self.task_queue,
        )?;
        let seq = engine.system.current_seq()?;
        self.engine = Some(engine);
        if let Some(g) = self.guard.clone() {
            self.install_guard(&g)?;
        }
        Ok(seq)
    }

    /// Answer one input line: `None` for a blank or comment line, else the
    /// answer and whether the line was malformed (not JSON, no known op).
    pub fn answer(&mut self, line: &str) -> Option<(Value, bool)> {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            return None;
        }
        let parsed: Value = match serde_json::from_str(line) {
            Ok(v) => v,
            Err(e) => {
                return Some((
                    error_line(
                        Value::Null,
                        Value::Null,
                        &CliError::invalid(format!(
                            "expected one JSON object {{\"op\": ...}} per line, got invalid JSON ({e})"
                        )),
                    ),
                    true,
                ));
            }
        };
        let Value::Object(mut obj) = parsed else {
            return Some((
                error_line(
                    Value::Null,
                    Value::Null,
                    &CliError::invalid(format!(
                        "expected a JSON object {{\"op\": ...}}, got {parsed}"
                    )),
                ),
                true,
            ));
        };
        let id = obj.remove("id").unwrap_or(Value::Null);
        let op = match obj.remove("op") {
            Some(Value::String(op)) => op,
            other => {
                let got = other.map_or_else(|| "nothing".to_owned(), |v| v.to_string());
                return Some((
                    error_line(
                        id,
                        Value::Null,
                        &CliError::invalid(format!(
                            "every line needs \"op\": a verb name (see docs/exec.md), got {got}"
                        )),
                    ),
                    true,
                ));
            }
        };
        if !ops::OPS.contains(&op.as_str())
            && !graph::GRAPH_OPS.contains(&op.as_str())
            && !entity::ENTITY_OPS.contains(&op.as_str())
            && !observe::OBSERVE_OPS.contains(&op.as_str())
            && !tasks::TASK_OPS.contains(&op.as_str())
        {
            let e = CliError::invalid(format!(
                "unknown op {op:?}; known ops: {}, {}, {}, {}, {}",
                ops::OPS.join(", "),
                entity::ENTITY_OPS.join(", "),
                graph::GRAPH_OPS.join(", "),
                observe::OBSERVE_OPS.join(", "),
                tasks::TASK_OPS.join(", ")
            ));
            return Some((error_line(id, Value::String(op), &e), true));
        }
        let args = Args::new(&op, obj);
        let answer = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            if graph::GRAPH_OPS.contains(&op.as_str()) {
                graph::dispatch(self, &op, args)
            } else if entity::ENTITY_OPS.contains(&op.as_str()) {
                entity::dispatch(self, &op, args)
            } else if observe::OBSERVE_OPS.contains(&op.as_str()) {
                observe::dispatch(self, &op, args)
            } else if tasks::TASK_OPS.contains(&op.as_str()) {
                tasks::dispatch(self, &op, args)
            } else {
                ops::dispatch(self, &op, args)
            }
        }))
        .unwrap_or_else(|_| {
            Err(CliError::failure(format!(
                "internal failure while running {op}"
            )))
        });
        // The warnings the op raised travel with its answer (a replayed
        // commit_selection with another used set, a degraded path): the
        // session runs one op at a time, so what is drained now is this op's.
        let mut warnings = std::mem::take(&mut *self.raised.borrow_mut());
        if let Some(e) = &self.engine {
            warnings.extend(e.system.take_warnings());
        }
        let mut line = match answer {
            Ok(v) => {
                let mut m = Map::new();
                m.insert("id".into(), id);
                m.insert("op".into(), Value::String(op));
                m.insert("ok".into(), v);
                Value::Object(m)
            }
            Err(e) => error_line(id, Value::String(op), &e),
        };
        if !warnings.is_empty()
            && let Value::Object(m) = &mut line
        {
            m.insert("warnings".into(), json!(warnings));
        }
        Some((line, false))
    }

    /// Run a script: one answer per line, flushed before the next line is
    /// read. Returns whether any line was malformed (exit code 2).
    ///
    /// # Errors
    /// I/O errors reading the input or writing the output.
    pub fn run(
        &mut self,
        input: Box<dyn BufRead + '_>,
        out: &mut dyn Write,
    ) -> std::io::Result<bool> {
        let mut malformed = false;
        for line in input.lines() {
            let line = match line {
                Ok(l) => l,
                Err(e) if e.kind() == std::io::ErrorKind::InvalidData => {
                    let v = error_line(
                        Value::Null,
                        Value::Null,
                        &CliError::invalid(
                            "expected UTF-8 text, got a line that is not valid UTF-8",
                        ),
                    );
                    writeln!(out, "{v}")?;
                    out.flush()?;
                    malformed = true;
                    continue;
                }
                Err(e) => return Err(e),
            };
            if let Some((v, bad)) = self.answer(&line) {
                malformed |= bad;
                writeln!(out, "{v}")?;
                out.flush()?;
            }
        }
        Ok(malformed)
    }
}

fn error_line(id: Value, op: Value, e: &CliError) -> Value {
    json!({"id": id, "op": op, "error": {"kind": kind_name(e.kind), "message": e.message}})
}
