//! `wake_cue_dedup_pass`: near-identical same-day records of one kind
//! collapsed into ONE day summary each.
//!
//! Deliberately conservative: two similar episodes are a life, twenty
//! near-identical ones are a loop artifact. Records of `kind` formed the same
//! day (the first ten characters of `observed_at`) cluster when their title
//! and digest token sets (the evidence token family, `token_set` with floor
//! 3) reach `jaccard_floor` against any member already placed (greedy single
//! link, oldest first); a cluster acts from `min_cluster` members. Each acting
//! cluster forms one `kind="summary"` record with `summarizes` edges to every
//! member, the members' participants and keywords (at most
//! [`DEDUP_KEYWORD_BOUND`]), `dedup_members`, `origin_date` and
//! `provenance.source = DEDUP_SOURCE`; its title and summary are authored by
//! the host's `author` from the witness's digest (the longest member digest),
//! or form pending with the failure recorded. Every member then closes
//! `supersede` with the summary as its replacement. The summary, its edges,
//! the tasks it owes and every closure are ONE transaction.
//!
//! Before clustering, a live member a live summary of this pass already
//! summarizes (a home torn by a writer that committed them apart) closes
//! against that summary (`residuals_repaired`), and a cluster one of this
//! pass's live summaries already reaches closes against it instead of
//! forming a second one. The pass knows its own summaries by
//! `provenance.source`. `report_only` computes the clusters and writes
//! nothing. Formation is not use and a closure is belief revision: nothing
//! is deposited.
//!
//! Spec: api.md "Maintenance, health, and operator tools"
//! (`wake_cue_dedup_pass`), "Authored with the record: the `author`
//! callable"; 0.3.2 `doctoring.wake_cue_dedup_pass` for the cluster rule, the
//! report's keys and the idempotency key. 0.3.2's summary is mechanical (its
//! title composed by the pass, `digest_method = "mechanical-dedup-v1"`, no
//! author): the 0.5.2 spec's authored-or-pending summary is followed here.

use crate::error::{Error, Result};
use crate::formation::authoring::{
    Author, AuthorField, AuthoredRecord, AuthoringReceipt, FormAuthored,
};
use crate::formation::records::MemoryRecordInput;
use crate::kinds::RecordKind;
use crate::outcome::Warned;
use crate::pair_folds::PairFolds;
use crate::recall::args::CloseRecord;
use crate::record::DigestRow;
use crate::system::MemorySystem;
use am_journal::{ClosureKind, ClosureRecord};
use am_triples::text::for_each_token;
use am_triples::{Narrow, NarrowRow, TripleQuery};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

/// `provenance.source` of the day summaries this pass forms (0.3.2's value).
pub const DEDUP_SOURCE: &str = "wake_cue_dedup";

/// The digest method a day summary carries while its summary is the
/// witness's words, pending authoring (0.3.2's label).
pub const DEDUP_DIGEST_METHOD: &str = "mechanical-dedup-v1";

/// The most keywords a day summary carries (the members' union, first seen).
pub const DEDUP_KEYWORD_BOUND: usize = 12;

/// The shortest token of the cluster rule's token sets (the evidence family).
const EVIDENCE_MIN_TOKEN_LEN: usize = 3;

/// What the pass says it deposited: nothing.
const DEPOSITS: &str = "none: forming a record is not using one, and a closure revises belief";

fn episode() -> RecordKind {
    RecordKind::Episode
}

fn floor_082() -> f64 {
    0.82
}

fn three() -> usize {
    3
}

/// `wake_cue_dedup_pass(system, *, scope, owner_id, actor, kind="episode",
/// jaccard_floor=0.82, min_cluster=3, report_only=False, author=None)`'s
/// arguments (the `author` is the host's hook).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WakeCueDedup {
    /// The pair's scope.
    pub scope: String,
    /// The pair's owner (blank: every owner of the scope is scanned).
    pub owner_id: String,
    /// Who runs the doctoring (the summary's `provenance.actor`, the
    /// closures' actor and reasons); required, non-blank.
    pub actor: String,
    /// The record kind deduplicated.
    #[serde(default = "episode")]
    pub kind: RecordKind,
    /// Token Jaccard at or above which two same-day records are one.
    #[serde(default = "floor_082")]
    pub jaccard_floor: f64,
    /// Members a cluster needs before it acts (at least 2).
    #[serde(default = "three")]
    pub min_cluster: usize,
    /// Compute the clusters and write nothing.
    #[serde(default)]
    pub report_only: bool,
}

