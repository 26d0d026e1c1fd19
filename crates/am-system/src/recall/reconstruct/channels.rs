//! The retrieval channels of reconstruction: exact (`Stimulus.patterns` and
//! anchors), keyword (token scan over the candidate universe, optionally with
//! the store's keyword index for discovery), vector (cosine with the
//! floor/median/confidence-scaled relevance) and participants (co-presence).
//! Each scores within 0..=1 and says why; degraded paths add `#FALLBACK`
//! warnings instead of failing the recall.
//!
//! Spec: api.md "Reconstruction"; algorithms.md §3 (keyword), §4 (vector);
//! 0.3.2's `channels.py`.

use super::folds::Folds;
use super::hash::{HashMap, HashSet};
use super::index::{RecallIndex, fold_for_tokens};
use super::read::RecallRead;
use crate::config::RecallBudget;
use crate::error::Result;
use crate::record::DigestRow;
use crate::seam::Stimulus;
use am_triples::text::{RECALL_MIN_TOKEN_LEN, canonical_text, tokenize};
use am_triples::{EmbeddingPin, ErrorKind, JsonMap, TextEmbedder, TripleAssertion, TripleQuery};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// Over-fetch headroom cap: how many extra rows a bounded fetch may request so
/// excluded rows cannot shadow eligible ones.
pub(crate) const EXCLUSION_OVERFETCH_CAP: usize = 256;
/// Below this many scored rows the vector median estimates nothing.
pub(crate) const MEDIAN_MIN_POPULATION: usize = 5;
/// Keys a serialized exact pattern may carry into a query.
const EXACT_PATTERN_KEYS: &[&str] = &[
    "subject",
    "predicate",
    "object",
    "assertion_ids",
    "since",
    "until",
    "active_at",
];

/// One channel hit.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ChannelResult {
    /// The assertion id.
    pub record_id: String,
    /// `exact` | `keyword` | `vector` | `participants`.
    pub channel: &'static str,
    /// Within-channel score, 0..=1.
    pub score: f64,
    /// The "why" cue.
    pub detail: String,
}

/// A channel's output: hits, rows it fetched (discoveries), whether it ran.
#[derive(Debug, Default)]
pub(crate) struct ChannelOutput {
    /// Hits, in channel order.
    pub results: Vec<ChannelResult>,
    /// Rows the channel fetched, by id.
    pub found: HashMap<String, TripleAssertion>,
    /// Whether the channel ran.
    pub ran: bool,
}

/// Python's `repr` of a JSON value as a pattern description shows it.
fn py_repr(v: &Value) -> String {
    match v {
        Value::String(s) => format!("'{s}'"),
        Value::Array(items) => format!(
            "[{}]",
            items.iter().map(py_repr).collect::<Vec<_>>().join(", ")
        ),
        other => am_triples::text::py_str(other),
    }
}

fn pattern_value_usable(v: &Value) -> bool {
    match v {
        Value::String(s) => !s.trim().is_empty(),
        Value::Array(items) => items
            .iter()
            .any(|x| matches!(x, Value::String(s) if !s.trim().is_empty())),
        Value::Null => false,
        _ => true,
    }
}

fn as_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Null => None,
        other => Some(am_triples::text::py_str(other)),
    }
}

