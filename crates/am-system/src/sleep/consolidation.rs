//! `consolidation_pass`: the tending sub-phase's one write. At most
//! `max_candidates` low-risk duplicate-title groups of the maintenance report
//! become inactive, review-gated `kind="summary"` candidates with `summarizes`
//! edges to every source; idempotent by source set (a group an existing
//! candidate already covers, equal or superset, is skipped); sources
//! byte-untouched, nothing merged or removed while asleep.
//!
//! A candidate's title and summary are the host's `author`'s, asked from the
//! pass's composed body (what the group is and why it stands), or form
//! pending with the failure recorded; 0.3.2 stores its own composed title
//! (`Consolidated: <first title>`) and body instead: the 0.5.2 spec's
//! authored-or-pending rule is followed here (the proposal keeps its
//! `candidate_title` in the report). Every candidate of one pass and the
//! tasks they owe are ONE transaction. `as_of` anchors an audit read only:
//! a write under it is refused.
//!
//! Spec: memory-system.md "The night's sub-phases and data-quality tending"
//! (`consolidation_pass`), api.md "Authored with the record", "Vocabularies
//! and tuning constants" (`CONSOLIDATION_PROTECTED_KINDS`, `SleepTuning`);
//! 0.3.2 `maintenance.consolidation_pass` for the arguments, the keys and the
//! idempotency key.

use crate::error::{Error, Result};
use crate::formation::authoring::{
    Author, AuthorField, AuthoredRecord, AuthoringReceipt, FormAuthored,
    maintenance_candidate_record,
};
use crate::kinds::RecordKind;
use crate::outcome::Warned;
use crate::sleep::args::{MaintenanceReport, sleep_pairs};
use crate::sleep::maintenance::{Maintenance, ProposalSignal, Risk, maintenance_report};
use crate::sleep::tuning::SleepTuning;
use crate::system::MemorySystem;
use am_triples::TripleQuery;
use serde::{Deserialize, Serialize};
use serde_json::json;
use sha2::{Digest, Sha256};
use std::collections::HashSet;

fn two() -> i64 {
    2
}

/// `consolidation_pass(system, *, scopes, owner_id, max_candidates=2,
/// proposal_ids=(), report_only=False, as_of=None, scan_limit=None,
/// tuning=SleepTuning(), author=None)`'s arguments (the `author` is the
/// host's hook).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ConsolidationPass {
    /// `(scope, owner_id)` pairs the report reads; candidates form in the
    /// first pair's scope.
    pub scopes: Vec<(String, String)>,
    /// The candidates' owner.
    pub owner_id: String,
    /// At most this many candidates (inside `tuning.candidate_cap_band`;
    /// outside it the call is refused, never clamped).
    #[serde(default = "two")]
    pub max_candidates: i64,
    /// Only these proposals (ids of the report's
    /// `consolidation_proposals`); empty: every eligible one.
    #[serde(default)]
    pub proposal_ids: Vec<String>,
    /// Compute the report and write nothing.
    #[serde(default)]
    pub report_only: bool,
    /// The journal seq the report reads up to (audit reads only: refused
    /// with a write).
    #[serde(default)]
    pub as_of: Option<i64>,
    /// How many of the newest records the near-duplicate scan compares.
    #[serde(default)]
    pub scan_limit: Option<usize>,
    /// Every policy number of the pass.
    #[serde(default)]
    pub tuning: SleepTuning,
}

impl ConsolidationPass {
    /// The pass over `scopes` forming candidates for `owner_id`, with every
    /// default.
    pub fn new(scopes: &[(&str, &str)], owner_id: &str) -> Self {
        ConsolidationPass {
            scopes: scopes
                .iter()
                .map(|(s, o)| ((*s).to_owned(), (*o).to_owned()))
                .collect(),
            owner_id: owner_id.to_owned(),
            max_candidates: two(),
            proposal_ids: Vec::new(),
            report_only: false,
            as_of: None,
            scan_limit: None,
            tuning: SleepTuning::default(),
        }
    }
}

