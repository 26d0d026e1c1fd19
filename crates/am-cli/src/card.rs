//! `am card`: the entity identity card (operator.md §2, api.md "Entity
//! identity card") as readable text, or its JSON with `--json`. A pure read.

use crate::ctx::{Ctx, open_for_observing};
use crate::error::{CliError, CliResult};
use crate::text::escape;
use am_system::MemorySystem;
use am_system::observe::card::{EntityCard, IdentityCard, IdentityItem, OpenResolved, RowBrief};
use serde_json::Value;
use std::fmt::Write as _;
use std::path::PathBuf;

/// The entity identity card: identity, age, current state, likes and
/// dislikes, questions, problems, key moments, discoveries and lessons,
/// each with its source (operator.md §2). Read-only.
#[derive(Debug, clap::Args)]
pub struct CardCmd {
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
    #[arg(long, default_value_t = am_system::observe::card::DEFAULT_CURRENT_WINDOW)]
    window: std::num::NonZeroUsize,
    /// Targets per channel of likes and dislikes.
    #[arg(long, default_value_t = 5)]
    top: usize,
}

impl CardCmd {
    /// Read the card and print it.
    ///
    /// # Errors
    /// As [`card`]; bad input for an unusable home or `--embedder`.
    pub fn run(self, ctx: &Ctx) -> CliResult<u8> {
        let CardCmd {
            home,
            owner,
            as_of,
            scopes,
            window,
            top,
        } = self;
        ctx.embedder_spec("none")?;
        let engine = open_for_observing(&home)?;
        let (v, t) = card(&engine.system, &owner, &scopes, as_of, window, top)?;
        ctx.emit(&v, &t)?;
        Ok(0)
    }
}

/// The card of `owner` over `scopes` (empty: the home's ladder `self`,
/// `diary`, `life`), as JSON and as text.
///
/// # Errors
/// The engine's refusal (a blank owner, an anchor outside the journal) or
/// failure; the window is positive by its type.
pub fn card(
    sys: &MemorySystem,
    owner: &str,
    scopes: &[String],
    as_of: Option<i64>,
    window: std::num::NonZeroUsize,
    top_n: usize,
) -> CliResult<(Value, String)> {
    let ladder: Vec<(String, String)> = if scopes.is_empty() {
        ["self", "diary", "life"]
            .iter()
            .map(|s| ((*s).to_owned(), owner.to_owned()))
            .collect()
    } else {
        scopes
            .iter()
            .map(|s| (s.clone(), owner.to_owned()))
            .collect()
    };
    let card = sys.entity_card(&EntityCard {
        scope_pairs: ladder,
        owner_id: owner.to_owned(),
        current_window_events: window,
        top_n,
        as_of,
    })?;
    let v = serde_json::to_value(&card)
        .map_err(|e| CliError::failure(format!("cannot encode the card: {e}")))?;
    Ok((v, render(&card)))
}

fn number(f: f64) -> String {
    if f.fract() == 0.0 && f.abs() < 1e15 {
        format!("{f:.0}")
    } else {
        format!("{f}")
    }
}

fn signed(f: f64) -> String {
    if f > 0.0 {
        format!("+{}", number(f))
    } else {
        number(f)
    }
}

fn titled(title: Option<&str>, id: &str) -> String {
    match title.filter(|t| !t.is_empty()) {
        Some(title) => format!("{} ({})", escape(title), escape(id)),
        // A pending title reads `None`: never a placeholder from the body.
        None => format!("{PENDING_TITLE} {}", escape(id)),
    }
}

/// What the text printers show for a title that reads `None` (pending).
const PENDING_TITLE: &str = "(title pending)";

fn source(t: &mut String, provenance: &str) {
    let _ = writeln!(t, "         source: {}", escape(provenance));
}

fn items(t: &mut String, label: &str, items: &[IdentityItem]) {
    for i in items {
        let class = [&i.value_class, &i.trait_class]
            .into_iter()
            .flatten()
            .map(|c| c.as_str().map_or_else(|| c.to_string(), str::to_owned))
            .collect::<Vec<_>>();
        let class = if class.is_empty() {
            String::new()
        } else {
            format!(" ({})", escape(&class.join(", ")))
        };
        let _ = writeln!(
            t,
            "  {label:<8}{}{class}: {}",
            escape(i.title.as_deref().unwrap_or(PENDING_TITLE)),
            escape(&i.statement)
        );
    }
}

fn brief(r: &RowBrief) -> String {
    let mut s = titled(r.title.as_deref(), &r.record_id);
    if !r.pending.is_empty() {
        let _ = write!(s, " [pending: {}]", r.pending.join(", "));
    }
    s
}

fn open_resolved(t: &mut String, label: &str, verb: &str, o: &OpenResolved) {
    let _ = writeln!(
        t,
        "{label:<8} {} open, {} {verb}",
        o.open.len(),
        o.resolved.len()
    );
    for r in &o.open {
        let _ = writeln!(t, "  open     {}: {}", brief(r), escape(&r.statement));
    }
    for r in &o.resolved {
        let by = r.resolved_by.as_deref().unwrap_or_default().join(", ");
        let _ = writeln!(t, "  {verb:<8} {} by {}", brief(r), escape(&by));
    }
    source(t, &o.provenance);
}

