//! The diary reads: what still stands among the entity's own entries (open
//! questions, problems, ideas and commitments), which open commitments the
//! current stimulus triggers, and the audit of the owner-direct hash chain.
//! All pure reads; none deposits anything.
//!
//! An entry is referenced in either id namespace: its graph record id (the
//! digest row's subject) or its book entry id (`attributes.entry_id`).
//! With a journal, closure and hidden folds apply; without one these are
//! layer-1 reads of store truth. Rows come oldest first (`observed_at`, then
//! assertion id).
//!
//! Spec: api.md "Diary reads and chain verification"; memory-system.md
//! "Diary: what the entity elects to remember"; operator.md §3 and §6.

use crate::error::{Error, Result};
use crate::formation::diary_entry_hash_hex;
use crate::kinds::RecordKind;
use crate::outcome::Warned;
use crate::pair_folds::PairFolds;
use crate::record::DigestRow;
use crate::seam::Stimulus;
use am_journal::{Lifecycle, MemoryJournal};
use am_triples::{Timestamp, TripleAssertion, TripleQuery, TripleStore};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::HashSet;

fn hundred() -> usize {
    100
}

fn three() -> usize {
    3
}

/// The arguments of the open-set reads ([`open_questions`],
/// [`open_problems`], [`open_ideas`], [`open_commitments`]): `(store, *,
/// scope, owner_id, limit=100, journal=None)`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DiaryRead {
    /// The diary's scope.
    pub scope: String,
    /// The entity (blank: any owner).
    pub owner_id: String,
    /// At most this many, oldest first (0: all).
    #[serde(default = "hundred")]
    pub limit: usize,
}

impl DiaryRead {
    /// The read of `(scope, owner_id)`, at most 100 rows.
    pub fn new(scope: &str, owner_id: &str) -> Self {
        DiaryRead {
            scope: scope.to_owned(),
            owner_id: owner_id.to_owned(),
            limit: hundred(),
        }
    }
}

/// The diary rows of one pair (rows whose `attributes.record_kind` is
/// `diary`).
fn diary_rows(store: &dyn TripleStore, scope: &str, owner: &str) -> Result<Vec<TripleAssertion>> {
    if scope.trim().is_empty() {
        return Err(Error::invalid(format!(
            "a diary read needs a non-empty scope, got {scope:?}"
        )));
    }
    Ok(store
        .query(&TripleQuery {
            scope: Some(scope.to_owned()),
            owner_id: (!owner.trim().is_empty()).then(|| owner.trim().to_owned()),
            limit: 0,
            ..TripleQuery::default()
        })?
        .into_iter()
        .filter(|a| DigestRow::of(a).kind() == Some(RecordKind::Diary))
        .collect())
}

fn oldest_first(rows: &mut [TripleAssertion]) {
    rows.sort_by(|a, b| {
        a.observed_at
            .cmp(&b.observed_at)
            .then_with(|| a.assertion_id.cmp(&b.assertion_id))
    });
}

fn bounded(mut rows: Vec<TripleAssertion>, limit: usize) -> Vec<TripleAssertion> {
    if limit > 0 {
        rows.truncate(limit);
    }
    rows
}

fn folds_of(
    store: &dyn TripleStore,
    journal: Option<&dyn MemoryJournal>,
    args: &DiaryRead,
) -> Result<Option<PairFolds>> {
    let Some(j) = journal else { return Ok(None) };
    let as_of = j.current_seq()?;
    Ok(Some(PairFolds::load(
        store,
        j,
        &args.scope.trim().to_lowercase(),
        args.owner_id.trim(),
        as_of,
    )?))
}

/// The shared fold of the unresolved reads: entries of `diary_type` that no
/// believed diary entry references through one of `ref_attrs` (by graph id
/// or book entry id). A retracted or hidden entry neither stands open nor
/// resolves anything.
fn open_unresolved(
    store: &dyn TripleStore,
    journal: Option<&dyn MemoryJournal>,
    args: &DiaryRead,
    diary_type: &str,
    ref_attrs: &[&str],
) -> Result<Vec<TripleAssertion>> {
    let rows = diary_rows(store, &args.scope, &args.owner_id)?;
    let folds = folds_of(store, journal, args)?;
    let excludes = folds.as_ref().map(|f| move |id: &str| f.excludes(id));
    Ok(unresolved_among(
        &rows,
        excludes.as_ref().map(|f| f as &dyn Fn(&str) -> bool),
        diary_type,
        ref_attrs,
        args.limit,
    ))
}