impl WakeCueDedup {
    /// The pass over `(scope, owner_id)` run by `actor`, with the spec's
    /// defaults.
    pub fn new(scope: &str, owner_id: &str, actor: &str) -> Self {
        WakeCueDedup {
            scope: scope.to_owned(),
            owner_id: owner_id.to_owned(),
            actor: actor.to_owned(),
            kind: episode(),
            jaccard_floor: floor_082(),
            min_cluster: three(),
            report_only: false,
        }
    }
}

/// One acting cluster: its day, its members (graph ids, oldest first) and
/// their number.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct DedupCluster {
    /// The members' formation day (`YYYY-MM-DD`).
    pub day: String,
    /// The members' graph ids, oldest first.
    pub members: Vec<String>,
    /// How many members.
    pub size: usize,
}

/// What `wake_cue_dedup_pass` did: 0.3.2's report key for key, with the
/// spec's `authoring` receipt.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct WakeCueDedupResult {
    /// `"wake_cue_dedup"`.
    pub pass_name: String,
    /// Live records of the kind scanned (residuals repaired not counted).
    pub scanned: usize,
    /// The acting clusters, by day.
    pub clusters: Vec<DedupCluster>,
    /// How many acting clusters.
    pub cluster_count: usize,
    /// Their members in all.
    pub members_total: usize,
    /// Live members closed against the live summary of this pass that
    /// already summarizes them (listed, not closed, under `report_only`).
    pub residuals_repaired: Vec<String>,
    /// Whether this was the dry run.
    pub report_only: bool,
    /// What the pass deposited: nothing.
    pub deposits: String,
    /// The day summary of each cluster, in cluster order (formed, or the
    /// live one that adopted it); absent under `report_only`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub formed_summaries: Option<Vec<String>>,
    /// The summaries authored, and the failures of those formed pending.
    pub authoring: AuthoringReceipt,
}

/// What the cluster rule and the day summary read of a live row of the
/// kind.
pub(crate) struct DedupRow {
    /// The graph id.
    subject: String,
    /// When it was observed (its day: the first ten characters).
    observed_at: String,
    /// The digest.
    object: String,
    /// `attributes.title` as stored (`""` when absent or not a string).
    title: String,
    /// Its participants (read only for the pass's summary).
    participants: Vec<String>,
    /// Its keywords (read only for the pass's summary).
    keywords: Vec<String>,
}

/// A `summarizes` edge of one of this pass's summaries.
struct DedupEdge {
    subject: String,
    object: String,
    assertion_id: Option<String>,
}

/// The attribute keys the scan reads of a row; [`DEDUP_SUMMARY_KEYS`] adds
/// what a day summary carries of its members.
const DEDUP_KEYS: Narrow<'static> = Narrow {
    attributes: &["record_edge", "bookkeeping", "record_kind", "title"],
    provenance: &["source"],
};

const DEDUP_SUMMARY_KEYS: Narrow<'static> = Narrow {
    attributes: &[
        "record_edge",
        "bookkeeping",
        "record_kind",
        "title",
        "participants",
        "keywords",
    ],
    provenance: &["source"],
};

/// The scan of one pair, folded row by row from one narrow read of its
/// rows ([`DedupScan::row`], in the store's order): the live rows of the
/// kind, this pass's own summaries (graph id → digest assertion id), their
/// `summarizes` edges, against the closed ids at the journal's head. The
/// mind-mass report folds its dry run from the read its other sections
/// share.
pub(crate) struct DedupScan<'c> {
    kind: RecordKind,
    summary_fields: bool,
    closed: &'c HashSet<String>,
    rows: Vec<DedupRow>,
    own_summaries: HashMap<String, String>,
    edges: Vec<DedupEdge>,
}

impl<'c> DedupScan<'c> {
    /// An empty scan of `kind`'s rows against `closed` (every assertion id
    /// closed at the head); `summary_fields` also keeps the members'
    /// participants and keywords (the pass's summary reads them).
    pub(crate) fn new(kind: RecordKind, closed: &'c HashSet<String>, summary_fields: bool) -> Self {
        DedupScan {
            kind,
            summary_fields,
            closed,
            rows: Vec::new(),
            own_summaries: HashMap::new(),
            edges: Vec::new(),
        }
    }

