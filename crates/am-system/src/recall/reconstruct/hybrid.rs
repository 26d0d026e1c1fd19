//! The hybrid retrieval profile ([`crate::config::ReconstructConfig::hybrid`]):
//! candidates gathered from the indexes, not only the newest window, and one
//! fused score per candidate.
//!
//! - keyword: the cue's tokens (every length down to
//!   [`HybridConfig::min_token_len`], query-side stopwords dropped) searched in
//!   the store's keyword index (`keyword_scores`: BM25, best first, the
//!   in-process keyword mirror on SQLite), the top
//!   [`HybridConfig::keyword_top_k`] per pair, scored `bm25 / max bm25` of the cue;
//! - vector: the cosine ranking over the whole pair (the store's matrix cache),
//!   the top [`HybridConfig::vector_top_k`], scored by the cosine itself;
//! - exact patterns and anchors, and participants, as the spec's channels;
//! - fusion ([`Fusion`]): reciprocal rank `Σ w / (k + rank)` or a weighted sum
//!   of the normalized scores; an exact hit or a shared participant adds its
//!   score as a rank-1 hit;
//! - conversational neighbours: the records formed just before and after each
//!   of the best [`HybridConfig::neighbour_seeds`] matches (same pair, within
//!   [`HybridConfig::neighbour_gap_s`]) gain `neighbour_weight ×` its fused
//!   score (channel `neighbour`).
//!
//! The fused scores are divided by the cue's best, so the best match scores 1.
//! Nothing here writes: the profile changes which rows are relevant and in
//! which order, never the pipeline's admission rules (relevance admits,
//! activation reorders by `boost / 1000`), its journal reads or its trace.

use super::channels::{self, ChannelOutput, ChannelResult};
use super::folds::Folds;
use super::hash::HashMap;
use super::index::RecallIndex;
use super::read::RecallRead;
use super::shelf::{Candidate, memberable};
use super::universe::{add_candidate, apply_channel, universe_rows};
use crate::config::{Fusion, HybridConfig, RecallBudget};
use crate::error::Result;
use crate::seam::Stimulus;
use am_triples::{TextEmbedder, TripleAssertion, TripleQuery, TripleStore};
use std::borrow::Cow;

/// English function words the keyword search drops from a cue (query side
/// only: the index holds every token). Question words are among them: they
/// say what kind of answer is wanted, not what it mentions.
pub(crate) const STOPWORDS: &[&str] = &[
    "a", "about", "after", "again", "all", "also", "am", "an", "and", "any", "are", "as", "at",
    "be", "been", "before", "being", "both", "but", "by", "can", "could", "d", "did", "do", "does",
    "doing", "during", "each", "ever", "few", "for", "from", "had", "has", "have", "having", "he",
    "her", "here", "hers", "him", "his", "how", "i", "if", "in", "into", "is", "it", "its", "just",
    "ll", "m", "me", "might", "more", "most", "my", "no", "nor", "not", "of", "on", "once", "only",
    "or", "other", "our", "ours", "out", "over", "own", "re", "s", "same", "she", "should", "so",
    "some", "such", "t", "than", "that", "the", "their", "theirs", "them", "then", "there",
    "these", "they", "this", "those", "through", "to", "too", "under", "until", "up", "ve", "very",
    "was", "we", "were", "what", "when", "where", "which", "while", "who", "whom", "why", "will",
    "with", "would", "you", "your", "yours",
];

/// The cue's keyword terms under `config`: folded tokens of at least
/// `min_token_len` characters, first-seen order, stopwords dropped when asked
/// (all kept when nothing else is left).
pub(crate) fn cue_terms(cue: &str, config: &HybridConfig) -> Vec<String> {
    let tokens = am_triples::text::tokenize(cue, config.min_token_len.max(1));
    if !config.stopwords {
        return tokens;
    }
    let kept: Vec<String> = tokens
        .iter()
        .filter(|t| !STOPWORDS.contains(&t.as_str()))
        .cloned()
        .collect();
    if kept.is_empty() { tokens } else { kept }
}