/// Sanitize one pattern into query fields plus its description; `None` when
/// nothing usable is left (warned).
fn pattern_query(pattern: &JsonMap, warnings: &mut Vec<String>) -> Option<(TripleQuery, String)> {
    let mut kept: BTreeMap<String, Value> = BTreeMap::new();
    let mut ignored: Vec<String> = Vec::new();
    for (k, v) in pattern {
        if EXACT_PATTERN_KEYS.contains(&k.as_str()) && pattern_value_usable(v) {
            kept.insert(k.clone(), v.clone());
        } else {
            ignored.push(k.clone());
        }
    }
    if !ignored.is_empty() {
        ignored.sort();
        warnings.push(format!(
            "#FALLBACK: exact pattern keys ignored (scope ladder is authoritative): [{}]",
            ignored
                .iter()
                .map(|k| format!("'{k}'"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    if kept.is_empty() {
        warnings.push(
            "#FALLBACK: empty exact pattern skipped (a cue with no constraint is not a cue)".into(),
        );
        return None;
    }
    let desc = kept
        .iter()
        .map(|(k, v)| {
            let shown = match v {
                Value::String(s) => s.clone(),
                other => py_repr(other),
            };
            format!("{k}={shown}")
        })
        .collect::<Vec<_>>()
        .join(", ");
    let mut q = TripleQuery::default();
    for (k, v) in &kept {
        match k.as_str() {
            "subject" => q.subject = as_text(v),
            "predicate" => q.predicate = as_text(v),
            "object" => q.object = as_text(v),
            "since" => q.since = as_text(v),
            "until" => q.until = as_text(v),
            "active_at" => q.active_at = as_text(v),
            "assertion_ids" => {
                q.assertion_ids = Some(match v {
                    Value::Array(items) => items.iter().filter_map(as_text).collect(),
                    other => as_text(other).into_iter().collect(),
                });
            }
            _ => {}
        }
    }
    Some((q, desc))
}

fn scoped(mut q: TripleQuery, scope: &str, owner: &str, limit: usize) -> TripleQuery {
    q.scope = Some(scope.to_owned());
    q.owner_id = (!owner.is_empty()).then(|| owner.to_owned());
    q.limit = limit as i64;
    q
}

/// The exact channel: every pattern per searched pair, plus anchors by id
/// (capped at `max_anchor_cues`). Every hit scores 1.0.
///
/// # Errors
/// The store's or journal's failure other than a refused pattern.
pub(crate) fn run_exact(
    store: &dyn RecallRead,
    folds: &Folds<'_>,
    stimulus: &Stimulus,
    pairs: &[(String, String)],
    budget: &RecallBudget,
    headroom: usize,
    warnings: &mut Vec<String>,
) -> Result<ChannelOutput> {
    let mut out = ChannelOutput::default();
    let limit = budget.max_candidates.max(1);
    let fetch_limit = limit + headroom;
    let prepared: Vec<(TripleQuery, String)> = stimulus
        .patterns
        .iter()
        .filter_map(|p| pattern_query(p, warnings))
        .collect();
    for (q, desc) in prepared {
        out.ran = true;
        for (scope, owner) in pairs {
            let rows = match store.rows(&scoped(q.clone(), scope, owner, fetch_limit)) {
                Ok(rows) => rows,
                Err(e) if e.kind() == ErrorKind::InvalidInput => {
                    warnings.push(format!("#FALLBACK: exact pattern failed ({desc}): {e}"));
                    break;
                }
                Err(e) => return Err(e),
            };
            folds.prime(&rows)?;
            let mut kept = 0;
            for a in rows {
                if kept >= limit {
                    break;
                }
                let Some(rid) = a.assertion_id.clone().filter(|s| !s.is_empty()) else {
                    continue;
                };
                if folds.excluded(&a)? {
                    continue;
                }
                kept += 1;
                out.found.entry(rid.clone()).or_insert(a);
                out.results.push(ChannelResult {
                    record_id: rid,
                    channel: "exact",
                    score: 1.0,
                    detail: format!("exact: {desc}"),
                });
            }
        }
    }
    let mut anchors = stimulus.anchor_record_ids.clone();
    let max_anchors = budget.max_anchor_cues;
    if anchors.len() > max_anchors {
        warnings.push(format!(
            "#TRUNCATION: anchor_record_ids capped at max_anchor_cues={max_anchors} ({} given)",
            anchors.len()
        ));
        anchors.truncate(max_anchors);
    }
    let mut usable: Vec<String> = Vec::new();
    for rid in anchors {
        if folds.excluded_id(&rid)? {
            warnings.push(format!("anchor {rid} excluded by closure/visibility fold"));
        } else {
            usable.push(rid);
        }
    }
    if !usable.is_empty() {
        out.ran = true;
        let mut seen: BTreeSet<String> = BTreeSet::new();
        for (scope, owner) in pairs {
            let q = TripleQuery {
                assertion_ids: Some(usable.clone()),
                ..TripleQuery::default()
            };
            for a in store.rows(&scoped(q, scope, owner, usable.len()))? {
                let Some(rid) = a.assertion_id.clone().filter(|s| !s.is_empty()) else {
                    continue;
                };
                if seen.insert(rid.clone()) {
                    out.found.entry(rid.clone()).or_insert(a);
                    out.results.push(ChannelResult {
                        detail: format!("anchor: {rid}"),
                        record_id: rid,
                        channel: "exact",
                        score: 1.0,
                    });
                }
            }
        }
        let missing: Vec<&String> = usable.iter().filter(|r| !seen.contains(*r)).collect();
        if !missing.is_empty() {
            warnings.push(format!(
                "#FALLBACK: anchor records not found in searched scopes: [{}]",
                missing
                    .iter()
                    .map(|m| format!("'{m}'"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
    }
    Ok(out)
}

fn pin_suffix(store: &dyn RecallRead) -> String {
    match store.pin() {
        Ok(Some(pin)) => format!(" [store pin: {}]", EmbeddingPin::note(Some(&pin))),
        _ => String::new(),
    }
}

/// Python's `statistics.median`.
fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    if n % 2 == 1 {
        values[n / 2]
    } else {
        (values[n / 2 - 1] + values[n / 2]) / 2.0
    }
}

/// Python's `f"{x:.3g}"`.
pub(crate) fn format_g3(x: f64) -> String {
    if x == 0.0 {
        return "0".into();
    }
    let exp = x.abs().log10().floor() as i32;
    let sci = format!("{x:.2e}");
    let (mantissa, e) = sci.split_once('e').unwrap_or((&sci, "0"));
    let e: i32 = e.parse().unwrap_or(exp);
    if !(-4..3).contains(&e) {
        let m = mantissa.trim_end_matches('0').trim_end_matches('.');
        let sign = if e < 0 { '-' } else { '+' };
        return format!("{m}e{sign}{:02}", e.abs());
    }
    let decimals = (2 - e).max(0) as usize;
    let s = format!("{x:.decimals$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_owned()
    } else {
        s
    }
}

/// The vector channel's settings for one call: the embedder, the exclusion
/// headroom, and the score knobs.
pub(crate) struct VectorKnobs<'e> {
    /// The system embedder the cue is embedded with (else the store's own).
    pub embedder: Option<&'e dyn TextEmbedder>,
    /// Extra rows each pair's query fetches for the ones exclusion drops.
    pub headroom: usize,
    /// Absolute floor.
    pub floor: f64,
    /// Median margin.
    pub margin: f64,
    /// Confidence span.
    pub span: f64,
}

/// The vector channel's query: the stimulus embedding, else the system
/// embedder on the cue, else the store's own `query_text`; `None` (an empty
/// cue, or the embedder failed: warned `#FALLBACK`) when there is none.
pub(crate) fn vector_query(
    store: &dyn RecallRead,
    stimulus: &Stimulus,
    embedder: Option<&dyn TextEmbedder>,
    warnings: &mut Vec<String>,
) -> Option<TripleQuery> {
    let mut base = TripleQuery::default();
    if let Some(v) = &stimulus.embedding {
        base.query_vector = Some(v.iter().map(|x| *x as f32).collect());
    } else if !stimulus.cue_text.is_empty()
        && let Some(e) = embedder
    {
        match e.embed_texts(std::slice::from_ref(&stimulus.cue_text)) {
            Ok(mut v) if !v.is_empty() => base.query_vector = Some(v.swap_remove(0)),
            Ok(_) => {
                warnings.push(format!(
                    "#FALLBACK: vector channel unavailable: the embedder returned no vector{}",
                    pin_suffix(store)
                ));
                return None;
            }
            Err(err) => {
                warnings.push(format!(
                    "#FALLBACK: vector channel unavailable: {err}{}",
                    pin_suffix(store)
                ));
                return None;
            }
        }
    } else if !stimulus.cue_text.is_empty() {
        base.query_text = Some(stimulus.cue_text.clone());
    } else {
        return None;
    }
    Some(base)
}

/// The vector channel. Query vector: the stimulus embedding, else the system
/// embedder on the cue, else the store's own `query_text`. Any embed or store
/// failure (a `DimensionMismatch` included) degrades the channel to a
/// `#FALLBACK` warning. Relevance is confidence-scaled over the effective
/// floor `max(floor, median + margin)` (median with at least 5 scored rows).
///
/// # Errors
/// The journal's failure from the exclusion fold.
pub(crate) fn run_vector(
    store: &dyn RecallRead,
    folds: &Folds<'_>,
    stimulus: &Stimulus,
    pairs: &[(String, String)],
    budget: &RecallBudget,
    knobs: &VectorKnobs<'_>,
    warnings: &mut Vec<String>,
) -> Result<ChannelOutput> {
    let (embedder, headroom) = (knobs.embedder, knobs.headroom);
    let Some(base) = vector_query(store, stimulus, embedder, warnings) else {
        return Ok(ChannelOutput::default());
    };
    let limit = budget.max_candidates.max(1);
    let fetch_limit = limit + headroom;
    let mut raw_scores: BTreeMap<String, f64> = BTreeMap::new();
    let mut found: HashMap<String, TripleAssertion> = HashMap::default();
    for (scope, owner) in pairs {
        let rows = match store.rows(&scoped(base.clone(), scope, owner, fetch_limit)) {
            Ok(rows) => rows,
            Err(e) => {
                warnings.push(format!(
                    "#FALLBACK: vector channel unavailable: {e}{}",
                    pin_suffix(store)
                ));
                return Ok(ChannelOutput::default());
            }
        };
        folds.prime(&rows)?;
        let mut kept = 0;
        for a in rows {
            if kept >= limit {
                break;
            }
            let Some(rid) = a.assertion_id.clone().filter(|s| !s.is_empty()) else {
                continue;
            };
            if folds.excluded(&a)? {
                continue;
            }
            let Some(raw) = am_triples::store::retrieval_score(&a) else {
                continue;
            };
            kept += 1;
            if raw_scores.get(&rid).is_none_or(|cur| raw > *cur) {
                raw_scores.insert(rid.clone(), raw);
                found.insert(rid, a);
            }
        }
    }
    let mut floor = knobs.floor;
    if raw_scores.len() >= MEDIAN_MIN_POPULATION {
        let mut vals: Vec<f64> = raw_scores.values().copied().collect();
        floor = floor.max(median(&mut vals) + knobs.margin);
    }
    let positive: Vec<(&String, f64)> = raw_scores
        .iter()
        .filter(|(_, s)| **s > 0.0 && **s >= floor)
        .map(|(r, s)| (r, *s))
        .collect();
    let mut out = ChannelOutput {
        ran: true,
        ..ChannelOutput::default()
    };
    if !positive.is_empty() {
        let top = positive
            .iter()
            .map(|(_, s)| *s)
            .fold(f64::NEG_INFINITY, f64::max);
        let span = knobs.span.max(1e-9);
        let scale = ((top - floor) / span).clamp(0.0, 1.0);
        let denominator = (top - floor).max(1e-9);
        for (rid, raw) in positive {
            out.results.push(ChannelResult {
                record_id: rid.clone(),
                channel: "vector",
                score: scale * (raw - floor) / denominator,
                detail: format!("vector: cosine {raw:.3}"),
            });
        }
    } else if !raw_scores.is_empty() {
        warnings.push(format!(
            "#FALLBACK: vector channel: all {} cosines below floor {} — no semantic signal for this cue",
            raw_scores.len(),
            format_g3(floor)
        ));
    }
    out.found = found;
    Ok(out)
}

/// The "why" of a concept admission: its first six shared concepts.
pub(crate) fn concept_detail(concepts: &[String]) -> String {
    let shown: Vec<&str> = concepts.iter().take(6).map(String::as_str).collect();
    format!("shared concepts: {}", shown.join(", "))
}

/// The participants channel over the universe: `|shared| / |wanted|` for
/// candidates whose `attributes.participants` intersect the stimulus's.
pub(crate) fn run_participants(
    stimulus: &Stimulus,
    universe: &BTreeMap<&str, &TripleAssertion>,
) -> ChannelOutput {
    let wanted: BTreeSet<String> = stimulus
        .participants
        .iter()
        .map(|p| p.trim().to_owned())
        .filter(|p| !p.is_empty())
        .collect();
    let mut out = ChannelOutput::default();
    if wanted.is_empty() || universe.is_empty() {
        return out;
    }
    out.ran = true;
    for (rid, a) in universe {
        let present: BTreeSet<String> = match DigestRow::of(a).get("participants") {
            Some(Value::Array(items)) => items
                .iter()
                .map(|p| am_triples::text::py_str(p).trim().to_owned())
                .filter(|p| !p.is_empty() && p != "None")
                .collect(),
            _ => BTreeSet::new(),
        };
        let shared: Vec<&String> = wanted.intersection(&present).collect();
        if shared.is_empty() {
            continue;
        }
        out.results.push(ChannelResult {
            record_id: (*rid).to_owned(),
            channel: "participants",
            score: shared.len() as f64 / wanted.len() as f64,
            detail: format!(
                "shared-with: {} ({}/{})",
                shared
                    .iter()
                    .map(|s| s.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
                shared.len(),
                wanted.len()
            ),
        });
    }
    out
}

/// The keyword channel: the cue's tokens (length ≥ 4, casefolded,
/// accent-folded) scanned over every universe member's canonical text, score
/// `matched / total`. With `discovery` rows the store's keyword index found
/// (already exclusion-filtered) join the scan; without it the channel is
/// labelled as the token-scan fallback.
/// `index` (when given) serves each row's token set precomputed; a row it
/// does not hold is tokenized here, with the same result.
pub(crate) fn run_keyword(
    cue_text: &str,
    universe: &BTreeMap<&str, &TripleAssertion>,
    discovery: Option<Vec<TripleAssertion>>,
    index: Option<&RecallIndex>,
    warnings: &mut Vec<String>,
) -> ChannelOutput {
    let tokens = tokenize(cue_text, RECALL_MIN_TOKEN_LEN);
    let mut out = ChannelOutput::default();
    if tokens.is_empty() {
        if !cue_text.trim().is_empty() {
            warnings.push(
                "#FALLBACK: keyword channel: cue produced no indexable tokens (the token scan reads words of 4 or more characters; keyword discovery through the home's FTS5 index finds shorter ones)"
                    .into(),
            );
        }
        return out;
    }
    let discovery_ran = discovery.is_some();
    let mut found: HashMap<String, TripleAssertion> = HashMap::default();
    for a in discovery.unwrap_or_default() {
        if let Some(rid) = a.assertion_id.clone()
            && !universe.contains_key(rid.as_str())
        {
            found.entry(rid).or_insert(a);
        }
    }
    let mut scan: BTreeMap<&str, &TripleAssertion> = universe.clone();
    for (rid, a) in &found {
        scan.insert(rid.as_str(), a);
    }
    if scan.is_empty() {
        out.ran = discovery_ran;
        return out;
    }
    if !discovery_ran {
        warnings.push("#FALLBACK: keyword channel v1 = token scan over the gathered candidates (keyword discovery through the home's FTS5 index is off: turn it on with ReconstructConfig.keyword_discovery, or recall with the hybrid profile as am recall does; am exec: profile hybrid on the line, or --profile hybrid)".into());
    }
    let total = tokens.len();
    let hashes: Vec<u64> = index.map_or_else(Vec::new, |i| {
        tokens.iter().map(|t| i.token_hash(t)).collect()
    });
    for (rid, a) in &scan {
        // Every cue token is at least RECALL_MIN_TOKEN_LEN long, so a cue token
        // equal to one of the candidate's runs is one of its tokens.
        let matched: Vec<&String> = match index.and_then(|i| i.tokens(a)) {
            Some(cand) => tokens
                .iter()
                .zip(&hashes)
                .filter(|(t, h)| cand.contains(t, **h))
                .map(|(t, _)| t)
                .collect(),
            None => {
                let folded = fold_for_tokens(&canonical_text(a));
                let cand: HashSet<&str> = folded
                    .split(|c: char| !(c.is_ascii_lowercase() || c.is_ascii_digit()))
                    .filter(|r| !r.is_empty())
                    .collect();
                tokens
                    .iter()
                    .filter(|t| cand.contains(t.as_str()))
                    .collect()
            }
        };
        if matched.is_empty() {
            continue;
        }
        out.results.push(ChannelResult {
            record_id: (*rid).to_owned(),
            channel: "keyword",
            score: matched.len() as f64 / total as f64,
            detail: format!(
                "keyword: matched {} ({}/{total})",
                matched
                    .iter()
                    .map(|s| s.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
                matched.len()
            ),
        });
    }
    let scored: BTreeSet<&str> = out.results.iter().map(|r| r.record_id.as_str()).collect();
    out.found = found
        .into_iter()
        .filter(|(rid, _)| scored.contains(rid.as_str()))
        .collect();
    out.ran = true;
    out
}