    /// The keys [`DedupScan::row`] reads of a row.
    pub(crate) fn keys(&self) -> Narrow<'static> {
        if self.summary_fields {
            DEDUP_SUMMARY_KEYS
        } else {
            DEDUP_KEYS
        }
    }

    /// Fold one row of the pair (holding at least [`DedupScan::keys`]).
    pub(crate) fn row(&mut self, a: NarrowRow<'_>) {
        let view = DigestRow::of_attributes(a.attributes);
        if view.is_edge() {
            if a.predicate == "summarizes" {
                self.edges.push(DedupEdge {
                    subject: a.subject.to_owned(),
                    object: a.object.to_owned(),
                    assertion_id: a.assertion_id.map(str::to_owned),
                });
            }
            return;
        }
        if view.flag("bookkeeping") {
            return;
        }
        let kind = view.kind();
        if kind == Some(RecordKind::Summary)
            && a.provenance.get("source").and_then(Value::as_str) == Some(DEDUP_SOURCE)
        {
            self.own_summaries.insert(
                a.subject.to_owned(),
                a.assertion_id.unwrap_or_default().to_owned(),
            );
        }
        if kind != Some(self.kind) {
            return;
        }
        if a.assertion_id.is_some_and(|id| self.closed.contains(id))
            || self.closed.contains(a.subject)
        {
            return;
        }
        let (participants, keywords) = if self.summary_fields {
            (
                strings(view.get("participants")),
                strings(view.get("keywords")),
            )
        } else {
            (Vec::new(), Vec::new())
        };
        self.rows.push(DedupRow {
            subject: a.subject.to_owned(),
            observed_at: a.observed_at.to_owned(),
            object: a.object.to_owned(),
            title: view.as_stored("title").unwrap_or("").to_owned(),
            participants,
            keywords,
        });
    }

    /// The scan once every row is folded: only this pass's own summaries
    /// adopt, so only their edges are kept.
    fn finish(mut self) -> Self {
        let own = &self.own_summaries;
        self.edges.retain(|e| own.contains_key(&e.subject));
        self
    }

    /// The residuals (a live member one of this pass's live summaries
    /// already summarizes, with that summary) and the healthy rows the
    /// cluster rule reads, in scan order.
    fn split(&self) -> (Vec<(String, String)>, Vec<&DedupRow>) {
        let mut live_summary_of: HashMap<&str, &str> = HashMap::new();
        for e in &self.edges {
            if self.own_summaries.contains_key(&e.subject)
                && !self.is_closed(e)
                && !self.summary_closed(&e.subject)
            {
                live_summary_of
                    .entry(e.object.as_str())
                    .or_insert(e.subject.as_str());
            }
        }
        let mut residuals: Vec<(String, String)> = Vec::new();
        let mut healthy: Vec<&DedupRow> = Vec::new();
        for a in &self.rows {
            match live_summary_of.get(a.subject.as_str()) {
                Some(summary) => residuals.push((a.subject.clone(), (*summary).to_owned())),
                None => healthy.push(a),
            }
        }
        (residuals, healthy)
    }

    /// The dry run's answer over the folded rows: each acting cluster's
    /// members (graph ids, oldest first), the cluster rule at `floor` from
    /// `min` members (the pass's `report_only` clusters), and whether the
    /// rows the rule read had distinct graph ids (then the clusters are
    /// disjoint sets of distinct ids).
    pub(crate) fn dry_run(mut self, floor: f64, min: usize) -> (Vec<Vec<String>>, bool) {
        self = self.finish();
        let (_, healthy) = self.split();
        let mut ids: std::collections::HashSet<&str, foldhash::fast::RandomState> =
            std::collections::HashSet::default();
        let distinct = healthy.iter().all(|a| ids.insert(a.subject.as_str()));
        let clusters = cluster(&healthy, floor, min)
            .into_iter()
            .map(|c| c.iter().map(|m| m.subject.clone()).collect())
            .collect();
        (clusters, distinct)
    }
}

