//! `resolve_dreams_pass`: the day answers the night. Every standing dream is
//! examined against the lived experience since it formed; a dream whose
//! tensions life already settled closes softly (`supersede`, the settling
//! records as its replacements, a reason naming the mechanism): the dream
//! was not wrong, life absorbed it, and its history stays in the journal.
//!
//! The evidence is evidence-grade: the structural report with closures
//! folded and maintenance candidates left out (sleep's own summaries never
//! settle a tension). The mechanisms, each named in the verdict:
//!
//! - a bridge proposal settles when its pair is no longer apart: one
//!   component under authored relations (`joined_by_authored_story`), or a
//!   strong co-use trail, co-selected across at least
//!   `resolution_trail_min_traces` distinct traces
//!   (`associated_by_lived_use`); an endpoint gone from the substrate leaves
//!   the tension standing;
//! - a facet question settles when its pair is now associated
//!   (`questioned_pair_now_associated`), or a record formed after the dream
//!   carries the facet and touches an endpoint (a shared participant, an
//!   authored edge, a context edge: `facet_found_its_subject_in_experience`);
//! - a continuation dream without tensions of its own settles when every
//!   parent it re-lights has left the standing set
//!   (`relit_tension_settled`; oldest first, so a lineage closed this pass
//!   settles in the same pass).
//!
//! A dream closes when at least `resolution_fraction` of its tensions
//! settled (default all). Every closure of one pass is ONE transaction;
//! `report_only` writes nothing; `as_of` anchors an audit read only. The pass
//! deposits nothing.
//!
//! Spec: memory-system.md "Sleep" ("standing dreams the day's lived
//! experience already answered close softly (`resolve_dreams_pass`)"), api.md
//! `sleep_pass` (its `resolution` sub-phase). The spec gives no signature:
//! 0.3.2's (`dream_resolution.resolve_dreams_pass(system, *, scopes,
//! owner_id, report_only=False, as_of=None, tuning=SleepTuning())`) is taken,
//! with its keys, order and mechanisms. As in 0.3.2, the standing dreams are
//! the first pair's and `owner_id` names the pass's owner without narrowing
//! what it reads.

use crate::error::{Error, Result};
use crate::outcome::Warned;
use crate::recall::args::CloseRecord;
use crate::sleep::args::{StructuralReport, sleep_pairs};
use crate::sleep::dreams::{UnresolvedDreams, unresolved_dreams};
use crate::sleep::structural::{Atom, StructuralRecord, anchor, structural_report};
use crate::sleep::tuning::SleepTuning;
use crate::system::MemorySystem;
use am_journal::{BindingFilter, BindingSource, ClosureKind, EventFilter, EventKind};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

/// `resolve_dreams_pass(system, *, scopes, owner_id, report_only=False,
/// as_of=None, tuning=SleepTuning())`'s arguments (0.3.2's signature).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ResolveDreams {
    /// `(scope, owner_id)` pairs whose lived experience is read; the
    /// standing dreams are the first pair's.
    pub scopes: Vec<(String, String)>,
    /// The dreamer.
    pub owner_id: String,
    /// Examine and write nothing.
    #[serde(default)]
    pub report_only: bool,
    /// The journal seq the evidence is read at (audit reads only: refused
    /// with a write).
    #[serde(default)]
    pub as_of: Option<i64>,
    /// `resolution_fraction`, `resolution_evidence_bound`,
    /// `resolution_trail_min_traces`.
    #[serde(default)]
    pub tuning: SleepTuning,
}

impl ResolveDreams {
    /// The pass over `scopes` for `owner_id`, with every default.
    pub fn new(scopes: &[(&str, &str)], owner_id: &str) -> Self {
        ResolveDreams {
            scopes: scopes
                .iter()
                .map(|(s, o)| ((*s).to_owned(), (*o).to_owned()))
                .collect(),
            owner_id: owner_id.to_owned(),
            report_only: false,
            as_of: None,
            tuning: SleepTuning::default(),
        }
    }
}

/// A dream the day settled.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct ResolvedDream {
    /// The dream's graph id.
    pub dream_id: String,
    /// The mechanisms that settled its tensions, sorted.
    pub mechanisms: Vec<String>,
    /// The settling records (its closure's replacements), at most
    /// `resolution_evidence_bound`.
    pub evidence_ids: Vec<String>,
    /// Tensions settled.
    pub settled: usize,
    /// Tensions examined.
    pub tensions: usize,
    /// Whether it was closed (`false` under `report_only`).
    pub closed: bool,
}

