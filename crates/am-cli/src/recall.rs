//! `am recall`: one reconstruction of a cue in one `(scope, owner)` stream,
//! printed as a shelf (position, date, score, admission in words, title,
//! digest, labelled components, cues; what was dropped and why), and with
//! `--used` the host's commit of that use and what it deposited. Stored text
//! is escaped for the terminal ([`crate::text::escape`]); JSON is exact.

use crate::ctx::{Ctx, require_existing_home};
use crate::error::{CliError, CliResult};
use crate::eval::Profile;
use crate::home::{self, HomeSpec, PinnedClock};
use crate::{embedder, ingest, text};
use am_journal::EventFilter;
use am_journal::EventKind;
use am_system::{
    ActiveMemorySnapshot, Admission, MemorySystem, RecallBudget, ReconstructionResult, Stimulus,
};
use am_system::{CommitSelection, Reconstruct};
use am_triples::{TripleAssertion, TripleQuery};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::path::PathBuf;

/// Reconstruct a cue in one stream and print the shelf; --commit deposits the use.
#[derive(Debug, clap::Args)]
pub struct RecallCmd {
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
    profile: Profile,
    /// The cue text.
    cue: String,
}

impl RecallCmd {
    /// Recall the cue, commit the use of `--used`, print the shelf.
    ///
    /// # Errors
    /// Bad input for a bad flag, cue, home or stream; the engine's failure.
    pub fn run(self, ctx: &Ctx) -> CliResult<u8> {
        let RecallCmd {
            home,
            scope,
            k,
            commit,
            used,
            profile,
            cue,
        } = self;
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
        let spec = embedder::resolve(ctx.embedder(), "offline", pin, false, true, &home)?;
        // One instant for the read and, with --used, its journaled repeat.
        let clock = PinnedClock::wall();
        clock.set_iso(&clock.now())?;
        let engine = home::open_to_read(
            &HomeSpec::Sqlite(home),
            ctx.build_embedder(&spec)?,
            &clock,
            profile.config(),
        )?;
        let mut r = recall(&engine.system, &scope, &owner, &cue, k, None, None)?;
        if let Some(used) = used {
            // Checked against the shelf before anything is journaled; the
            // journaled read then sees the same home and builds the same shelf.
            let ids = resolve_used(&r.result, &used)?;
            r = recall(&engine.system, &scope, &owner, &cue, k, Some(0), None)?;
            r.commit = Some(commit_use(
                &engine.system,
                &scope,
                &owner,
                &r.result.trace_id,
                &ids,
            )?);
        }
        if !ctx.json {
            // In JSON the warnings are part of the result.
            for w in notable_warnings(&r) {
                eprintln!("warning: {}", text::escape(w));
            }
        }
        ctx.emit(&to_json(&r), &render(&r))?;
        Ok(0)
    }
}

/// One recall: the shelf, and what a commit of every deposited handle wrote.
#[derive(Debug, Clone)]
pub struct Recall {
    /// The reconstruction.
    pub result: ReconstructionResult,
    /// The snapshot and the events the commit deposited (`--commit`).
    pub commit: Option<(ActiveMemorySnapshot, Vec<am_journal::MemoryEvent>)>,
    /// The stored rows of the shelf's handles and of the candidates dropped
    /// for the token budget, by id (their date, title and size for the text).
    pub rows: HashMap<String, TripleAssertion>,
    /// The token budget the shelf was built under.
    pub token_budget: usize,
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
    let mut wanted: Vec<String> = result.handles.iter().map(|h| h.record_id.clone()).collect();
    wanted.extend(
        result
            .dropped
            .iter()
            .filter(|d| d.reason == am_system::seam::DROP_BUDGET_EXHAUSTED)
            .map(|d| d.record_id.clone()),
    );
    let rows = system
        .query(&TripleQuery {
            assertion_ids: Some(wanted),
            limit: 0,
            ..TripleQuery::default()
        })?
        .into_iter()
        .filter_map(|a| a.assertion_id.clone().map(|id| (id, a)))
        .collect();
    Ok(Recall {
        result,
        commit: done,
        rows,
        token_budget: budget.token_budget,
    })
}

