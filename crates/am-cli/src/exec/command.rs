//! `am exec`: the command's flags and its run (open the home or the
//! in-memory pair, read the script, drive a [`Session`] line by line); the
//! protocol itself is the parent module's.

use super::Session;
use crate::ctx::Ctx;
use crate::embedder;
use crate::error::{CliError, CliResult};
use crate::home::{self, HomeSpec, PinnedClock};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Drive the engine with JSON lines (docs/exec.md).
#[derive(Debug, clap::Args)]
pub struct ExecCmd {
    /// A SQLite home (created when missing).
    #[arg(long, conflicts_with = "memory")]
    home: Option<PathBuf>,
    /// The in-memory store and journal (the default).
    #[arg(long)]
    memory: bool,
    /// Pin the engine clock to this instant (ISO 8601).
    #[arg(long)]
    clock: Option<String>,
    /// Open the home with its memory task queue (the `tasks.*` ops; a
    /// SQLite home gains the `memq_*` tables).
    #[arg(long)]
    task_queue: bool,
    /// Open an existing SQLite file that is not an AbstractMemory home
    /// (it gains the store's and journal's tables).
    #[arg(long)]
    force: bool,
    /// A commit guard that refuses every memory write while PATH exists
    /// (a Stop a test or a host's shell script can raise): refused lines
    /// answer with error kind Refused naming the commit point.
    #[arg(long, value_name = "PATH")]
    guard_file: Option<PathBuf>,
    /// The retrieval profile of the session's recalls: spec (the spec's
    /// default) or hybrid (what `am recall` uses); a line's own
    /// `"profile"` wins.
    #[arg(long, value_enum, default_value = "spec")]
    profile: crate::eval::Profile,
    /// Print the verb table (every op, its family, whether it writes, a
    /// summary; with --json each op's shape, hooks and required arguments)
    /// and exit without opening a home.
    #[arg(long, conflicts_with_all = ["schema", "script"])]
    list_ops: bool,
    /// Print the JSON Schemas of OP's arguments and answer and exit without
    /// opening a home.
    #[arg(long, value_name = "OP", conflicts_with = "script")]
    schema: Option<String>,
    /// The script file, or - for standard input (the default).
    script: Option<String>,
}

impl ExecCmd {
    /// The SQLite home this command creates when it is missing (`--home`
    /// without `--memory`).
    pub fn home_to_create(&self) -> Option<&Path> {
        self.home
            .as_deref()
            .filter(|_| !self.memory && !self.list_ops && self.schema.is_none())
    }

    /// Run the script; exit code 2 when a line was refused.
    ///
    /// # Errors
    /// Bad input for an unusable home, clock, script or `--embedder`; a
    /// failure when the session cannot read or write its streams.
    pub fn run(self, ctx: &Ctx) -> CliResult<u8> {
        let ExecCmd {
            home,
            memory,
            clock,
            task_queue,
            force,
            guard_file,
            profile,
            list_ops,
            schema,
            script,
        } = self;
        if list_ops {
            let mut out = std::io::stdout().lock();
            write!(out, "{}", super::list_ops(ctx.json))
                .and_then(|()| out.flush())
                .map_err(|e| CliError::failure(format!("cannot write to stdout: {e}")))?;
            return Ok(0);
        }
        if let Some(op) = schema {
            let v = super::schema(&op)?;
            let text = serde_json::to_string_pretty(&v)
                .map_err(|e| CliError::failure(format!("cannot encode the schema: {e}")))?;
            let mut out = std::io::stdout().lock();
            writeln!(out, "{text}")
                .and_then(|()| out.flush())
                .map_err(|e| CliError::failure(format!("cannot write to stdout: {e}")))?;
            return Ok(0);
        }
        let spec = match home.as_ref().filter(|_| !memory) {
            Some(path) => home_embedder(ctx, path, force)?,
            None => ctx.embedder_spec("none")?,
        };
        let clock = match clock {
            Some(c) => PinnedClock::pinned_at(&c)?,
            None => PinnedClock::wall(),
        };
        let home_spec = match home {
            Some(p) if !memory => HomeSpec::Sqlite(p),
            _ => HomeSpec::Memory,
        };
        if let Some(path) = script.as_deref().filter(|p| *p != "-")
            && Path::new(path).is_dir()
        {
            return Err(CliError::invalid(format!(
                "the script {path} is a directory (expected a readable file of JSON lines, or -)"
            )));
        }
        let input: Box<dyn std::io::BufRead> = match script.as_deref() {
            None | Some("-") => Box::new(std::io::stdin().lock()),
            Some(path) => Box::new(std::io::BufReader::new(std::fs::File::open(path).map_err(
                |e| {
                    CliError::invalid(format!(
                        "cannot open script {path}: {e} (expected a readable file or -)"
                    ))
                },
            )?)),
        };
        let mut session = Session::open_profiled(
            home_spec,
            ctx.build_embedder(&spec)?,
            clock,
            task_queue,
            profile.config(),
        )?;
        session.set_embedder_key_env(ctx.embedder_key_env.clone());
        if let Some(path) = guard_file {
            session.guard_with_file(path)?;
        }
        let stdout = std::io::stdout();
        let mut out = stdout.lock();
        session
            .run(input, &mut out)
            .map_err(|e| CliError::failure(format!("exec: {e}")))
            .map(|bad| if bad { 2 } else { 0 })
    }
}

/// The embedder a SQLite home is opened with by a writing front end
/// (`am exec`, `am serve`, `am mcp`): `--embedder`, else the home's pin,
/// else for a new home the bundled offline model and `none` for a home
/// that already holds rows without a pin.
///
/// # Errors
/// Bad input for an unusable path, a foreign SQLite file (without
/// `force`), or an embedder the pin refuses.
pub fn home_embedder(
    ctx: &Ctx,
    path: &Path,
    force: bool,
) -> CliResult<crate::embedder::EmbedderSpec> {
    home::check_home_path(path)?;
    let facts = home::read_facts(path)?;
    home::refuse_foreign(path, facts.as_ref(), force)?;
    let pin = facts.as_ref().and_then(|f| f.pin.as_ref());
    // A new SQLite home gets the bundled offline embedder by default, as
    // under `am ingest`; a home that already holds rows but no pin (formed
    // without an embedder) keeps none: vectors for its new rows only would
    // mix a vectorless home with an embedded one, silently.
    let default = if pin.is_none() && home::holds_rows(path)? {
        "none"
    } else {
        "offline"
    };
    embedder::resolve(
        ctx.embedder(),
        default,
        pin,
        true,
        ctx.allow_vectorless,
        path,
    )
}