/// What the profile reads, borrowed from the pipeline.
pub(super) struct HybridInputs<'a> {
    /// The store as the recall sees it (the recall index in front).
    pub(crate) store: &'a dyn RecallRead,
    /// The system's own store (the keyword index reads).
    pub(crate) inner: &'a dyn TripleStore,
    /// The refreshed recall index.
    pub(crate) index: &'a RecallIndex,
    /// The exclusion and binding folds.
    pub(crate) folds: &'a Folds<'a>,
    /// The normalized stimulus.
    pub(crate) stimulus: &'a Stimulus,
    /// The searched pairs, narrow to broad.
    pub(crate) pairs: &'a [(String, String)],
    /// The recall's budget.
    pub(crate) budget: &'a RecallBudget,
    /// The system's embedder.
    pub(crate) embedder: Option<&'a dyn TextEmbedder>,
    /// Over-fetch headroom for excluded rows.
    pub(crate) headroom: usize,
}

fn scoped(mut q: TripleQuery, scope: &str, owner: &str, limit: usize) -> TripleQuery {
    q.scope = Some(scope.to_owned());
    q.owner_id = (!owner.is_empty()).then(|| owner.to_owned());
    q.limit = limit as i64;
    q
}

/// Keep the first `limit` eligible rows of one pair's ranking into `best`
/// (the best raw score per id over pairs).
fn keep_ranked(
    folds: &Folds<'_>,
    ranked: Vec<(TripleAssertion, f64)>,
    limit: usize,
    best: &mut Vec<(String, f64, TripleAssertion)>,
) -> Result<()> {
    let mut kept = 0;
    for (a, score) in ranked {
        if kept >= limit {
            break;
        }
        if !memberable(&a) || folds.excluded(&a)? {
            continue;
        }
        kept += 1;
        let rid = a.assertion_id.clone().unwrap_or_default();
        match best.iter_mut().find(|(r, _, _)| *r == rid) {
            Some(slot) if slot.1 < score => slot.1 = score,
            Some(_) => {}
            None => best.push((rid, score, a)),
        }
    }
    Ok(())
}

/// One pair's keyword ranking: rows with their BM25 scores, best first.
/// `None` when the store has no keyword index.
fn keyword_pair(
    inp: &HybridInputs<'_>,
    terms: &[String],
    scope: &str,
    owner: Option<&str>,
    limit: usize,
    warnings: &mut Vec<String>,
) -> Result<Option<Vec<(TripleAssertion, f64)>>> {
    if let Some(range) = inp.index.position_range(scope, owner)
        && let Ok(Some(scored)) = inp.inner.keyword_scores(terms, scope, owner, limit, range)
    {
        let positions: Vec<i64> = scored.iter().map(|(p, _)| *p).collect();
        if let Some(rows) = inp.index.rows_at(&positions) {
            return Ok(Some(
                rows.into_iter()
                    .zip(scored.into_iter().map(|(_, s)| s))
                    .collect(),
            ));
        }
    }
    let rows = match inp.inner.query_keywords(terms, scope, owner, limit) {
        Ok(rows) => rows,
        Err(e) if e.kind() == am_triples::ErrorKind::Unsupported => return Ok(None),
        Err(e) => return Err(e),
    };
    // The same rows in the same order, with their scores (the contract of
    // `keyword_positions` over every position).
    if let Ok(Some(scored)) = inp
        .inner
        .keyword_scores(terms, scope, owner, limit, (0, i64::MAX))
        && scored.len() == rows.len()
    {
        return Ok(Some(
            rows.into_iter()
                .zip(scored.into_iter().map(|(_, s)| s))
                .collect(),
        ));
    }
    warnings.push(
        "#FALLBACK: hybrid keyword channel: the store's keyword index gives no BM25 scores — \
         scores derived from its rank order"
            .into(),
    );
    let n = rows.len() as f64;
    Ok(Some(
        rows.into_iter()
            .enumerate()
            .map(|(i, a)| (a, (n - i as f64) / n))
            .collect(),
    ))
}

