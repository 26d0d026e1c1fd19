//! `world_model_pass` (the sleep phase) and `world_model_update` (per turn):
//! one body, two cadences. Plan every card purely from the evidence, then
//! form each through formation's authored-or-pending step and close the
//! card it revises.

use crate::config::SleepTuning;
use crate::error::{Error, Result};
use crate::formation::authoring::{
    Author, AuthorField, AuthoredRecord, AuthoringReceipt, FormAuthored,
};
use crate::formation::records::MemoryRecordInput;
use crate::kinds::RecordKind;
use crate::recall::args::CloseRecord;
use crate::record::DigestRow;
use crate::valence::Gradation;
use crate::world_models::alias::{ALIAS_OVERLAP_FLOOR, AliasProposal, aliases_of, proposals};
use crate::world_models::args::{CardsOf, WorldModelPass, WorldModelUpdate};
use crate::world_models::briefing::{BriefingFacts, floor_briefing, signed_g, since_then};
use crate::world_models::cards::revision_of;
use crate::world_models::evidence::{Evidence, discovered_topics, evidence_scan, interest_key};
use am_journal::ClosureKind;
use am_triples::{JsonMap, TripleAssertion, TripleQuery};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, BTreeSet};

/// One card the pass formed (or, `report_only`, would form).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CardVerdict {
    /// The card's key.
    pub target: String,
    /// Its revision (1 for a first card).
    pub revision: i64,
    /// How many evidence records it is formed from.
    pub source_count: usize,
    /// Whether this call wrote it (`false` when it already stood: a replay;
    /// and under `report_only`).
    pub formed: bool,
    /// Its graph id (absent under `report_only`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub card_id: Option<String>,
    /// The fields still being written (`title`, `summary`).
    pub pending: Vec<String>,
}

/// A target whose evidence did not change since its current card.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct UnchangedCard {
    /// The card's key.
    pub target: String,
    /// The current card's graph id.
    pub card_id: String,
}

/// An eligible target left for a later pass.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SkippedTarget {
    /// The card's key.
    pub target: String,
    /// Why (`max_cards reached`).
    pub reason: String,
}

/// A standing card below its target's highest revision (an interrupted
/// revision), closed `supersede` into the highest one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RepairedCard {
    /// The card's key.
    pub target: String,
    /// The stale card's graph id.
    pub card_id: String,
    /// Whether it was closed (`false` under `report_only`).
    pub closed: bool,
}

/// What a world-model pass did: `{pass_name, targets_seen, eligible, formed,
/// unchanged, skipped, repaired, alias_proposals?, formed_count,
/// authoring}` (`alias_proposals` on the sleep cadence only).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct WorldModelReport {
    /// `world_model_pass`.
    pub pass_name: String,
    /// How many targets the evidence names.
    pub targets_seen: usize,
    /// The targets whose evidence clears the floor, sorted.
    pub eligible: Vec<String>,
    /// The cards formed, busiest target first.
    pub formed: Vec<CardVerdict>,
    /// The targets whose evidence is unchanged.
    pub unchanged: Vec<UnchangedCard>,
    /// The targets left for a later pass.
    pub skipped: Vec<SkippedTarget>,
    /// The interrupted revisions repaired.
    pub repaired: Vec<RepairedCard>,
    /// Merge proposals from evidence overlap (the sleep cadence only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alias_proposals: Option<Vec<AliasProposal>>,
    /// How many cards this call wrote.
    pub formed_count: usize,
    /// The authoring receipt (empty for cards that already stood).
    pub authoring: AuthoringReceipt,
}

/// One call of the body: the whole evidence (`targets` `None`, `scan_limit`
/// 0) or the named targets over a newest window.
struct Run<'a> {
    scopes: &'a [(String, String)],
    owner: &'a str,
    report_only: bool,
    tuning: &'a SleepTuning,
    targets: Option<&'a [String]>,
    scan_limit: usize,
}

/// `sha256("|".join(sorted(ids)))`, hex: the evidence a card is formed from.
pub(crate) fn evidence_fingerprint(ids: &[String]) -> String {
    let mut sorted: Vec<&str> = ids.iter().map(String::as_str).collect();
    sorted.sort_unstable();
    hex::encode(Sha256::digest(sorted.join("|").as_bytes()))
}

