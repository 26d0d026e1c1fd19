//! `am replay` (the replay stream as JSON lines, `--follow` to tail a home
//! other processes write) and `am explain` (why a record did or did not
//! surface in a recall). Both are pure reads of the home.

use crate::ctx::{Ctx, open_for_observing};
use crate::error::{CliError, CliResult};
use crate::text::escape;
use am_system::MemorySystem;
use am_system::observe::diagnostics::{RecallExplanation, RecordOrigin, explain_recall};
use am_system::observe::replay::{ExportReplay, parse_families};
use std::io::{ErrorKind, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// The replay stream of a home as JSON lines (seq order); --follow tails
/// it while other processes write. Read-only.
#[derive(Debug, clap::Args)]
pub struct ReplayCmd {
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
}

impl ReplayCmd {
    /// Stream the home's replay records to stdout.
    ///
    /// # Errors
    /// As [`replay`]; bad input for an unusable home or `--embedder`.
    pub fn run(self, ctx: &Ctx) -> CliResult<u8> {
        let ReplayCmd {
            home,
            since,
            until,
            families,
            follow,
            poll_ms,
        } = self;
        ctx.embedder_spec("none")?;
        let engine = open_for_observing(&home)?;
        replay(
            &engine.system,
            &ReplayArgs {
                since,
                until,
                families,
                follow,
                poll: Duration::from_millis(poll_ms.max(1)),
            },
        )
    }
}

/// Why did (or didn't) a record surface in a recall? Read-only.
#[derive(Debug, clap::Args)]
pub struct ExplainCmd {
    /// The SQLite home (must exist).
    home: PathBuf,
    /// The record (graph id or digest row id).
    record_id: String,
    /// The recall to explain (default: the newest).
    #[arg(long)]
    trace: Option<String>,
}

impl ExplainCmd {
    /// Explain the record's part in the recall and print it.
    ///
    /// # Errors
    /// As [`explain`]; bad input for an unusable home or `--embedder`.
    pub fn run(self, ctx: &Ctx) -> CliResult<u8> {
        let ExplainCmd {
            home,
            record_id,
            trace,
        } = self;
        ctx.embedder_spec("none")?;
        let engine = open_for_observing(&home)?;
        let x = explain(&engine.system, &record_id, trace.as_deref())?;
        let v = serde_json::to_value(&x)
            .map_err(|e| CliError::failure(format!("cannot encode the answer: {e}")))?;
        ctx.emit(&v, &render_explanation(&x))?;
        Ok(0)
    }
}

/// What `am replay` reads.
pub struct ReplayArgs {
    /// Exclusive lower bound.
    pub since: i64,
    /// Inclusive upper bound (`None`: the high-water mark; with `--follow`, forever).
    pub until: Option<i64>,
    /// Family names (empty: the default six).
    pub families: Vec<String>,
    /// Keep polling for new records.
    pub follow: bool,
    /// The poll interval of `--follow`.
    pub poll: Duration,
}

static STOP: AtomicBool = AtomicBool::new(false);

/// Ask the process to stop at the next poll on SIGINT (and SIGTERM) instead
/// of dying mid-line.
#[allow(
    unsafe_code,
    reason = "signal_hook_registry::register is unsafe only because the action runs in a signal \
              handler; this one stores into an atomic, which is async-signal-safe"
)]
fn stop_on_signals() -> CliResult<()> {
    for sig in [libc::SIGINT, libc::SIGTERM] {
        // SAFETY: the action only stores into an atomic, which is
        // async-signal-safe.
        unsafe { signal_hook_registry::register(sig, || STOP.store(true, Ordering::SeqCst)) }
            .map_err(|e| CliError::failure(format!("cannot install the signal handler: {e}")))?;
    }
    Ok(())
}