/// The keyword channel of the profile. `None` when the store has no keyword
/// index (the caller then runs the spec's token scan).
fn run_keyword(
    inp: &HybridInputs<'_>,
    config: &HybridConfig,
    warnings: &mut Vec<String>,
) -> Result<Option<ChannelOutput>> {
    let terms = cue_terms(&inp.stimulus.cue_text, config);
    let mut out = ChannelOutput::default();
    if terms.is_empty() {
        if !inp.stimulus.cue_text.trim().is_empty() {
            warnings.push(
                "#FALLBACK: keyword channel: cue produced no indexable tokens (no ASCII letters or digits)"
                    .into(),
            );
        }
        return Ok(Some(out));
    }
    let limit = config.keyword_top_k.max(1);
    let mut best: Vec<(String, f64, TripleAssertion)> = Vec::new();
    for (scope, owner) in inp.pairs {
        let owner = (!owner.is_empty()).then_some(owner.as_str());
        let Some(ranked) = keyword_pair(inp, &terms, scope, owner, limit + inp.headroom, warnings)?
        else {
            return Ok(None);
        };
        inp.folds.prime(ranked.iter().map(|(a, _)| a))?;
        keep_ranked(inp.folds, ranked, limit, &mut best)?;
    }
    out.ran = true;
    best.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    let top = best.first().map_or(1.0, |b| b.1).max(f64::MIN_POSITIVE);
    for (rid, raw, a) in best {
        out.results.push(ChannelResult {
            record_id: rid.clone(),
            channel: "keyword",
            score: (raw / top).clamp(0.0, 1.0),
            detail: format!("keyword: bm25 {raw:.3} ({})", terms.join(" ")),
        });
        out.found.insert(rid, a);
    }
    Ok(Some(out))
}

/// The vector channel of the profile: the raw cosine ranking of each pair.
fn run_vector(
    inp: &HybridInputs<'_>,
    config: &HybridConfig,
    warnings: &mut Vec<String>,
) -> Result<ChannelOutput> {
    let mut out = ChannelOutput::default();
    let Some(base) = channels::vector_query(inp.store, inp.stimulus, inp.embedder, warnings) else {
        return Ok(out);
    };
    let limit = config.vector_top_k.max(1);
    let mut best: Vec<(String, f64, TripleAssertion)> = Vec::new();
    for (scope, owner) in inp.pairs {
        let rows = match inp
            .store
            .rows(&scoped(base.clone(), scope, owner, limit + inp.headroom))
        {
            Ok(rows) => rows,
            Err(e) => {
                warnings.push(format!("#FALLBACK: vector channel unavailable: {e}"));
                return Ok(ChannelOutput::default());
            }
        };
        inp.folds.prime(&rows)?;
        let ranked: Vec<(TripleAssertion, f64)> = rows
            .into_iter()
            .filter_map(|a| am_triples::store::retrieval_score(&a).map(|raw| (a, raw)))
            .collect();
        keep_ranked(inp.folds, ranked, limit, &mut best)?;
    }
    out.ran = true;
    best.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    for (rid, raw, a) in best {
        out.results.push(ChannelResult {
            record_id: rid.clone(),
            channel: "vector",
            score: raw.clamp(0.0, 1.0),
            detail: format!("vector: cosine {raw:.3}"),
        });
        out.found.insert(rid, a);
    }
    Ok(out)
}

/// Rank (1 = best) and normalized score of each id in a channel's results
/// (already best first).
fn ranks(out: &ChannelOutput, min_max: bool) -> HashMap<String, (usize, f64)> {
    let hi = out.results.first().map_or(0.0, |r| r.score);
    let lo = out.results.last().map_or(0.0, |r| r.score);
    out.results
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let norm = if min_max {
                if hi > lo {
                    (r.score - lo) / (hi - lo)
                } else {
                    1.0
                }
            } else {
                r.score
            };
            (r.record_id.clone(), (i + 1, norm))
        })
        .collect()
}