/// The readable text of a card: one block per section, each with its source.
pub fn render(c: &IdentityCard) -> String {
    let mut t = String::new();
    let ladder: Vec<String> = c
        .scope_pairs
        .iter()
        .map(|(s, o)| format!("{}/{}", escape(s), escape(o)))
        .collect();
    let _ = writeln!(
        t,
        "card     {} at journal seq {} ({})",
        escape(&c.owner_id),
        c.as_of_seq,
        ladder.join(", ")
    );
    let id = &c.identity;
    let _ = writeln!(
        t,
        "identity {} (spark {})",
        escape(&id.name),
        id.spark_version
            .map_or_else(|| "none".to_owned(), |v| format!("v{v}"))
    );
    items(&mut t, "value", &id.values);
    items(&mut t, "purpose", &id.purposes);
    items(&mut t, "trait", &id.traits);
    source(&mut t, &id.provenance);
    let a = &c.age_and_context;
    let counts: Vec<String> = a
        .record_counts
        .0
        .iter()
        .map(|(scope, kinds)| {
            let k: Vec<String> = kinds
                .0
                .iter()
                .map(|(kind, n)| format!("{} {n}", escape(kind)))
                .collect();
            format!("{}: {}", escape(scope), k.join(", "))
        })
        .collect();
    let _ = writeln!(
        t,
        "age      {} records, {} diary entries, observed {} .. {}",
        a.records_total,
        a.diary_entries,
        a.first_observed_at.as_deref().unwrap_or("-"),
        a.last_observed_at.as_deref().unwrap_or("-")
    );
    if !counts.is_empty() {
        let _ = writeln!(t, "         {}", counts.join("; "));
    }
    source(&mut t, &a.provenance);
    let s = &c.current_state;
    let _ = writeln!(
        t,
        "state    net {} (+{} / -{}) over {} appraisal(s)",
        signed(s.net),
        number(s.positive),
        number(s.negative),
        s.event_count
    );
    for r in &s.top_reasons {
        let _ = writeln!(t, "  {}", escape(r));
    }
    source(&mut t, &s.provenance);
    let l = &c.likes_dislikes;
    for (label, list, channel) in [("likes", &l.likes, true), ("dislikes", &l.dislikes, false)] {
        let _ = writeln!(t, "{label:<9}{}", list.len());
        for e in list {
            let who = match &e.title {
                Some(title) => titled(Some(title), &e.target),
                None => escape(&e.target),
            };
            let (amount, n) = if channel {
                (format!("+{}", number(e.positive)), e.positive_count)
            } else {
                (format!("-{}", number(e.negative)), e.negative_count)
            };
            let marks = match (e.scarred, e.bonded) {
                (true, true) => " scarred, bonded",
                (true, false) => " scarred",
                (false, true) => " bonded",
                (false, false) => "",
            };
            let _ = writeln!(
                t,
                "  {amount} in {n} appraisal(s), net {}{marks}: {who}",
                signed(e.net)
            );
        }
    }
    source(&mut t, &l.provenance);
    open_resolved(&mut t, "questions", "resolved", &c.questions);
    open_resolved(&mut t, "problems", "repaired", &c.problems);
    let k = &c.key_moments;
    let _ = writeln!(t, "moments  {} (of {})", k.moments.len(), k.total);
    for m in &k.moments {
        let at = m["observed_at"].as_str().unwrap_or_default();
        let line = if m["type"] == "first" {
            let what = m["what"].as_str().unwrap_or_default();
            // A first record carries `record_id` (its title `None` while
            // pending); the first supersession names its assertion.
            match m.get("record_id").and_then(Value::as_str) {
                Some(record_id) => format!("{what}: {}", titled(m["title"].as_str(), record_id)),
                None => format!(
                    "{what}: {} ({})",
                    escape(m["assertion_id"].as_str().unwrap_or_default()),
                    escape(m["reason"].as_str().unwrap_or_default())
                ),
            }
        } else {
            let sign = if m["sign"].as_i64().unwrap_or(0) > 0 {
                "+"
            } else {
                "-"
            };
            format!(
                "{} {sign}{} {}: {}",
                escape(m["kind"].as_str().unwrap_or_default()),
                number(m["magnitude"].as_f64().unwrap_or(0.0)),
                escape(m["target"].as_str().unwrap_or_default()),
                escape(m["reason"].as_str().unwrap_or_default())
            )
        };
        let _ = writeln!(t, "  {at} {line}");
    }
    source(&mut t, &k.provenance);
    let d = &c.discoveries;
    let _ = writeln!(
        t,
        "discover {} interest(s) ({} explored, {} open), {} unresolved dream(s)",
        d.interests.len(),
        d.interests_explored,
        d.interests_open,
        d.unresolved_dreams
    );
    for i in &d.interests {
        let _ = writeln!(
            t,
            "  {} {}: {}",
            if i.explored { "explored" } else { "open    " },
            titled(i.title.as_deref(), &i.record_id),
            escape(&i.statement)
        );
    }
    source(&mut t, &d.provenance);
    let ls = &c.lessons;
    let _ = writeln!(t, "lessons  {}", ls.total);
    for r in &ls.lessons {
        let _ = writeln!(t, "  {}: {}", brief(r), escape(&r.statement));
    }
    source(&mut t, &ls.provenance);
    t
}