impl MemorySystem {
    /// Collapse near-identical same-day records of `args.kind` into one day
    /// summary each (see the module doc). The summaries' titles and
    /// summaries are asked of `author` from the witness's digest; what it
    /// does not deliver forms pending with the failure recorded. One
    /// transaction for every summary, edge, task and closure; idempotent (a
    /// re-run finds the members closed and writes nothing).
    ///
    /// # Errors
    /// `InvalidInput` for a blank scope or actor, `min_cluster < 2`, a
    /// `jaccard_floor` outside `[0, 1]`, or, before anything is written, a
    /// summary that would form pending on a home opened without its task
    /// queue; the store's or journal's failure.
    pub fn wake_cue_dedup_pass(
        &self,
        args: &WakeCueDedup,
        author: Option<&dyn Author>,
    ) -> Result<Warned<WakeCueDedupResult>> {
        let actor = args.actor.trim();
        if actor.is_empty() {
            return Err(Error::invalid(
                "wake_cue_dedup_pass needs a non-blank actor (who runs the doctoring), got none",
            ));
        }
        if args.min_cluster < 2 {
            return Err(Error::invalid(format!(
                "wake_cue_dedup_pass: min_cluster must be at least 2, got {} (a cluster of one would \
                 summarize a genuine memory into itself)",
                args.min_cluster
            )));
        }
        if !(args.jaccard_floor.is_finite() && (0.0..=1.0).contains(&args.jaccard_floor)) {
            return Err(Error::invalid(format!(
                "wake_cue_dedup_pass: jaccard_floor must be a number in [0, 1], got {}",
                args.jaccard_floor
            )));
        }
        let scope = args.scope.trim();
        if scope.is_empty() {
            return Err(Error::invalid(format!(
                "wake_cue_dedup_pass needs a non-empty scope, got {:?}",
                args.scope
            )));
        }
        let owner = args.owner_id.trim();
        let closed = self.closed_at_head()?;
        let scan = self.dedup_scan(scope, owner, args.kind, &closed, !args.report_only)?;

        // Residuals: a live member one of this pass's live summaries already
        // summarizes closes against it, before any clustering.
        let (residuals, healthy) = scan.split();

        let clusters = cluster(&healthy, args.jaccard_floor, args.min_cluster);
        let mut result = WakeCueDedupResult {
            pass_name: "wake_cue_dedup".to_owned(),
            scanned: healthy.len(),
            clusters: clusters
                .iter()
                .map(|c| DedupCluster {
                    day: day_of(c[0], false),
                    members: c.iter().map(|m| m.subject.clone()).collect(),
                    size: c.len(),
                })
                .collect(),
            cluster_count: clusters.len(),
            members_total: clusters.iter().map(Vec::len).sum(),
            residuals_repaired: residuals.iter().map(|(m, _)| m.clone()).collect(),
            report_only: args.report_only,
            deposits: DEPOSITS.to_owned(),
            formed_summaries: None,
            authoring: AuthoringReceipt::default(),
        };
        if args.report_only {
            return Ok(Warned::new(result, Vec::new()));
        }

        // Plan every write, then apply them in one transaction.
        let mut closures: Vec<ClosureRecord> = Vec::new();
        for (member, summary) in &residuals {
            closures.extend(self.supersede(
                member,
                summary,
                actor,
                format!(
                    "wake-cue dedup run by {actor}: a member left live beside the day summary that \
                     already summarizes it, closed against that summary"
                ),
            )?);
        }
        let mut batches = Vec::new();
        let mut prepared_all = Vec::new();
        let mut formed = Vec::with_capacity(clusters.len());
        for c in &clusters {
            let day = day_of(c[0], false);
            let member_ids: Vec<String> = c.iter().map(|m| m.subject.clone()).collect();
            let summary_id = match scan.adopting_summary(&member_ids) {
                Some(existing) => existing,
                None => {
                    let key = format!("dedup|{scope}|{owner}|{day}|{}", member_ids[0]);
                    let form = FormAuthored {
                        pass: "wake_cue_dedup_pass".to_owned(),
                        records: vec![AuthoredRecord {
                            record: day_summary(c, &day, actor),
                            fields: vec![AuthorField::Title, AuthorField::Summary],
                            source_ids: member_ids.clone(),
                        }],
                        scope: scope.to_owned(),
                        owner_id: owner.to_owned(),
                        idempotency_key: key.clone(),
                        turn_id: None,
                    };
                    let prepared = self.prepare_authored(&form, author)?;
                    if prepared.pends() && !self.home.has_task_queue() {
                        let why = prepared.first_failure().map_or_else(String::new, |f| {
                            format!(" ({}: {})", f.reason.as_str(), f.message)
                        });
                        return Err(Error::invalid(format!(
                            "wake_cue_dedup_pass refused before writing anything: the day summary of {day} \
                             was not authored{why}, and a pending title or summary needs the home's task \
                             queue (MemorySystem(task_queue=True)), which this home was not opened with"
                        )));
                    }
                    batches.push(prepared.batch.clone());
                    prepared_all.push(prepared);
                    crate::ids::record_id_for(RecordKind::Summary, &key, 0)
                }
            };
            for m in &member_ids {
                closures.extend(self.supersede(
                    m,
                    &summary_id,
                    actor,
                    format!(
                        "wake-cue dedup run by {actor}: one of {} near-identical {} records of {day}, \
                         consolidated into one day summary",
                        c.len(),
                        args.kind.as_str()
                    ),
                )?);
            }
            formed.push(summary_id);
        }
        let mut warnings = Vec::new();
        if !batches.is_empty() || !closures.is_empty() {
            let written = self.form_batches(&batches, &closures)?;
            for (prepared, ids) in prepared_all.iter().zip(&written.value) {
                result.authoring.absorb(prepared.receipt(ids));
            }
            warnings = written.warnings;
        }
        result.formed_summaries = Some(formed);
        Ok(Warned::new(result, warnings))
    }

