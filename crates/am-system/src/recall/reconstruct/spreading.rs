//! Bounded spreading activation from channel matches over recorded edges
//! (assertions sharing an entity term) and co-use trails (warm `co_selected`
//! pairs), within `max_hops`, `fan_out_cap`, `max_edges` and
//! `min_contribution`. A pure read; excluded rows neither receive nor conduct.
//!
//! Spec: api.md "Reconstruction"; algorithms.md §6; 0.3.2's `spreading.py`.

use super::folds::Folds;
use super::hash::{HashMap, HashSet};
use super::index::IndexedStore;
use super::read::RecallRead;
use crate::config::SpreadParams;
use crate::error::Result;
use crate::record::DigestRow;
use crate::seam::WalkedEdge;
use am_triples::{TripleAssertion, TripleQuery};
use std::borrow::Cow;
use std::collections::BTreeMap;

/// Terms longer than this are free text, not entity names.
const ENTITY_TERM_MAX_CHARS: usize = 120;

fn is_entity_term(term: &str) -> bool {
    let t = term.trim();
    !t.is_empty()
        && t.chars().count() <= ENTITY_TERM_MAX_CHARS
        && t.chars().any(char::is_alphanumeric)
}

fn is_literal(a: &TripleAssertion) -> bool {
    DigestRow::of(a).flag("literal")
}

fn is_graph_edge(a: &TripleAssertion) -> bool {
    !is_literal(a) && is_entity_term(&a.subject) && is_entity_term(&a.object)
}

fn expansion_terms(a: &TripleAssertion) -> Vec<String> {
    let mut terms = Vec::new();
    if is_entity_term(&a.subject) {
        terms.push(a.subject.clone());
    }
    if !is_literal(a) && is_entity_term(&a.object) && !terms.contains(&a.object) {
        terms.push(a.object.clone());
    }
    terms
}

fn pair_query(scope: &str, owner: &str, limit: usize) -> TripleQuery {
    TripleQuery {
        scope: Some(scope.to_owned()),
        owner_id: (!owner.is_empty()).then(|| owner.to_owned()),
        limit: limit as i64,
        ..TripleQuery::default()
    }
}

/// Id fetch within one pair (an empty id set fetches nothing).
///
/// # Errors
/// The store's failure.
pub(crate) fn fetch_by_ids<S: RecallRead + ?Sized>(
    store: &S,
    ids: &[String],
    scope: &str,
    owner: &str,
) -> Result<HashMap<String, TripleAssertion>> {
    let mut wanted: Vec<String> = ids.iter().filter(|i| !i.is_empty()).cloned().collect();
    wanted.sort();
    wanted.dedup();
    if wanted.is_empty() {
        return Ok(HashMap::default());
    }
    let mut q = pair_query(scope, owner, wanted.len());
    q.assertion_ids = Some(wanted);
    Ok(store
        .rows(&q)?
        .into_iter()
        .filter_map(|a| a.assertion_id.clone().map(|id| (id, a)))
        .collect())
}

/// The term queries one walk has already run: `(by_object, term)` → the rows
/// the store returned (the per-query limit is fixed for the walk), so a term
/// shared by several sources is read once.
type TermCache<'s> = HashMap<(bool, String), Vec<Cow<'s, TripleAssertion>>>;

/// What one walk reads through: the store (and the recall index behind
/// it), the folds that exclude, the `(scope, owner)` pair walked, and the
/// exclusion over-fetch headroom of its term queries.
#[derive(Clone, Copy)]
pub(crate) struct Walk<'a, 's, 'f> {
    /// The store, through the recall index.
    pub store: &'a IndexedStore<'s>,
    /// The call's folds (bindings, closures, exclusions).
    pub folds: &'a Folds<'f>,
    /// The pair's scope.
    pub scope: &'a str,
    /// The pair's owner.
    pub owner: &'a str,
    /// Extra rows each term query fetches for the ones exclusion drops.
    pub headroom: usize,
}