/// [`open_unresolved`] over rows already read: `rows` holds at least every
/// diary row of the pair (other rows are passed over), in store order;
/// `excludes` is the pair's closure and hidden fold (`None`: the layer-1
/// read). The drives' index reads the diary rows this way.
pub(crate) fn unresolved_among(
    rows: &[TripleAssertion],
    excludes: Option<&dyn Fn(&str) -> bool>,
    diary_type: &str,
    ref_attrs: &[&str],
    limit: usize,
) -> Vec<TripleAssertion> {
    let believed: Vec<&TripleAssertion> = rows
        .iter()
        .filter(|a| DigestRow::of(a).kind() == Some(RecordKind::Diary))
        .filter(|a| {
            excludes.is_none_or(|f| !a.assertion_id.as_deref().is_some_and(f) && !f(&a.subject))
        })
        .collect();
    let resolved: HashSet<&str> = believed
        .iter()
        .flat_map(|a| {
            ref_attrs
                .iter()
                .filter_map(move |k| DigestRow::of(a).as_stored(k))
        })
        .map(str::trim)
        .filter(|r| !r.is_empty())
        .collect();
    let mut out: Vec<TripleAssertion> = believed
        .iter()
        .filter(|a| DigestRow::of(a).as_stored("diary_type") == Some(diary_type))
        .filter(|a| {
            let entry = entry_id(a);
            !resolved.contains(a.subject.as_str())
                && !entry.as_deref().is_some_and(|e| resolved.contains(e))
        })
        .map(|a| (*a).clone())
        .collect();
    oldest_first(&mut out);
    bounded(out, limit)
}

/// An entry's book id (`attributes.entry_id`, trimmed), if it has one; a
/// number is its decimal text (unlike [`DigestRow::entry_id`], which reads
/// a string only: the unresolved folds have always matched numeric ids).
fn entry_id(a: &TripleAssertion) -> Option<String> {
    match DigestRow::of(a).get("entry_id") {
        Some(Value::String(s)) if !s.trim().is_empty() => Some(s.trim().to_owned()),
        Some(Value::Number(n)) => Some(n.to_string()),
        _ => None,
    }
}

/// The entity's standing curiosity: `diary_type = "question"` entries no
/// other entry answers (`attributes.answers` or `attributes.resolves`, in
/// either id namespace).
///
/// # Errors
/// `InvalidInput` for a blank scope; the store's or journal's failure.
pub fn open_questions(
    store: &dyn TripleStore,
    journal: Option<&dyn MemoryJournal>,
    args: &DiaryRead,
) -> Result<Vec<TripleAssertion>> {
    open_unresolved(store, journal, args, "question", &["answers", "resolves"])
}

/// What is wrong and needs fixing: `diary_type = "problem"` entries no other
/// entry resolves (`attributes.resolves` or `attributes.answers`).
///
/// # Errors
/// As [`open_questions`].
pub fn open_problems(
    store: &dyn TripleStore,
    journal: Option<&dyn MemoryJournal>,
    args: &DiaryRead,
) -> Result<Vec<TripleAssertion>> {
    open_unresolved(store, journal, args, "problem", &["answers", "resolves"])
}

/// The standing promises: `diary_type = "commitment"` entries no other entry
/// fulfills (`attributes.fulfills` only: a promise is kept, not answered).
///
/// # Errors
/// As [`open_questions`].
pub fn open_commitments(
    store: &dyn TripleStore,
    journal: Option<&dyn MemoryJournal>,
    args: &DiaryRead,
) -> Result<Vec<TripleAssertion>> {
    open_unresolved(store, journal, args, "commitment", &["fulfills"])
}

/// The lifecycles in which an idea still incubates.
const INCUBATING: [&str; 2] = ["inactive_candidate", "reviewed"];

/// The incubating ideas: `diary_type = "idea"` entries. With a journal the
/// folded binding lifecycle decides (`inactive_candidate` or `reviewed`
/// incubate, an unbound entry counts as `inactive_candidate`; `rejected` and
/// `promoted` leave the open set) and closed or hidden entries leave it;
/// without one every idea entry is listed.
///
/// # Errors
/// As [`open_questions`].
pub fn open_ideas(
    store: &dyn TripleStore,
    journal: Option<&dyn MemoryJournal>,
    args: &DiaryRead,
) -> Result<Vec<TripleAssertion>> {
    let rows = diary_rows(store, &args.scope, &args.owner_id)?;
    let folds = folds_of(store, journal, args)?;
    let excludes = folds.as_ref().map(|f| move |id: &str| f.excludes(id));
    let lifecycle = folds.as_ref().map(|f| {
        move |record: &str| {
            f.bindings
                .iter()
                .rev()
                .find(|b| b.record_id == record)
                .map(|b| b.lifecycle)
        }
    });
    let folded = excludes.as_ref().zip(lifecycle.as_ref()).map(|(e, l)| {
        (
            e as &dyn Fn(&str) -> bool,
            l as &dyn Fn(&str) -> Option<Lifecycle>,
        )
    });
    Ok(ideas_among(&rows, folded, args.limit))
}

