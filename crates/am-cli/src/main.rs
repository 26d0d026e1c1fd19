//! The `am` command: the main job (`am demo`), `ingest`, `recall`, `query`,
//! `inspect`, the JSON-lines scripting protocol `am exec`, and `am eval locomo`.
//!
//! Exit codes: 0 ok, 2 bad input, 1 a failure outside the caller's control.
//! Every command takes `--embedder` and `--json`.

#![allow(
    unreachable_pub,
    reason = "a binary exports nothing: its modules' `pub` is crate-wide by construction"
)]

mod card;
mod demo;
mod embedder;
mod entity;
mod error;
mod eval;
mod exec;
mod home;
mod ingest;
mod inspect;
mod locomo;
mod observe;
mod query;
mod recall;
mod tasks;
mod text;
mod turn;
mod versions;

use clap::{Parser, Subcommand, ValueEnum};
use embedder::EmbedderSpec;
use error::{CliError, CliResult, kind_name};
use home::{HomeSpec, PinnedClock};
use serde_json::{Value, json};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// The `am` binary allocates through mimalloc: recall builds and drops many
/// small strings per call, and mimalloc serves them in about half of glibc's
/// time. The library crates leave the allocator to the host.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// AbstractMemory: durable, append-only agent memory.
#[derive(Debug, Parser)]
#[command(name = "am", version, about, propagate_version = true)]
struct Cli {
    /// The embedder: offline | none | openai:<base_url>#<model> | gateway:<base_url>
    /// (default: the home's pinned embedder when am can build it (offline);
    /// for an unpinned or new home offline, and none for exec and inspect).
    #[arg(long, global = true, value_name = "SPEC")]
    embedder: Option<String>,
    /// Machine-readable JSON output (and JSON errors on stderr).
    #[arg(long, global = true)]
    json: bool,
    /// Allow `--embedder none` to write rows without vectors into a home
    /// pinned to an embedder (the vector channel never finds them).
    #[arg(long, global = true)]
    allow_vectorless: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum IngestFormat {
    /// The LoCoMo benchmark JSON (each sample its own corpus).
    Locomo,
    /// Plain chat JSON lines `{speaker, text, at, session}`.
    Jsonl,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Form one record per conversation turn (idempotent).
    Ingest {
        /// The SQLite home (created when missing).
        #[arg(long)]
        home: PathBuf,
        /// The input format.
        #[arg(long, value_enum)]
        format: IngestFormat,
        /// For jsonl: the stream as SCOPE:OWNER (default life:chat).
        #[arg(long)]
        scope: Option<String>,
        /// Write into an existing SQLite file that is not an AbstractMemory
        /// home (it gains the store's and journal's tables).
        #[arg(long)]
        force: bool,
        /// The input file.
        file: PathBuf,
    },
    /// Run one layer-1 TripleQuery (from flags or --json-query).
    Query {
        /// The SQLite home (must exist).
        #[arg(long)]
        home: PathBuf,
        #[command(flatten)]
        args: Box<query::QueryArgs>,
    },
    /// Counts by kind and scope, the pin, the journal seq, the vector engine,
    /// the file size. Read-only.
    Inspect {
        /// The SQLite home (must exist).
        #[arg(long)]
        home: PathBuf,
    },
    /// A record's readings oldest first, with who wrote each (its
    /// understanding versions). Read-only.
    Versions {
        /// The SQLite home (must exist).
        #[arg(long)]
        home: PathBuf,
        /// The field (default the record's own: `digest`, `card` for a card;
        /// also `title`, `narration`, `target`, `pending`).
        #[arg(long)]
        field: Option<String>,
        /// The record: its graph id (`ex:…`) or its digest assertion id.
        record_id: String,
    },
    /// The memory task queue: counts by kind and status, the live tasks, the
    /// next window's selection (and what it leaves out, and why) and, per
    /// --scope, the understanding debt. Reads only.
    Tasks {
        /// The SQLite home (must exist).
        #[arg(long)]
        home: PathBuf,
        /// The window's budget in seconds.
        #[arg(long, default_value_t = 120.0)]
        budget_s: f64,
        /// The Mind's sensitivity (the gate's input, with each task's strength).
        #[arg(long, default_value_t = 1.0)]
        sensitivity: f64,
        /// The window: turn | visit | nap | cycle | night | idle.
        #[arg(long, default_value = "turn")]
        window: String,
        /// A stream whose debt is read, as SCOPE:OWNER (repeatable).
        #[arg(long)]
        scope: Vec<String>,
    },
    /// Reconstruct a cue in one stream and print the shelf; --commit deposits the use.
    Recall {
        /// The SQLite home (must exist).
        #[arg(long)]
        home: PathBuf,
        /// The stream as SCOPE:OWNER.
        #[arg(long)]
        scope: String,
        /// Shelf size.
        #[arg(long, default_value_t = 12, allow_negative_numbers = true)]
        k: usize,
        /// Journal the read and commit the use of the handles --used names
        /// (commit strengthens only what was used, so --commit needs --used).
        #[arg(long)]
        commit: bool,
        /// The handles you used, as shelf positions or record ids
        /// (comma-separated, e.g. 1,3): journals the read and commits them
        /// (implies --commit).
        #[arg(long, value_name = "POSITIONS|IDS")]
        used: Option<String>,
        /// The reconstruct profile: hybrid (keyword BM25 + vector + neighbours,
        /// docs/retrieval.md) or spec (the spec's default).
        #[arg(long, value_enum, default_value = "hybrid")]
        profile: eval::Profile,
        /// The cue text.
        cue: String,
    },
    /// The host's loop on a sample conversation: form, reconstruct, commit.
    Demo {
        /// Keep the home at this SQLite path (default: a temporary directory).
        #[arg(long)]
        home: Option<PathBuf>,
        /// The reconstruct profile: hybrid or spec (the spec's default).
        #[arg(long, value_enum, default_value = "hybrid")]
        profile: eval::Profile,
    },
    /// Retrieval quality on a benchmark.
    Eval {
        #[command(subcommand)]
        bench: EvalBench,
    },
    /// The replay stream of a home as JSON lines (seq order); --follow tails
    /// it while other processes write. Read-only.
    Replay {
        /// The SQLite home (must exist).
        home: PathBuf,
        /// Start after this seq (exclusive).
        #[arg(long, default_value_t = 0)]
        since: i64,
        /// Stop at this seq (inclusive; default: the high-water mark, or
        /// never with --follow).
        #[arg(long)]
        until: Option<i64>,
        /// Families to stream (repeatable): event, binding, closure, trace,
        /// snapshot, valence (the default six), revision, host.
        #[arg(long = "family")]
        families: Vec<String>,
        /// Keep polling for new records until SIGINT or stdout closes.
        #[arg(long)]
        follow: bool,
        /// The poll interval of --follow, in milliseconds.
        #[arg(long, default_value_t = 250)]
        poll_ms: u64,
    },
    /// The entity identity card: identity, age, current state, likes and
    /// dislikes, questions, problems, key moments, discoveries and lessons,
    /// each with its source (operator.md §2). Read-only.
    Card {
        /// The SQLite home (must exist).
        home: PathBuf,
        /// The entity (`entity:<name>`).
        #[arg(long)]
        owner: String,
        /// The journal seq the card describes (default: now).
        #[arg(long)]
        as_of: Option<i64>,
        /// A scope of the ladder, narrow to broad (repeatable; default
        /// `self`, `diary`, `life`), each paired with --owner.
        #[arg(long = "scope")]
        scopes: Vec<String>,
        /// The trailing window of the current state, in appraisals (a 0 is
        /// refused here, as clap reads the line).
        #[arg(long, default_value_t = am_system::card::DEFAULT_CURRENT_WINDOW)]
        window: std::num::NonZeroUsize,
        /// Targets per channel of likes and dislikes.
        #[arg(long, default_value_t = 5)]
        top: usize,
    },
    /// The folded identity core of an entity (operator.md §1). Read-only.
    Identity {
        /// The SQLite home (must exist).
        home: PathBuf,
        /// The entity (`entity:<name>`).
        #[arg(long)]
        owner: String,
        /// The identity scope.
        #[arg(long, default_value = "self")]
        scope: String,
    },
    /// The gradation table, or the why-walk for one TARGET (operator.md §4).
    /// Read-only.
    Feelings {
        /// The SQLite home (must exist).
        home: PathBuf,
        /// One target (`person:ada`, `tool:web_search`, a record id).
        target: Option<String>,
        /// The entity.
        #[arg(long)]
        owner: String,
        /// The valence scope.
        #[arg(long, default_value = "self")]
        scope: String,
    },
    /// Open questions, problems, ideas and commitments; `--verify` audits
    /// the hash chain and exits 1 on a break (operator.md §3, §6). Read-only.
    Diary {
        /// The SQLite home (must exist).
        home: PathBuf,
        /// The entity.
        #[arg(long)]
        owner: String,
        /// The diary scope.
        #[arg(long, default_value = "diary")]
        scope: String,
        /// Check the owner-direct content-hash chain.
        #[arg(long)]
        verify: bool,
    },
    /// Why did (or didn't) a record surface in a recall? Read-only.
    Explain {
        /// The SQLite home (must exist).
        home: PathBuf,
        /// The record (graph id or digest row id).
        record_id: String,
        /// The recall to explain (default: the newest).
        #[arg(long)]
        trace: Option<String>,
    },
    /// Drive the engine with JSON lines (docs/exec.md).
    Exec {
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
        /// The script file, or - for standard input (the default).
        script: Option<String>,
    },
}

#[derive(Debug, Subcommand)]
enum EvalBench {
    /// LoCoMo under the fixed protocol (recall@k, hit@k, latency; default and keyword discovery).
    Locomo {
        /// The LoCoMo JSON file.
        #[arg(long)]
        data: PathBuf,
        /// Shelf sizes, comma-separated.
        #[arg(long, default_value = "5,10")]
        k: String,
        /// Which configurations of the spec's default to run.
        #[arg(long, value_enum, default_value = "both")]
        discovery: eval::Discovery,
        /// Which profiles to run: hybrid (what `am` uses), spec, both, or all
        /// (both and the peers: plain BM25, BM25 + dense RRF k = 60).
        #[arg(long, value_enum, default_value = "all")]
        profile: eval::Profiles,
        /// Override hybrid profile knobs, a JSON object of HybridConfig
        /// fields (e.g. '{"neighbour_weight": 0}'); for ablations.
        #[arg(long)]
        hybrid: Option<String>,
    },
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            use clap::error::ErrorKind;
            let usage = !matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion);
            if usage && std::env::args_os().skip(1).any(|a| a == "--json") {
                let message = e.render().to_string();
                let message = message
                    .lines()
                    .next()
                    .unwrap_or("")
                    .trim_start_matches("error: ");
                eprintln!(
                    "{}",
                    json!({"error": {"kind": kind_name(am_triples::ErrorKind::InvalidInput), "message": message}})
                );
                return ExitCode::from(2);
            }
            e.exit() // usage errors exit 2, --help/--version exit 0
        }
    };
    let json_mode = cli.json;
    let created = new_home(&cli.command);
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(cli)));
    let result = match outcome {
        Ok(r) => r,
        Err(_) => Err(CliError::failure(
            "internal failure (a bug in am: please report the command that caused it)",
        )),
    };
    if let Some(path) = created
        && !matches!(result, Ok(0))
    {
        home::remove_if_created_and_blank(&path);
    }
    match result {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            if json_mode {
                eprintln!(
                    "{}",
                    json!({"error": {"kind": kind_name(e.kind), "message": e.message}})
                );
            } else {
                eprintln!("error: {}", e.message);
            }
            ExitCode::from(e.code)
        }
    }
}