/// Which shelf handles `--used` names: 1-based shelf positions or record ids
/// shown on the shelf, comma-separated, in the order given (duplicates once).
///
/// # Errors
/// Bad input for an empty item, a position outside the shelf, or an id that
/// is not on it.
pub fn resolve_used(r: &ReconstructionResult, used: &str) -> CliResult<Vec<String>> {
    let n = r.handles.len();
    let mut out: Vec<String> = Vec::new();
    for item in used.split(',').map(str::trim) {
        let id = if let Ok(pos) = item.parse::<usize>() {
            match pos.checked_sub(1).and_then(|i| r.handles.get(i)) {
                Some(h) => h.record_id.clone(),
                None => {
                    return Err(CliError::invalid(format!(
                        "--used {item}: no such shelf position (this shelf holds positions 1 to {n}); nothing was journaled"
                    )));
                }
            }
        } else if item.is_empty() {
            return Err(CliError::invalid(format!(
                "--used {used:?}: expected comma-separated shelf positions or record ids, got an empty item"
            )));
        } else if r.handles.iter().any(|h| h.record_id == item) {
            item.to_owned()
        } else {
            return Err(CliError::invalid(format!(
                "--used {}: not a record id on this shelf (expected a shelf position 1 to {n} or an id it shows); \
                 nothing was journaled",
                crate::text::escape(item)
            )));
        };
        if !out.contains(&id) {
            out.push(id);
        }
    }
    Ok(out)
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

/// An admission label in words (the component that seated the handle).
pub fn admission_words(a: Admission) -> &'static str {
    match a {
        Admission::Stimulus => "matched the cue",
        Admission::Stm => "recently used (short-term memory)",
        Admission::Both => "matched the cue and recently used",
        Admission::SelfCore => "who the entity is (identity core)",
        Admission::Historical => "historical",
    }
}

/// A drop reason in words.
fn drop_words(reason: &str) -> &'static str {
    match reason {
        "budget_exhausted" => "over the token budget",
        "below_shelf" => "below the shelf, which was full",
        "duplicate_digest" => "the same text as a record shown",
        "newest_seat_yielded" => "gave its seat to a stronger match",
        _ => "dropped",
    }
}

