//! A card's next revision formed from the current one (not from new
//! evidence): `alias_world_model`'s and `author_world_model(in_place=False)`'s
//! append-only write. The new card carries the prior's key, evidence
//! (fingerprint, source ids, first and last seen), keywords and aliases,
//! `refines` it and derives from its newest evidence; its title carries when
//! authored, else forms pending; its summary is authored or forms pending
//! over the prior's body. The prior (and any card folded into it) is closed
//! `supersede` after the new card forms, its live tasks superseded first; a
//! crash between the two leaves two standing cards, which the pass repairs.

use crate::error::Result;
use crate::formation::authoring::{AuthorField, AuthoredRecord, FormAuthored};
use crate::formation::records::MemoryRecordInput;
use crate::kinds::RecordKind;
use crate::recall::args::CloseRecord;
use crate::record::DigestRow;
use crate::world_models::args::CardsOf;
use crate::world_models::cards::revision_of;
use am_journal::ClosureKind;
use am_triples::{JsonMap, TripleAssertion, TripleQuery};
use serde_json::{Value, json};

/// How many of the prior's evidence ids the new card derives from (newest
/// first), as 0.3.2's authored and aliased revisions do.
const CARRIED_EDGES: usize = 8;

/// The evidence attributes a revision carries unchanged.
const CARRIED: [&str; 5] = [
    "evidence_fingerprint",
    "source_count",
    "known_source_ids",
    "first_seen",
    "last_seen",
];

/// The authored-summary attributes a revision carries when it carries the
/// summary.
const AUTHORED: [&str; 4] = [
    "digest_method",
    "authored_lead",
    "authored_known_ids",
    "authored_by",
];

/// One revision to form.
pub(crate) struct Revision<'a> {
    /// The current card.
    pub(crate) card: &'a TripleAssertion,
    /// Its key.
    pub(crate) target: &'a str,
    /// The pair it forms in.
    pub(crate) scope: &'a str,
    pub(crate) owner: &'a str,
    /// The new body: `Some` authored words (the summary is authored), or
    /// `None` to carry the prior's body (authored when the prior's is,
    /// else pending over it).
    pub(crate) words: Option<(String, JsonMap)>,
    /// The card's aliases after the revision.
    pub(crate) aliases: Vec<String>,
    /// Attributes set beside (an alias's `alias_reason`).
    pub(crate) set: JsonMap,
    /// The batch key.
    pub(crate) key: String,
    /// The pass name formation records.
    pub(crate) pass: &'static str,
    /// Why the prior closes.
    pub(crate) reason: String,
    /// Another card folded into this one (an alias's own card), with why.
    pub(crate) fold: Option<(&'a TripleAssertion, String)>,
}

/// What a revision formed.
pub(crate) struct Revised {
    pub(crate) card_id: String,
    pub(crate) revision: i64,
    pub(crate) pending: Vec<String>,
    pub(crate) superseded: Vec<String>,
}

fn strings(v: Option<&Value>) -> Vec<String> {
    match v {
        Some(Value::Array(a)) => a
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
        _ => Vec::new(),
    }
}

/// Whether a card's summary is authored (an `authored…` method, not pending).
pub(crate) fn summary_authored(card: &TripleAssertion) -> bool {
    let v = DigestRow::of(card);
    v.as_stored("digest_method")
        .is_some_and(|m| m.starts_with("authored"))
        && !v.is_marked_pending("summary")
}

/// A card's authored title with its provenance (`None`: pending, a legacy
/// label, or never authored).
pub(crate) fn authored_title(card: &TripleAssertion) -> Option<(String, JsonMap)> {
    let v = DigestRow::of(card);
    let title = v.title()?;
    let Some(Value::Object(prov)) = v.get("title_provenance") else {
        return None;
    };
    (!v.is_marked_pending("title")).then(|| (title.to_owned(), prov.clone()))
}

impl crate::MemorySystem {
    /// Close `old` `supersede` into `card_id`: its live tasks first (the new
    /// revision owes its own), then the closure that takes it out of recall.
    /// A re-close is a no-op (closure ids are derived).
    pub(crate) fn close_into(&self, old: &TripleAssertion, card_id: &str, why: &str) -> Result<()> {
        if self.has_task_queue() {
            self.tasks()?
                .supersede_target(&old.subject, "card_revised")?;
        }
        self.close_record(&CloseRecord {
            replacement_ids: vec![card_id.to_owned()],
            ..CloseRecord::new(&old.subject, ClosureKind::Supersede, why)
        })?;
        Ok(())
    }