impl crate::MemorySystem {
    /// `world_model_pass` — the sleep phase: form or revise the card of
    /// every target the whole evidence supports, each PENDING its authored
    /// title and summary unless `author` writes them (the briefing is the
    /// provisional body; an authored title carries to the next revision,
    /// which asks only for the summary); a target whose evidence fingerprint
    /// is unchanged forms nothing; an interrupted revision (two standing
    /// cards) is repaired. Returns the report, whose `authoring` receipt a
    /// night sums with its other phases'.
    ///
    /// # Errors
    /// `InvalidInput` for a blank owner, no scope pair, a bad tuning, or
    /// (unless `report_only`) a home without a task queue, before anything
    /// is written; the home's failure.
    pub fn world_model_pass(
        &self,
        args: &WorldModelPass,
        author: Option<&dyn Author>,
    ) -> Result<WorldModelReport> {
        self.world_model_run(
            &Run {
                scopes: &args.scopes,
                owner: args.owner_id.trim(),
                report_only: args.report_only,
                tuning: &args.tuning,
                targets: None,
                scan_limit: 0,
            },
            author,
        )
    }

    /// `world_model_update` — the per-turn update: revise the named
    /// targets' cards from the newest `scan_limit` rows of each pair (at
    /// least 1). Eventual-consistent: the sleep pass normalizes over the
    /// whole evidence. On the window no topic is discovered, no interest
    /// elected and no alias proposed; an interrupted revision is repaired as
    /// the pass repairs it (0.3.2 runs the repair on both cadences).
    ///
    /// # Errors
    /// As [`Self::world_model_pass`], and `InvalidInput` when no target is
    /// named.
    pub fn world_model_update(
        &self,
        args: &WorldModelUpdate,
        author: Option<&dyn Author>,
    ) -> Result<WorldModelReport> {
        let wanted: Vec<String> = args
            .targets
            .iter()
            .map(|t| t.trim().to_owned())
            .filter(|t| !t.is_empty())
            .collect();
        if wanted.is_empty() {
            return Err(Error::invalid(
                "world_model_update needs the targets the turn touched (the sleep pass updates \
                 every target)",
            ));
        }
        self.world_model_run(
            &Run {
                scopes: &args.scopes,
                owner: args.owner_id.trim(),
                report_only: false,
                tuning: &args.tuning,
                targets: Some(&wanted),
                scan_limit: args.scan_limit.max(1),
            },
            author,
        )
    }

