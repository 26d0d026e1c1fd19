//! `am exec`: the engine driven by JSON lines (design/EXEC-PROTOCOL.md). One
//! operation a line in, one JSON answer a line out, flushed before the next
//! line is read; a pinned, steppable clock; `reopen` to test durability.

pub mod command;
#[cfg(test)]
mod tests;

use crate::error::{CliError, CliResult, kind_name};
use crate::home::{self, Engine, HomeSpec, PinnedClock};
use am_graph::graph::MemoryGraph;
use am_graph::registry::GraphJournal;
use am_ops::{ClockChange, Host, OpError, OpResult};
use am_system::MemorySystem;
use am_triples::TextEmbedder;
use serde_json::{Map, Value, json};
use std::io::{BufRead, Write};
use std::sync::Arc;

/// One exec session: the home, the host's hooks it was opened with (its
/// embedder, the `--guard-file` commit guard) and the engine clock. The
/// verbs come from the verb table ([`am_ops::dispatch`]).
pub struct Session {
    spec: HomeSpec,
    /// The embedder and commit guard the home is opened with (again on a
    /// reopen); a line's scripted hooks are added per call.
    host: Host,
    clock: PinnedClock,
    engine: Option<Engine>,
    /// Whether the home was opened with its task queue (`--task-queue`).
    task_queue: bool,
    /// The reconstruct config of the session's system (`--profile`).
    config: am_system::ReconstructConfig,
    /// `--embedder-key-env`: where an embedder a line names
    /// (`reembed_store`'s `embedder`) reads its key.
    embedder_key_env: Option<String>,
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
        Self::open_profiled(
            spec,
            embedder,
            clock,
            false,
            am_system::ReconstructConfig::default(),
        )
    }

    /// Open the home, with its memory task queue when `task_queue`
    /// (`am exec --task-queue`: the `tasks.*` ops), its recalls running
    /// `config`'s profile unless a line names its own (`am exec --profile
    /// hybrid`).
    ///
    /// # Errors
    /// As [`home::open`].
    pub fn open_profiled(
        spec: HomeSpec,
        embedder: Option<Arc<dyn TextEmbedder>>,
        clock: PinnedClock,
        task_queue: bool,
        config: am_system::ReconstructConfig,
    ) -> CliResult<Self> {
        let engine =
            home::open_queued_with(&spec, embedder.clone(), &clock, task_queue, config.clone())?;
        // What opening the home raised (a volatile in-memory journal, an
        // upgrade note) belongs to no op's answer: it goes to standard error.
        for w in engine.system.take_warnings() {
            eprintln!("am exec: warning: {w}");
        }
        let mut host = Host::default();
        host.embedder = embedder;
        Ok(Session {
            spec,
            host,
            clock,
            engine: Some(engine),
            task_queue,
            config,
            embedder_key_env: None,
        })
    }

    /// Read the key of an embedder a line names (`reembed_store`'s
    /// `embedder`) from the environment variable `var` (`--embedder-key-env`).
    pub fn set_embedder_key_env(&mut self, var: Option<String>) {
        self.embedder_key_env = var;
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
        self.host.commit_guard = Some(guard);
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
        let engine = home::open_queued_with(
            &self.spec,
            self.host.embedder.clone(),
            &self.clock,
            self.task_queue,
            self.config.clone(),
        )?;
        let seq = engine.system.current_seq()?;
        self.engine = Some(engine);
        if let Some(g) = self.host.commit_guard.clone() {
            self.install_guard(&g)?;
        }
        Ok(seq)
    }

    /// Answer one input line: `None` for a blank or comment line, else the
    /// answer and whether the line was malformed (not JSON, no known op).
    pub fn answer(&mut self, line: &str) -> Option<(Value, bool)> {
        let host = self.host.clone();
        answer_line(self, &host, line, |home| {
            // What the home raised outside any verb's result since the last
            // line (a first scan fallback, a store note): the session runs
            // one op at a time.
            home.engine
                .as_ref()
                .map(|e| e.system.take_warnings())
                .unwrap_or_default()
        })
    }

    /// Run a script: one answer per line, flushed before the next line is
    /// read. Returns whether any line was malformed (exit code 2); ends with
    /// an error (exit code 1) after the line whose answer says the home file
    /// is damaged (SQLite met a corrupt page): no later line runs, so nothing
    /// more is written into a damaged file.
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
                if v["error"]["message"]
                    .as_str()
                    .is_some_and(|m| m.contains(am_backend_sqlite::error::DAMAGED_HOME))
                {
                    return Err(std::io::Error::other(format!(
                        "stopped after the line that met a damaged home ({}); no later line ran",
                        am_backend_sqlite::error::DAMAGED_HOME
                    )));
                }
            }
        }
        Ok(malformed)
    }
}

