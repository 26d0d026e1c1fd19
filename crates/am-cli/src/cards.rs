//! `am cards`: the world-model orientation cards an entity holds (api.md
//! "World models (orientation cards)"): the current card of every target,
//! one target's current card, or with `--history` every revision of one
//! target with the evidence each was formed from. Text, or JSON with
//! `--json`. A pure read.

use crate::ctx::{Ctx, open_for_observing};
use crate::error::{CliError, CliResult};
use crate::text::escape;
use am_system::MemorySystem;
use am_system::world_models::{CardsOf, alias_map, card_history, current_world_models};
use am_triples::TripleAssertion;
use serde_json::{Value, json};
use std::fmt::Write as _;
use std::path::PathBuf;

/// The orientation cards an entity holds about the people and topics in its
/// life: every current card, one target's, or (`--history`) one target's
/// revisions and their evidence. Read-only.
#[derive(Debug, clap::Args)]
pub struct CardsCmd {
    /// The SQLite home (must exist).
    home: PathBuf,
    /// The entity whose cards these are (`entity:<name>`).
    #[arg(long)]
    owner: String,
    /// The cards' scope.
    #[arg(long, default_value = "life")]
    scope: String,
    /// One target (`person:ada`, `topic:soil health`; an alias reaches its
    /// primary card).
    target: Option<String>,
    /// Every revision of TARGET (closed ones too), oldest first, each with
    /// its evidence.
    #[arg(long, requires = "target")]
    history: bool,
}

impl CardsCmd {
    /// Read the cards and print them.
    ///
    /// # Errors
    /// Bad input for an unusable home, a blank owner or an unknown target;
    /// the engine's failure.
    pub fn run(self, ctx: &Ctx) -> CliResult<u8> {
        ctx.embedder_spec("none")?;
        if self.owner.trim().is_empty() {
            return Err(CliError::invalid("--owner must name the entity"));
        }
        let engine = open_for_observing(&self.home)?;
        let (v, t) = cards(
            &engine.system,
            &self.scope,
            &self.owner,
            self.target.as_deref(),
            self.history,
        )?;
        ctx.emit(&v, &t)?;
        Ok(0)
    }
}

fn strings(v: Option<&Value>) -> Vec<String> {
    match v {
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
        _ => Vec::new(),
    }
}

/// The card's facts a reader wants: `{card_id, assertion_id, revision, title,
/// text, pending, digest_method, evidence_fingerprint, source_count, aliases,
/// first_seen, last_seen}`.
fn brief(card: &TripleAssertion) -> Value {
    let a = &card.attributes;
    json!({
        "card_id": card.subject,
        "assertion_id": card.assertion_id,
        "revision": a.get("revision").cloned().unwrap_or(Value::Null),
        "title": a.get("title").cloned().unwrap_or(Value::Null),
        "text": card.object,
        "pending": pending_of(a.get("pending")),
        "digest_method": a.get("digest_method").cloned().unwrap_or(Value::Null),
        "evidence_fingerprint": a.get("evidence_fingerprint").cloned().unwrap_or(Value::Null),
        "source_count": a.get("source_count").cloned().unwrap_or(Value::Null),
        "aliases": strings(a.get("aliases")),
        "first_seen": a.get("first_seen").cloned().unwrap_or(Value::Null),
        "last_seen": a.get("last_seen").cloned().unwrap_or(Value::Null),
    })
}

/// The fields a card's pending marker (`{title, summary, since, attempts}`)
/// names, title first.
fn pending_of(marker: Option<&Value>) -> Vec<String> {
    let Some(Value::Object(m)) = marker else {
        return Vec::new();
    };
    ["title", "summary"]
        .into_iter()
        .filter(|f| am_triples::assertion::json_truthy(m.get(*f)))
        .map(str::to_owned)
        .collect()
}

