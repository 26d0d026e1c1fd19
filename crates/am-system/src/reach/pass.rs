//! The channel pass `probe` ranks and `familiarity` counts: the newest
//! window per scope pair, then the exact, vector, keyword and participants
//! channels (recall's own), relevance only (no activation, no self seats, no
//! STM), every admission through the exclusion folds.
//!
//! Spec: api.md "Deliberate reach: probe, expansion, familiarity"; 0.3.2's
//! `probe._channel_pass` settles the window and the admission rule.

use crate::config::{RecallBudget, ReconstructConfig};
use crate::error::Result;
use crate::recall::reconstruct::channels::{self, ChannelOutput, VectorKnobs};
use crate::recall::reconstruct::read::RecallRead;
use crate::recall::reconstruct::view::RecallView;
use crate::record::DigestRow;
use crate::seam::Stimulus;
use am_triples::text::{RECALL_MIN_TOKEN_LEN, tokenize};
use am_triples::{ErrorKind, TextEmbedder, TripleAssertion, TripleQuery, TripleStore};
use std::collections::BTreeMap;

/// One admitted candidate: its row, its per-channel scores (in the order
/// the channels admitted it) and its cues.
#[derive(Debug, Clone)]
pub(crate) struct Admitted {
    pub assertion: TripleAssertion,
    pub relevance: Vec<(&'static str, f64)>,
    pub cues: Vec<String>,
}

impl Admitted {
    /// The fused relevance: the sum of the channel scores.
    pub(crate) fn fused(&self) -> f64 {
        self.relevance.iter().map(|(_, s)| *s).sum()
    }

    /// Whether a channel scored it.
    pub(crate) fn has(&self, channel: &str) -> bool {
        self.relevance.iter().any(|(c, _)| *c == channel)
    }
}

/// Everything one pass produced.
#[derive(Debug, Default)]
pub(crate) struct ChannelPass {
    pub universe: BTreeMap<String, Admitted>,
    pub channels_run: Vec<&'static str>,
    pub warnings: Vec<String>,
}

impl ChannelPass {
    /// Admit `a` under `channel` (unless excluded, an edge or bookkeeping):
    /// the channel's best score is kept, the cue once.
    pub(crate) fn admit(
        &mut self,
        view: &RecallView<'_>,
        a: &TripleAssertion,
        channel: &'static str,
        score: f64,
        detail: &str,
    ) -> Result<()> {
        let Some(rid) = a.assertion_id.clone().filter(|r| !r.is_empty()) else {
            return Ok(());
        };
        let row = DigestRow::of(a);
        if row.is_edge() || row.flag("bookkeeping") {
            return Ok(());
        }
        if !self.universe.contains_key(&rid) {
            view.folds.prime(std::iter::once(a))?;
            if view.folds.excluded(a)? {
                return Ok(());
            }
        }
        let entry = self.universe.entry(rid).or_insert_with(|| Admitted {
            assertion: a.clone(),
            relevance: Vec::new(),
            cues: Vec::new(),
        });
        match entry.relevance.iter_mut().find(|(c, _)| *c == channel) {
            Some((_, s)) => *s = s.max(score),
            None => entry.relevance.push((channel, score)),
        }
        let line = if detail.is_empty() { channel } else { detail };
        if !entry.cues.iter().any(|c| c == line) {
            entry.cues.push(line.to_owned());
        }
        Ok(())
    }

    fn admit_output(
        &mut self,
        view: &RecallView<'_>,
        out: &ChannelOutput,
        rows: &BTreeMap<&str, &TripleAssertion>,
    ) -> Result<()> {
        for r in &out.results {
            let a = out
                .found
                .get(&r.record_id)
                .or_else(|| rows.get(r.record_id.as_str()).copied());
            if let Some(a) = a {
                self.admit(view, a, r.channel, r.score, &r.detail)?;
            }
        }
        Ok(())
    }
}

/// What one pass reads besides the view.
pub(crate) struct PassInputs<'a> {
    pub store: &'a dyn TripleStore,
    pub embedder: Option<&'a dyn TextEmbedder>,
    pub config: &'a ReconstructConfig,
    pub stimulus: &'a Stimulus,
    pub pairs: &'a [(String, String)],
    pub max_candidates: usize,
    pub keyword_discovery: bool,
}