/// Answer one exec line over any front end's home (`am exec`'s session,
/// a served home): `None` for a blank or comment line, else the answer line
/// and whether the line was malformed (not JSON, no known op). `extra` adds
/// the warnings the home raised outside the verb's own result.
pub fn answer_line<H: am_ops::Home>(
    home: &mut H,
    host: &Host,
    line: &str,
    extra: impl FnOnce(&H) -> Vec<String>,
) -> Option<(Value, bool)> {
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
    let answer = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        am_ops::dispatch(home, &op, obj, host)
    }))
    .unwrap_or_else(|_| {
        Err(OpError::internal(format!(
            "internal failure while running {op}"
        )))
    });
    let malformed = matches!(&answer, Err(e) if am_ops::find(&op).is_none() && e.kind == am_triples::ErrorKind::InvalidInput);
    // The call's own warnings travel with its answer, then what the home
    // raised outside the verb's result.
    let (answer, mut warnings) = match answer {
        Ok(a) => (Ok(a.value), a.warnings),
        Err(e) => (Err(CliError::from(e)), Vec::new()),
    };
    warnings.extend(extra(home));
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
    Some((line, malformed))
}

/// The memory graph over an open engine's home, its record-time clock
/// `clock` (the exec session's and the served homes' `graph`).
///
/// # Errors
/// `Unsupported` for an engine with no graph connector.
pub fn engine_graph(engine: &Engine, clock: am_triples::Clock) -> OpResult<MemoryGraph> {
    let journal = GraphJournal::from_dyn(Arc::clone(engine.system.journal()));
    let graph = match (&engine.sqlite, &engine.memory) {
        (Some(store), _) => {
            am_backend_sqlite::graph::register();
            MemoryGraph::new(Arc::clone(store), Some(journal))
        }
        (None, Some(store)) => MemoryGraph::new(Arc::clone(store), Some(journal)),
        (None, None) => {
            return Err(OpError::new(
                am_triples::ErrorKind::Unsupported,
                "the session's home has no graph connector",
            ));
        }
    };
    Ok(graph?.with_clock(clock))
}

pub(crate) fn error_line(id: Value, op: Value, e: &CliError) -> Value {
    json!({"id": id, "op": op, "error": {"kind": kind_name(e.kind), "message": e.message}})
}

/// The session is the verb table's home: its system, the graph over the
/// same home (opened per call, with the engine clock as its record-time
/// clock), another SQLite home for `replay_into`, the pinned clock and a
/// reopen.
impl am_ops::Home for Session {
    fn system(&self) -> OpResult<&MemorySystem> {
        Ok(&self.engine().map_err(OpError::from)?.system)
    }

    fn graph(&self) -> OpResult<MemoryGraph> {
        engine_graph(self.engine().map_err(OpError::from)?, self.clock.as_clock())
    }

    fn graph_at(&self, target: &str) -> OpResult<MemoryGraph> {
        let graph = am_backend_sqlite::graph::open_graph_at(
            std::path::Path::new(target),
            self.host.embedder.clone(),
        )
        .map_err(|e| OpError::from(CliError::from(e).context(&format!("replay_into: {target}"))))?;
        Ok(graph.with_clock(self.clock.as_clock()))
    }

    fn clock(&self, change: ClockChange) -> OpResult<String> {
        match change {
            ClockChange::Read => {}
            ClockChange::Set(n) => self.clock.set_iso(&n).map_err(OpError::from)?,
            ClockChange::Advance(x) => self.clock.advance(x).map_err(OpError::from)?,
        }
        Ok(self.clock.now())
    }

    fn reopen(&mut self) -> OpResult<i64> {
        Session::reopen(self).map_err(OpError::from)
    }

    fn build_embedder(&self, spec: &str) -> OpResult<Arc<dyn TextEmbedder>> {
        let parsed = crate::embedder::EmbedderSpec::parse(spec).map_err(OpError::from)?;
        parsed
            .build_keyed(self.embedder_key_env.as_deref())
            .map_err(OpError::from)?
            .ok_or_else(|| {
                OpError::invalid(format!(
                    "embedder {spec:?}: a re-embed needs a real embedder (none has no space to move into)"
                ))
            })
    }

    fn embedder_moved(&mut self, embedder: Arc<dyn TextEmbedder>) {
        self.host.embedder = Some(embedder);
    }

