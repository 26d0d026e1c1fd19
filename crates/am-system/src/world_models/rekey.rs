//! `rekey_world_model`: a standing card's key moved IN PLACE, the old key
//! kept as an alias; and the `card_rekey` hook (`crate::hooks::CardRekey`)
//! through which `retitle` and `declare_pending` of an interest move its
//! card in their own transaction.
//!
//! Choices the spec leaves open (ours): version 0 of field `target` is
//! authored `{kind: "mechanical", id: "world_model_pass"}` at the card's
//! observed time; a refusal with no card to name (`unknown_card`) has an
//! empty `record_id`; a person card's `participants` become the new key
//! then its non-`topic:` aliases (the pass's rule), a `topic:` key leaves
//! them as stored; `card_rekey` is `{card_id, from, to, outcome, reason,
//! version}` (the move's `target_version`, absent when it did not move).
//!
//! Spec: api.md "World models" (`rekey_world_model`), "Understanding"
//! (`retitle`, `declare_pending`: `card_rekey`).

use crate::error::{Error, Result};
use crate::hooks::{CardRekey, CardRekeyPlan, HookReading, InterestTitle};
use crate::outcome::{Outcome, Reason, UnderstandingResult};
use crate::record::DigestRow;
use crate::understanding::reading::{Reading, ValidProvenance};
use crate::understanding::target::{TargetMove, plan_target_move};
use crate::world_models::alias::aliases_of;
use crate::world_models::args::CardsOf;
use crate::world_models::cards::revision_of;
use crate::world_models::evidence::{evidence_scan, interest_key, interest_target, subject_head};
use am_journal::{AuthorRef, ReaderRef, SourceRef};
use am_triples::{JsonMap, TripleAssertion};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::collections::BTreeSet;

/// `rekey_world_model(system, old_key, new_key, *, scope, owner_id, author,
/// cause, reason=None, reader=None, sources=())`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RekeyWorldModel {
    /// The key of the standing card to move.
    pub old_key: String,
    /// Its new key.
    pub new_key: String,
    /// The card's scope.
    pub scope: String,
    /// The card's owner.
    pub owner_id: String,
    /// `{kind, id}`, kind in `AUTHOR_KINDS`.
    pub author: AuthorRef,
    /// A cause in `REWRITE_CAUSES`, or `{"cause": ..., ...}`.
    pub cause: Value,
    /// Why the key moves (kept in the version row's cause).
    #[serde(default)]
    pub reason: Option<String>,
    /// `{provider, model, thinking}`: required for a model author.
    #[serde(default)]
    pub reader: Option<ReaderRef>,
    /// Ledger `SourceRef`s (a model author needs at least one).
    #[serde(default)]
    pub sources: Vec<SourceRef>,
}

impl RekeyWorldModel {
    /// Move the card keyed `old_key` in `(scope, owner_id)` to `new_key`, by
    /// `author` for `cause`.
    pub fn new(
        old_key: &str,
        new_key: &str,
        (scope, owner_id): (&str, &str),
        author: AuthorRef,
        cause: Value,
    ) -> Self {
        RekeyWorldModel {
            old_key: old_key.to_owned(),
            new_key: new_key.to_owned(),
            scope: scope.to_owned(),
            owner_id: owner_id.to_owned(),
            author,
            cause,
            reason: None,
            reader: None,
            sources: Vec::new(),
        }
    }
}

/// A re-key decided: the move, or why nothing moves.
enum Decided {
    Move {
        mv: Box<TargetMove>,
        card: Box<TripleAssertion>,
        aliases: Vec<String>,
    },
    Stays {
        outcome: Outcome,
        card: Option<Box<TripleAssertion>>,
    },
}

/// The move's cause: the caller's (its name or mapping), with `reason` and
/// `rekey: {from, to}`.
fn rekey_cause(cause: &Value, reason: Option<&str>, from: &str, to: &str) -> Value {
    let mut m = match cause {
        Value::Object(m) => m.clone(),
        other => {
            let mut m = JsonMap::new();
            m.insert("cause".into(), other.clone());
            m
        }
    };
    if let Some(r) = reason.map(str::trim).filter(|r| !r.is_empty()) {
        m.insert("reason".into(), json!(r));
    }
    m.insert("rekey".into(), json!({"from": from, "to": to}));
    Value::Object(m)
}