    fn world_model_run(
        &self,
        run: &Run<'_>,
        author: Option<&dyn Author>,
    ) -> Result<WorldModelReport> {
        let owner = run.owner;
        if owner.is_empty() {
            return Err(Error::invalid(
                "a world-model pass needs an owner_id: no card is about the owner, which a blank \
                 owner cannot say",
            ));
        }
        let Some((home_scope, home_owner)) = run.scopes.first() else {
            return Err(Error::invalid(
                "a world-model pass needs at least one (scope, owner_id) pair",
            ));
        };
        run.tuning.validate()?;
        if !run.report_only && !self.has_task_queue() {
            return Err(Error::invalid(
                "a world-model pass forms its cards pending their authored title and summary, \
                 whose tasks need the home's task queue: open it with task_queue (report_only \
                 reads run without)",
            ));
        }
        let sleep_cadence = run.targets.is_none() && run.scan_limit == 0;
        let scan = evidence_scan(
            self.store.as_ref(),
            self.journal.as_ref(),
            run.scopes,
            run.scan_limit,
        )?;
        let evidence = scan.evidence;
        let mut by_target: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for (gid, e) in &evidence {
            for t in e.targets(owner) {
                by_target.entry(t).or_default().push(gid.clone());
            }
        }
        let mut elected: BTreeSet<String> = BTreeSet::new();
        if sleep_cadence {
            let mut interests: BTreeMap<String, Vec<String>> = BTreeMap::new();
            for (gid, e) in &evidence {
                if e.kind == "interest"
                    && let Some(t) = interest_key(e)
                {
                    interests.entry(t).or_default().push(gid.clone());
                }
            }
            for (t, ids) in interests {
                let merged: BTreeSet<String> = by_target
                    .get(&t)
                    .into_iter()
                    .flatten()
                    .chain(&ids)
                    .cloned()
                    .collect();
                by_target.insert(t.clone(), merged.into_iter().collect());
                elected.insert(t);
            }
            if !evidence.is_empty() {
                for (k, ids) in discovered_topics(&evidence, run.tuning) {
                    let t = format!("topic:{k}");
                    // An elected or stamped topic keeps its name.
                    by_target.entry(t).or_insert_with(|| {
                        let set: BTreeSet<String> = ids.into_iter().collect();
                        set.into_iter().collect()
                    });
                }
            }
        }
        // A whole scan read every row of the home pair, its cards among them:
        // their rows are read by id instead of through the card index (whose
        // first use on a system is a whole read of its own).
        let standing = match scan.card_ids {
            Some(ids) if home_owner.trim() == home_owner => {
                self.standing_of_ids(ids, &scan.closed)?
            }
            _ => self.standing_cards(&CardsOf::new(home_scope, home_owner))?,
        };
        // A bound alias's evidence counts toward its primary's card.
        let mut aliases: BTreeMap<String, String> = BTreeMap::new();
        for (primary, rows) in &standing {
            if let Some(card) = rows.last() {
                for a in aliases_of(card) {
                    if &a != primary {
                        aliases.insert(a, primary.clone());
                    }
                }
            }
        }
        for (alias, primary) in &aliases {
            if let Some(folded) = by_target.remove(alias)
                && !folded.is_empty()
            {
                let merged: BTreeSet<String> = by_target
                    .get(primary)
                    .into_iter()
                    .flatten()
                    .chain(&folded)
                    .cloned()
                    .collect();
                by_target.insert(primary.clone(), merged.into_iter().collect());
            }
        }
        // An interest still titled with a card's old key elects the card it
        // now answers to.
        let elected: BTreeSet<String> = elected
            .into_iter()
            .map(|t| aliases.get(&t).cloned().unwrap_or(t))
            .collect();
        if let Some(targets) = run.targets {
            let wanted: BTreeSet<&str> = targets
                .iter()
                .map(|t| aliases.get(t).map_or(t.as_str(), String::as_str))
                .collect();
            by_target.retain(|t, _| wanted.contains(t.as_str()));
        }
        let floor = run.tuning.world_model_evidence_floor;
        let eligible: BTreeMap<&String, &Vec<String>> = by_target
            .iter()
            .filter(|(t, ids)| ids.len() >= floor || elected.contains(*t))
            .collect();
        let mut report = WorldModelReport {
            pass_name: "world_model_pass".to_owned(),
            targets_seen: by_target.len(),
            eligible: eligible.keys().map(|t| (*t).clone()).collect(),
            formed: Vec::new(),
            unchanged: Vec::new(),
            skipped: Vec::new(),
            repaired: Vec::new(),
            alias_proposals: sleep_cadence
                .then(|| proposals(&by_target, &aliases, ALIAS_OVERLAP_FLOOR)),
            formed_count: 0,
            authoring: AuthoringReceipt::default(),
        };
        // An interrupted revision: close every standing card below its
        // target's highest revision (closure ids are derived, so a re-close
        // is a no-op).
        for (target, rows) in &standing {
            let Some(top) = rows.last() else { continue };
            for stale in &rows[..rows.len() - 1] {
                if !run.report_only {
                    self.tasks()?
                        .supersede_target(&stale.subject, "card_revised")?;
                    self.close_record(&CloseRecord {
                        replacement_ids: vec![top.subject.clone()],
                        ..CloseRecord::new(
                            &stale.subject,
                            ClosureKind::Supersede,
                            &format!(
                                "world-model revision repair for {target} (an interrupted \
                                 supersede)"
                            ),
                        )
                    })?;
                }
                report.repaired.push(RepairedCard {
                    target: target.clone(),
                    card_id: stale.subject.clone(),
                    closed: !run.report_only,
                });
            }
        }
        let current: BTreeMap<&String, &TripleAssertion> = standing
            .iter()
            .filter_map(|(t, rows)| rows.last().map(|r| (t, r)))
            .collect();
        let mut ranked: Vec<(&String, &Vec<String>)> = eligible.into_iter().collect();
        ranked.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then(a.0.cmp(b.0)));
        let mut budget = run.tuning.world_model_max_cards;
        for (target, ids) in ranked {
            let prior = current.get(target).copied();
            // A target with no card and no budget left is skipped: its
            // fingerprint is never read.
            if prior.is_none() && budget == 0 {
                report.skipped.push(SkippedTarget {
                    target: target.clone(),
                    reason: "max_cards reached".to_owned(),
                });
                continue;
            }
            let fingerprint = evidence_fingerprint(ids);
            if let Some(p) = prior
                && DigestRow::of(p).as_stored("evidence_fingerprint") == Some(fingerprint.as_str())
            {
                report.unchanged.push(UnchangedCard {
                    target: target.clone(),
                    card_id: p.subject.clone(),
                });
                continue;
            }
            if budget == 0 {
                report.skipped.push(SkippedTarget {
                    target: target.clone(),
                    reason: "max_cards reached".to_owned(),
                });
                continue;
            }
            budget -= 1;
            let plan = self.plan_card(run, target, ids, &fingerprint, prior, &evidence)?;
            let verdict = if run.report_only {
                CardVerdict {
                    target: target.clone(),
                    revision: plan.revision,
                    source_count: plan.source_count,
                    formed: false,
                    card_id: None,
                    pending: plan.fields.iter().map(|f| f.as_str().to_owned()).collect(),
                }
            } else {
                self.form_card(run, target, plan, prior, &mut report.authoring, author)?
            };
            report.formed.push(verdict);
        }
        report.formed_count = report.formed.iter().filter(|v| v.formed).count();
        Ok(report)
    }

    /// The standing-feeling line of a target: its gradation (or, for a
    /// `topic:` target never appraised, its `concept:` twin's), omitted when
    /// neither was ever appraised or the read fails.
    fn feeling_line(&self, target: &str, scope: &str, owner: &str) -> String {
        let mut lookups = vec![target.to_owned()];
        if let Some(rest) = target.strip_prefix("topic:") {
            lookups.push(format!("concept:{rest}"));
        }
        let Ok(grades) = self.gradation(&Gradation {
            target_ids: Some(lookups.clone()),
            ..Gradation::new(scope, owner)
        }) else {
            return String::new();
        };
        let standing = lookups.iter().find_map(|k| {
            grades
                .0
                .iter()
                .find(|(t, _)| t == k)
                .map(|(_, g)| g)
                .filter(|g| g.positive_count > 0 || g.negative_count > 0)
        });
        let Some(g) = standing else {
            return String::new();
        };
        let marks: Vec<&str> = [("bond", g.bonded), ("scar", g.scarred)]
            .iter()
            .filter(|(_, on)| *on)
            .map(|(m, _)| *m)
            .collect();
        let suffix = if marks.is_empty() {
            String::new()
        } else {
            format!(" ({})", marks.join(", "))
        };
        format!("Standing feeling: net {}{suffix}.", signed_g(g.net))
    }

    fn plan_card(
        &self,
        run: &Run<'_>,
        target: &str,
        ids: &[String],
        fingerprint: &str,
        prior: Option<&TripleAssertion>,
        evidence: &BTreeMap<String, Evidence>,
    ) -> Result<CardPlan> {
        let tuning = run.tuning;
        let mut rows: Vec<&Evidence> = ids.iter().filter_map(|g| evidence.get(g)).collect();
        rows.sort_by(|a, b| (&a.observed_at, &a.record_id).cmp(&(&b.observed_at, &b.record_id)));
        let first_seen = rows
            .first()
            .map(|r| r.observed_at.clone())
            .unwrap_or_default();
        let last_seen = rows
            .last()
            .map(|r| r.observed_at.clone())
            .unwrap_or_default();
        let mut facets: BTreeMap<&str, usize> = BTreeMap::new();
        let mut kinds: BTreeMap<&str, usize> = BTreeMap::new();
        for r in &rows {
            for k in &r.keywords {
                *facets.entry(k.as_str()).or_default() += 1;
            }
            *kinds.entry(r.kind.as_str()).or_default() += 1;
        }
        let top_facets: Vec<String> = by_count(facets)
            .into_iter()
            .take(tuning.world_model_top_facets)
            .map(|(k, _)| k.to_owned())
            .collect();
        let kinds_line = by_count(kinds)
            .into_iter()
            .map(|(k, n)| format!("{n} {k}"))
            .collect::<Vec<_>>()
            .join(", ");
        let display = target.split_once(':').map_or(target, |(_, d)| d);
        let prior_view = prior.map(DigestRow::of);
        let card_aliases: BTreeSet<String> = prior
            .map(aliases_of)
            .unwrap_or_default()
            .into_iter()
            .collect();
        let mut attributes = JsonMap::new();
        attributes.insert("world_model".into(), json!(true));
        attributes.insert("target".into(), json!(target));
        let revision = prior.map_or(1, |p| revision_of(p) + 1);
        attributes.insert("revision".into(), json!(revision));
        attributes.insert("evidence_fingerprint".into(), json!(fingerprint));
        attributes.insert("source_count".into(), json!(rows.len()));
        let mut known: Vec<String> = rows.iter().map(|r| r.record_id.clone()).collect();
        known.sort();
        attributes.insert("known_source_ids".into(), json!(known));
        attributes.insert("first_seen".into(), json!(first_seen));
        attributes.insert("last_seen".into(), json!(last_seen));
        if !card_aliases.is_empty() {
            attributes.insert("aliases".into(), json!(card_aliases));
        }
        let prior_method = prior_view
            .and_then(|v| v.as_stored("digest_method"))
            .unwrap_or("");
        let (digest, method) = match (prior, prior_view) {
            (Some(p), Some(v)) if prior_method.starts_with("authored") => {
                let lead = v.text("authored_lead").map_or_else(
                    || {
                        p.object
                            .split("\n\nSince then")
                            .next()
                            .unwrap_or("")
                            .trim()
                            .to_owned()
                    },
                    str::to_owned,
                );
                let baseline: BTreeSet<String> =
                    ["authored_known_ids", "known_source_ids", "source_ids"]
                        .iter()
                        .find_map(|k| match v.get(k) {
                            Some(Value::Array(a)) if !a.is_empty() => Some(
                                a.iter()
                                    .filter_map(Value::as_str)
                                    .map(str::to_owned)
                                    .collect(),
                            ),
                            _ => None,
                        })
                        .unwrap_or_default();
                let new_rows: Vec<&Evidence> = rows
                    .iter()
                    .copied()
                    .filter(|r| !baseline.contains(&r.record_id))
                    .collect();
                attributes.insert("authored_lead".into(), json!(lead));
                attributes.insert("authored_known_ids".into(), json!(baseline));
                attributes.insert(
                    "authored_by".into(),
                    json!(v.text("authored_by").unwrap_or("unknown")),
                );
                (
                    format!("{lead}\n\n{}", since_then(&rows, &new_rows)),
                    "authored-card-v1+delta",
                )
            }
            _ => {
                let feeling = self.feeling_line(target, &run.scopes[0].0, run.owner);
                let body = floor_briefing(
                    &rows,
                    &BriefingFacts {
                        display,
                        feeling: &feeling,
                        kinds_line: &kinds_line,
                        top_facets: &top_facets,
                    },
                );
                (body, "mechanical-card-v2")
            }
        };
        attributes.insert("digest_method".into(), json!(method));
        // An authored title (one with its provenance) carries to the next
        // revision; the legacy "World model: …" label never does.
        let carried_title = prior_view.and_then(|v| {
            let title = v.title()?;
            let Some(Value::Object(prov)) = v.get("title_provenance") else {
                return None;
            };
            (!v.is_marked_pending("title")).then(|| (title.to_owned(), prov.clone()))
        });
        let mut record = MemoryRecordInput::new(RecordKind::WorldModel, "", &digest);
        record.title = None;
        let fields = match carried_title {
            Some((title, mut prov)) => {
                prov.insert(
                    "carried_from".into(),
                    json!(prior.map(|p| p.subject.clone())),
                );
                attributes.insert("title_provenance".into(), Value::Object(prov));
                record.title = Some(title);
                vec![AuthorField::Summary]
            }
            None => vec![AuthorField::Title, AuthorField::Summary],
        };
        record.keywords = top_facets;
        if !target.starts_with("topic:") {
            record.participants = std::iter::once(target.to_owned())
                .chain(
                    card_aliases
                        .iter()
                        .filter(|a| !a.starts_with("topic:"))
                        .cloned(),
                )
                .collect();
        }
        record.edges = rows
            .iter()
            .rev()
            .take(tuning.world_model_max_sources)
            .map(|r| ("derived_from".to_owned(), r.record_id.clone()))
            .collect();
        if let Some(p) = prior {
            record.edges.push(("refines".to_owned(), p.subject.clone()));
        }
        record.attributes = attributes;
        Ok(CardPlan {
            revision,
            source_count: rows.len(),
            key: format!(
                "world-model|{}|{target}|rev{revision}|{fingerprint}",
                run.owner
            ),
            source_ids: known,
            record,
            fields,
        })
    }

    fn form_card(
        &self,
        run: &Run<'_>,
        target: &str,
        plan: CardPlan,
        prior: Option<&TripleAssertion>,
        receipt: &mut AuthoringReceipt,
        author: Option<&dyn Author>,
    ) -> Result<CardVerdict> {
        let (scope, _) = &run.scopes[0];
        let expected = crate::ids::digest_assertion_id(&plan.key, 0);
        let existed = !self
            .store
            .query(&TripleQuery {
                assertion_ids: Some(vec![expected.clone()]),
                limit: 1,
                ..TripleQuery::default()
            })?
            .is_empty();
        let formed = self.form_authored_or_pending(
            &FormAuthored {
                pass: "world_model_pass".to_owned(),
                records: vec![AuthoredRecord {
                    record: plan.record,
                    fields: plan.fields,
                    source_ids: plan.source_ids,
                }],
                scope: scope.clone(),
                owner_id: run.owner.to_owned(),
                idempotency_key: plan.key,
                turn_id: None,
            },
            author,
        )?;
        let card_id = formed.record_ids.first().cloned().unwrap_or_default();
        receipt.absorb(formed.authoring);
        if let Some(p) = prior
            && p.subject != card_id
        {
            // The prior card's authoring tasks go with it (the new revision
            // owes its own), then it leaves recall through the closure fold.
            self.tasks()?.supersede_target(&p.subject, "card_revised")?;
            self.close_record(&CloseRecord {
                replacement_ids: vec![card_id.clone()],
                ..CloseRecord::new(
                    &p.subject,
                    ClosureKind::Supersede,
                    &format!(
                        "world-model revision {} for {target} (evidence changed)",
                        plan.revision
                    ),
                )
            })?;
        }
        let stored = self.store.query(&TripleQuery {
            assertion_ids: Some(vec![expected]),
            limit: 1,
            ..TripleQuery::default()
        })?;
        let pending = stored
            .first()
            .map(|a| DigestRow::of(a).pending())
            .unwrap_or_default();
        Ok(CardVerdict {
            target: target.to_owned(),
            revision: plan.revision,
            source_count: plan.source_count,
            formed: !existed,
            card_id: Some(card_id),
            pending,
        })
    }
}

/// Counted names, most frequent first, ties by name.
fn by_count(m: BTreeMap<&str, usize>) -> Vec<(&str, usize)> {
    let mut v: Vec<(&str, usize)> = m.into_iter().collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    v
}

/// One card planned: its record, what the author is asked for, its key.
struct CardPlan {
    revision: i64,
    source_count: usize,
    key: String,
    source_ids: Vec<String>,
    record: MemoryRecordInput,
    fields: Vec<AuthorField>,
}