    /// The closures superseding `member` by `summary`, run by `actor`.
    fn supersede(
        &self,
        member: &str,
        summary: &str,
        actor: &str,
        reason: String,
    ) -> Result<Vec<ClosureRecord>> {
        let mut close = CloseRecord::new(member, ClosureKind::Supersede, &reason);
        close.replacement_ids = vec![summary.to_owned()];
        let mut planned = self.plan_close_record(&close)?;
        for c in &mut planned {
            actor.clone_into(&mut c.actor);
        }
        Ok(planned)
    }

    /// Every assertion id closed at the journal's head.
    fn closed_at_head(&self) -> Result<HashSet<String>> {
        let as_of = self.journal.current_seq()?;
        PairFolds::closed_ids(self.journal.as_ref(), as_of)
    }

    /// One narrow read of the pair folded into its scan: the live rows of
    /// `kind` (with what a summary carries of them when `summary_fields`),
    /// this pass's summaries and their `summarizes` edges, against
    /// `closed`.
    fn dedup_scan<'c>(
        &self,
        scope: &str,
        owner: &str,
        kind: RecordKind,
        closed: &'c HashSet<String>,
        summary_fields: bool,
    ) -> Result<DedupScan<'c>> {
        let mut scan = DedupScan::new(kind, closed, summary_fields);
        let keys = scan.keys();
        self.store.as_ref().visit_narrow(
            &TripleQuery {
                scope: Some(scope.to_owned()),
                owner_id: (!owner.is_empty()).then(|| owner.to_owned()),
                limit: 0,
                ..TripleQuery::default()
            },
            keys,
            &mut |row| scan.row(row),
        )?;
        Ok(scan.finish())
    }
}

impl DedupScan<'_> {
    fn is_closed(&self, e: &DedupEdge) -> bool {
        e.assertion_id
            .as_deref()
            .is_some_and(|id| self.closed.contains(id))
            || self.closed.contains(&e.subject)
    }

    /// Whether one of this pass's summaries is closed (its digest row).
    fn summary_closed(&self, graph_id: &str) -> bool {
        self.closed.contains(graph_id)
            || self
                .own_summaries
                .get(graph_id)
                .is_some_and(|aid| self.closed.contains(aid))
    }

    /// The live summary of this pass reaching the most of `members` through
    /// its `summarizes` edges (ties: the smallest graph id), if any.
    fn adopting_summary(&self, members: &[String]) -> Option<String> {
        let wanted: HashSet<&str> = members.iter().map(String::as_str).collect();
        let mut reach: BTreeMap<&str, usize> = BTreeMap::new();
        for e in &self.edges {
            if wanted.contains(e.object.as_str()) {
                *reach.entry(e.subject.as_str()).or_default() += 1;
            }
        }
        let mut ranked: Vec<(&str, usize)> = reach.into_iter().collect();
        ranked.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(b.0)));
        ranked
            .into_iter()
            .find(|(sid, _)| !self.summary_closed(sid))
            .map(|(sid, _)| sid.to_owned())
    }
}

/// The formation day of `row` (`observed_at[:10]`); `undated` for a row
/// without one when `grouping`.
fn day_of(row: &DedupRow, grouping: bool) -> String {
    let day: String = row.observed_at.chars().take(10).collect();
    if day.is_empty() && grouping {
        "undated".to_owned()
    } else {
        day
    }
}

/// The grouping day of `row`: `observed_at[:10]`, `undated` for a row
/// without one (as [`day_of`] with `grouping`, borrowed).
fn day_key(row: &DedupRow) -> &str {
    match row.observed_at.char_indices().nth(10) {
        Some((i, _)) => &row.observed_at[..i],
        None if row.observed_at.is_empty() => "undated",
        None => &row.observed_at,
    }
}

/// The acting clusters: rows grouped by day (days in order), each day's rows
/// oldest first (`observed_at`, then graph id) placed greedily in the first
/// cluster holding a member at or above `floor`, clusters of at least `min`.
fn cluster<'a>(rows: &[&'a DedupRow], floor: f64, min: usize) -> Vec<Vec<&'a DedupRow>> {
    let mut by_day: BTreeMap<&'a str, Vec<&'a DedupRow>> = BTreeMap::new();
    for &a in rows {
        by_day.entry(day_key(a)).or_default().push(a);
    }
    let mut out = Vec::new();
    for (_, mut day_rows) in by_day {
        day_rows.sort_by(|a, b| {
            a.observed_at
                .cmp(&b.observed_at)
                .then_with(|| a.subject.cmp(&b.subject))
        });
        let sets = token_sets(&day_rows);
        let of = if floor > 0.0 {
            assign_indexed(&sets, floor)
        } else {
            assign_greedy(&sets, floor)
        };
        let mut day_clusters: Vec<Vec<&'a DedupRow>> = Vec::new();
        for (m, c) in day_rows.into_iter().zip(of) {
            if c == day_clusters.len() {
                day_clusters.push(vec![m]);
            } else {
                day_clusters[c].push(m);
            }
        }
        out.extend(day_clusters.into_iter().filter(|c| c.len() >= min));
    }
    out
}