fn text_of(v: &Value) -> String {
    match v {
        Value::Null => "-".to_owned(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// One card as text lines: a header (target, revision, id, pending, method),
/// then its title and words indented.
fn card_lines(out: &mut String, target: &str, b: &Value, closed: Option<bool>) {
    let pending = strings(b.get("pending"));
    let _ = writeln!(
        out,
        "{} r{} {}{}{} [{}] {} source(s)",
        escape(target),
        text_of(&b["revision"]),
        escape(&text_of(&b["card_id"])),
        match closed {
            Some(true) => " (superseded)",
            Some(false) => " (current)",
            None => "",
        },
        if pending.is_empty() {
            String::new()
        } else {
            format!(" pending {}", pending.join(", "))
        },
        escape(&text_of(&b["digest_method"])),
        text_of(&b["source_count"]),
    );
    let aliases = strings(b.get("aliases"));
    if !aliases.is_empty() {
        let _ = writeln!(out, "    aliases: {}", escape(&aliases.join(", ")));
    }
    if let Some(title) = b["title"].as_str() {
        let _ = writeln!(out, "    title: {}", escape(title));
    }
    for line in text_of(&b["text"]).lines() {
        let _ = writeln!(out, "    {}", escape(line));
    }
}

/// The cards of `owner` in `scope`, as JSON and text: every current card
/// (`{scope, owner_id, cards: {target: card}}`), one target's current card
/// (`{scope, owner_id, target, card}`), or its history (`{scope, owner_id,
/// target, revisions: [card + {current, evidence}]}`, oldest first).
///
/// # Errors
/// Bad input for a target with no card; the engine's failure.
pub fn cards(
    sys: &MemorySystem,
    scope: &str,
    owner: &str,
    target: Option<&str>,
    history: bool,
) -> CliResult<(Value, String)> {
    let of = CardsOf::new(scope, owner);
    let (store, journal) = (sys.store().as_ref(), sys.journal().as_ref());
    let current = current_world_models(store, Some(journal), &of)?;
    let mut out = String::new();
    let Some(asked) = target.map(str::trim) else {
        if current.is_empty() {
            let _ = writeln!(
                out,
                "no world-model cards for {} in {} (a card forms from evidence: world_model_pass)",
                escape(owner),
                escape(scope)
            );
        }
        let mut all = serde_json::Map::new();
        for (t, card) in &current {
            let b = brief(card);
            card_lines(&mut out, t, &b, None);
            all.insert(t.clone(), b);
        }
        return Ok((
            json!({"scope": scope, "owner_id": owner, "cards": all}),
            out,
        ));
    };
    // An alias reaches its primary card.
    let aliases = alias_map(store, Some(journal), &of)?;
    let key = if current.contains_key(asked) {
        asked.to_owned()
    } else {
        aliases
            .get(asked)
            .cloned()
            .unwrap_or_else(|| asked.to_owned())
    };
    if !history {
        let Some(card) = current.get(&key) else {
            return Err(CliError::invalid(format!(
                "no world-model card for {asked:?} in {scope}/{owner}"
            )));
        };
        let b = brief(card);
        card_lines(&mut out, &key, &b, None);
        return Ok((
            json!({"scope": scope, "owner_id": owner, "target": key, "card": b}),
            out,
        ));
    }
    // Every revision, oldest first, across the keys the card answered to
    // (a re-key leaves the revisions before it on the old key).
    let revisions = card_history(store, journal, &of, &key)?;
    if revisions.is_empty() {
        return Err(CliError::invalid(format!(
            "no world-model card for {asked:?} in {scope}/{owner}"
        )));
    }
    let current_id = current.get(&key).and_then(|c| c.assertion_id.clone());
    let mut list = Vec::new();
    for card in &revisions {
        let mut b = brief(card);
        let is_current = current_id.is_some() && card.assertion_id == current_id;
        let evidence = strings(card.attributes.get("known_source_ids"));
        card_lines(&mut out, &key, &b, Some(!is_current));
        let _ = writeln!(
            out,
            "    evidence ({}): {}",
            evidence.len(),
            escape(&evidence.join(", "))
        );
        b["current"] = json!(is_current);
        b["evidence"] = json!(evidence);
        list.push(b);
    }
    Ok((
        json!({"scope": scope, "owner_id": owner, "target": key, "revisions": list}),
        out,
    ))
}