/// A pair's folds as [`ideas_among`] reads them: whether an id is closed
/// or hidden, and a record's folded binding lifecycle.
pub(crate) type IdeaFolds<'f> = (
    &'f dyn Fn(&str) -> bool,
    &'f dyn Fn(&str) -> Option<Lifecycle>,
);

/// [`open_ideas`] over rows already read (at least every diary row of the
/// pair, in store order). `folds` is the pair's closure and hidden fold and
/// its folded binding lifecycle per record (`None`: the layer-1 read, every
/// idea listed).
pub(crate) fn ideas_among(
    rows: &[TripleAssertion],
    folds: Option<IdeaFolds<'_>>,
    limit: usize,
) -> Vec<TripleAssertion> {
    let mut rows: Vec<TripleAssertion> = rows
        .iter()
        .filter(|a| DigestRow::of(a).kind() == Some(RecordKind::Diary))
        .filter(|a| DigestRow::of(a).as_stored("diary_type") == Some("idea"))
        .cloned()
        .collect();
    if let Some((excludes, lifecycle)) = folds {
        rows.retain(|a| {
            let life = lifecycle(&a.subject).map_or("inactive_candidate", |l| l.as_str());
            !a.assertion_id.as_deref().is_some_and(excludes) && INCUBATING.contains(&life)
        });
    }
    oldest_first(&mut rows);
    bounded(rows, limit)
}

/// What [`verify_diary_chain`] answers: `{intact, break_at, entries}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ChainReport {
    /// No entry's hash or back-pointer fails.
    pub intact: bool,
    /// The graph id of the first entry that fails, in chain order.
    pub break_at: Option<String>,
    /// How many diary rows the pair holds.
    pub entries: usize,
}

/// The rows a chain audit reads per change-feed page.
const CHAIN_PAGE: usize = 4096;

/// What the chain audit keeps of one diary row: its chain position, its
/// identity, and its claims, the hash already checked. The row itself is
/// dropped as soon as it is read.
struct Link {
    observed_at: String,
    assertion_id: Option<String>,
    subject: String,
    /// Whether the claimed `entry_hash` recomputes (`None`: no claim).
    hash_holds: Option<bool>,
    /// The claimed `entry_hash` as text (0.3.2's `str(claimed)`).
    claim: Option<String>,
    /// The claimed `prev_entry_hash` as text.
    pointer: Option<String>,
}

/// A claim's text: a JSON string as it is, anything else as its JSON text.
fn claim_text(v: Value) -> String {
    match v {
        Value::String(s) => s,
        other => other.to_string(),
    }
}

/// The link of a diary row (`attributes.record_kind = "diary"`), else `None`.
fn link(mut a: TripleAssertion) -> Option<Link> {
    if DigestRow::of(&a).kind() != Some(RecordKind::Diary) {
        return None;
    }
    let claimed = a.attributes.remove("entry_hash").filter(|v| !v.is_null());
    let hash_holds = claimed.as_ref().map(|claim| {
        let title = DigestRow::of(&a).as_stored("title").unwrap_or("");
        let recomputed = diary_entry_hash_hex(title, &a.object, &a.observed_at);
        claim.as_str().map(str::as_bytes) == Some(&recomputed[..])
    });
    let pointer = a
        .attributes
        .remove("prev_entry_hash")
        .filter(|v| !v.is_null())
        .map(claim_text);
    Some(Link {
        observed_at: a.observed_at,
        assertion_id: a.assertion_id,
        subject: a.subject,
        hash_holds,
        claim: claimed.map(claim_text),
        pointer,
    })
}

/// The links of every diary row of the pair. A store with a change feed is
/// read a page at a time (each page's rows dropped once linked, so the
/// audit never holds the pair's rows, only their links); any other store
/// through one query.
fn chain_links(store: &dyn TripleStore, scope: &str, owner: &str) -> Result<Vec<Link>> {
    if scope.trim().is_empty() {
        return Err(Error::invalid(format!(
            "a diary read needs a non-empty scope, got {scope:?}"
        )));
    }
    let owner = (!owner.trim().is_empty()).then(|| owner.trim());
    if !store.capabilities().change_feed {
        return Ok(diary_rows(store, scope, owner.unwrap_or(""))?
            .into_iter()
            .filter_map(link)
            .collect());
    }
    let mut links = Vec::new();
    let mut cursor = 0;
    loop {
        let page = store.assertions_after(cursor, Some(scope), owner, CHAIN_PAGE)?;
        let full = page.rows.len() == CHAIN_PAGE;
        links.extend(page.rows.into_iter().filter_map(|(_, a)| link(a)));
        if !full || page.next_cursor <= cursor {
            return Ok(links);
        }
        cursor = page.next_cursor;
    }
}

