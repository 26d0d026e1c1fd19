//! `am sleep`: one night over a home, for an operator or a cron-style host.
//! The home opens with its task queue; the night runs `sleep_pass`
//! (`resolution → maintenance → world_models → dream`) with a line per
//! sub-phase as it ends (on stderr, beside a spinner on a terminal), then
//! the readable report (or its JSON with `--json`). Without `--author`
//! every title and summary the night forms waits as a task
//! (`no_author_supplied`), and the report says how many tasks wait;
//! `--author FILE` gives exec's scripted answers (a JSON array). Ctrl-C
//! (SIGINT, SIGTERM) ends the night at the next sub-phase boundary, the
//! report says what completed, and the exit code is 128 + the signal (130,
//! 143); `--cancel-after PHASE` rehearses that at a
//! named boundary (exec's `cancel_after`). After a completed (not dry-run)
//! night it runs `communities_pass` over the same pairs with the same
//! author (api.md: the host runs the topics during its sleep; `sleep_pass`
//! does not call it): a `communities:` line on stderr, a `Topics:` line in
//! the report, `communities` in the JSON. `am sleep --due` sleeps nothing:
//! it prints `records_since_maintenance` and `maintenance_due`.
//!
//! Spec: api.md "Consolidation (sleep and dreams)" (`sleep_pass`,
//! `records_since_maintenance`), "Maintenance, health, and operator tools"
//! (`maintenance_due`); operator.md.

use crate::ctx::{Ctx, require_existing_home};
use crate::embedder;
use crate::error::{CliError, CliResult};
use crate::home::{self, HomeSpec, PinnedClock};
use crate::text::escape;
use am_system::MemorySystem;
use am_system::communities::{CommunitiesPass, CommunitiesReport};
use am_system::sleep::{
    MaintenanceDue, NIGHT_PHASES, NightHooks, RecordsSinceMaintenance, SleepPass, SleepResult,
};
use am_system::tasks::ListTasks;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde_json::{Value, json};
use std::cell::RefCell;
use std::fmt::Write as _;
use std::io::IsTerminal as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicI32, Ordering};
use std::time::Duration;

/// One night: resolution, maintenance, world models, dream; or, with
/// --due, whether a night is due.
#[derive(Debug, clap::Args)]
pub struct SleepCmd {
    /// The SQLite home (must exist).
    home: PathBuf,
    /// The sleeper (the owner of the night's streams); required to sleep.
    #[arg(long)]
    owner: Option<String>,
    /// A scope of the night (repeatable; default `life`), paired with
    /// --owner; `SCOPE:OWNER` names another owner's stream.
    #[arg(long = "scope")]
    scopes: Vec<String>,
    /// Run every sub-phase as a dry run: nothing written, nothing recorded.
    #[arg(long)]
    report_only: bool,
    /// The host's author as exec's scripted answers: a file holding a JSON
    /// array, one answer per record the night forms.
    #[arg(long)]
    author: Option<PathBuf>,
    /// End the night after this sub-phase, as Ctrl-C would (resolution,
    /// maintenance, world_models, dream).
    #[arg(long)]
    cancel_after: Option<String>,
    /// Sleep nothing: print records_since_maintenance and maintenance_due.
    #[arg(long)]
    due: bool,
}

/// The signal that asked the night to end (0: none yet).
static STOP: AtomicI32 = AtomicI32::new(0);

/// Ask the night to end at its next boundary on SIGINT (and SIGTERM)
/// instead of dying mid-phase; the first signal is the one remembered.
#[allow(
    unsafe_code,
    reason = "signal_hook_registry::register is unsafe only because the action runs in a signal \
              handler; this one stores into an atomic, which is async-signal-safe"
)]
fn stop_on_signals() -> CliResult<()> {
    for sig in [libc::SIGINT, libc::SIGTERM] {
        // SAFETY: the action only stores into an atomic, which is
        // async-signal-safe.
        unsafe {
            signal_hook_registry::register(sig, move || {
                let _ = STOP.compare_exchange(0, sig, Ordering::SeqCst, Ordering::SeqCst);
            })
        }
        .map_err(|e| CliError::failure(format!("cannot install the signal handler: {e}")))?;
    }
    Ok(())
}