/// A dream left standing, and why.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct StandingDream {
    /// The dream's graph id.
    pub dream_id: String,
    /// Why it stands.
    pub reason: String,
}

/// What `resolve_dreams_pass` did: 0.3.2's dict key for key.
#[derive(Debug, Clone, Default, PartialEq, Serialize, schemars::JsonSchema)]
pub struct ResolveDreamsResult {
    /// `"resolve_dreams_pass"`.
    pub pass_name: String,
    /// Standing dreams examined.
    pub examined: usize,
    /// The dreams settled, oldest first.
    pub resolved: Vec<ResolvedDream>,
    /// The dreams left standing, and why.
    pub standing: Vec<StandingDream>,
    /// The journal seq the evidence was read at.
    pub as_of_seq: i64,
    /// How many were closed.
    pub resolved_count: usize,
}

/// The `(left, right)` pairs of a dream's stored `proposals` or `questions`
/// entries, with each entry's `facet`.
pub(crate) fn tension_entries(v: Option<&Value>) -> Vec<(Option<(String, String)>, String)> {
    let Some(Value::Array(items)) = v else {
        return Vec::new();
    };
    items
        .iter()
        .filter_map(Value::as_object)
        .map(|e| {
            let pair = match e.get("pair") {
                Some(Value::Array(p)) if p.len() == 2 => Some((
                    am_triples::text::py_str(&p[0]),
                    am_triples::text::py_str(&p[1]),
                )),
                _ => None,
            };
            let facet = e
                .get("facet")
                .map(am_triples::text::py_str)
                .unwrap_or_default()
                .trim()
                .to_owned();
            (pair, facet)
        })
        .collect()
}

fn canonical(a: &str, b: &str) -> (String, String) {
    if a <= b {
        (a.to_owned(), b.to_owned())
    } else {
        (b.to_owned(), a.to_owned())
    }
}

/// Whether the new record `new_id` touches `endpoint`: a shared participant,
/// an authored edge, or a context edge.
fn touches(
    records: &BTreeMap<Atom, StructuralRecord>,
    adjacency: &BTreeMap<Atom, Vec<Atom>>,
    context: &HashSet<(String, String)>,
    new_id: &str,
    endpoint: &str,
) -> bool {
    let (Some(a), Some(b)) = (records.get(new_id), records.get(endpoint)) else {
        return false;
    };
    if a.participants.iter().any(|p| b.participants.contains(p)) {
        return true;
    }
    if adjacency
        .get(new_id)
        .is_some_and(|n| n.iter().any(|x| x == endpoint))
    {
        return true;
    }
    context.contains(&canonical(new_id, endpoint))
}

