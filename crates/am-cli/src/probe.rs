//! `am probe`: one deliberate reach into a home with a stated reason
//! (api.md "Deliberate reach"), printed as ranked hits, each with its kind,
//! date, title, digest, channel scores and why it was reached; then what
//! did not fit and the channels that ran. The reach is journaled (its trace
//! and inert `listed` events) unless `--no-journal`. Stored text is escaped
//! for the terminal ([`crate::text::escape`]); JSON is the `ProbeResult`.

use crate::ctx::{Ctx, require_existing_home};
use crate::error::{CliError, CliResult};
use crate::home::{self, HomeSpec, PinnedClock};
use crate::{embedder, text};
use am_system::Stimulus;
use am_system::reach::{EffortName, Probe, ProbeEffort, ProbeResult};
use std::fmt::Write as _;
use std::path::PathBuf;

/// The effort presets.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum EffortArg {
    /// 48 candidates, 6 hits, no concept pass.
    Quick,
    /// 128 candidates, 12 hits.
    Standard,
    /// 256 candidates, 20 hits.
    Deep,
}

/// Reach for a cue on purpose, with a reason; print the hits with why.
#[derive(Debug, clap::Args)]
pub struct ProbeCmd {
    /// The SQLite home (must exist).
    home: PathBuf,
    /// The entity (the owner of every scope searched).
    #[arg(long)]
    owner: String,
    /// Why this reach is made (required, never blank).
    #[arg(long)]
    reason: String,
    /// A scope to search, narrow to broad (repeatable; default `life`).
    #[arg(long = "scope", value_name = "SCOPE")]
    scopes: Vec<String>,
    /// The effort preset.
    #[arg(long, value_enum, default_value = "standard")]
    effort: EffortArg,
    /// Write nothing (no trace, no listed events).
    #[arg(long)]
    no_journal: bool,
    /// The cue text.
    cue: String,
}

impl ProbeCmd {
    /// Reach, print the hits.
    ///
    /// # Errors
    /// Bad input for a blank reason or cue, an unusable home; the engine's failure.
    pub fn run(self, ctx: &Ctx) -> CliResult<u8> {
        let ProbeCmd {
            home,
            owner,
            reason,
            scopes,
            effort,
            no_journal,
            cue,
        } = self;
        if cue.trim().is_empty() {
            return Err(CliError::invalid(
                "the cue must be non-empty text, got an empty one",
            ));
        }
        require_existing_home(&home)?;
        let scopes = if scopes.is_empty() {
            vec!["life".to_owned()]
        } else {
            scopes
        };
        let facts = home::read_facts(&home)?;
        let pin = facts.as_ref().and_then(|f| f.pin.as_ref());
        let spec = embedder::resolve(ctx.embedder(), "offline", pin, false, true, &home)?;
        let engine = home::open_to_read(
            &HomeSpec::Sqlite(home),
            ctx.build_embedder(&spec)?,
            &PinnedClock::wall(),
            am_system::ReconstructConfig::default(),
        )?;
        let pairs: Vec<(&str, &str)> = scopes
            .iter()
            .map(|s| (s.as_str(), owner.as_str()))
            .collect();
        let effort = ProbeEffort::Preset(match effort {
            EffortArg::Quick => EffortName::Quick,
            EffortArg::Standard => EffortName::Standard,
            EffortArg::Deep => EffortName::Deep,
        });
        let r = engine.system.probe(&Probe {
            effort,
            write_journal: !no_journal,
            ..Probe::new(Stimulus::new(&cue), &pairs, &reason)
        })?;
        if !ctx.json {
            for w in &r.warnings {
                eprintln!("warning: {}", text::escape(w));
            }
        }
        let value = serde_json::to_value(&r)
            .map_err(|e| CliError::failure(format!("cannot encode the probe: {e}")))?;
        ctx.emit(&value, &render(&cue, &reason, !no_journal, &r))?;
        Ok(0)
    }
}

/// The hits as text.
fn render(cue: &str, reason: &str, journaled: bool, r: &ProbeResult) -> String {
    let mut t = String::new();
    let _ = writeln!(
        t,
        "probe {:?} for {:?}: {} hit(s) of {} candidate(s), effort {}, {}",
        text::escape(cue),
        text::escape(reason),
        r.hits.len(),
        r.budget_spent["candidates_considered"],
        r.budget_spent["effort"].as_str().unwrap_or("custom"),
        if journaled {
            format!("trace {}", r.trace_id)
        } else {
            "not journaled".to_owned()
        }
    );
    for (i, h) in r.hits.iter().enumerate() {
        let date = h.observed_at.get(..10).unwrap_or("");
        let title = h
            .title
            .as_deref()
            .map_or_else(|| "(title pending)".to_owned(), text::escape);
        let scores: Vec<String> = h
            .relevance
            .0
            .iter()
            .map(|(c, v)| format!("{c} {v:.2}"))
            .collect();
        let _ = writeln!(
            t,
            "{:>2}. [{}] {}  {}  ({})",
            i + 1,
            h.kind,
            title,
            date,
            scores.join(", ")
        );
        let _ = writeln!(t, "    {}", text::escape(&h.digest));
        for c in &h.cues {
            let _ = writeln!(t, "    why: {}", text::escape(c));
        }
        let _ = writeln!(t, "    id: {}  graph: {}", h.record_id, h.graph_id);
    }
    if !r.dropped.is_empty() {
        let _ = writeln!(
            t,
            "dropped: {} (past the hit or token bound)",
            r.dropped.len()
        );
    }
    let _ = writeln!(t, "channels: {}", r.channels.join(", "));
    t
}
