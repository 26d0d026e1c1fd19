//! `author_world_model`: a card's words replaced, in place, by authored
//! prose. The card keeps its id, revision, evidence and usage; the previous
//! text is kept as a version of field `card`.

use crate::error::{Error, Result};
use crate::outcome::Outcome;
use crate::record::DigestRow;
use crate::understanding::args::RewriteDigest;
use crate::understanding::reading::Reading;
use crate::world_models::args::{AuthorWorldModel, CardAuthor, CardsOf};
use crate::world_models::cards::revision_of;
use am_journal::{AuthorKind, AuthorRef};
use am_triples::JsonMap;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// The digest method of an authored card.
const AUTHORED_CARD: &str = "authored-card-v1";

/// What `author_world_model` did: `{target, card_id, revision, applied,
/// digest_method, in_place, version?, pending?}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct AuthoredCard {
    /// The card's key.
    pub target: String,
    /// The card's graph id (unchanged in place; the new revision's else).
    pub card_id: String,
    /// Its revision (unchanged in place; N+1 else).
    pub revision: i64,
    /// Whether the words changed (`false`: byte-identical text).
    pub applied: bool,
    /// The card's digest method after the call.
    pub digest_method: String,
    /// Whether the words were written in place (`false`: revision N+1).
    pub in_place: bool,
    /// The new version of field `card`, when applied in place.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<i64>,
    /// The fields still pending after the call (a pending title stays).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pending: Vec<String>,
}

impl crate::MemorySystem {
    /// `author_world_model` — replace the current card of `target` with
    /// authored words, in place (the engine never invents text): the card
    /// keeps its graph id, revision, evidence and usage; the previous text
    /// is kept as a version of field `card`; `authored-card-v1` with the
    /// words as `authored_lead`, the card's evidence as
    /// `authored_known_ids` and the author as `authored_by`, so the next
    /// evidence revision carries them. On a card whose summary is pending,
    /// the words are its summary (the marker clears, its task is done); a
    /// pending title stays pending. Byte-identical words: `applied: false`.
    ///
    /// # Errors
    /// `InvalidInput` (the spec's `ValueError`) for a blank target or text,
    /// no standing card for the target, an `expected_fingerprint` that is
    /// not the card's evidence, the provisional body handed back as the
    /// summary, bad provenance arguments, or a refused write (its reason:
    /// `stale`, `closed`, `no_task_queue`, ...); the home's failure.
    ///
    /// `in_place: false` forms revision N+1 instead and supersedes the
    /// prior card: the authored words as its summary
    /// (`authored-card-v1`), the prior's authored title, else the title
    /// pending; the prior's live tasks (`task_id` among them) are
    /// superseded with it. `expected_version` is then checked against the
    /// prior's digest version (a mismatch is `InvalidInput`, `stale`).
    pub fn author_world_model(&self, args: &AuthorWorldModel) -> Result<AuthoredCard> {
        let target = args.target.trim();
        if target.is_empty() {
            return Err(Error::invalid("author_world_model needs a target"));
        }
        if args.text.trim().is_empty() {
            return Err(Error::invalid(
                "author_world_model refuses blank text: the engine never invents the words",
            ));
        }
        let cards = self.current_cards(&CardsOf::new(&args.scope, &args.owner_id))?;
        let Some(card) = cards.get(target) else {
            return Err(Error::invalid(format!(
                "no standing world-model card for {target:?}: a card forms from evidence \
                 (world_model_pass) before its words are authored"
            )));
        };
        let view = DigestRow::of(card);
        let fingerprint = view.as_stored("evidence_fingerprint").unwrap_or("");
        if let Some(expected) = &args.expected_fingerprint
            && expected != fingerprint
        {
            return Err(Error::invalid(format!(
                "the card's evidence changed since the author read it (expected_fingerprint \
                 {expected:?}, the card's {fingerprint:?})"
            )));
        }
        let summary_pending = view.is_marked_pending("summary");
        if summary_pending && args.text == card.object {
            return Err(Error::invalid(
                "the text is the card's provisional body (its evidence briefing), not authored \
                 words",
            ));
        }
        let result = |applied: bool, version: Option<i64>, method: &str, pending: Vec<String>| {
            AuthoredCard {
                target: target.to_owned(),
                card_id: card.subject.clone(),
                revision: revision_of(card),
                applied,
                digest_method: method.to_owned(),
                in_place: args.in_place,
                version,
                pending,
            }
        };
        if !summary_pending && args.text.trim() == card.object.trim() {
            if !args.in_place {
                // Finish a revision a crash interrupted (its prior still
                // standing); else nothing is written.
                self.finish_revision(
                    &CardsOf::new(&args.scope, &args.owner_id),
                    target,
                    None,
                    &format!(
                        "world-model authored revision {} for {target}",
                        revision_of(card)
                    ),
                )?;
            }
            return Ok(result(
                false,
                None,
                view.as_stored("digest_method").unwrap_or(""),
                view.pending(),
            ));
        }
        // A label author is recorded as kind `unrecorded`; its reader,
        // sources and cause are checked as any reading's.
        let (checked_as, author_id) = match &args.author {
            CardAuthor::Ref(a) => (a.clone(), a.id.trim().to_owned()),
            CardAuthor::Label(l) => {
                let label = l.trim();
                if label.is_empty() {
                    return Err(Error::invalid(
                        "author must be {kind, id} or a non-empty label",
                    ));
                }
                (
                    AuthorRef::new(AuthorKind::Operator, label),
                    label.to_owned(),
                )
            }
        };
        let mut reading = Reading {
            author: &checked_as,
            reader: args.reader.as_ref(),
            sources: &args.sources,
            cause: &args.cause,
            understood_at: None,
            task_id: args.task_id.as_deref(),
        }
        .validate()?;
        if matches!(args.author, CardAuthor::Label(_)) {
            reading.author = AuthorRef::new(AuthorKind::Unrecorded, &author_id).to_map();
        }
        let known = match view.get("known_source_ids") {
            Some(Value::Array(ids)) => Value::Array(ids.clone()),
            _ => json!([]),
        };
        let mut card_attributes = JsonMap::new();
        card_attributes.insert("authored_lead".into(), json!(args.text));
        card_attributes.insert("authored_known_ids".into(), known);
        card_attributes.insert("authored_by".into(), json!(author_id));
        if !args.in_place {
            return self.author_new_revision(args, card, target, card_attributes);
        }
        let rewrite = RewriteDigest {
            digest_method: AUTHORED_CARD.to_owned(),
            task_id: args.task_id.clone(),
            ..RewriteDigest::new(
                &card.subject,
                &args.text,
                checked_as,
                args.cause.clone(),
                args.expected_version
                    .unwrap_or_else(|| view.version("digest_version")),
            )
        };
        let r = self.author_card_in_place(&rewrite, reading, card_attributes)?;
        let pending = view
            .pending()
            .into_iter()
            .filter(|f| f != "summary")
            .collect();
        match r.outcome {
            Outcome::Applied => Ok(result(true, r.version, AUTHORED_CARD, pending)),
            Outcome::Unchanged(_) | Outcome::Rearmed => Ok(result(
                false,
                None,
                view.as_stored("digest_method").unwrap_or(""),
                view.pending(),
            )),
            Outcome::Refused(reason) => Err(Error::invalid(format!(
                "author_world_model refused: {}",
                serde_json::to_value(reason)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_owned))
                    .unwrap_or_default()
            ))),
        }
    }
}