/// Run the pass.
///
/// # Errors
/// The store's or journal's failure.
pub(crate) fn channel_pass(view: &RecallView<'_>, p: &PassInputs<'_>) -> Result<ChannelPass> {
    let mut pass = ChannelPass::default();
    let cap = p.max_candidates;
    let budget = RecallBudget {
        max_candidates: cap,
        ..RecallBudget::default()
    };
    // The newest window of each pair: what the keyword and participants
    // channels scan (exact anchors, vectors and keyword discovery reach the
    // whole store).
    let mut gathered: BTreeMap<String, TripleAssertion> = BTreeMap::new();
    let mut saturated: Vec<String> = Vec::new();
    for (scope, owner) in p.pairs {
        let rows = view.store.rows(&TripleQuery {
            scope: Some(scope.clone()),
            owner_id: (!owner.is_empty()).then(|| owner.clone()),
            limit: cap as i64,
            ..TripleQuery::default()
        })?;
        view.folds.prime(&rows)?;
        let mut kept = 0;
        for a in rows {
            let Some(rid) = a.assertion_id.clone().filter(|r| !r.is_empty()) else {
                continue;
            };
            let row = DigestRow::of(&a);
            if gathered.contains_key(&rid)
                || row.is_edge()
                || row.flag("bookkeeping")
                || view.folds.excluded(&a)?
            {
                continue;
            }
            gathered.insert(rid, a);
            kept += 1;
            if kept >= cap {
                saturated.push(scope.clone());
                break;
            }
        }
    }
    // Keyword discovery through the home's keyword index, when it has one.
    let tokens = tokenize(&p.stimulus.cue_text, RECALL_MIN_TOKEN_LEN);
    let mut discovery: Option<Vec<TripleAssertion>> = None;
    if p.keyword_discovery && !tokens.is_empty() {
        let mut rows = Vec::new();
        let mut live = true;
        let index = view.store.index;
        for (scope, owner) in p.pairs {
            let owner = (!owner.is_empty()).then_some(owner.as_str());
            // As reconstruct's discovery: positions from the store, rows
            // from the recall index when it holds them.
            if let Some(range) = index.position_range(scope, owner)
                && let Ok(Some(positions)) =
                    p.store.keyword_positions(&tokens, scope, owner, cap, range)
                && let Some(found) = index.rows_at(&positions)
            {
                rows.extend(found);
                continue;
            }
            match p.store.query_keywords(&tokens, scope, owner, cap) {
                Ok(found) => rows.extend(found),
                Err(e) if e.kind() == ErrorKind::Unsupported => {
                    live = false;
                    break;
                }
                Err(e) => return Err(e),
            }
        }
        if live {
            discovery = Some(rows);
        }
    }
    if !saturated.is_empty() {
        saturated.sort();
        saturated.dedup();
        let names = format!(
            "[{}]",
            saturated
                .iter()
                .map(|s| format!("'{s}'"))
                .collect::<Vec<_>>()
                .join(", ")
        );
        pass.warnings.push(if discovery.is_some() {
            format!(
                "probe window saturated in scope(s) {names}: participants/concept scans cover the newest {cap} \
                 records per scope — keyword discovery (the home's FTS5 index), exact anchors and vector \
                 search reach the whole store"
            )
        } else {
            format!(
                "probe window saturated in scope(s) {names}: keyword/concept scans cover the newest {cap} \
                 records per scope — older records are reachable through exact anchors or vector search \
                 only (deep effort widens the window)"
            )
        });
    }

    let exact = channels::run_exact(
        view.store,
        view.folds,
        p.stimulus,
        p.pairs,
        &budget,
        view.headroom,
        &mut pass.warnings,
    )?;
    if exact.ran {
        pass.channels_run.push("exact");
    }
    pass.admit_output(view, &exact, &BTreeMap::new())?;

    let knobs = VectorKnobs {
        embedder: p.embedder,
        headroom: view.headroom,
        floor: p.config.vector_floor,
        margin: p.config.vector_margin,
        span: p.config.confidence_span,
    };
    let vector = channels::run_vector(
        view.store,
        view.folds,
        p.stimulus,
        p.pairs,
        &budget,
        &knobs,
        &mut pass.warnings,
    )?;
    if vector.ran {
        pass.channels_run.push("vector");
    }
    pass.admit_output(view, &vector, &BTreeMap::new())?;

    // The scans read the window plus every direct match so far.
    let admitted: Vec<TripleAssertion> = pass
        .universe
        .values()
        .map(|c| c.assertion.clone())
        .collect();
    let mut scan: BTreeMap<&str, &TripleAssertion> =
        gathered.iter().map(|(rid, a)| (rid.as_str(), a)).collect();
    for a in &admitted {
        if let Some(rid) = a.assertion_id.as_deref() {
            scan.insert(rid, a);
        }
    }
    let keyword = channels::run_keyword(
        &p.stimulus.cue_text,
        &scan,
        discovery,
        Some(view.store.index),
        &mut pass.warnings,
    );
    if keyword.ran {
        pass.channels_run.push("keyword");
    }
    pass.admit_output(view, &keyword, &scan)?;
    for (rid, a) in &keyword.found {
        scan.insert(rid.as_str(), a);
    }
    let participants = channels::run_participants(p.stimulus, &scan);
    if participants.ran {
        pass.channels_run.push("participants");
    }
    pass.admit_output(view, &participants, &scan)?;
    Ok(pass)
}