/// Each row's token set (its title and digest: `token_set(title + " " +
/// digest, 3)`, the evidence family) as the ascending distinct ids of the
/// tokens in a vocabulary of the rows' own: two sets share an id exactly
/// when they share the token.
fn token_sets(rows: &[&DedupRow]) -> Vec<Vec<u32>> {
    let mut vocabulary: std::collections::HashMap<String, u32, foldhash::fast::RandomState> =
        std::collections::HashMap::default();
    let mut text = String::new();
    rows.iter()
        .map(|a| {
            let mut set: Vec<u32> = Vec::new();
            text.clear();
            text.push_str(&a.title);
            text.push(' ');
            text.push_str(&a.object);
            for_each_token(&text, EVIDENCE_MIN_TOKEN_LEN, |t| {
                let id = match vocabulary.get(t) {
                    Some(&id) => id,
                    None => {
                        let id = u32::try_from(vocabulary.len()).unwrap_or(u32::MAX);
                        vocabulary.insert(t.to_owned(), id);
                        id
                    }
                };
                set.push(id);
            });
            set.sort_unstable();
            set.dedup();
            set
        })
        .collect()
}

/// `|A ∩ B| / |A ∪ B|` of two ascending id sets, `0.0` when either is
/// empty (`am_triples::text::jaccard` of the token sets they stand for).
fn jaccard_ids(a: &[u32], b: &[u32]) -> f64 {
    if a.is_empty() || b.is_empty() {
        return 0.0;
    }
    let inter = sorted_overlap(a, b);
    inter as f64 / (a.len() + b.len() - inter) as f64
}

/// The greedy single link, oldest first, as the rule reads: each set joins
/// the first cluster (in creation order) holding a member it reaches
/// `floor` against, or starts a new one. Answers each set's cluster.
/// Quadratic; [`assign_indexed`] answers the same for `floor > 0`.
fn assign_greedy(sets: &[Vec<u32>], floor: f64) -> Vec<usize> {
    let mut clusters: Vec<Vec<usize>> = Vec::new();
    let mut of = Vec::with_capacity(sets.len());
    for (k, a) in sets.iter().enumerate() {
        match clusters
            .iter()
            .position(|c| c.iter().any(|&b| jaccard_ids(a, &sets[b]) >= floor))
        {
            Some(c) => {
                clusters[c].push(k);
                of.push(c);
            }
            None => {
                of.push(clusters.len());
                clusters.push(vec![k]);
            }
        }
    }
    of
}

/// The least overlap `k` two sets of sizes `na` and `nb` need to reach
/// `floor` (`k / (na + nb - k) >= floor`, computed as [`jaccard_ids`] computes
/// it); `None` when no overlap reaches it.
fn min_overlap(na: usize, nb: usize, floor: f64) -> Option<usize> {
    (1..=na.min(nb)).find(|&k| k as f64 / (na + nb - k) as f64 >= floor)
}

