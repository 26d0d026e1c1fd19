//! The `am` command: the main job (`am demo`), `ingest`, `recall`, `query`,
//! `inspect`, `probe`, the JSON-lines scripting protocol `am exec`, and `am eval locomo`.
//!
//! Exit codes: 0 ok, 2 bad input, 1 a failure outside the caller's control.
//! Every command takes `--embedder` and `--json`.

#![allow(
    unreachable_pub,
    reason = "a binary exports nothing: its modules' `pub` is crate-wide by construction"
)]

mod candidates;
mod card;
mod cards;
mod cold_cut;
mod ctx;
mod demo;
mod drives;
mod embedder;
mod entity;
mod error;
mod eval;
mod exec;
mod home;
mod ingest;
mod inspect;
mod locomo;
mod manifest;
mod mass;
mod observe;
mod probe;
mod query;
mod recall;
mod reembed;
mod ripples;
mod serve;
mod situate;
mod sleep;
mod tasks;
mod tend;
mod text;
mod topics;
mod turn;
mod versions;

use clap::{Parser, Subcommand};
use ctx::Ctx;
use error::{CliError, CliResult, kind_name};
use serde_json::json;
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
    /// for an unpinned or new home offline, and none for --memory and inspect).
    #[arg(long, global = true, value_name = "SPEC")]
    embedder: Option<String>,
    /// The environment variable holding the served embedder's API key (never
    /// the key itself on the command line): default OPENAI_API_KEY for
    /// openai:, ABSTRACTGATEWAY_AUTH_TOKEN for gateway:.
    #[arg(long, global = true, value_name = "NAME")]
    embedder_key_env: Option<String>,
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

// The subcommands; each one's flags, help text and run are its module's
// (no doc comment here: clap would read it as the root command's about).
#[derive(Debug, Subcommand)]
enum Command {
    Ingest(ingest::IngestCmd),
    Query(query::QueryCmd),
    Inspect(inspect::InspectCmd),
    Versions(versions::VersionsCmd),
    Tasks(tasks::TasksCmd),
    Ripples(ripples::RipplesCmd),
    Sleep(sleep::SleepCmd),
    Recall(recall::RecallCmd),
    Probe(probe::ProbeCmd),
    Demo(demo::DemoCmd),
    Eval(eval::EvalCmd),
    Replay(observe::ReplayCmd),
    Card(card::CardCmd),
    Cards(cards::CardsCmd),
    Topics(topics::TopicsCmd),
    Identity(entity::IdentityCmd),
    Feelings(entity::FeelingsCmd),
    Diary(entity::DiaryCmd),
    Drives(drives::DrivesCmd),
    Candidates(candidates::CandidatesCmd),
    Tend(tend::TendCmd),
    Mass(mass::MassCmd),
    Reembed(reembed::ReembedCmd),
    ColdCut(cold_cut::ColdCutCmd),
    Manifest(manifest::ManifestCmd),
    Situate(situate::SituateCmd),
    Explain(observe::ExplainCmd),
    Exec(exec::command::ExecCmd),
    Serve(serve::ServeCmd),
    Mcp(serve::mcp::McpCmd),
}

impl Command {
    /// The SQLite home this command may create, when it does not exist yet:
    /// a command that then fails (or an exec whose lines were refused)
    /// leaves no blank home behind.
    fn new_home(&self) -> Option<PathBuf> {
        let path = match self {
            Command::Ingest(c) => c.home_to_create(),
            Command::Exec(c) => c.home_to_create(),
            Command::Demo(c) => c.home_to_create(),
            _ => None,
        }?;
        (!path.as_os_str().is_empty() && !path.exists()).then(|| path.to_path_buf())
    }

    /// Run the subcommand with the global flags.
    fn run(self, ctx: &Ctx) -> CliResult<u8> {
        match self {
            Command::Ingest(c) => c.run(ctx),
            Command::Query(c) => c.run(ctx),
            Command::Inspect(c) => c.run(ctx),
            Command::Versions(c) => c.run(ctx),
            Command::Tasks(c) => c.run(ctx),
            Command::Ripples(c) => c.run(ctx),
            Command::Sleep(c) => c.run(ctx),
            Command::Recall(c) => c.run(ctx),
            Command::Probe(c) => c.run(ctx),
            Command::Demo(c) => c.run(ctx),
            Command::Eval(c) => c.run(ctx),
            Command::Replay(c) => c.run(ctx),
            Command::Card(c) => c.run(ctx),
            Command::Cards(c) => c.run(ctx),
            Command::Topics(c) => c.run(ctx),
            Command::Identity(c) => c.run(ctx),
            Command::Feelings(c) => c.run(ctx),
            Command::Drives(c) => c.run(ctx),
            Command::Candidates(c) => c.run(ctx),
            Command::Tend(c) => c.run(ctx),
            Command::Mass(c) => c.run(ctx),
            Command::Reembed(c) => c.run(ctx),
            Command::ColdCut(c) => c.run(ctx),
            Command::Manifest(c) => c.run(ctx),
            Command::Situate(c) => c.run(ctx),
            Command::Diary(c) => c.run(ctx),
            Command::Explain(c) => c.run(ctx),
            Command::Exec(c) => c.run(ctx),
            Command::Serve(c) => c.run(ctx),
            Command::Mcp(c) => c.run(ctx),
        }
    }
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
    let created = cli.command.new_home();
    let ctx = Ctx {
        json: cli.json,
        embedder: cli.embedder,
        embedder_key_env: cli.embedder_key_env,
        allow_vectorless: cli.allow_vectorless,
    };
    let command = cli.command;
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| command.run(&ctx)));
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