/// The nearest records formed before and after `a` in its pair, within the
/// gap: from the recall index, else one store read of the time window.
fn neighbours_of(
    inp: &HybridInputs<'_>,
    a: &TripleAssertion,
    gap_s: f64,
) -> Result<Vec<TripleAssertion>> {
    let Ok(at) = am_triples::timestamp::parse_timestamp(&a.observed_at) else {
        return Ok(Vec::new());
    };
    let within = |b: &TripleAssertion| -> bool {
        am_triples::timestamp::parse_timestamp(&b.observed_at)
            .is_ok_and(|t| (t - at).as_seconds_f64().abs() <= gap_s)
    };
    let rid = a.assertion_id.as_deref().unwrap_or_default();
    let keep = |b: &TripleAssertion| memberable(b) && b.assertion_id.as_deref() != Some(rid);
    let near = |b: &&TripleAssertion| within(b);
    let found = inp.index.neighbours(rid, 8, &keep);
    if !found.is_empty() {
        return Ok(found.into_iter().filter(|b| within(b)).cloned().collect());
    }
    let span = std::time::Duration::from_secs_f64(gap_s.clamp(0.0, 1e9));
    let (Ok(since), Ok(until)) = (
        am_triples::timestamp::normalize_timestamp(&am_triples::timestamp::format_utc(at - span)),
        am_triples::timestamp::normalize_timestamp(&am_triples::timestamp::format_utc(at + span)),
    ) else {
        return Ok(Vec::new());
    };
    let rows = inp.store.rows(&TripleQuery {
        scope: Some(a.scope.clone()),
        owner_id: a.owner_id.clone(),
        since: Some(since),
        until: Some(until),
        limit: 0,
        ..TripleQuery::default()
    })?;
    // The contract order (newest first, ties newest-inserted first) is the
    // recall index's pair order: `a`'s neighbours are the nearest kept rows
    // on either side of it, as the index finds them (a kept row beyond the
    // window is never near).
    let Some(at) = rows
        .iter()
        .position(|b| b.assertion_id.as_deref() == Some(rid))
    else {
        return Ok(Vec::new());
    };
    let newer = rows[..at].iter().rev().take(8).find(|b| keep(b));
    let older = rows[at + 1..].iter().take(8).find(|b| keep(b));
    Ok(newer
        .into_iter()
        .chain(older)
        .filter(near)
        .cloned()
        .collect())
}

/// Run the profile's channels and fusion over `universe` (which holds the
/// newest window), setting every matched candidate's
/// [`Candidate::fused_score`].
///
/// # Errors
/// The store's or journal's failure (a degraded channel is a warning).
pub(super) fn run(
    inp: &HybridInputs<'_>,
    config: &HybridConfig,
    universe: &mut HashMap<String, Candidate>,
    channels_run: &mut Vec<&'static str>,
    warnings: &mut Vec<String>,
) -> Result<()> {
    let mut exact = channels::run_exact(
        inp.store,
        inp.folds,
        inp.stimulus,
        inp.pairs,
        inp.budget,
        inp.headroom,
        warnings,
    )?;
    if exact.ran {
        channels_run.push("exact");
        apply_channel(universe, &mut exact, inp.folds)?;
    }
    let mut vector = run_vector(inp, config, warnings)?;
    let vector_ranks = ranks(&vector, true);
    if vector.ran {
        channels_run.push("vector");
        apply_channel(universe, &mut vector, inp.folds)?;
    }
    let mut keyword = match run_keyword(inp, config, warnings)? {
        Some(k) => k,
        None => {
            warnings.push(
                "#FALLBACK: hybrid keyword channel: the store has no keyword index — universe token scan"
                    .into(),
            );
            let mut k = channels::run_keyword(
                &inp.stimulus.cue_text,
                &universe_rows(universe),
                None,
                Some(inp.index),
                &mut Vec::new(),
            );
            k.results.sort_by(|a, b| {
                b.score
                    .total_cmp(&a.score)
                    .then(a.record_id.cmp(&b.record_id))
            });
            k
        }
    };
    let keyword_ranks = ranks(&keyword, false);
    if keyword.ran {
        channels_run.push("keyword");
        apply_channel(universe, &mut keyword, inp.folds)?;
    }
    let mut participants = channels::run_participants(inp.stimulus, &universe_rows(universe));
    if participants.ran {
        channels_run.push("participants");
        apply_channel(universe, &mut participants, inp.folds)?;
    }

    // Fusion.
    let rank_one = 1.0 / (config.rrf_k + 1.0);
    let mut fused: Vec<(String, f64)> = Vec::new();
    for (rid, c) in universe.iter() {
        if !c.channel_matched() {
            continue;
        }
        let mut f = 0.0;
        for (weight, ranked) in [
            (config.keyword_weight, &keyword_ranks),
            (config.vector_weight, &vector_ranks),
        ] {
            if let Some((rank, norm)) = ranked.get(rid) {
                f += match config.fusion {
                    Fusion::Rrf => weight / (config.rrf_k + *rank as f64),
                    Fusion::WeightedSum => weight * norm,
                };
            }
        }
        let unit = match config.fusion {
            Fusion::Rrf => rank_one,
            Fusion::WeightedSum => 1.0,
        };
        for channel in ["exact", "participants"] {
            if let Some(s) = c.relevance.get(channel) {
                f += unit * s;
            }
        }
        fused.push((rid.clone(), f));
    }
    fused.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));

    // Conversational neighbours of the best matches.
    let mut boost: HashMap<String, f64> = HashMap::default();
    let mut arrivals: Vec<TripleAssertion> = Vec::new();
    if config.neighbour_weight > 0.0 {
        for (rid, f) in fused.iter().take(config.neighbour_seeds) {
            for n in neighbours_of(inp, &universe[rid].assertion, config.neighbour_gap_s)? {
                let nid = n.assertion_id.clone().unwrap_or_default();
                *boost.entry(nid.clone()).or_insert(0.0) += config.neighbour_weight * f;
                if !universe.contains_key(&nid)
                    && !arrivals.iter().any(|x| x.assertion_id == n.assertion_id)
                {
                    arrivals.push(n);
                }
            }
        }
    }
    inp.folds.prime(&arrivals)?;
    for a in arrivals {
        add_candidate(universe, Cow::Owned(a), inp.folds)?;
    }
    let mut scores: HashMap<String, f64> = fused.into_iter().collect();
    let top_base = scores.values().copied().fold(0.0, f64::max);
    let mut ids: Vec<String> = boost.keys().cloned().collect();
    ids.sort();
    let mut neighboured = false;
    for nid in ids {
        let Some(c) = universe.get_mut(&nid) else {
            continue;
        };
        let b = boost[&nid];
        *scores.entry(nid.clone()).or_insert(0.0) += b;
        if top_base > 0.0 {
            c.relevance
                .insert("neighbour", (b / top_base).clamp(0.0, 1.0));
            c.details
                .entry("neighbour".to_owned())
                .or_default()
                .push(format!(
                    "neighbour: formed beside a match ({:.3})",
                    b / top_base
                ));
            neighboured = true;
        }
    }
    if neighboured {
        channels_run.push("neighbour");
    }
    let top = scores.values().copied().fold(0.0, f64::max);
    for (rid, f) in &scores {
        if let Some(c) = universe.get_mut(rid) {
            c.fused_score = Some(if top > 0.0 { f / top } else { 0.0 });
        }
    }
    bound_pool(universe, &scores, inp.budget.max_candidates);
    Ok(())
}