/// [`assign_greedy`]'s answer for `floor > 0`, without comparing every
/// pair: the sets' tokens are ranked (rarest in the day first) and each
/// placed set is indexed by `(size, position, token)`. Two sets reaching
/// `floor` share at least `alpha` tokens (their size pair's
/// [`min_overlap`]); their first shared token sits at position
/// `i <= |A| - alpha` in one and `j <= |B| - alpha` in the other, with
/// `1 + min(|A| - 1 - i, |B| - 1 - j) >= alpha`. So probing every such
/// `(|B|, j, A[i])`
/// finds every set `A` reaches; each found set is then compared exactly,
/// and `A` joins the earliest cluster among those it reaches: the greedy
/// rule's choice.
fn assign_indexed(sets: &[Vec<u32>], floor: f64) -> Vec<usize> {
    // Rank the vocabulary rarest first (ties by id: any total order serves).
    let vocabulary = sets.iter().flatten().max().map_or(0, |&m| m as usize + 1);
    let mut freq: Vec<u32> = vec![0; vocabulary];
    for &t in sets.iter().flatten() {
        freq[t as usize] += 1;
    }
    let mut order: Vec<u32> = (0..u32::try_from(vocabulary).unwrap_or(u32::MAX)).collect();
    order.sort_unstable_by_key(|&t| (freq[t as usize], t));
    let mut rank: Vec<u32> = vec![0; vocabulary];
    for (r, &t) in order.iter().enumerate() {
        rank[t as usize] = u32::try_from(r).unwrap_or(u32::MAX);
    }
    let ranked: Vec<Vec<u32>> = sets
        .iter()
        .map(|s| {
            let mut v: Vec<u32> = s.iter().map(|&t| rank[t as usize]).collect();
            v.sort_unstable();
            v
        })
        .collect();
    // The index: each key's placed sets as a chain through `placed`
    // (newest first; the choice below is the least cluster found, whatever
    // the order the sets are found in).
    const END: usize = usize::MAX;
    let mut index: std::collections::HashMap<
        (usize, usize, u32),
        usize,
        foldhash::fast::RandomState,
    > = std::collections::HashMap::default();
    let mut placed: Vec<(usize, usize)> = Vec::new();
    let mut sizes: BTreeSet<usize> = BTreeSet::new();
    let mut seen: Vec<usize> = vec![usize::MAX; sets.len()];
    let mut of: Vec<usize> = Vec::with_capacity(sets.len());
    let mut clusters = 0usize;
    for (k, a) in ranked.iter().enumerate() {
        let na = a.len();
        let mut best: Option<usize> = None;
        for &nb in &sizes {
            let Some(alpha) = min_overlap(na, nb, floor) else {
                continue;
            };
            for i in 0..=(na - alpha) {
                for j in 0..=(nb - alpha) {
                    if 1 + (na - 1 - i).min(nb - 1 - j) < alpha {
                        continue;
                    }
                    let mut at = index.get(&(nb, j, a[i])).copied().unwrap_or(END);
                    while at != END {
                        let (b, next) = placed[at];
                        at = next;
                        if seen[b] == k {
                            continue;
                        }
                        seen[b] = k;
                        let c = of[b];
                        if best.is_some_and(|x| c >= x) {
                            continue;
                        }
                        let inter = sorted_overlap(a, &ranked[b]);
                        if inter as f64 / (na + nb - inter) as f64 >= floor {
                            best = Some(c);
                        }
                    }
                }
            }
        }
        of.push(best.unwrap_or_else(|| {
            clusters += 1;
            clusters - 1
        }));
        if na > 0 {
            sizes.insert(na);
            for (j, &t) in a.iter().enumerate() {
                let head = index.entry((na, j, t)).or_insert(END);
                placed.push((k, *head));
                *head = placed.len() - 1;
            }
        }
    }
    of
}

/// How many values two ascending lists share.
fn sorted_overlap(a: &[u32], b: &[u32]) -> usize {
    let (mut i, mut j, mut n) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                n += 1;
                i += 1;
                j += 1;
            }
        }
    }
    n
}

/// The day summary of one cluster as the pass composes it: the witness's
/// digest (the longest member digest, the first on a tie) as its provisional
/// body, no title (both are the author's), `summarizes` edges to every
/// member, the members' participants and keywords, and who ran the pass.
fn day_summary(c: &[&DedupRow], day: &str, actor: &str) -> MemoryRecordInput {
    let mut witness = c[0];
    for &m in c {
        if m.object.chars().count() > witness.object.chars().count() {
            witness = m;
        }
    }
    let mut participants: Vec<String> = Vec::new();
    let mut keywords: Vec<String> = Vec::new();
    for m in c {
        for p in &m.participants {
            if !participants.contains(p) {
                participants.push(p.clone());
            }
        }
        for k in &m.keywords {
            if !keywords.contains(k) && keywords.len() < DEDUP_KEYWORD_BOUND {
                keywords.push(k.clone());
            }
        }
    }
    let mut record = MemoryRecordInput::new(RecordKind::Summary, "", &witness.object);
    record.title = None;
    record.participants = participants;
    record.keywords = keywords;
    record.edges = c
        .iter()
        .map(|m| ("summarizes".to_owned(), m.subject.clone()))
        .collect();
    record
        .attributes
        .insert("digest_method".into(), json!(DEDUP_DIGEST_METHOD));
    record
        .attributes
        .insert("dedup_members".into(), json!(c.len()));
    record.attributes.insert("origin_date".into(), json!(day));
    record.provenance.insert("actor".into(), json!(actor));
    record
        .provenance
        .insert("source".into(), json!(DEDUP_SOURCE));
    record
}