/// One candidate the pass formed, or found standing.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct CreatedCandidate {
    /// The candidate's graph id.
    pub candidate_id: String,
    /// The proposal it stands for.
    pub proposal_id: String,
    /// Its sources.
    pub source_ids: Vec<String>,
    /// `false` when it already stood (a run again).
    pub created: bool,
}

/// A proposal the pass did not form, and why (or the dry run's one entry).
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct SkippedProposal {
    /// The proposal (absent on the dry run's entry).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub proposal_id: Option<String>,
    /// Why.
    pub reason: String,
}

/// What `consolidation_pass` did: 0.3.2's dict key for key, with the spec's
/// `authoring` receipt.
#[derive(Debug, Clone, Default, PartialEq, Serialize, schemars::JsonSchema)]
pub struct ConsolidationResult {
    /// `"consolidation_pass"`.
    pub pass_name: String,
    /// The maintenance report the pass read.
    pub report: Maintenance,
    /// The candidates formed or found standing, in proposal order.
    pub created: Vec<CreatedCandidate>,
    /// The proposals skipped, and why.
    pub skipped: Vec<SkippedProposal>,
    /// How many candidates this run formed.
    pub created_count: usize,
    /// The candidates authored, and the failures of those formed pending.
    pub authoring: AuthoringReceipt,
}

/// The candidate's provisional body: what the group is and that nothing was
/// touched (the words the author writes its title and summary from).
fn candidate_body(sources: usize, kind: &str, title_key: &str) -> String {
    format!(
        "{sources} {kind} records share one normalized title ({title_key:?}). This candidate stands for the \
         group until a waking review decides; each source is kept as it was and can be opened on \
         its own: the night merged nothing and removed nothing."
    )
}