/// Hold the pool to `max_candidates` (the budget's candidate pool bound):
/// exact hits always, then the best fused matches, then the newest-window
/// rows no channel matched, newest first, while seats remain.
fn bound_pool(
    universe: &mut HashMap<String, Candidate>,
    scores: &HashMap<String, f64>,
    cap: usize,
) {
    if universe.len() <= cap {
        return;
    }
    let mut ranked: Vec<(&String, bool, f64, &str)> = universe
        .iter()
        .map(|(rid, c)| {
            let matched = c.channel_matched();
            let exact = c.relevance.contains_key("exact");
            let score = if exact {
                f64::INFINITY
            } else if matched {
                scores.get(rid).copied().unwrap_or(0.0)
            } else {
                f64::NEG_INFINITY
            };
            (rid, matched, score, c.assertion.observed_at.as_str())
        })
        .collect();
    ranked.sort_by(|a, b| {
        b.1.cmp(&a.1)
            .then(b.2.total_cmp(&a.2))
            .then(b.3.cmp(a.3))
            .then(a.0.cmp(b.0))
    });
    let dropped: Vec<String> = ranked
        .iter()
        .enumerate()
        .filter(|(i, (_, _, score, _))| *i >= cap && *score != f64::INFINITY)
        .map(|(_, (rid, _, _, _))| (*rid).clone())
        .collect();
    for rid in dropped {
        universe.remove(&rid);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cue_terms_keep_short_tokens_and_drop_stopwords_unless_nothing_is_left() {
        let c = HybridConfig::default();
        assert_eq!(
            cue_terms("What did Mel say about the VPN key in 2023?", &c),
            ["mel", "say", "vpn", "key", "2023"]
        );
        assert_eq!(cue_terms("what is it", &c), ["what", "is", "it"]);
        let spec_like = HybridConfig {
            min_token_len: 4,
            stopwords: false,
            ..HybridConfig::default()
        };
        assert_eq!(cue_terms("the VPN item12345", &spec_like), ["item12345"]);
    }

    #[test]
    fn the_stopword_list_is_sorted_lowercase_and_unique() {
        for w in STOPWORDS.windows(2) {
            assert!(w[0] < w[1], "{w:?}");
        }
        assert!(
            STOPWORDS
                .iter()
                .all(|w| w.chars().all(|c| c.is_ascii_lowercase()))
        );
    }
}