/// Why a dropped candidate is not on the shelf, in words that are true of it.
///
/// The shelf labels every candidate left unseated after the first token
/// overflow `budget_exhausted` (0.3.2's rule), even one that would have fit in
/// what was left: that one was left off because the shelf filled with stronger
/// matches, and the text says so (`below_shelf` words) instead of blaming its
/// size.
enum DropCause {
    /// Larger than the whole token budget: no shelf can show it.
    LargerThanBudget(usize),
    /// Did not fit in what was left of the budget.
    DidNotFit(usize),
    /// Any other reason, as the shelf labelled it.
    Labelled(&'static str),
}

fn drop_cause(r: &Recall, d: &am_system::DroppedEntry) -> DropCause {
    if d.reason != am_system::seam::DROP_BUDGET_EXHAUSTED {
        return DropCause::Labelled(match d.reason.as_str() {
            "below_shelf" => "below_shelf",
            "duplicate_digest" => "duplicate_digest",
            "newest_seat_yielded" => "newest_seat_yielded",
            _ => "dropped",
        });
    }
    let Some(row) = r.rows.get(&d.record_id) else {
        return DropCause::Labelled("budget_exhausted");
    };
    let tokens = am_triples::token_estimate(&row.object);
    let spent = &r.result.budget_spent;
    let left = spent.token_budget.saturating_sub(spent.tokens_used);
    if tokens > r.token_budget {
        DropCause::LargerThanBudget(tokens)
    } else if tokens > left {
        DropCause::DidNotFit(tokens)
    } else {
        // It would have fit: the shelf was full of stronger matches.
        DropCause::Labelled("below_shelf")
    }
}

/// The dropped candidates: a count per true cause, then one line per
/// candidate its size kept off the shelf.
fn render_drops(r: &Recall, out: &mut String) {
    use crate::text::escape;
    let causes: Vec<DropCause> = r.result.dropped.iter().map(|d| drop_cause(r, d)).collect();
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for c in &causes {
        let key = match c {
            DropCause::LargerThanBudget(_) | DropCause::DidNotFit(_) => "budget_exhausted",
            DropCause::Labelled(k) => k,
        };
        match counts.iter_mut().find(|(k, _)| *k == key) {
            Some(slot) => slot.1 += 1,
            None => counts.push((key, 1)),
        }
    }
    let parts: Vec<String> = counts
        .iter()
        .map(|(k, n)| format!("{n} {} ({k})", drop_words(k)))
        .collect();
    out.push_str(&format!(
        "  dropped {} candidates: {}\n",
        r.result.dropped.len(),
        parts.join(", ")
    ));
    for (d, cause) in r.result.dropped.iter().zip(&causes) {
        let why = match cause {
            DropCause::LargerThanBudget(tokens) => format!(
                "its text is about {tokens} tokens, more than the whole token budget of {}: no shelf can show it",
                r.token_budget
            ),
            DropCause::DidNotFit(tokens) => format!(
                "its text (about {tokens} tokens) did not fit in what was left of the token budget of {}",
                r.token_budget
            ),
            DropCause::Labelled(_) => continue,
        };
        let title = r
            .rows
            .get(&d.record_id)
            .and_then(|a| a.attributes.get("title"))
            .and_then(Value::as_str)
            .unwrap_or("(title pending)");
        out.push_str(&format!(
            "    not shown: {} (score {:.2}): {why}\n",
            escape(title),
            d.score
        ));
    }
}

/// The date part of a stored timestamp (`YYYY-MM-DD HH:MM`).
fn short_date(ts: &str) -> String {
    match (ts.get(..10), ts.get(11..16)) {
        (Some(d), Some(t)) => format!("{d} {t}"),
        _ => ts.to_owned(),
    }
}

/// The shelf as human-readable lines: per handle its position, date, final
/// score (the best channel's relevance; the shelf lists the identity block,
/// then short-term memory, then the cue's matches), admission
/// in words and label, title, digest, and labelled components (what the cue
/// matched: the channels' relevance; what is recently used: the trail
/// activation; who it involves), then what was dropped and why.
pub fn render(r: &Recall) -> String {
    use crate::text::escape;
    let mut out = String::new();
    if r.result.handles.is_empty() {
        out.push_str("  (nothing recalled)\n");
    }
    for (i, h) in r.result.handles.iter().enumerate() {
        let row = r.rows.get(&h.record_id);
        let date = row.map_or_else(|| "-".to_owned(), |a| short_date(&a.observed_at));
        let score = h.relevance.iter().map(|(_, v)| *v).fold(0.0_f64, f64::max);
        let matched: Vec<String> = h
            .relevance
            .iter()
            .map(|(k, v)| format!("{k} {v:.2}"))
            .collect();
        let matched = if matched.is_empty() {
            "nothing".to_owned()
        } else {
            matched.join(", ")
        };
        let who = row
            .and_then(|a| a.attributes.get("participants"))
            .and_then(Value::as_array)
            .map(|p| {
                p.iter()
                    .filter_map(Value::as_str)
                    .collect::<Vec<_>>()
                    .join(", ")
            })
            .filter(|p| !p.is_empty())
            .unwrap_or_else(|| "-".to_owned());
        out.push_str(&format!(
            "  {}. {date}  score {score:.2}  {} [{}]\n     {}\n     {}\n     cue matched: {matched} | recently used: activation {:.3} (trail {:.3} + spread {:.3}) | who: {}\n     cues: {}\n     id: {}\n",
            i + 1,
            admission_words(h.admission),
            h.admission.as_str(),
            escape(h.title.as_deref().unwrap_or("(title pending)")),
            escape(&shorten(&h.digest, 160)),
            h.activation.total,
            h.activation.base_level,
            h.activation.spread,
            escape(&who),
            escape(&h.cues.join("; ")),
            escape(&h.record_id),
        ));
    }
    if !r.result.dropped.is_empty() {
        render_drops(r, &mut out);
    }
    if let Some((snap, events)) = &r.commit {
        let selected = events
            .iter()
            .filter(|e| e.kind == EventKind::Selected)
            .count();
        let pairs = events.len() - selected;
        let titles: Vec<String> = r
            .result
            .handles
            .iter()
            .filter(|h| snap.used_record_ids.contains(&h.record_id))
            .map(|h| escape(&format!("{:?}", shorten(&h.digest, 48))))
            .collect();
        out.push_str(&format!(
            "  commit of the use of {}: snapshot {} at seq {} deposited {selected} selected and {pairs} co_selected events\n",
            titles.join(", "),
            snap.snapshot_id,
            snap.seq
        ));
    } else if !r.result.handles.is_empty() {
        out.push_str(
            "  (not committed: nothing deposited; --used 1,3 commits the positions you used)\n",
        );
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

#[cfg(test)]
mod tests {
    use super::*;
    use am_system::{MemoryRecordInput, RecordKind, RememberMany, SystemOptions};
    use std::sync::Arc;

    /// api.md "Formation": reads serve a pending title as `None`, never a
    /// placeholder or words from the body; the text names it pending.
    #[test]
    fn the_text_shows_a_pending_title_as_pending_never_the_bodys_words() {
        let store: Arc<dyn am_triples::TripleStore> =
            Arc::new(am_triples::InMemoryTripleStore::new(None));
        let journal: Arc<dyn am_journal::MemoryJournal> =
            Arc::new(am_journal::InMemoryJournal::new());
        let home = Arc::new(am_journal::PairHome::with_task_queue(
            store,
            journal,
            Arc::new(am_journal::InMemoryTaskQueue::new()),
        ));
        let system = MemorySystem::over_home_with_options(
            home,
            SystemOptions {
                task_queue: true,
                ..SystemOptions::default()
            },
        )
        .unwrap();
        let mut r = MemoryRecordInput::new(
            RecordKind::Lesson,
            "",
            "Zeppelins drift over quiet harbours.",
        )
        .with_pending(&["title"]);
        r.title = None;
        system
            .remember_many(&RememberMany::new(vec![r], "life", "ada", "k"))
            .unwrap();
        let got = recall(&system, "life", "ada", "zeppelins", 5, None, None).unwrap();
        assert_eq!(got.result.handles.len(), 1);
        assert_eq!(got.result.handles[0].title, None);
        let text = render(&got);
        assert!(text.contains("(title pending)"), "{text}");
        assert!(!text.contains("dcterms:abstract"), "{text}");
    }
}