/// The attributes a move changes beside the key: `aliases` (the old key
/// joins, the new one leaves), and a person card's `participants`.
fn moved_attributes(card: &TripleAssertion, old: &str, new: &str) -> (JsonMap, Vec<String>) {
    let mut aliases: BTreeSet<String> = aliases_of(card).into_iter().collect();
    aliases.insert(old.to_owned());
    aliases.remove(new);
    let aliases: Vec<String> = aliases.into_iter().collect();
    let mut set = JsonMap::new();
    set.insert("aliases".into(), json!(aliases));
    if !new.starts_with("topic:") {
        let participants: Vec<&str> = std::iter::once(new)
            .chain(
                aliases
                    .iter()
                    .map(String::as_str)
                    .filter(|a| !a.starts_with("topic:")),
            )
            .collect();
        set.insert("participants".into(), json!(participants));
    }
    (set, aliases)
}

impl crate::MemorySystem {
    /// Decide a re-key of `(scope, owner)`'s card `old` → `new` with a
    /// validated `reading` whose cause already names the move. Pure.
    fn decide_rekey(
        &self,
        pair: &CardsOf,
        (old, new): (&str, &str),
        reading: &ValidProvenance,
        at: &str,
    ) -> Result<Decided> {
        let cards = self.current_cards(pair)?;
        let old_card = cards.get(old);
        if let Some(on_new) = cards.get(new) {
            if aliases_of(on_new).iter().any(|a| a == old) {
                return Ok(Decided::Stays {
                    outcome: Outcome::Unchanged(None),
                    card: Some(Box::new(on_new.clone())),
                });
            }
            return Ok(Decided::Stays {
                outcome: Outcome::Refused(if old_card.is_some() {
                    Reason::TargetTaken
                } else {
                    Reason::UnknownCard
                }),
                card: old_card.map(|c| Box::new(c.clone())),
            });
        }
        let Some(card) = old_card else {
            return Ok(Decided::Stays {
                outcome: Outcome::Refused(Reason::UnknownCard),
                card: None,
            });
        };
        let bound_elsewhere = cards
            .iter()
            .any(|(t, c)| t != old && aliases_of(c).iter().any(|a| a == new));
        if bound_elsewhere {
            return Ok(Decided::Stays {
                outcome: Outcome::Refused(Reason::AliasBoundElsewhere),
                card: Some(Box::new(card.clone())),
            });
        }
        let (set, aliases) = moved_attributes(card, old, new);
        let mv = plan_target_move(card, new, set, reading, at)?;
        Ok(Decided::Move {
            mv: Box::new(mv),
            card: Box::new(card.clone()),
            aliases,
        })
    }

    /// `rekey_world_model` — move the standing card keyed `old_key` to
    /// `new_key` IN PLACE, keeping `old_key` as an alias: the card keeps its
    /// ids, revision, evidence, text, title, keywords, vector, edges,
    /// versions, usage and pending tasks; `attributes.target` becomes
    /// `new_key`, `old_key` joins `attributes.aliases` (a person card's
    /// `participants` follow), and the move is a version row of field
    /// `target` (version 0 the old key, captured at the first move). One
    /// transaction at `understanding.target`; no embedder call.
    ///
    /// Returns the understanding result (`field="target"`) plus `old_key`,
    /// `new_key`, `card_id`, `revision`, `aliases`. `unchanged` when the card
    /// on `new_key` already answers to `old_key`. Refusals (nothing
    /// written): `unknown_card`, `target_taken`, `alias_bound_elsewhere`,
    /// `stale` (the card moved since it was read).
    ///
    /// # Errors
    /// `InvalidInput` (the spec's `ValueError`) for empty or equal keys and
    /// bad provenance arguments (validated as `retitle`'s); the home's
    /// failure.
    pub fn rekey_world_model(&self, args: &RekeyWorldModel) -> Result<UnderstandingResult> {
        let (old, new) = (args.old_key.trim(), args.new_key.trim());
        if old.is_empty() || new.is_empty() {
            return Err(Error::invalid(
                "rekey_world_model needs a non-empty old_key and new_key",
            ));
        }
        if old == new {
            return Err(Error::invalid(format!(
                "rekey_world_model: old_key and new_key are the same ({old:?})"
            )));
        }
        let mut reading = Reading {
            author: &args.author,
            reader: args.reader.as_ref(),
            sources: &args.sources,
            cause: &args.cause,
            understood_at: None,
            task_id: None,
        }
        .validate()?;
        reading.cause = rekey_cause(&args.cause, args.reason.as_deref(), old, new);
        let at = self.now()?;
        let pair = CardsOf::new(&args.scope, &args.owner_id);
        let extra = |card: Option<&TripleAssertion>, aliases: Option<Vec<String>>| {
            let mut m = JsonMap::new();
            m.insert("old_key".into(), json!(old));
            m.insert("new_key".into(), json!(new));
            m.insert("card_id".into(), json!(card.map(|c| c.subject.clone())));
            m.insert("revision".into(), json!(card.map(revision_of)));
            m.insert(
                "aliases".into(),
                json!(aliases.unwrap_or_else(|| card.map(aliases_of).unwrap_or_default())),
            );
            m
        };
        match self.decide_rekey(&pair, (old, new), &reading, &at)? {
            Decided::Stays { outcome, card } => {
                let mut r = UnderstandingResult::new(
                    outcome,
                    card.as_ref().map_or("", |c| c.subject.as_str()),
                    "target",
                );
                if let Some(c) = &card {
                    r.assertion_id.clone_from(&c.assertion_id);
                    r.version = Some(DigestRow::of(c).version("target_version"));
                }
                r.extra = extra(card.as_deref(), None);
                Ok(r)
            }
            Decided::Move { mv, card, aliases } => {
                let mut r = UnderstandingResult::new(Outcome::Applied, &card.subject, "target");
                r.assertion_id.clone_from(&card.assertion_id);
                r.extra = extra(Some(&card), Some(aliases));
                self.apply_target_move(*mv, r)
            }
        }
    }
}