    /// The end of an interrupted revision of `target` (a crash after the new
    /// card formed, before its prior closed): every standing card below the
    /// current one, and `also` (an alias's own card), closed into it. Returns
    /// the cards closed.
    pub(crate) fn finish_revision(
        &self,
        pair: &CardsOf,
        target: &str,
        also: Option<&TripleAssertion>,
        why: &str,
    ) -> Result<Vec<String>> {
        let standing = self.standing_cards(pair)?;
        let Some(rows) = standing.get(target) else {
            return Ok(Vec::new());
        };
        let Some(top) = rows.last() else {
            return Ok(Vec::new());
        };
        let mut closed = Vec::new();
        for old in rows[..rows.len() - 1].iter().chain(also) {
            if old.subject != top.subject {
                self.close_into(old, &top.subject, why)?;
                closed.push(old.subject.clone());
            }
        }
        Ok(closed)
    }

    /// Form `r`'s revision and close what it supersedes.
    pub(crate) fn form_revision(&self, r: Revision<'_>) -> Result<Revised> {
        let prior = DigestRow::of(r.card);
        let revision = revision_of(r.card) + 1;
        let mut attributes = JsonMap::new();
        attributes.insert("world_model".into(), json!(true));
        attributes.insert("target".into(), json!(r.target));
        attributes.insert("revision".into(), json!(revision));
        for k in CARRIED {
            if let Some(v) = prior.get(k) {
                attributes.insert(k.into(), v.clone());
            }
        }
        if !r.aliases.is_empty() {
            attributes.insert("aliases".into(), json!(r.aliases));
        }
        let mut fields = Vec::new();
        let digest = match r.words {
            Some((words, authored)) => {
                attributes.extend(authored);
                words
            }
            None => {
                if summary_authored(r.card) {
                    for k in AUTHORED {
                        if let Some(v) = prior.get(k) {
                            attributes.insert(k.into(), v.clone());
                        }
                    }
                } else {
                    if let Some(m) = prior.as_stored("digest_method") {
                        attributes.insert("digest_method".into(), json!(m));
                    }
                    fields.push(AuthorField::Summary);
                }
                r.card.object.clone()
            }
        };
        attributes.extend(r.set);
        let mut record = MemoryRecordInput::new(RecordKind::WorldModel, "", &digest);
        record.title = None;
        match authored_title(r.card) {
            Some((title, mut prov)) => {
                prov.insert("carried_from".into(), json!(r.card.subject));
                attributes.insert("title_provenance".into(), Value::Object(prov));
                record.title = Some(title);
            }
            None => fields.insert(0, AuthorField::Title),
        }
        record.keywords = strings(prior.get("keywords"));
        if !r.target.starts_with("topic:") {
            record.participants = std::iter::once(r.target.to_owned())
                .chain(
                    r.aliases
                        .iter()
                        .filter(|a| !a.starts_with("topic:"))
                        .cloned(),
                )
                .collect();
        }
        let known = strings(prior.get("known_source_ids"));
        record.edges = known
            .iter()
            .rev()
            .take(CARRIED_EDGES)
            .map(|id| ("derived_from".to_owned(), id.clone()))
            .collect();
        record
            .edges
            .push(("refines".to_owned(), r.card.subject.clone()));
        record.attributes = attributes;
        let expected = crate::ids::digest_assertion_id(&r.key, 0);
        let formed = self.form_authored_or_pending(
            &FormAuthored {
                pass: r.pass.to_owned(),
                records: vec![AuthoredRecord {
                    record,
                    fields,
                    source_ids: known,
                }],
                scope: r.scope.to_owned(),
                owner_id: r.owner.to_owned(),
                idempotency_key: r.key.clone(),
                turn_id: None,
            },
            None,
        )?;
        let card_id = formed.record_ids.first().cloned().unwrap_or_default();
        let mut superseded = Vec::new();
        let folds = std::iter::once((r.card, r.reason)).chain(r.fold);
        for (old, why) in folds {
            if old.subject != card_id {
                self.close_into(old, &card_id, &why)?;
                superseded.push(old.subject.clone());
            }
        }
        let pending = self
            .store
            .query(&TripleQuery {
                assertion_ids: Some(vec![expected]),
                limit: 1,
                ..TripleQuery::default()
            })?
            .first()
            .map(|a| DigestRow::of(a).pending())
            .unwrap_or_default();
        Ok(Revised {
            card_id,
            revision,
            pending,
            superseded,
        })
    }
}