impl crate::MemorySystem {
    /// `author_world_model(in_place=False)`: revision N+1 with the authored
    /// words, the prior superseded.
    fn author_new_revision(
        &self,
        args: &AuthorWorldModel,
        card: &am_triples::TripleAssertion,
        target: &str,
        mut authored: JsonMap,
    ) -> Result<AuthoredCard> {
        let view = DigestRow::of(card);
        if let Some(expected) = args.expected_version
            && expected != view.version("digest_version")
        {
            return Err(Error::invalid(format!(
                "author_world_model refused: stale (expected_version {expected}, the card's {})",
                view.version("digest_version")
            )));
        }
        authored.insert("digest_method".into(), json!(AUTHORED_CARD));
        let revision = revision_of(card) + 1;
        let revised = self.form_revision(crate::world_models::revise::Revision {
            card,
            target,
            scope: &args.scope,
            owner: &args.owner_id,
            words: Some((args.text.clone(), authored)),
            aliases: crate::world_models::alias::aliases_of(card),
            set: JsonMap::new(),
            key: format!(
                "world-model-authored|{}|{target}|rev{revision}",
                args.owner_id
            ),
            pass: "author_world_model",
            reason: format!("world-model authored revision {revision} for {target}"),
            fold: None,
        })?;
        Ok(AuthoredCard {
            target: target.to_owned(),
            card_id: revised.card_id,
            revision: revised.revision,
            applied: true,
            digest_method: AUTHORED_CARD.to_owned(),
            in_place: false,
            version: None,
            pending: revised.pending,
        })
    }
}
