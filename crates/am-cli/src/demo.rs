//! `am demo`: the host's loop on a fresh machine. A SQLite home (in a
//! temporary directory unless `--home`), the offline embedder, the shipped
//! sample conversation ingested, recalls for a few cues, each recall's use
//! committed, and each shelf and deposit printed: form → reconstruct → commit.

use crate::ctx::Ctx;
use crate::embedder::EmbedderSpec;
use crate::error::{CliError, CliResult};
use crate::home::{self, HomeSpec, PinnedClock};
use crate::ingest;
use crate::recall;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// The host's loop on a sample conversation: form, reconstruct, commit.
#[derive(Debug, clap::Args)]
pub struct DemoCmd {
    /// Keep the home at this SQLite path (default: a temporary directory).
    #[arg(long)]
    home: Option<PathBuf>,
    /// The reconstruct profile: hybrid or spec (the spec's default).
    #[arg(long, value_enum, default_value = "hybrid")]
    profile: crate::eval::Profile,
}

impl DemoCmd {
    /// The SQLite home this command creates when it is missing (`--home`).
    pub fn home_to_create(&self) -> Option<&Path> {
        self.home.as_deref()
    }

    /// Run the demo and print its report.
    ///
    /// # Errors
    /// Bad input for an `--embedder` other than offline or an unusable
    /// `--home`; the engine's failure.
    pub fn run(self, ctx: &Ctx) -> CliResult<u8> {
        let DemoCmd { home, profile } = self;
        if let Some(e) = ctx.embedder()
            && EmbedderSpec::parse(e)? != EmbedderSpec::Offline
        {
            return Err(CliError::invalid(format!(
                "am demo runs with the offline embedder; got --embedder {e:?} (expected offline or no --embedder)"
            )));
        }
        if let Some(h) = &home {
            home::check_home_path(h)?;
        }
        let (text, report) = run(home, profile, ctx.json)?;
        ctx.emit(&report, &text)?;
        Ok(0)
    }
}

/// The sample conversation shipped with the command (written for the project).
pub const CONVERSATION: &str = include_str!("../data/demo-conversation.jsonl");

/// The demo's stream.
pub const SCOPE: (&str, &str) = ("life", "demo");

/// The cues the demo recalls, in order.
pub const CUES: &[&str] = &[
    "Who gets the spare key to the allotment?",
    "When is Ada away hiking in Scotland?",
    "What is Chiara's new job about?",
    "How do we get rid of the aphids on the beans?",
];

/// The instant the demo's recalls happen (the day after the last session).
pub const RECALL_AT: &str = "2026-06-13T09:00:00Z";

/// Run the demo; returns the human report and the JSON report.
///
/// # Errors
/// Bad input for an unusable `--home`; the engine's failure.
pub fn run(
    home_path: Option<PathBuf>,
    profile: crate::eval::Profile,
    quiet: bool,
) -> CliResult<(String, Value)> {
    let tmp;
    let path = match home_path {
        Some(p) => p,
        None => {
            tmp = tempfile::tempdir().map_err(|e| {
                CliError::failure(format!("cannot create a temporary directory: {e}"))
            })?;
            tmp.path().join("demo-home.sqlite3")
        }
    };
    let embedder = crate::embedder::EmbedderSpec::Offline.build()?;
    let clock = PinnedClock::wall();
    let engine = home::open(
        &HomeSpec::Sqlite(path.clone()),
        embedder,
        &clock,
        profile.config(),
    )?;
    let turns = ingest::parse_jsonl(CONVERSATION, SCOPE.0, SCOPE.1)?;
    engine.bulk_mode()?;
    let bar = ingest::progress(turns.len() as u64, "ingest", quiet);
    let formed = ingest::form_turns(&engine.system, &clock, &turns, &bar)?;
    bar.finish_and_clear();
    clock.set_iso(RECALL_AT)?;
    let mut text = format!(
        "home {}\ningested {} turns of the sample conversation ({} newly formed) with the offline embedder\n",
        path.display(),
        turns.len(),
        formed.formed
    );
    let mut recalls = Vec::new();
    // Trace ids unique to this run: a demo run again on a kept home commits
    // its own reads (a fixed id would replay the first run's commits).
    let run_seq = engine.system.journal().current_seq()?;
    for (i, cue) in CUES.iter().enumerate() {
        clock.advance(60.0)?;
        let mut r = recall::recall(
            &engine.system,
            SCOPE.0,
            SCOPE.1,
            cue,
            4,
            Some(0),
            Some(&format!("demo-recall-{run_seq}-{}", i + 1)),
        )?;
        // The host uses the handle that best answers the cue: the cue-admitted
        // one with the strongest keyword match (the first on a tie).
        let used = r
            .result
            .handles
            .iter()
            .filter(|h| h.admission.deposits())
            .fold(None::<&am_system::MemoryHandle>, |best, h| {
                let kw = |x: &am_system::MemoryHandle| {
                    x.relevance.get("keyword").copied().unwrap_or(0.0)
                };
                match best {
                    Some(b) if kw(b) >= kw(h) => Some(b),
                    _ => Some(h),
                }
            })
            .map(|h| h.record_id.clone());
        if let Some(id) = used {
            r.commit = Some(recall::commit_use(
                &engine.system,
                SCOPE.0,
                SCOPE.1,
                &r.result.trace_id,
                &[id],
            )?);
        }
        text.push_str(&format!("\nrecall: {cue:?}\n"));
        text.push_str(&recall::render(&r));
        recalls.push(json!({"cue": cue, "recall": recall::to_json(&r)}));
    }
    // The loop closes: the first cue again, now with the committed use as activation.
    clock.advance(60.0)?;
    let again = recall::recall(&engine.system, SCOPE.0, SCOPE.1, CUES[0], 4, None, None)?;
    text.push_str(&format!("\nrecall again (not committed): {:?}\n", CUES[0]));
    text.push_str(&recall::render(&again));
    for h in again
        .result
        .handles
        .iter()
        .filter(|h| h.activation.base_level > 0.0)
    {
        text.push_str(&format!(
            "  {} carries activation {:.3} from the committed use\n",
            crate::text::escape(h.title.as_deref().unwrap_or("(title pending)")),
            h.activation.base_level
        ));
    }
    let seq = engine.system.current_seq()?;
    text.push_str(&format!("\njournal seq {seq}\n"));
    let report = json!({
        "home": path.display().to_string(),
        "turns": turns.len(),
        "formed": formed.formed,
        "recalls": recalls,
        "recall_again": recall::to_json(&again),
        "current_seq": seq,
    });
    Ok((text, report))
}