impl MemorySystem {
    /// The tending write (see the module doc): the maintenance report, then
    /// at most `max_candidates` duplicate-title candidates, authored by
    /// `author` or pending, in one transaction.
    ///
    /// # Errors
    /// `InvalidInput` for `as_of` with a write, a `max_candidates` outside
    /// the band, an invalid tuning, no scope pair or a blank scope, a blank
    /// owner, or (before anything is written) a candidate that would form
    /// pending on a home opened without its task queue; the store's or
    /// journal's failure.
    pub fn consolidation_pass(
        &self,
        args: &ConsolidationPass,
        author: Option<&dyn Author>,
    ) -> Result<Warned<ConsolidationResult>> {
        if args.as_of.is_some() && !args.report_only {
            return Err(Error::invalid(
                "consolidation_pass: as_of anchors an audit read; forming candidates against a past \
                 anchor would forge the timeline: pass report_only=true with as_of",
            ));
        }
        let cap = args.tuning.validated_candidate_cap(args.max_candidates)?;
        let pairs = sleep_pairs("consolidation_pass", &args.scopes)?;
        let owner = args.owner_id.trim();
        if owner.is_empty() && !args.report_only {
            return Err(Error::invalid(
                "consolidation_pass needs the candidates' owner_id, got a blank one",
            ));
        }
        let report = maintenance_report(
            self.store.as_ref(),
            self.journal.as_ref(),
            &MaintenanceReport {
                scopes: pairs.clone(),
                as_of: args.as_of,
                scan_limit: args.scan_limit,
                tuning: args.tuning.clone(),
            },
        )?;
        let mut out = ConsolidationResult {
            pass_name: "consolidation_pass".to_owned(),
            report,
            created: Vec::new(),
            skipped: Vec::new(),
            created_count: 0,
            authoring: AuthoringReceipt::default(),
        };
        if args.report_only {
            out.skipped.push(SkippedProposal {
                proposal_id: None,
                reason: "report_only requested".to_owned(),
            });
            return Ok(Warned::new(out, Vec::new()));
        }
        let wanted: HashSet<&str> = args
            .proposal_ids
            .iter()
            .map(|p| p.trim())
            .filter(|p| !p.is_empty())
            .collect();
        let covered: Vec<HashSet<&str>> = out
            .report
            .existing_candidates
            .iter()
            .filter(|c| !c.source_ids.is_empty())
            .map(|c| c.source_ids.iter().map(String::as_str).collect())
            .collect();
        let home_scope = pairs[0].0.clone();
        let mut batches = Vec::new();
        let mut prepared_all = Vec::new();
        let mut created = Vec::new();
        let mut skipped = Vec::new();
        let selected = out.report.consolidation_proposals.iter().filter(|p| {
            p.signal == ProposalSignal::DuplicateTitle
                && p.risk == Risk::Low
                && (wanted.is_empty() || wanted.contains(p.id.as_str()))
        });
        for proposal in selected.take(cap) {
            let sources = proposal.source_ids.clone();
            if sources.len() < 2 {
                skipped.push(SkippedProposal {
                    proposal_id: Some(proposal.id.clone()),
                    reason: "fewer than two sources".to_owned(),
                });
                continue;
            }
            if covered
                .iter()
                .any(|c| sources.iter().all(|s| c.contains(s.as_str())))
            {
                skipped.push(SkippedProposal {
                    proposal_id: Some(proposal.id.clone()),
                    reason: "an existing inactive candidate already covers these sources"
                        .to_owned(),
                });
                continue;
            }
            let mut sorted = sources.clone();
            sorted.sort();
            let fingerprint = hex::encode(Sha256::digest(sorted.join("|").as_bytes()));
            let key = format!("maintenance-consolidation|{owner}|{fingerprint}");
            let candidate_id = crate::ids::record_id_for(RecordKind::Summary, &key, 0);
            let existed = !self
                .store
                .query(&TripleQuery {
                    subject: Some(candidate_id.clone()),
                    limit: 1,
                    ..TripleQuery::default()
                })?
                .is_empty();
            let title_key = out
                .report
                .duplicate_title_groups
                .iter()
                .find(|g| g.record_ids.iter().any(|r| *r == sources[0]))
                .map_or("", |g| g.title_key.as_str());
            let record = maintenance_candidate_record(
                &candidate_body(sources.len(), &proposal.kind, title_key),
                &sources,
                vec![
                    ("signal", json!(proposal.signal.as_str())),
                    ("proposal_id", json!(proposal.id)),
                ],
            );
            let prepared = self.prepare_authored(
                &FormAuthored {
                    pass: "consolidation_pass".to_owned(),
                    records: vec![AuthoredRecord {
                        record,
                        fields: vec![AuthorField::Title, AuthorField::Summary],
                        source_ids: sources.clone(),
                    }],
                    scope: home_scope.clone(),
                    owner_id: owner.to_owned(),
                    idempotency_key: key,
                    turn_id: None,
                },
                author,
            )?;
            if prepared.pends() && !self.home.has_task_queue() {
                let why = prepared.first_failure().map_or_else(String::new, |f| {
                    format!(" ({}: {})", f.reason.as_str(), f.message)
                });
                return Err(Error::invalid(format!(
                    "consolidation_pass refused before writing anything: the candidate for {} was not \
                     authored{why}, and a pending title or summary needs the home's task queue \
                     (MemorySystem(task_queue=True)), which this home was not opened with",
                    proposal.id
                )));
            }
            batches.push(prepared.batch.clone());
            prepared_all.push(prepared);
            created.push(CreatedCandidate {
                candidate_id,
                proposal_id: proposal.id.clone(),
                source_ids: sources,
                created: !existed,
            });
        }
        let mut warnings = Vec::new();
        if !batches.is_empty() {
            let written = self.form_batches(&batches, &[])?;
            for (prepared, ids) in prepared_all.iter().zip(&written.value) {
                out.authoring.absorb(prepared.receipt(ids));
            }
            warnings = written.warnings;
        }
        out.created_count = created.iter().filter(|c| c.created).count();
        out.created = created;
        out.skipped = skipped;
        Ok(Warned::new(out, warnings))
    }
}