/// The strings of a list attribute (anything else: none).
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Token sets drawn from a small vocabulary (many near-duplicates,
    /// repeats, empties, sizes 0 to 12), splitmix64-seeded.
    fn sets(seed: u64, n: usize) -> Vec<BTreeSet<String>> {
        let mut x = seed;
        let mut next = move || {
            x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = x;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        };
        let base: Vec<BTreeSet<String>> = (0..6)
            .map(|_| {
                (0..(next() % 12))
                    .map(|_| format!("w{}", next() % 20))
                    .collect()
            })
            .collect();
        (0..n)
            .map(|_| {
                let mut s = base[(next() % 6) as usize].clone();
                for _ in 0..(next() % 3) {
                    s.insert(format!("w{}", next() % 20));
                }
                if next() % 4 == 0 && !s.is_empty() {
                    let drop = s.iter().next().cloned().unwrap();
                    s.remove(&drop);
                }
                s
            })
            .collect()
    }

    /// The sets as ascending ids of a vocabulary of their own.
    fn ids(sets: &[BTreeSet<String>]) -> Vec<Vec<u32>> {
        let mut vocabulary: HashMap<&str, u32> = HashMap::new();
        sets.iter()
            .map(|s| {
                let mut v: Vec<u32> = s
                    .iter()
                    .map(|t| {
                        let n = u32::try_from(vocabulary.len()).unwrap();
                        *vocabulary.entry(t.as_str()).or_insert(n)
                    })
                    .collect();
                v.sort_unstable();
                v
            })
            .collect()
    }

    #[test]
    fn the_id_sets_measure_the_token_sets_jaccard() {
        for seed in 0..10 {
            let owned = sets(seed, 60);
            let as_ids = ids(&owned);
            for a in 0..owned.len() {
                for b in 0..owned.len() {
                    assert_eq!(
                        jaccard_ids(&as_ids[a], &as_ids[b]).to_bits(),
                        am_triples::text::jaccard(&owned[a], &owned[b]).to_bits(),
                        "seed {seed}, sets {a} and {b}"
                    );
                }
            }
        }
    }

    #[test]
    fn the_token_sets_are_the_evidence_family_of_title_and_digest() {
        let row = |title: &str, object: &str| DedupRow {
            subject: "ex:a".into(),
            observed_at: "2026-01-01T00:00:00+00:00".into(),
            object: object.into(),
            title: title.into(),
            participants: Vec::new(),
            keywords: Vec::new(),
        };
        let rows = [
            row("Woke Up", "woke up and checked the kiln glaze, again!"),
            row("Ça glaze", "the KILN glaze crawls"),
            row("", ""),
        ];
        let refs: Vec<&DedupRow> = rows.iter().collect();
        let got = token_sets(&refs);
        let want: Vec<BTreeSet<String>> = rows
            .iter()
            .map(|r| {
                am_triples::text::token_set(
                    &format!("{} {}", r.title, r.object),
                    EVIDENCE_MIN_TOKEN_LEN,
                )
            })
            .collect();
        for a in 0..rows.len() {
            assert_eq!(got[a].len(), want[a].len(), "row {a}");
            for b in 0..rows.len() {
                assert_eq!(
                    jaccard_ids(&got[a], &got[b]).to_bits(),
                    am_triples::text::jaccard(&want[a], &want[b]).to_bits()
                );
            }
        }
    }

    #[test]
    fn the_indexed_assignment_is_the_greedy_single_link_for_every_floor() {
        for seed in 0..40 {
            let owned = sets(seed, 120);
            let refs = ids(&owned);
            for floor in [0.05, 0.3, 0.5, 0.6, 2.0 / 3.0, 0.75, 0.8, 0.82, 0.9, 1.0] {
                let greedy = assign_greedy(&refs, floor);
                assert_eq!(
                    assign_indexed(&refs, floor),
                    greedy,
                    "seed {seed}, floor {floor}"
                );
                // Not a vacuous agreement: near-duplicates cluster.
                let clusters = greedy.iter().max().map_or(0, |m| m + 1);
                assert!(
                    clusters * 10 < refs.len() * 9,
                    "seed {seed}, floor {floor}: {clusters} clusters"
                );
            }
        }
    }

    #[test]
    fn the_least_overlap_is_the_first_that_reaches_the_floor() {
        assert_eq!(min_overlap(8, 8, 0.82), Some(8));
        assert_eq!(min_overlap(8, 7, 0.82), Some(7));
        assert_eq!(min_overlap(8, 6, 0.82), None);
        assert_eq!(min_overlap(10, 10, 0.5), Some(7));
        assert_eq!(min_overlap(3, 0, 0.5), None);
    }
}