fn neighbors<'s>(
    walk: &Walk<'_, 's, '_>,
    source: &TripleAssertion,
    fan_out_cap: usize,
    cache: &mut TermCache<'s>,
) -> Result<Vec<TripleAssertion>> {
    let Walk {
        store,
        folds,
        scope,
        owner,
        headroom,
    } = *walk;
    let source_id = source.assertion_id.as_deref().unwrap_or("");
    let per_query = fan_out_cap.max(1) + 1 + headroom;
    // Fill the cache first, then read every term's rows from it by reference:
    // only the neighbors kept are cloned.
    let mut keys: Vec<(bool, String)> = Vec::new();
    for term in expansion_terms(source) {
        for by_object in [false, true] {
            let key = (by_object, term.clone());
            if !cache.contains_key(&key) {
                let mut q = pair_query(scope, owner, per_query);
                if by_object {
                    q.object = Some(term.clone());
                } else {
                    q.subject = Some(term.clone());
                }
                // Rows the recall index holds are borrowed, not copied.
                let rows: Vec<Cow<'s, TripleAssertion>> = match store.query_refs(&q) {
                    Some(rows) => rows.into_iter().map(Cow::Borrowed).collect(),
                    None => store.rows(&q)?.into_iter().map(Cow::Owned).collect(),
                };
                cache.insert(key.clone(), rows);
            }
            keys.push(key);
        }
    }
    let fetched: Vec<&TripleAssertion> = keys
        .iter()
        .filter_map(|k| cache.get(k))
        .flatten()
        .map(|a| a.as_ref())
        .collect();
    // One batched binding read for every row the term queries returned.
    folds.prime(fetched.iter().copied())?;
    let mut found: HashMap<&str, &TripleAssertion> = HashMap::default();
    for a in fetched {
        let Some(aid) = a.assertion_id.as_deref().filter(|s| !s.is_empty()) else {
            continue;
        };
        if aid == source_id || found.contains_key(aid) || folds.excluded(a)? {
            continue;
        }
        found.insert(aid, a);
    }
    let mut ordered: Vec<&TripleAssertion> = found.into_values().collect();
    ordered.sort_by(|a, b| {
        (
            b.observed_at.as_str(),
            b.assertion_id.as_deref().unwrap_or(""),
        )
            .cmp(&(
                a.observed_at.as_str(),
                a.assertion_id.as_deref().unwrap_or(""),
            ))
    });
    ordered.truncate(fan_out_cap);
    Ok(ordered.into_iter().cloned().collect())
}

/// One walk's output: spread per reached record (sorted by id) and the edges taken.
#[derive(Debug, Default)]
pub(crate) struct Spread {
    /// Record → accumulated spread.
    pub scores: BTreeMap<String, f64>,
    /// Accepted edges, in walk order.
    pub edges: Vec<WalkedEdge>,
}