/// Audit the pair's content-hash chain: in chain order (`observed_at`, then
/// assertion id), an entry claiming `entry_hash` must hash to it
/// ([`crate::diary_entry_hash`] of its title, digest and stored time), and an entry
/// claiming `prev_entry_hash` must name the last claimed hash before it.
/// Entries that claim neither fail nothing (a book projection attests
/// through the book). `break_at` names the first entry that fails.
///
/// # Errors
/// `InvalidInput` for a blank scope; the store's failure.
pub fn verify_diary_chain(
    store: &dyn TripleStore,
    scope: &str,
    owner_id: &str,
) -> Result<ChainReport> {
    let mut links = chain_links(store, scope, owner_id)?;
    // 0.3.2's `(observed_at or "", assertion_id or "")`.
    links.sort_by(|a, b| {
        a.observed_at.cmp(&b.observed_at).then_with(|| {
            a.assertion_id
                .as_deref()
                .unwrap_or("")
                .cmp(b.assertion_id.as_deref().unwrap_or(""))
        })
    });
    let entries = links.len();
    let mut prev: Option<&str> = None;
    for l in &links {
        let broken = l.hash_holds == Some(false)
            || l.pointer
                .as_deref()
                .is_some_and(|p| p != prev.unwrap_or(""));
        if broken {
            return Ok(ChainReport {
                intact: false,
                break_at: Some(l.subject.clone()),
                entries,
            });
        }
        if let Some(claim) = &l.claim {
            prev = Some(claim);
        }
    }
    Ok(ChainReport {
        intact: true,
        break_at: None,
        entries,
    })
}

/// The arguments of [`triggered_commitments`]: `triggered_commitments(store,
/// journal, *, stimulus, scope, owner_id, max_lines=3, now=None)`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TriggeredCommitments {
    /// The current stimulus (its `participants` and `cue_text`).
    pub stimulus: Stimulus,
    /// The diary's scope.
    pub scope: String,
    /// The entity.
    pub owner_id: String,
    /// At most this many annotated commitments (0: the summary line only).
    #[serde(default = "three")]
    pub max_lines: usize,
    /// The caller's now (the engine never reads the clock here); `None`
    /// disables due dates.
    #[serde(default)]
    pub now: Option<Timestamp>,
}

impl TriggeredCommitments {
    /// The commitments `stimulus` triggers in `(scope, owner_id)`.
    pub fn new(stimulus: Stimulus, scope: &str, owner_id: &str) -> Self {
        TriggeredCommitments {
            stimulus,
            scope: scope.to_owned(),
            owner_id: owner_id.to_owned(),
            max_lines: three(),
            now: None,
        }
    }
}

/// One triggered commitment (`{entry, matched, line}`), or the final
/// overflow line (`entry: None`, `matched: []`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TriggeredCommitment {
    /// The open commitment's row.
    pub entry: Option<TripleAssertion>,
    /// What matched, kind-prefixed: `participant:<id>`, `keyword:<word>`,
    /// `due:<canonical time>`.
    pub matched: Vec<String>,
    /// One presentation line.
    pub line: String,
}

/// The ASCII alphanumeric runs of the folded text.
fn cue_tokens(text: &str) -> HashSet<String> {
    am_triples::text::fold_text(text)
        .split(|c: char| !(c.is_ascii_lowercase() || c.is_ascii_digit()))
        .filter(|t| !t.is_empty())
        .map(str::to_owned)
        .collect()
}

