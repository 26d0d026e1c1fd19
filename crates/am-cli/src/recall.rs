//! `am recall`: one reconstruction of a cue in one `(scope, owner)` stream,
//! printed as a shelf (admission, title, digest, cues), and with `--commit`
//! the host's commit of that use and what it deposited.

use crate::error::{CliError, CliResult};
use am_journal::EventFilter;
use am_system::verbs::{CommitSelection, Reconstruct};
use am_system::{ActiveMemorySnapshot, MemorySystem, RecallBudget, ReconstructionResult, Stimulus};
use serde_json::{Value, json};

/// One recall: the shelf, and what a commit of every deposited handle wrote.
#[derive(Debug, Clone)]
pub struct Recall {
    /// The reconstruction.
    pub result: ReconstructionResult,
    /// The snapshot and the events the commit deposited (`--commit`).
    pub commit: Option<(ActiveMemorySnapshot, Vec<am_journal::MemoryEvent>)>,
}

/// Reconstruct `cue` in `(scope, owner)` with a shelf of `k`; with
/// `commit = Some(n)`, journal the read and commit the first `n` handles the
/// cue admitted (`stimulus` / `both`) as used (`usize::MAX`: all of them).
///
/// # Errors
/// Bad input for an empty cue or `k == 0`; the system's refusal.
pub fn recall(
    system: &MemorySystem,
    scope: &str,
    owner: &str,
    cue: &str,
    k: usize,
    commit: Option<usize>,
    trace_id: Option<&str>,
) -> CliResult<Recall> {
    if cue.trim().is_empty() {
        return Err(CliError::invalid(
            "the cue must be non-empty text, got an empty one",
        ));
    }
    if k == 0 {
        return Err(CliError::invalid("--k must be a shelf size >= 1, got 0"));
    }
    let budget = RecallBudget {
        shelf_size: k,
        ..RecallBudget::default()
    };
    let result = system.reconstruct(&Reconstruct {
        budget: budget.clone(),
        journal: commit.is_some(),
        trace_id: trace_id.map(str::to_owned),
        ..Reconstruct::new(Stimulus::new(cue), &[(scope, owner)])
    })?;
    let used: Vec<String> = result
        .handles
        .iter()
        .filter(|h| h.admission.deposits())
        .take(commit.unwrap_or(0))
        .map(|h| h.record_id.clone())
        .collect();
    let done = if used.is_empty() {
        None
    } else {
        Some(commit_use(system, scope, owner, &result.trace_id, &used)?)
    };
    Ok(Recall {
        result,
        commit: done,
    })
}

/// Commit `used` as the use of the journaled read `trace_id`, and read back
/// the `selected` / `co_selected` events the commit deposited (oldest first).
///
/// # Errors
/// The system's refusal (an unknown trace or id).
pub fn commit_use(
    system: &MemorySystem,
    scope: &str,
    owner: &str,
    trace_id: &str,
    used: &[String],
) -> CliResult<(ActiveMemorySnapshot, Vec<am_journal::MemoryEvent>)> {
    let before = system.current_seq()?;
    let snapshot = system
        .commit_selection(&CommitSelection::new(trace_id, used))?
        .value;
    if system.current_seq()? == before {
        // A replayed commit returns the original snapshot and deposits nothing.
        return Ok((snapshot, Vec::new()));
    }
    let mut filter = EventFilter::new(scope, owner);
    filter.since_seq = Some(before + 1);
    filter.kinds = vec!["selected".into(), "co_selected".into()];
    filter.limit = 0;
    let mut events = system.journal().events(&filter)?;
    events.reverse();
    Ok((snapshot, events))
}

fn shorten(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_owned()
    } else {
        format!("{}…", s.chars().take(n).collect::<String>())
    }
}

/// The shelf as human-readable lines.
/// The warnings a reader of the text output should see on stderr: every
/// `#FALLBACK` of the read but the keyword channel's standing label of its
/// token-scan configuration (printed on every default recall, it says
/// nothing about this one).
pub fn notable_warnings(r: &Recall) -> impl Iterator<Item = &str> {
    r.result
        .warnings
        .iter()
        .map(String::as_str)
        .filter(|w| !w.starts_with("#FALLBACK: keyword channel v1 = token scan"))
}

pub fn render(r: &Recall) -> String {
    let mut out = String::new();
    if r.result.handles.is_empty() {
        out.push_str("  (nothing recalled)\n");
    }
    for (i, h) in r.result.handles.iter().enumerate() {
        out.push_str(&format!(
            "  {}. [{}] {}\n     {}\n     cues: {}\n",
            i + 1,
            h.admission.as_str(),
            h.title.as_deref().unwrap_or("(untitled)"),
            shorten(&h.digest, 160),
            h.cues.join("; ")
        ));
    }
    if let Some((snap, events)) = &r.commit {
        let selected = events.iter().filter(|e| e.kind == "selected").count();
        let pairs = events.len() - selected;
        let titles: Vec<String> = r
            .result
            .handles
            .iter()
            .filter(|h| snap.used_record_ids.contains(&h.record_id))
            .map(|h| format!("{:?}", shorten(&h.digest, 48)))
            .collect();
        out.push_str(&format!(
            "  commit of the use of {}: snapshot {} at seq {} deposited {selected} selected and {pairs} co_selected events\n",
            titles.join(", "),
            snap.snapshot_id,
            snap.seq
        ));
    } else if !r.result.handles.is_empty() {
        out.push_str("  (not committed: nothing deposited)\n");
    }
    out
}

/// The recall as a JSON object: the reconstruction and the commit.
pub fn to_json(r: &Recall) -> Value {
    json!({
        "reconstruction": r.result.to_dict(),
        "commit": r.commit.as_ref().map(|(s, e)| json!({"snapshot": s, "events": e})),
    })
}