/// The `card_rekey` hook: `world_models`' plan of an interest's card move,
/// installed in the crate root.
pub(crate) struct InterestCards;

impl CardRekey for InterestCards {
    fn plan(
        &self,
        system: &crate::MemorySystem,
        interest: &TripleAssertion,
        change: InterestTitle<'_>,
        hook: &HookReading,
    ) -> Result<Option<CardRekeyPlan>> {
        if DigestRow::of(interest).kind_text() != Some("interest") {
            return Ok(None);
        }
        let gid = interest.subject.as_str();
        let by_id = format!("topic:{gid}");
        let (old, new, why) = match change {
            InterestTitle::Landed(title) => {
                let head = subject_head(title);
                if head.is_empty() {
                    return Ok(None);
                }
                (
                    by_id,
                    format!("topic:{head}"),
                    "the interest's title landed",
                )
            }
            InterestTitle::DeclaredPending => {
                let Some(key) = interest_target(interest) else {
                    return Ok(None);
                };
                (key, by_id, "the interest's title was declared pending")
            }
        };
        if old == new {
            return Ok(None);
        }
        let owner = interest.owner_id.clone().unwrap_or_default();
        let pair = CardsOf::new(&interest.scope, &owner);
        let cards = system.current_cards(&pair)?;
        let Some(card) = cards.get(&old) else {
            return Ok(None);
        };
        let mut report = JsonMap::new();
        report.insert("card_id".into(), json!(card.subject));
        report.insert("from".into(), json!(old));
        report.insert("to".into(), json!(new));
        let stays = |report: &mut JsonMap, outcome: &str, reason: Option<Reason>| {
            report.insert("outcome".into(), json!(outcome));
            report.insert("reason".into(), json!(reason));
        };
        if matches!(change, InterestTitle::DeclaredPending) {
            let pairs = [(interest.scope.clone(), owner.clone())];
            let others =
                evidence_scan(system.store.as_ref(), system.journal.as_ref(), &pairs, 0)?.evidence;
            let shared = others.values().any(|e| {
                e.kind == "interest"
                    && e.record_id != gid
                    && interest_key(e).as_deref() == Some(old.as_str())
            });
            if shared {
                stays(&mut report, "unchanged", Some(Reason::SharedCard));
                return Ok(Some(CardRekeyPlan {
                    report,
                    write: None,
                }));
            }
        }
        let mut reading = ValidProvenance::from(hook);
        reading.cause = rekey_cause(&reading.cause, Some(why), &old, &new);
        match system.decide_rekey(&pair, (&old, &new), &reading, &hook.at)? {
            Decided::Move { mv, .. } => {
                let mv = *mv;
                stays(&mut report, "applied", None);
                report.insert("version".into(), json!(mv.version));
                Ok(Some(CardRekeyPlan {
                    report,
                    write: Some(mv.card),
                }))
            }
            Decided::Stays { outcome, .. } => {
                let name = match outcome {
                    Outcome::Refused(_) => "refused",
                    _ => "unchanged",
                };
                stays(&mut report, name, outcome.reason());
                Ok(Some(CardRekeyPlan {
                    report,
                    write: None,
                }))
            }
        }
    }
}