impl MemorySystem {
    /// Examine every standing dream of the first pair against the lived
    /// experience since it formed and softly close the ones life already
    /// answered (see the module doc), in one transaction.
    ///
    /// # Errors
    /// `InvalidInput` for `as_of` with a write, no scope pair or a blank
    /// scope, an invalid tuning; the store's or journal's failure.
    pub fn resolve_dreams_pass(&self, args: &ResolveDreams) -> Result<Warned<ResolveDreamsResult>> {
        if args.as_of.is_some() && !args.report_only {
            return Err(Error::invalid(
                "resolve_dreams_pass: as_of anchors an audit read; closures against a past anchor \
                 would mix time frames: pass report_only=true with as_of",
            ));
        }
        args.tuning.validate()?;
        let pairs = sleep_pairs("resolve_dreams_pass", &args.scopes)?;
        let store = self.store.as_ref();
        let journal = self.journal.as_ref();
        let anchored = anchor(journal, args.as_of)?;
        let (home_scope, home_owner) = &args.scopes[0];
        let standing = unresolved_dreams(
            store,
            Some(journal),
            &UnresolvedDreams {
                limit: 0,
                ..UnresolvedDreams::new(home_scope, home_owner)
            },
        )?;
        if standing.is_empty() {
            // Nothing to examine and nothing to close: the structure is read
            // only as the dreams' evidence, so it is not read (the answer is
            // the one the full read gives: no verdict, at the anchor).
            return Ok(Warned::new(
                ResolveDreamsResult {
                    pass_name: "resolve_dreams_pass".to_owned(),
                    examined: 0,
                    resolved: Vec::new(),
                    standing: Vec::new(),
                    as_of_seq: anchored,
                    resolved_count: 0,
                },
                Vec::new(),
            ));
        }
        let report = structural_report(
            store,
            journal,
            &StructuralReport {
                scopes: pairs.clone(),
                as_of: args.as_of,
                evidence_grade: true,
            },
        )?;
        let context: HashSet<(String, String)> = report
            .context_pairs
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect();
        let hi = match args.as_of {
            Some(s) => s,
            None => journal.current_seq()?,
        };
        // Strong trails only: co-use across distinct traces.
        let by_assertion: HashMap<&str, &str> = report
            .records
            .iter()
            .filter(|(_, r)| !r.assertion_id.is_empty())
            .map(|(g, r)| (r.assertion_id.as_str(), g.as_str()))
            .collect();
        let mut pair_traces: HashMap<(String, String), BTreeSet<String>> = HashMap::new();
        for (scope, owner) in &pairs {
            let mut filter = EventFilter::new(scope, owner);
            filter.kinds = vec![EventKind::CoSelected.as_str().to_owned()];
            filter.until_seq = Some(hi);
            filter.limit = 0;
            for e in journal.events(&filter)? {
                let Some((a, b)) = &e.pair_ids else { continue };
                if let (Some(ra), Some(rb)) =
                    (by_assertion.get(a.as_str()), by_assertion.get(b.as_str()))
                    && ra != rb
                {
                    pair_traces
                        .entry(canonical(ra, rb))
                        .or_default()
                        .insert(e.trace_id.clone().unwrap_or_else(|| e.event_id.clone()));
                }
            }
        }
        let floor = args.tuning.resolution_trail_min_traces.max(1);
        let trails: HashSet<(String, String)> = pair_traces
            .into_iter()
            .filter(|(_, t)| t.len() >= floor)
            .map(|(p, _)| p)
            .collect();

        let standing_ids: HashSet<&str> = standing.iter().map(|a| a.subject.as_str()).collect();
        // The records of the pairs with a `remember` binding, and its latest
        // seq (a record is new to a dream when one came after it).
        let mut formed_at: HashMap<String, i64> = HashMap::new();
        for (scope, owner) in &pairs {
            for b in journal.bindings(&BindingFilter {
                record_id: None,
                scope: Some(scope.clone()),
                owner_id: (!owner.is_empty()).then(|| owner.clone()),
                fold: false,
                until_seq: None,
            })? {
                if b.source == BindingSource::Remember {
                    let at = formed_at.entry(b.record_id.clone()).or_insert(b.seq);
                    *at = (*at).max(b.seq);
                }
            }
        }
        let mut out = ResolveDreamsResult {
            pass_name: "resolve_dreams_pass".to_owned(),
            examined: standing.len(),
            resolved: Vec::new(),
            standing: Vec::new(),
            as_of_seq: report.as_of_seq,
            resolved_count: 0,
        };
        let mut resolved_now: HashSet<String> = HashSet::new();
        let mut closures = Vec::new();
        for dream in &standing {
            let gid = dream.subject.as_str();
            let view = crate::record::DigestRow::of(dream);
            let proposals = tension_entries(view.get("proposals"));
            let questions = tension_entries(view.get("questions"));
            let parents: Vec<String> = match view.get("parent_dream_ids") {
                Some(Value::Array(p)) => p
                    .iter()
                    .map(am_triples::text::py_str)
                    .filter(|p| !p.trim().is_empty())
                    .collect(),
                _ => Vec::new(),
            };
            let Some(born) = self.formation_seq(gid)? else {
                out.standing.push(StandingDream {
                    dream_id: gid.to_owned(),
                    reason: "its formation is not in the journal".to_owned(),
                });
                continue;
            };
            let fresh: BTreeSet<&str> = formed_at
                .iter()
                .filter(|(id, seq)| **seq > born && report.records.contains_key(id.as_str()))
                .map(|(id, _)| id.as_str())
                .collect();
            let (mut tensions, mut settled) = (0_usize, 0_usize);
            let mut evidence: Vec<String> = Vec::new();
            let mut mechanisms: BTreeSet<&str> = BTreeSet::new();
            let comp = |id: &str| report.component_of.get(id);
            for (pair, _) in &proposals {
                let Some((left, right)) = pair else { continue };
                tensions += 1;
                let (Some(cl), Some(cr)) = (comp(left), comp(right)) else {
                    continue;
                };
                let mechanism = if cl == cr {
                    "joined_by_authored_story"
                } else if trails.contains(&canonical(left, right)) {
                    "associated_by_lived_use"
                } else {
                    continue;
                };
                settled += 1;
                mechanisms.insert(mechanism);
                evidence.extend([left.clone(), right.clone()]);
            }
            for (pair, facet) in &questions {
                let Some((left, right)) = pair else { continue };
                if facet.is_empty() {
                    continue;
                }
                tensions += 1;
                if let (Some(cl), Some(cr)) = (comp(left), comp(right))
                    && (cl == cr || trails.contains(&canonical(left, right)))
                {
                    settled += 1;
                    mechanisms.insert("questioned_pair_now_associated");
                    evidence.extend([left.clone(), right.clone()]);
                    continue;
                }
                let answered = fresh.iter().find(|nid| {
                    report.records[**nid].facets.iter().any(|f| f == facet)
                        && (touches(&report.records, &report.adjacency, &context, nid, left)
                            || touches(&report.records, &report.adjacency, &context, nid, right))
                });
                if let Some(nid) = answered {
                    settled += 1;
                    mechanisms.insert("facet_found_its_subject_in_experience");
                    evidence.push((*nid).to_owned());
                }
            }
            if tensions == 0 && !parents.is_empty() {
                tensions = parents.len();
                settled = parents
                    .iter()
                    .filter(|p| !standing_ids.contains(p.as_str()) || resolved_now.contains(*p))
                    .count();
                if settled == tensions {
                    mechanisms.insert("relit_tension_settled");
                    evidence.extend(parents.iter().cloned());
                }
            }
            if tensions == 0 {
                out.standing.push(StandingDream {
                    dream_id: gid.to_owned(),
                    reason: "no tension to examine".to_owned(),
                });
                continue;
            }
            #[allow(clippy::cast_precision_loss)]
            let fraction = settled as f64 / tensions as f64;
            if fraction < args.tuning.resolution_fraction {
                out.standing.push(StandingDream {
                    dream_id: gid.to_owned(),
                    reason: format!(
                        "{settled} of {tensions} tensions settled (at least {} wanted)",
                        args.tuning.resolution_fraction
                    ),
                });
                continue;
            }
            let mut seen = HashSet::new();
            let evidence: Vec<String> = evidence
                .into_iter()
                .filter(|e| seen.insert(e.clone()))
                .take(args.tuning.resolution_evidence_bound)
                .collect();
            let mechanisms: Vec<String> = mechanisms.into_iter().map(str::to_owned).collect();
            if !args.report_only {
                let mut close = CloseRecord::new(
                    gid,
                    ClosureKind::Supersede,
                    &format!(
                        "resolved_by_experience: {} ({settled} of {tensions} tensions settled by the day)",
                        mechanisms.join(", ")
                    ),
                );
                close.replacement_ids.clone_from(&evidence);
                closures.extend(self.plan_close_record(&close)?);
                resolved_now.insert(gid.to_owned());
            }
            out.resolved.push(ResolvedDream {
                dream_id: gid.to_owned(),
                mechanisms,
                evidence_ids: evidence,
                settled,
                tensions,
                closed: !args.report_only,
            });
        }
        let mut warnings = Vec::new();
        if !closures.is_empty() {
            warnings = self.form_batches(&[], &closures)?.warnings;
        }
        out.resolved_count = out.resolved.iter().filter(|v| v.closed).count();
        Ok(Warned::new(out, warnings))
    }

    /// The journal seq at which `graph_id` formed: its earliest `remember`
    /// binding (`None` when the journal never saw it).
    fn formation_seq(&self, graph_id: &str) -> Result<Option<i64>> {
        Ok(self
            .journal
            .bindings(&BindingFilter {
                record_id: Some(graph_id.to_owned()),
                scope: None,
                owner_id: None,
                fold: false,
                until_seq: None,
            })?
            .into_iter()
            .filter(|b| b.source == BindingSource::Remember)
            .map(|b| b.seq)
            .min())
    }
}