/// Spread from `seeds` (record → fused score) within one `(scope, owner)` pair.
/// `known` holds rows already read from the store in this pair this call (the
/// candidate universe); seeds not in it are fetched by id.
///
/// # Errors
/// The store's or journal's failure.
pub(crate) fn spread_activation(
    walk: &Walk<'_, '_, '_>,
    seeds: &BTreeMap<String, f64>,
    known: &HashMap<&str, &TripleAssertion>,
    params: &SpreadParams,
    trails: &std::collections::HashMap<(String, String), f64>,
) -> Result<Spread> {
    let Walk {
        store,
        folds,
        scope,
        owner,
        ..
    } = *walk;
    let mut out = Spread::default();
    if params.max_hops == 0 || params.max_edges == 0 || seeds.is_empty() {
        return Ok(out);
    }
    let clean: BTreeMap<String, f64> = seeds
        .iter()
        .filter(|(rid, w)| !rid.trim().is_empty() && **w > 0.0 && w.is_finite())
        .map(|(r, w)| (r.trim().to_owned(), *w))
        .collect();
    if clean.is_empty() {
        return Ok(out);
    }
    // Known seeds are borrowed from the universe, fetched ones owned.
    let mut seed_rows: HashMap<String, Cow<'_, TripleAssertion>> = HashMap::default();
    let mut missing: Vec<String> = Vec::new();
    for rid in clean.keys() {
        match known.get(rid.as_str()) {
            Some(a) => {
                seed_rows.insert(rid.clone(), Cow::Borrowed(*a));
            }
            None => missing.push(rid.clone()),
        }
    }
    seed_rows.extend(
        fetch_by_ids(store, &missing, scope, owner)?
            .into_iter()
            .map(|(k, a)| (k, Cow::Owned(a))),
    );
    let mut term_cache = TermCache::default();
    let mut partners: HashMap<&str, Vec<(&str, f64)>> = HashMap::default();
    for ((a, b), v) in trails {
        if *v <= 0.0 {
            continue;
        }
        partners.entry(a).or_default().push((b, *v));
        partners.entry(b).or_default().push((a, *v));
    }
    for list in partners.values_mut() {
        list.sort_by(|x, y| y.1.total_cmp(&x.1).then(x.0.cmp(y.0)));
    }
    let seed_ids: HashSet<String> = seed_rows.keys().cloned().collect();
    let mut frontier: BTreeMap<String, (Cow<'_, TripleAssertion>, f64)> = seed_rows
        .into_iter()
        .map(|(rid, a)| {
            let w = clean[&rid];
            (rid, (a, w))
        })
        .collect();
    let mut expanded: HashSet<String> = HashSet::default();
    let mut exhausted = false;
    for _hop in 0..params.max_hops {
        if frontier.is_empty() || exhausted {
            break;
        }
        let mut next: BTreeMap<String, (Cow<'_, TripleAssertion>, f64)> = BTreeMap::new();
        for (source_id, (source, strength)) in &frontier {
            if exhausted {
                break;
            }
            if !expanded.insert(source_id.clone()) {
                continue;
            }
            let mut reached: HashSet<String> = HashSet::default();
            for n in neighbors(walk, source, params.fan_out_cap, &mut term_cache)? {
                let target = n.assertion_id.clone().unwrap_or_default();
                if target.is_empty() {
                    continue;
                }
                let seed_peer = seed_ids.contains(source_id)
                    && seed_ids.contains(&target)
                    && frontier.contains_key(&target)
                    && *source_id != target;
                if expanded.contains(&target) && !seed_peer {
                    continue;
                }
                let pair = if *source_id <= target {
                    (source_id.clone(), target.clone())
                } else {
                    (target.clone(), source_id.clone())
                };
                let trail = trails.get(&pair).copied().unwrap_or(0.0);
                let kind_weight = params
                    .edge_kind_weights
                    .get(&n.predicate)
                    .copied()
                    .unwrap_or(1.0);
                let c =
                    strength * params.damping * kind_weight * (1.0 + trail / params.trail_divisor);
                if c < params.min_contribution {
                    continue;
                }
                if out.edges.len() >= params.max_edges {
                    exhausted = true;
                    break;
                }
                out.edges.push(WalkedEdge {
                    source_id: source_id.clone(),
                    predicate: n.predicate.clone(),
                    target_id: target.clone(),
                    strength_label: "recorded".into(),
                    trail_activation: trail,
                    source: "walked".into(),
                });
                *out.scores.entry(target.clone()).or_insert(0.0) += c;
                reached.insert(target.clone());
                if is_graph_edge(&n) && next.get(&target).is_none_or(|(_, p)| c > *p) {
                    next.insert(target, (Cow::Owned(n), c));
                }
            }
            if exhausted {
                break;
            }
            let entries: Vec<(&str, f64)> = partners
                .get(source_id.as_str())
                .map(|l| {
                    l.iter()
                        .filter(|(pid, _)| {
                            !expanded.contains(*pid)
                                && !reached.contains(*pid)
                                && !folds.excluded_id(pid).unwrap_or(true)
                        })
                        .take(params.fan_out_cap)
                        .copied()
                        .collect()
                })
                .unwrap_or_default();
            let pids: Vec<String> = entries.iter().map(|(p, _)| (*p).to_owned()).collect();
            let rows = fetch_by_ids(store, &pids, scope, owner)?;
            for (pid, trail) in entries {
                let Some(partner) = rows.get(pid) else {
                    continue;
                };
                let c = strength * params.damping * (1.0 + trail / params.trail_divisor);
                if c < params.min_contribution {
                    continue;
                }
                if out.edges.len() >= params.max_edges {
                    exhausted = true;
                    break;
                }
                out.edges.push(WalkedEdge {
                    source_id: source_id.clone(),
                    predicate: "co_used".into(),
                    target_id: pid.to_owned(),
                    strength_label: "trail".into(),
                    trail_activation: trail,
                    source: "walked".into(),
                });
                *out.scores.entry(pid.to_owned()).or_insert(0.0) += c;
                if next.get(pid).is_none_or(|(_, p)| c > *p) {
                    next.insert(pid.to_owned(), (Cow::Owned(partner.clone()), c));
                }
            }
        }
        frontier = next;
    }
    Ok(out)
}