    fn journal_cold_cut(
        &self,
        src: &std::path::Path,
        dst: &std::path::Path,
        args: &am_backend_sqlite::cold_cut::ColdCut,
        at: &str,
    ) -> OpResult<am_backend_sqlite::cold_cut::ColdCutReport> {
        am_backend_sqlite::cold_cut::journal_cold_cut(src, dst, args, at)
            .map_err(|e| OpError::from(am_triples::Error::from(e)))
    }

    fn verify_cold_cut(
        &self,
        src: &std::path::Path,
        dst: &std::path::Path,
    ) -> OpResult<am_backend_sqlite::cold_cut::ColdCutVerification> {
        am_backend_sqlite::cold_cut::verify_cold_cut(src, dst)
            .map_err(|e| OpError::from(am_triples::Error::from(e)))
    }

    fn read_embedding_pin(
        &self,
        path: &std::path::Path,
        table_name: Option<&str>,
    ) -> OpResult<Option<am_triples::EmbeddingPin>> {
        am_backend_sqlite::read_embedding_pin(path, table_name)
            .map_err(|e| OpError::from(am_triples::Error::from(e)))
    }

    fn no_queue(&self, op: &str, _: OpError) -> OpError {
        OpError::invalid(format!(
            "{op} needs the home's memory task queue, and this session has no memory task queue: run am exec with \
             --task-queue (the spec's MemorySystem(task_queue=True))"
        ))
    }
}

/// `am exec --list-ops`: the verb table, one op a line (`name  family
/// reads|writes  summary`), or with `--json` one array of objects (`op`,
/// `family`, `summary`, `writes`, `shape`, `present`, `hooks`,
/// `needs_queue`, `required`: the arguments the op cannot do without).
pub fn list_ops(json_mode: bool) -> String {
    let table = am_ops::table();
    if json_mode {
        let rows: Vec<Value> = table
            .iter()
            .map(|v| {
                json!({
                    "op": v.name,
                    "family": v.family,
                    "summary": v.summary,
                    "writes": v.writes,
                    "shape": v.shape,
                    "present": v.present,
                    "hooks": v.hooks.iter().map(|h| h.argument()).collect::<Vec<_>>(),
                    "needs_queue": v.needs_queue,
                    "required": required_of(v),
                })
            })
            .collect();
        return format!("{}\n", Value::Array(rows));
    }
    let width = table.iter().map(|v| v.name.len()).max().unwrap_or(0);
    let mut out = String::new();
    for v in table {
        let family = serde_json::to_value(v.family)
            .ok()
            .and_then(|f| f.as_str().map(str::to_owned))
            .unwrap_or_default();
        out.push_str(&format!(
            "{:width$}  {:13}  {:6}  {}\n",
            v.name,
            family,
            if v.writes { "writes" } else { "reads" },
            v.summary
        ));
    }
    out
}

/// The argument names an op's schema requires (an alternative of an
/// untagged union counts only where every alternative requires it).
fn required_of(v: &am_ops::Verb) -> Vec<String> {
    let schema = v.args_schema();
    let names = |s: &Value| -> Vec<String> {
        s.get("required")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|x| x.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default()
    };
    let root = schema.as_value();
    match root.get("anyOf").and_then(Value::as_array) {
        Some(alts) => {
            let defs = root.get("$defs");
            let resolved: Vec<Vec<String>> = alts
                .iter()
                .map(|a| {
                    let target = a
                        .get("$ref")
                        .and_then(Value::as_str)
                        .and_then(|r| r.strip_prefix("#/$defs/"))
                        .and_then(|name| defs.and_then(|d| d.get(name)))
                        .unwrap_or(a);
                    names(target)
                })
                .collect();
            let first = resolved.first().cloned().unwrap_or_default();
            first
                .into_iter()
                .filter(|n| resolved.iter().all(|r| r.contains(n)))
                .collect()
        }
        None => names(root),
    }
}

/// `am exec --schema OP`: the JSON Schemas of the op's arguments and of
/// its answer (`{"op", "summary", "writes", "arguments", "answer"}`).
///
/// # Errors
/// `InvalidInput` naming the known ops for an op the table does not hold.
pub fn schema(op: &str) -> CliResult<Value> {
    let v = am_ops::find(op).ok_or_else(|| CliError::from(am_ops::unknown_op(op)))?;
    Ok(json!({
        "op": v.name,
        "summary": v.summary,
        "writes": v.writes,
        "arguments": v.args_schema(),
        "answer": v.answer_schema(),
    }))
}