fn trigger_matches(
    trigger: &am_triples::JsonMap,
    participants: &HashSet<String>,
    cue: &HashSet<String>,
    now: Option<&str>,
    record_id: &str,
    due_warnings: &mut Vec<String>,
) -> Vec<String> {
    let mut matched = Vec::new();
    if let Some(Value::Array(wanted)) = trigger.get("participants") {
        let mut hits: Vec<String> = wanted
            .iter()
            .filter_map(|p| match p {
                Value::String(s) => Some(s.trim().to_owned()),
                Value::Null => None,
                other => Some(other.to_string()),
            })
            .filter(|p| !p.is_empty() && participants.contains(p))
            .collect();
        hits.sort();
        hits.dedup();
        matched.extend(hits.into_iter().map(|p| format!("participant:{p}")));
    }
    if let Some(Value::Array(words)) = trigger.get("keywords")
        && !cue.is_empty()
    {
        for kw in words {
            let text = match kw {
                Value::String(s) => s.trim().to_owned(),
                Value::Null => String::new(),
                other => other.to_string(),
            };
            if text.is_empty() {
                continue;
            }
            let tokens = cue_tokens(&text);
            if !tokens.is_empty() && tokens.iter().all(|t| cue.contains(t)) {
                matched.push(format!("keyword:{text}"));
            }
        }
    }
    if let (Some(now), Some(Value::String(due))) = (now, trigger.get("due_at"))
        && !due.trim().is_empty()
    {
        match am_triples::timestamp::normalize_timestamp(due) {
            Ok(d) if d.as_str() <= now => matched.push(format!("due:{d}")),
            Ok(_) => {}
            Err(_) => due_warnings.push(format!("{record_id} due_at={due:?}")),
        }
    }
    matched
}

fn commitment_line(entry: &TripleAssertion, matched: &[String]) -> String {
    let elected: String = entry.observed_at.chars().take(10).collect();
    let elected = if elected.is_empty() {
        "undated".to_owned()
    } else {
        elected
    };
    let shown: Vec<String> = matched
        .iter()
        .map(|t| {
            if let Some(p) = t.strip_prefix("participant:") {
                p.to_owned()
            } else if let Some(d) = t.strip_prefix("due:") {
                format!("due:{}", d.chars().take(10).collect::<String>())
            } else {
                t.clone()
            }
        })
        .collect();
    format!(
        "open commitment (made {elected}): {} [triggered by: {}]",
        entry.object.trim(),
        shown.join(", ")
    )
}

/// Which open commitments the stimulus triggers (a pure read beside
/// `reconstruct`): a commitment's `attributes.trigger` (`{participants,
/// keywords, due_at}`) matches when a participant is in the stimulus, every
/// folded word of a keyword is in the cue, or `due_at` is at or before
/// `now`. A commitment without a trigger never annotates. Oldest first, at
/// most `max_lines`; when more matched, one final line counts the rest. An
/// unparseable stored `due_at` skips that channel with a `#FALLBACK`
/// warning.
///
/// # Errors
/// `InvalidInput` for a blank scope; the store's or journal's failure (a
/// `now` that is not a timestamp is refused where the arguments are read).
pub fn triggered_commitments(
    store: &dyn TripleStore,
    journal: Option<&dyn MemoryJournal>,
    args: &TriggeredCommitments,
) -> Result<Warned<Vec<TriggeredCommitment>>> {
    let now = args.now.map(Timestamp::canonical);
    let participants: HashSet<String> = args
        .stimulus
        .participants
        .iter()
        .map(|p| p.trim().to_owned())
        .filter(|p| !p.is_empty())
        .collect();
    let cue = cue_tokens(&args.stimulus.cue_text);
    let open = open_commitments(
        store,
        journal,
        &DiaryRead {
            limit: 0,
            ..DiaryRead::new(&args.scope, &args.owner_id)
        },
    )?;
    let mut due_warnings = Vec::new();
    let mut out = Vec::new();
    let mut suppressed = 0usize;
    for entry in open {
        let Some(Value::Object(trigger)) = DigestRow::of(&entry).get("trigger") else {
            continue;
        };
        if trigger.is_empty() {
            continue;
        }
        let matched = trigger_matches(
            trigger,
            &participants,
            &cue,
            now.as_deref(),
            &entry.subject,
            &mut due_warnings,
        );
        if matched.is_empty() {
            continue;
        }
        if out.len() < args.max_lines {
            let line = commitment_line(&entry, &matched);
            out.push(TriggeredCommitment {
                entry: Some(entry),
                matched,
                line,
            });
        } else {
            suppressed += 1;
        }
    }
    let mut warnings = Vec::new();
    if !due_warnings.is_empty() {
        warnings.push(format!(
            "#FALLBACK: triggered_commitments skipped the due date of {} commitment(s) whose trigger.due_at is not a timestamp ({}); their participant and keyword triggers still ran",
            due_warnings.len(),
            due_warnings.join("; ")
        ));
    }
    if suppressed > 0 {
        out.push(TriggeredCommitment {
            entry: None,
            matched: Vec::new(),
            line: format!("{suppressed} more open commitments triggered and not shown"),
        });
    }
    Ok(Warned::new(out, warnings))
}