impl SleepCmd {
    /// Run one night (or the cadence read) and print the report.
    ///
    /// # Errors
    /// Bad input for a missing home, no --owner, a bad scope, an unreadable
    /// or malformed --author file, an unknown --cancel-after phase, a
    /// --due with night flags; the engine's refusal or failure.
    pub fn run(self, ctx: &Ctx) -> CliResult<u8> {
        require_existing_home(&self.home)?;
        if self.due {
            if self.report_only || self.author.is_some() || self.cancel_after.is_some() {
                return Err(CliError::invalid(
                    "--due reads the cadence and sleeps nothing: it takes no --report-only, --author or --cancel-after",
                ));
            }
            return self.run_due(ctx);
        }
        let owner = self
            .owner
            .as_deref()
            .map(str::trim)
            .filter(|o| !o.is_empty())
            .ok_or_else(|| {
                CliError::invalid("am sleep needs --owner ID: the sleeper whose night it is")
            })?
            .to_owned();
        let pairs = pairs(&self.scopes, &owner)?;
        if let Some(p) = &self.cancel_after
            && !NIGHT_PHASES.contains(&p.as_str())
        {
            return Err(CliError::invalid(format!(
                "--cancel-after names a sub-phase of the night ({}), got {p:?}",
                NIGHT_PHASES.join(", ")
            )));
        }
        let author = match &self.author {
            Some(path) => Some(read_author(path)?),
            None => None,
        };
        let facts = home::read_facts(&self.home)?;
        let pin = facts.as_ref().and_then(|f| f.pin.as_ref());
        let spec = embedder::resolve(
            ctx.embedder(),
            "none",
            pin,
            !self.report_only,
            ctx.allow_vectorless,
            &self.home,
        )?;
        let built = ctx.build_embedder(&spec)?;
        let engine = home::open_queued(
            &HomeSpec::Sqlite(self.home.clone()),
            built,
            &PinnedClock::wall(),
            true,
        )?;
        stop_on_signals()?;
        let mut args = SleepPass::new(&[], &owner);
        args.scopes = pairs;
        args.report_only = self.report_only;
        let night = night(
            &engine.system,
            &args,
            author.as_ref().map(|a| a as &dyn am_system::Author),
            self.cancel_after.as_deref(),
            ctx.json,
        )?;
        // The host runs the topics after the night (api.md: `sleep_pass` does
        // not call `communities_pass`): a completed, written night only.
        let topics = if self.report_only
            || night.cancelled_after.is_some()
            || STOP.load(Ordering::SeqCst) != 0
        {
            None
        } else {
            let mut cargs = CommunitiesPass::new(&[], &owner);
            cargs.scopes.clone_from(&args.scopes);
            let stop = || STOP.load(Ordering::SeqCst) != 0;
            let r = engine.system.communities_pass(
                &cargs,
                author.as_ref().map(|a| a as &dyn am_system::Author),
                &stop,
            )?;
            if !ctx.json {
                eprintln!("communities: {}", topics_account(&r));
            }
            Some(r)
        };
        let waiting = live_tasks(&engine.system)?;
        let signal = STOP.load(Ordering::SeqCst);
        // A signal that came after the completion marker stopped nothing.
        let by_signal = signal != 0 && night.cancelled_after.is_some();
        let v = json!({"night": night, "communities": topics, "tasks_waiting": waiting, "stopped_by_signal": by_signal});
        let mut text = render(&night, waiting, by_signal);
        if let Some(r) = &topics {
            let _ = writeln!(text, "Topics: {}.", topics_account(r));
        }
        ctx.emit(&v, &text)?;
        // The shell's convention, 128 + the signal: a cron-style host tells
        // a stopped night from a completed one by the exit code alone.
        Ok(if by_signal {
            u8::try_from(128 + signal).unwrap_or(1)
        } else {
            0
        })
    }