/// The SQLite home `command` may create, when it does not exist yet: a
/// command that then fails (or an exec whose lines were refused) leaves no
/// blank home behind.
fn new_home(command: &Command) -> Option<PathBuf> {
    let path = match command {
        Command::Ingest { home, .. } => Some(home),
        Command::Exec {
            home: Some(home),
            memory: false,
            ..
        } => Some(home),
        Command::Demo { home, .. } => home.as_ref(),
        _ => None,
    }?;
    (!path.as_os_str().is_empty() && !path.exists()).then(|| path.clone())
}

fn embedder_spec(cli_value: Option<&str>, default: &str) -> CliResult<EmbedderSpec> {
    EmbedderSpec::parse(cli_value.unwrap_or(default))
}

/// Open an existing home for a pure read (`replay`, `explain`, `card`): no
/// embedder, no pin declared, the wall clock.
fn open_for_observing(home: &std::path::Path) -> CliResult<home::Engine> {
    require_existing_home(home)?;
    home::open_to_read(
        &HomeSpec::Sqlite(home.to_path_buf()),
        None,
        &PinnedClock::wall(),
        am_system::ReconstructConfig::default(),
    )
}

/// Print `value` as one JSON line, or `human` when not in JSON mode.
fn emit(json_mode: bool, value: &Value, human: &str) -> CliResult<()> {
    let mut out = std::io::stdout().lock();
    let r = if json_mode {
        writeln!(out, "{value}")
    } else {
        write!(out, "{human}")
    };
    r.and_then(|()| out.flush())
        .map_err(|e| CliError::failure(format!("cannot write to stdout: {e}")))
}