/// Stream `system`'s journal as JSON lines to stdout. With `follow`, poll
/// with the last seq seen as the cursor until SIGINT / SIGTERM or until
/// stdout closes (both exit 0). Returns the exit code.
///
/// # Errors
/// Bad input for an unknown family or an anchor outside the journal's axis;
/// a failure when the home cannot be read or stdout fails otherwise.
pub fn replay(system: &MemorySystem, args: &ReplayArgs) -> CliResult<u8> {
    let families = if args.families.is_empty() {
        None
    } else {
        Some(parse_families(&args.families)?)
    };
    if args.follow {
        stop_on_signals()?;
    }
    let stdout = std::io::stdout();
    let mut cursor = args.since;
    loop {
        let hw = system.current_seq()?;
        let until = match args.until {
            Some(u) if args.follow => u.min(hw),
            Some(u) => u,
            None => hw,
        };
        if until > cursor || !args.follow {
            let stream = system.export_replay(&ExportReplay {
                families: families.clone(),
                until_seq: Some(until),
                ..ExportReplay::since(cursor)
            })?;
            let mut out = std::io::BufWriter::new(stdout.lock());
            for env in stream {
                let env = env?;
                let line = serde_json::to_string(&env)
                    .map_err(|e| CliError::failure(format!("cannot encode an envelope: {e}")))?;
                if let Err(e) = writeln!(out, "{line}") {
                    return closed_or_failed(&e);
                }
            }
            if let Err(e) = out.flush() {
                return closed_or_failed(&e);
            }
            cursor = until;
        }
        let done = args.until.is_some_and(|u| cursor >= u);
        if !args.follow || done {
            return Ok(0);
        }
        let mut slept = Duration::ZERO;
        while slept < args.poll {
            if STOP.load(Ordering::SeqCst) {
                return Ok(0);
            }
            let step = Duration::from_millis(20).min(args.poll - slept);
            std::thread::sleep(step);
            slept += step;
        }
        if STOP.load(Ordering::SeqCst) {
            return Ok(0);
        }
    }
}

/// A closed stdout ends the tail cleanly; any other write error fails.
fn closed_or_failed(e: &std::io::Error) -> CliResult<u8> {
    if e.kind() == ErrorKind::BrokenPipe {
        Ok(0)
    } else {
        Err(CliError::failure(format!("cannot write to stdout: {e}")))
    }
}

/// The explanation of `record_id` in `trace` (or the newest recall).
///
/// # Errors
/// Bad input for a blank id; not found for an unknown trace.
pub fn explain(
    system: &MemorySystem,
    record_id: &str,
    trace: Option<&str>,
) -> CliResult<RecallExplanation> {
    Ok(explain_recall(
        system.store().as_ref(),
        system.journal().as_ref(),
        record_id,
        trace,
    )?)
}

/// The readable text of an explanation.
pub fn render_explanation(x: &RecallExplanation) -> String {
    let mut s = String::new();
    let origin = match &x.origin {
        RecordOrigin::Formed {
            kind,
            title,
            formed_at,
            graph_id,
            ..
        } => format!(
            "{} ({kind}, {graph_id}), formed {formed_at}",
            title
                .as_deref()
                .filter(|t| !t.is_empty())
                .unwrap_or("(title pending)")
        ),
        RecordOrigin::Unformed { note, .. } => format!("not formed: {note}"),
    };
    s.push_str(&format!("record   {}\n", escape(&x.record_id)));
    s.push_str(&format!("origin   {}\n", escape(&origin)));
    if let Some(t) = &x.trace {
        s.push_str(&format!(
            "recall   {} (seq {}, {}, {})\n",
            escape(&t.trace_id),
            t.seq,
            t.trace_kind,
            t.observed_at
        ));
    }
    s.push_str(&format!("status   {}", x.status));
    if let Some(a) = &x.admission {
        s.push_str(&format!(
            " (admitted as {})",
            a.as_str().unwrap_or_default()
        ));
    }
    if let Some(r) = &x.reason {
        s.push_str(&format!(" (dropped: {})", escape(r)));
    }
    s.push('\n');
    if let Some(note) = &x.note {
        s.push_str(&format!("         {note}\n"));
    }
    if let Some(shelf) = &x.shelf {
        match shelf.position {
            Some(p) => s.push_str(&format!(
                "shelf    position {p} of {}\n",
                shelf.selected_count
            )),
            None => s.push_str(&format!(
                "shelf    not on the shelf of {}\n",
                shelf.selected_count
            )),
        }
        if let (Some(rank), Some(cap)) = (shelf.candidate_rank, shelf.candidate_cap) {
            s.push_str(&format!("         candidate {rank} of {cap}\n"));
        }
    }
    if let Some(rel) = &x.relevance {
        match &rel.parts {
            Some(parts) => {
                let parts: Vec<String> = parts.iter().map(|(k, v)| format!("{k} {v}")).collect();
                s.push_str(&format!("relevance {}\n", parts.join(", ")));
            }
            None => s.push_str(&format!(
                "relevance not recorded: {}\n",
                rel.note.as_deref().unwrap_or_default()
            )),
        }
    }
    if let Some(d) = &x.diagnosis {
        for n in &d.note {
            s.push_str(&format!("why      {n}\n"));
        }
        for p in &d.by_scope {
            s.push_str(&format!(
                "in {}:{}\n",
                escape(&p.scope),
                escape(&p.owner_id)
            ));
            for r in &p.reasons {
                s.push_str(&format!("  - {r}\n"));
            }
            if !p.channels_reachable.is_empty() {
                s.push_str(&format!(
                    "  reachable by: {}\n",
                    p.channels_reachable.join("; ")
                ));
            }
        }
    }
    s
}