    fn run_due(self, ctx: &Ctx) -> CliResult<u8> {
        let engine = home::open_queued(
            &HomeSpec::Sqlite(self.home.clone()),
            None,
            &PinnedClock::wall(),
            true,
        )?;
        let sys = &engine.system;
        let pairs = match self.owner.as_deref().map(str::trim) {
            Some(o) if !o.is_empty() => pairs(&self.scopes, o)?,
            _ if !self.scopes.is_empty() => {
                return Err(CliError::invalid(
                    "--scope pairs with --owner: pass --owner ID (or SCOPE:OWNER scopes with it)",
                ));
            }
            _ => home::streams(&self.home)?,
        };
        let since = sys.records_since_maintenance(&RecordsSinceMaintenance {
            scopes: self.owner.is_some().then(|| pairs.clone()),
            after: None,
        })?;
        let due = if pairs.is_empty() {
            Value::Null
        } else {
            let mut d = MaintenanceDue::new(&[]);
            d.scopes.clone_from(&pairs);
            d.tasks = true;
            serde_json::to_value(sys.maintenance_due(&d)?).unwrap_or(Value::Null)
        };
        let since = serde_json::to_value(&since).unwrap_or(Value::Null);
        let v = json!({"records_since_maintenance": since, "maintenance_due": due});
        let mut t = String::new();
        let _ = writeln!(
            t,
            "records since the last completed night: {} (boundary: {}, since {})",
            since["count"],
            since["boundary_source"].as_str().unwrap_or("?"),
            since["since"].as_str().unwrap_or("never")
        );
        if let Some(share) = since["fragmented"]["share"].as_f64() {
            let _ = writeln!(
                t,
                "fragmented: {} record(s), {:.1}% of the live ones",
                since["fragmented"]["count"],
                share * 100.0
            );
        }
        match due.as_object() {
            Some(d) => {
                let reasons: Vec<&str> = d["reasons"]
                    .as_array()
                    .map(|r| r.iter().filter_map(Value::as_str).collect())
                    .unwrap_or_default();
                let _ = writeln!(
                    t,
                    "maintenance due: {} ({} new record(s) since seq {}; {})",
                    if d["due"] == json!(true) { "yes" } else { "no" },
                    d["new_records"],
                    d["since_seq"],
                    if reasons.is_empty() {
                        "nothing presses".to_owned()
                    } else {
                        escape(&reasons.join("; "))
                    }
                );
            }
            None => {
                let _ = writeln!(t, "maintenance due: no (the home holds no stream)");
            }
        }
        ctx.emit(&v, &t)?;
        Ok(0)
    }
}

/// The night's `(scope, owner)` pairs: each `--scope` with `owner` (or its
/// own `SCOPE:OWNER`), `life` by default.
fn pairs(scopes: &[String], owner: &str) -> CliResult<Vec<(String, String)>> {
    if scopes.is_empty() {
        return Ok(vec![("life".to_owned(), owner.to_owned())]);
    }
    scopes
        .iter()
        .map(|s| match s.split_once(':') {
            Some(_) => crate::ingest::parse_scope(s),
            None if !s.trim().is_empty() => Ok((s.trim().to_lowercase(), owner.to_owned())),
            None => Err(CliError::invalid(
                "--scope expects SCOPE or SCOPE:OWNER, got a blank one",
            )),
        })
        .collect()
}

fn read_author(path: &Path) -> CliResult<am_ops::ScriptedAuthor> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        CliError::invalid(format!(
            "--author {}: {e} (expected a readable file of exec's scripted answers)",
            path.display()
        ))
    })?;
    let v: Value = serde_json::from_str(&text).map_err(|e| {
        CliError::invalid(format!(
            "--author {}: not JSON ({e}); expected an array of answers, each {{title, summary, author: {{kind, id}}}} \
             or {{\"raises\": {{error_class, message}}}}",
            path.display()
        ))
    })?;
    Ok(am_ops::ScriptedAuthor::from_value("am sleep --author", v)?)
}

/// Run the night, a line per sub-phase on stderr as it ends.
fn night(
    sys: &MemorySystem,
    args: &SleepPass,
    author: Option<&dyn am_system::Author>,
    cancel_after: Option<&str>,
    quiet: bool,
) -> CliResult<SleepResult> {
    let bar = ProgressBar::new_spinner();
    let terminal = std::io::stderr().is_terminal();
    if quiet || !terminal {
        bar.set_draw_target(ProgressDrawTarget::hidden());
    } else {
        if let Ok(style) = ProgressStyle::with_template("{spinner} {msg} ({elapsed})") {
            bar.set_style(style);
        }
        bar.enable_steady_tick(Duration::from_millis(120));
    }
    bar.set_message(format!("{}…", NIGHT_PHASES[0]));
    let ended = RefCell::new(Vec::<String>::new());
    let sink = |phase: &str, account: &str| {
        ended.borrow_mut().push(phase.to_owned());
        let line = format!("{phase}: {account}");
        if !quiet {
            if terminal {
                bar.println(line);
            } else {
                eprintln!("{line}");
            }
        }
        let next = NIGHT_PHASES
            .iter()
            .position(|p| *p == phase)
            .and_then(|i| NIGHT_PHASES.get(i + 1));
        if let Some(n) = next {
            bar.set_message(format!("{n}…"));
        }
    };
    let cancelled = || {
        STOP.load(Ordering::SeqCst) != 0
            || cancel_after.is_some_and(|p| ended.borrow().iter().any(|e| e == p))
    };
    let hooks = NightHooks {
        should_continue: None,
        cancelled: Some(&cancelled),
        phase_done: Some(&sink),
    };
    let out = sys.sleep_pass(args, author, &hooks);
    bar.finish_and_clear();
    Ok(out?.value)
}