/// A command that reads a home (`query`, `recall`) refuses, before anything
/// opens it for writing, a path that is not an existing AbstractMemory home:
/// a missing or empty file, a file that is not SQLite, a SQLite database
/// without the store's table.
fn require_existing_home(path: &std::path::Path) -> CliResult<()> {
    home::check_home_path(path)?;
    if !path.is_file() {
        return Err(CliError::invalid(format!(
            "--home {}: no such home file (expected an existing SQLite home; `am ingest` creates one)",
            path.display()
        )));
    }
    let conn = home::open_read_only(path)?;
    if !home::table_exists(&conn, "triples")? {
        return Err(CliError::invalid(format!(
            "--home {} is not an AbstractMemory home (expected a SQLite file holding the `triples` \
             store; `am ingest` creates one)",
            path.display()
        )));
    }
    Ok(())
}

fn run(cli: Cli) -> CliResult<u8> {
    let json_mode = cli.json;
    let emb = cli.embedder.as_deref();
    match cli.command {
        Command::Ingest {
            home,
            format,
            scope,
            force,
            file,
        } => {
            home::check_home_path(&home)?;
            let facts = home::read_facts(&home)?;
            home::refuse_foreign(&home, facts.as_ref(), force)?;
            let pin = facts.as_ref().and_then(|f| f.pin.as_ref());
            let spec = embedder::resolve(emb, "offline", pin, true, cli.allow_vectorless, &home)?;
            let text = std::fs::read_to_string(&file).map_err(|e| {
                CliError::invalid(format!(
                    "cannot read {}: {e} (expected a readable file)",
                    file.display()
                ))
            })?;
            let mut notes = Vec::new();
            let turns = match format {
                IngestFormat::Locomo => {
                    if scope.is_some() {
                        return Err(CliError::invalid(
                            "--scope applies to --format jsonl only (LoCoMo samples are each their own life:<sample_id> corpus)",
                        ));
                    }
                    let v: Value = serde_json::from_str(&text).map_err(|e| {
                        CliError::invalid(format!(
                            "{}: expected LoCoMo JSON, got invalid JSON ({e})",
                            file.display()
                        ))
                    })?;
                    locomo::parse(&v)?
                        .into_iter()
                        .flat_map(|s| s.turns)
                        .collect::<Vec<_>>()
                }
                IngestFormat::Jsonl => {
                    let (scope, owner) =
                        ingest::parse_scope(scope.as_deref().unwrap_or("life:chat"))?;
                    ingest::parse_jsonl_noting(&text, &scope, &owner, &mut notes)?
                }
            };
            let clock = PinnedClock::wall();
            let engine = home::open(
                &HomeSpec::Sqlite(home.clone()),
                spec.build()?,
                &clock,
                am_system::ReconstructConfig::default(),
            )?;
            let started = std::time::Instant::now();
            engine.bulk_mode()?;
            let bar = ingest::progress(turns.len() as u64, "ingest", json_mode);
            let mut report = ingest::form_turns(&engine.system, &clock, &turns, &bar)?;
            bar.finish_and_clear();
            report.warnings.splice(0..0, notes);
            let secs = started.elapsed().as_secs_f64();
            let v = json!({"home": home.display().to_string(), "turns": turns.len(),
                           "formed": report.formed, "already_stored": report.already,
                           "warnings": report.warnings,
                           "seconds": (secs * 1000.0).round() / 1000.0});
            if !json_mode {
                for w in &report.warnings {
                    eprintln!("warning: {}", text::escape(w));
                }
            }
            emit(
                json_mode,
                &v,
                &format!(
                    "ingested {} turns into {}: {} newly formed, {} already stored, in {:.2} s\n",
                    turns.len(),
                    home.display(),
                    report.formed,
                    report.already,
                    secs
                ),
            )?;
            Ok(0)
        }
        Command::Query { home, args } => {
            let q = args.to_query()?;
            require_existing_home(&home)?;
            if let Some(scope) = &args.scope {
                match scope.split_once(':') {
                    Some((sc, ow)) => home::require_stream(&home, &sc.to_lowercase(), ow)?,
                    None => home::require_scope(&home, &scope.to_lowercase())?,
                }
            }
            let facts = home::read_facts(&home)?;
            let pin = facts.as_ref().and_then(|f| f.pin.as_ref());
            let spec = embedder::resolve(emb, "offline", pin, false, true, &home)?;
            let clock = PinnedClock::wall();
            let engine = home::open_to_read(
                &HomeSpec::Sqlite(home),
                spec.build()?,
                &clock,
                am_system::ReconstructConfig::default(),
            )?;
            let rows = engine.system.query(&q)?;
            let v = json!({"assertions": rows.iter().map(am_triples::TripleAssertion::to_dict).collect::<Vec<_>>()});
            let marks = query::marks(&engine.system, &rows, &clock.now())?;
            let human: String = rows
                .iter()
                .zip(&marks)
                .map(|(a, m)| query::render(a, m) + "\n")
                .collect();
            emit(json_mode, &v, &human)?;
            Ok(0)
        }
        Command::Versions {
            home,
            field,
            record_id,
        } => {
            require_existing_home(&home)?;
            let facts = home::read_facts(&home)?;
            let pin = facts.as_ref().and_then(|f| f.pin.as_ref());
            let spec = embedder::resolve(emb, "offline", pin, false, true, &home)?;
            let clock = PinnedClock::wall();
            let engine = home::open_to_read(
                &HomeSpec::Sqlite(home),
                spec.build()?,
                &clock,
                am_system::ReconstructConfig::default(),
            )?;
            let list = engine.system.versions(&record_id, field.as_deref())?;
            let v = serde_json::to_value(&list)
                .map_err(|e| CliError::failure(format!("cannot encode the answer: {e}")))?;
            emit(json_mode, &v, &versions::render(&record_id, &list))?;
            Ok(0)
        }
        Command::Tasks {
            home,
            budget_s,
            sensitivity,
            window,
            scope,
        } => {
            require_existing_home(&home)?;
            embedder_spec(emb, "none")?;
            let window: am_journal::Window = serde_json::from_value(json!(window.trim()))
                .map_err(|e| CliError::invalid(format!("--window: {e}")))?;
            let scopes = scope
                .iter()
                .map(|s| ingest::parse_scope(s))
                .collect::<CliResult<Vec<_>>>()?;
            let clock = PinnedClock::wall();
            let engine = home::open_queued(&HomeSpec::Sqlite(home), None, &clock, true)?;
            let v = tasks::report(
                &engine.system,
                &tasks::TasksArgs {
                    budget_s,
                    sensitivity,
                    window,
                    scopes,
                },
            )?;
            emit(json_mode, &v, &tasks::render(&v))?;
            Ok(0)
        }
        Command::Replay {
            home,
            since,
            until,
            families,
            follow,
            poll_ms,
        } => {
            embedder_spec(emb, "none")?;
            let engine = open_for_observing(&home)?;
            observe::replay(
                &engine.system,
                &observe::ReplayArgs {
                    since,
                    until,
                    families,
                    follow,
                    poll: std::time::Duration::from_millis(poll_ms.max(1)),
                },
            )
        }
        Command::Explain {
            home,
            record_id,
            trace,
        } => {
            embedder_spec(emb, "none")?;
            let engine = open_for_observing(&home)?;
            let x = observe::explain(&engine.system, &record_id, trace.as_deref())?;
            let v = serde_json::to_value(&x)
                .map_err(|e| CliError::failure(format!("cannot encode the answer: {e}")))?;
            emit(json_mode, &v, &observe::render_explanation(&x))?;
            Ok(0)
        }
        Command::Card {
            home,
            owner,
            as_of,
            scopes,
            window,
            top,
        } => {
            embedder_spec(emb, "none")?;
            let engine = open_for_observing(&home)?;
            let (v, t) = card::card(&engine.system, &owner, &scopes, as_of, window, top)?;
            emit(json_mode, &v, &t)?;
            Ok(0)
        }
        Command::Identity { home, owner, scope } => {
            embedder_spec(emb, "none")?;
            let engine = open_for_observing(&home)?;
            let (v, t) = entity::identity(&engine.system, &scope, &owner)?;
            emit(json_mode, &v, &t)?;
            Ok(0)
        }
        Command::Feelings {
            home,
            target,
            owner,
            scope,
        } => {
            embedder_spec(emb, "none")?;
            let engine = open_for_observing(&home)?;
            let (v, t) = entity::feelings(&engine.system, &scope, &owner, target.as_deref())?;
            emit(json_mode, &v, &t)?;
            Ok(0)
        }
        Command::Diary {
            home,
            owner,
            scope,
            verify,
        } => {
            embedder_spec(emb, "none")?;
            let engine = open_for_observing(&home)?;
            let (v, t, broken) = entity::diary(&engine.system, &scope, &owner, verify)?;
            emit(json_mode, &v, &t)?;
            Ok(u8::from(broken))
        }
        Command::Inspect { home } => {
            embedder_spec(emb, "none")?;
            home::check_home_path(&home)?;
            let report = inspect::inspect(&home)?;
            emit(json_mode, &report, &inspect::render(&report))?;
            Ok(0)
        }
        Command::Recall {
            home,
            scope,
            k,
            commit,
            used,
            profile,
            cue,
        } => {
            let (scope, owner) = ingest::parse_scope(&scope)?;
            if commit && used.is_none() {
                return Err(CliError::invalid(
                    "--commit strengthens only what was used: name it with --used POSITIONS|IDS \
                     (shelf positions or record ids, e.g. --used 1,3); run without --commit first to see the shelf",
                ));
            }
            if k == 0 {
                return Err(CliError::invalid("--k must be a shelf size >= 1, got 0"));
            }
            if cue.trim().is_empty() {
                return Err(CliError::invalid(
                    "the cue must be non-empty text, got an empty one",
                ));
            }
            require_existing_home(&home)?;
            home::require_stream(&home, &scope, &owner)?;
            let facts = home::read_facts(&home)?;
            let pin = facts.as_ref().and_then(|f| f.pin.as_ref());
            let spec = embedder::resolve(emb, "offline", pin, false, true, &home)?;
            // One instant for the read and, with --used, its journaled repeat.
            let clock = PinnedClock::wall();
            clock.set_iso(&clock.now())?;
            let engine = home::open_to_read(
                &HomeSpec::Sqlite(home),
                spec.build()?,
                &clock,
                profile.config(),
            )?;
            let mut r = recall::recall(&engine.system, &scope, &owner, &cue, k, None, None)?;
            if let Some(used) = used {
                // Checked against the shelf before anything is journaled; the
                // journaled read then sees the same home and builds the same shelf.
                let ids = recall::resolve_used(&r.result, &used)?;
                r = recall::recall(&engine.system, &scope, &owner, &cue, k, Some(0), None)?;
                r.commit = Some(recall::commit_use(
                    &engine.system,
                    &scope,
                    &owner,
                    &r.result.trace_id,
                    &ids,
                )?);
            }
            if !json_mode {
                // In JSON the warnings are part of the result.
                for w in recall::notable_warnings(&r) {
                    eprintln!("warning: {}", text::escape(w));
                }
            }
            emit(json_mode, &recall::to_json(&r), &recall::render(&r))?;
            Ok(0)
        }
        Command::Demo { home, profile } => {
            if let Some(e) = emb
                && EmbedderSpec::parse(e)? != EmbedderSpec::Offline
            {
                return Err(CliError::invalid(format!(
                    "am demo runs with the offline embedder; got --embedder {e:?} (expected offline or no --embedder)"
                )));
            }
            if let Some(h) = &home {
                home::check_home_path(h)?;
            }
            let (text, report) = demo::run(home, profile, json_mode)?;
            emit(json_mode, &report, &text)?;
            Ok(0)
        }
        Command::Eval {
            bench:
                EvalBench::Locomo {
                    data,
                    k,
                    discovery,
                    profile,
                    hybrid,
                },
        } => {
            let spec = embedder_spec(emb, "offline")?;
            let ks = eval::parse_ks(&k)?;
            let configs = eval::configurations(profile, discovery, hybrid.as_deref())?;
            let text = std::fs::read_to_string(&data).map_err(|e| {
                CliError::invalid(format!(
                    "cannot read --data {}: {e} (expected the LoCoMo JSON file)",
                    data.display()
                ))
            })?;
            let v: Value = serde_json::from_str(&text).map_err(|e| {
                CliError::invalid(format!(
                    "--data {}: expected LoCoMo JSON, got invalid JSON ({e})",
                    data.display()
                ))
            })?;
            let report = eval::run(&v, &ks, configs, spec.build()?, json_mode)?;
            emit(json_mode, &report, &eval::render(&report))?;
            Ok(0)
        }
        Command::Exec {
            home,
            memory,
            clock,
            task_queue,
            force,
            guard_file,
            script,
        } => {
            let spec = match home.as_ref().filter(|_| !memory) {
                Some(path) => {
                    home::check_home_path(path)?;
                    let facts = home::read_facts(path)?;
                    home::refuse_foreign(path, facts.as_ref(), force)?;
                    let pin = facts.as_ref().and_then(|f| f.pin.as_ref());
                    embedder::resolve(emb, "none", pin, true, cli.allow_vectorless, path)?
                }
                None => embedder_spec(emb, "none")?,
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
                && std::path::Path::new(path).is_dir()
            {
                return Err(CliError::invalid(format!(
                    "the script {path} is a directory (expected a readable file of JSON lines, or -)"
                )));
            }
            let input: Box<dyn std::io::BufRead> = match script.as_deref() {
                None | Some("-") => Box::new(std::io::stdin().lock()),
                Some(path) => Box::new(std::io::BufReader::new(
                    std::fs::File::open(path).map_err(|e| {
                        CliError::invalid(format!(
                            "cannot open script {path}: {e} (expected a readable file or -)"
                        ))
                    })?,
                )),
            };
            let mut session =
                exec::Session::open_queued(home_spec, spec.build()?, clock, task_queue)?;
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
}