fn live_tasks(sys: &MemorySystem) -> CliResult<usize> {
    Ok(sys
        .tasks()?
        .tasks(&ListTasks::default())?
        .into_iter()
        .filter(|t| t.status.is_live())
        .count())
}

/// One line of what `communities_pass` did.
fn topics_account(r: &CommunitiesReport) -> String {
    if let Some(why) = &r.skipped {
        return format!("skipped ({})", escape(why));
    }
    format!(
        "{} new, {} kept, {} renamed, {} dissolved, {} unchanged; {} authored ({} in place), {} pending",
        r.new.len(),
        r.kept.len(),
        r.renamed.len(),
        r.dissolved.len(),
        r.unchanged.len(),
        r.authored.len(),
        r.authored_in_place.len(),
        r.pending.len()
    )
}

/// The readable report.
fn render(n: &SleepResult, waiting: usize, by_signal: bool) -> String {
    let mut t = String::new();
    let scopes: Vec<String> = n
        .completion
        .iter()
        .map(|r| format!("{}:{}", r.scope, r.owner_id))
        .collect();
    let _ = writeln!(t, "One night, {}.", n.phases.join(" → "));
    let r = &n.resolution;
    let _ = match &r.skipped_reason {
        Some(why) => writeln!(t, "  resolution: skipped ({})", escape(why)),
        None => writeln!(
            t,
            "  resolution: {} standing dream(s) examined, {} settled by the day",
            r.result.examined, r.result.resolved_count
        ),
    };
    let m = &n.maintenance;
    let _ = match &m.skipped_reason {
        Some(why) => writeln!(t, "  maintenance: skipped ({})", escape(why)),
        None => writeln!(
            t,
            "  maintenance: {} operation(s) proposed, {} candidate(s) formed, {} skipped",
            m.result.report.operations.len(),
            m.result.created_count,
            m.result.skipped.len()
        ),
    };
    let w = &n.world_models;
    let _ = match &w.skipped_reason {
        Some(why) => writeln!(t, "  world_models: skipped ({})", escape(why)),
        None => writeln!(
            t,
            "  world_models: {} target(s) seen, {} card(s) formed, {} unchanged, {} repaired",
            w.result.targets_seen,
            w.result.formed_count,
            w.result.unchanged.len(),
            w.result.repaired.len()
        ),
    };
    let d = &n.dream;
    let _ = match (&d.dream_record_id, &d.skipped_reason) {
        (Some(id), _) => writeln!(
            t,
            "  dream: {} {} (salience {}, {} bridge(s), {} question(s), {} signal(s))",
            if d.created {
                "formed"
            } else {
                "already stood:"
            },
            id,
            d.salience,
            d.proposals.len(),
            d.questions.len(),
            d.signals.len()
        ),
        (None, Some(why)) => writeln!(t, "  dream: none ({})", escape(why)),
        (None, None) => writeln!(t, "  dream: none"),
    };
    let _ = writeln!(
        t,
        "Authored: {} record(s); pending: {} record(s) whose title or summary waits for a reader.",
        n.authoring.authored.len(),
        n.authoring.failures.len()
    );
    if let Some(f) = n.authoring.failures.first() {
        let _ = writeln!(t, "  why pending: {}", escape(f.reason.as_str()));
    }
    let _ = writeln!(t, "Tasks waiting in the queue: {waiting}.");
    match &n.cancelled_after {
        Some(after) => {
            let how = if by_signal {
                "Stopped (signal)"
            } else {
                "Cancelled"
            };
            let _ = writeln!(
                t,
                "{how} after {after}: the phases that ran are complete; the rest were skipped, and no \
                 completion was recorded (the next night resumes the work)."
            );
        }
        None if n.completion.is_empty() => {
            let _ = writeln!(t, "Nothing recorded: a dry run (--report-only).");
        }
        None => {
            let _ = writeln!(
                t,
                "Completed: recorded as a {} over {}.",
                n.completion[0].kind.as_str(),
                scopes.join(", ")
            );
        }
    }
    t
}
