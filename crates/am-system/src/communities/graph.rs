//! The graph a communities pass reads, and the sparse similarity graph its
//! Louvain runs on.
//!
//! Reading: every live formed record of the pairs (digest rows with a
//! `record_kind`, not bookkeeping, not a topic), its stored vector (unit
//! length), and the engraved edges between live records (`written_amid`
//! never drives detection). The standing topics of the home pair are read
//! beside them.
//!
//! The detection graph over the vectored records: each engraved edge
//! between two of them weighted `(1 + cos) / 2` (an engraved relation always
//! counts, a similar pair counts more), plus, for each record, its
//! [`COMMUNITY_KNN_K`] nearest neighbours by cosine (at least
//! [`COMMUNITY_KNN_MIN_COSINE`]) found inside the buckets of
//! [`COMMUNITY_LSH_TABLES`] seeded random-hyperplane tables: an exact kNN
//! over 100,000 × 64-d vectors is quadratic, the bucketed one linear in the
//! records (docs/communities.md has the measurements).

use crate::config::{
    COMMUNITY_BUCKET_MAX, COMMUNITY_BUCKET_TARGET, COMMUNITY_KNN_K, COMMUNITY_KNN_MIN_COSINE,
    COMMUNITY_LSH_SEED, COMMUNITY_LSH_TABLES,
};
use crate::error::Result;
use crate::kinds::RecordKind;
use crate::record::DigestRow;
use am_journal::{ClosureFilter, MemoryJournal};
use am_triples::{TripleAssertion, TripleQuery, TripleStore};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

/// One live formed record of the pairs.
#[derive(Debug, Clone)]
pub(crate) struct Node {
    /// Its graph id.
    pub id: String,
    /// Its kind (wire name).
    pub kind: String,
    /// Its title (or `None` while pending).
    pub title: Option<String>,
    /// Its digest.
    pub digest: String,
    /// Its stored vector, unit length (`None`: vector-less, or not a
    /// detected kind).
    pub vector: Option<Vec<f32>>,
}

/// What a pass reads of the home.
#[derive(Debug, Default)]
pub(crate) struct HomeRead {
    /// The live formed records, sorted by graph id.
    pub nodes: Vec<Node>,
    /// Engraved edges between live records (indices into `nodes`, each pair
    /// once, smaller first), sorted.
    pub engraved: Vec<(usize, usize)>,
    /// The live records with at least one engraved relation whose every
    /// such relation names a closed record (indices).
    pub only_closed: BTreeSet<usize>,
    /// The standing topics of the home pair (live community digest rows).
    pub topics: Vec<TripleAssertion>,
    /// The journal seq the read was made at.
    pub seq: i64,
}

/// The rows of one pair (a blank owner reads every owner).
pub(crate) fn pair_rows(
    store: &dyn TripleStore,
    scope: &str,
    owner: &str,
) -> Result<Vec<TripleAssertion>> {
    store.query(&TripleQuery {
        scope: Some(scope.to_owned()),
        owner_id: (!owner.is_empty()).then(|| owner.to_owned()),
        limit: 0,
        ..TripleQuery::default()
    })
}

/// Every closed assertion id (and its subject's graph id when a digest row).
pub(crate) fn closed_ids(journal: &dyn MemoryJournal) -> Result<HashSet<String>> {
    Ok(journal
        .closures(&ClosureFilter {
            limit: 0,
            ..ClosureFilter::default()
        })?
        .into_iter()
        .map(|c| c.assertion_id)
        .collect())
}

/// Read the graph of `pairs` (topics from `home`), vectors for the
/// `detect` kinds only (`None`: every kind).
pub(crate) fn read_home(
    store: &dyn TripleStore,
    journal: &dyn MemoryJournal,
    pairs: &[(String, String)],
    home: (&str, &str),
    detect: Option<&BTreeSet<RecordKind>>,
) -> Result<HomeRead> {
    let seq = journal.current_seq()?;
    let closed = closed_ids(journal)?;
    let is_closed = |a: &TripleAssertion| {
        a.assertion_id
            .as_deref()
            .is_some_and(|x| closed.contains(x))
            || closed.contains(&a.subject)
    };
    let mut rows: Vec<TripleAssertion> = Vec::new();
    let mut seen: HashSet<String> = HashSet::new();
    for (scope, owner) in pairs {
        for a in pair_rows(store, scope, owner)? {
            if let Some(aid) = &a.assertion_id
                && !seen.insert(aid.clone())
            {
                continue;
            }
            rows.push(a);
        }
    }
    let mut nodes: Vec<(Node, String)> = Vec::new();
    let mut topics = Vec::new();
    let mut closed_subjects: HashSet<String> = HashSet::new();
    let mut edges: Vec<(String, String)> = Vec::new();
    for a in &rows {
        let v = DigestRow::of(a);
        if v.is_edge() {
            if a.predicate != "written_amid" && !is_closed(a) {
                edges.push((a.subject.clone(), a.object.clone()));
            }
            continue;
        }
        let Some(kind) = v.kind_text() else { continue };
        if v.flag("bookkeeping") {
            continue;
        }
        if is_closed(a) {
            closed_subjects.insert(a.subject.clone());
            continue;
        }
        if v.kind_trimmed() == Some(RecordKind::Community) {
            if a.scope == home.0 && (home.1.is_empty() || a.owner_id.as_deref() == Some(home.1)) {
                topics.push(a.clone());
            }
            continue;
        }
        nodes.push((
            Node {
                id: a.subject.clone(),
                kind: kind.to_owned(),
                title: v.title().map(str::to_owned),
                digest: a.object.clone(),
                vector: None,
            },
            a.assertion_id.clone().unwrap_or_default(),
        ));
    }
    nodes.sort_by(|a, b| a.0.id.cmp(&b.0.id));
    nodes.dedup_by(|a, b| a.0.id == b.0.id);
    for (n, aid) in &mut nodes {
        let wanted =
            detect.is_none_or(|k| RecordKind::parse(&n.kind).is_ok_and(|k2| k.contains(&k2)));
        if wanted && let Some(v) = store.stored_vector(aid)? {
            n.vector = unit(v);
        }
    }
    let nodes: Vec<Node> = nodes.into_iter().map(|(n, _)| n).collect();
    let index: HashMap<&str, usize> = nodes
        .iter()
        .enumerate()
        .map(|(i, n)| (n.id.as_str(), i))
        .collect();
    let mut engraved: BTreeSet<(usize, usize)> = BTreeSet::new();
    let mut relations: BTreeMap<usize, (usize, usize)> = BTreeMap::new();
    for (s, o) in &edges {
        let Some(&i) = index.get(s.as_str()) else {
            continue;
        };
        let entry = relations.entry(i).or_default();
        entry.0 += 1;
        match index.get(o.as_str()) {
            Some(&j) if j != i => {
                engraved.insert((i.min(j), i.max(j)));
            }
            Some(_) => {}
            None => {
                if closed_subjects.contains(o) {
                    entry.1 += 1;
                }
            }
        }
    }
    let only_closed = relations
        .into_iter()
        .filter(|(_, (all, closed))| *all > 0 && all == closed)
        .map(|(i, _)| i)
        .collect();
    topics.sort_by(|a, b| a.subject.cmp(&b.subject));
    Ok(HomeRead {
        nodes,
        engraved: engraved.into_iter().collect(),
        only_closed,
        topics,
        seq,
    })
}

/// `v` scaled to unit length; `None` for an empty or zero vector.
pub(crate) fn unit(mut v: Vec<f32>) -> Option<Vec<f32>> {
    let n: f64 = v
        .iter()
        .map(|x| f64::from(*x) * f64::from(*x))
        .sum::<f64>()
        .sqrt();
    if v.is_empty() || n == 0.0 || !n.is_finite() {
        return None;
    }
    #[allow(clippy::cast_possible_truncation)]
    let inv = (1.0 / n) as f32;
    for x in &mut v {
        *x *= inv;
    }
    Some(v)
}

/// The dot product of two unit vectors (their cosine).
pub(crate) fn dot(a: &[f32], b: &[f32]) -> f64 {
    let mut s = 0.0f32;
    for (x, y) in a.iter().zip(b) {
        s += x * y;
    }
    f64::from(s)
}

/// A weighted undirected graph over `n` nodes: each edge once, `(i, j, w)`
/// with `i < j`, sorted.
#[derive(Debug, Clone, Default)]
pub(crate) struct Weighted {
    pub n: usize,
    pub edges: Vec<(usize, usize, f64)>,
}

/// SplitMix64: the seeded stream the hyperplanes are drawn from.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// A value in [-1, 1).
    fn unit(&mut self) -> f32 {
        #[allow(clippy::cast_precision_loss)]
        let x = (self.next() >> 40) as f32 / (1u64 << 24) as f32;
        x * 2.0 - 1.0
    }
}

/// The detection graph over `vectors` (indices of the vectored records in
/// `ids` order) and the engraved pairs among them.
pub(crate) fn detection_graph(vectors: &[&[f32]], engraved: &[(usize, usize)]) -> Weighted {
    let n = vectors.len();
    let mut w: BTreeMap<(usize, usize), f64> = BTreeMap::new();
    for &(i, j) in engraved {
        let c = dot(vectors[i], vectors[j]).clamp(-1.0, 1.0);
        w.insert((i, j), f64::midpoint(1.0, c));
    }
    if n > 1 {
        let dim = vectors[0].len();
        let mut rng = SplitMix(COMMUNITY_LSH_SEED);
        let mut bits = 0usize;
        while (n >> bits) > COMMUNITY_BUCKET_TARGET && bits < 20 {
            bits += 1;
        }
        let mut best: Vec<Vec<(f64, usize)>> = vec![Vec::new(); n];
        for _ in 0..COMMUNITY_LSH_TABLES {
            let planes: Vec<Vec<f32>> = (0..=bits)
                .map(|_| (0..dim).map(|_| rng.unit()).collect())
                .collect();
            let mut keyed: Vec<(u32, f32, usize)> = (0..n)
                .map(|i| {
                    let v = vectors[i];
                    let mut code = 0u32;
                    for p in &planes[..bits] {
                        code = (code << 1) | u32::from(dot_f32(v, p) >= 0.0);
                    }
                    (code, dot_f32(v, &planes[bits]), i)
                })
                .collect();
            keyed.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)).then(a.2.cmp(&b.2)));
            let mut start = 0;
            while start < n {
                let mut end = start;
                while end < n && keyed[end].0 == keyed[start].0 {
                    end += 1;
                }
                // A bucket past the cap is cut into runs along the last plane.
                let mut s = start;
                while s < end {
                    let e = (s + COMMUNITY_BUCKET_MAX).min(end);
                    let members: Vec<usize> = keyed[s..e].iter().map(|k| k.2).collect();
                    for (a, &i) in members.iter().enumerate() {
                        for &j in &members[a + 1..] {
                            let c = dot(vectors[i], vectors[j]);
                            if c >= COMMUNITY_KNN_MIN_COSINE {
                                offer(&mut best[i], c, j);
                                offer(&mut best[j], c, i);
                            }
                        }
                    }
                    s = e;
                }
                start = end;
            }
        }
        for (i, list) in best.iter().enumerate() {
            for &(c, j) in list {
                let key = (i.min(j), i.max(j));
                w.entry(key).or_insert(c);
            }
        }
    }
    Weighted {
        n,
        edges: w.into_iter().map(|((i, j), x)| (i, j, x)).collect(),
    }
}

fn dot_f32(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Keep the best [`COMMUNITY_KNN_K`] `(cosine, index)` (higher cosine
/// first, ties by the lower index), each index once.
fn offer(list: &mut Vec<(f64, usize)>, c: f64, j: usize) {
    if list.iter().any(|&(_, x)| x == j) {
        return;
    }
    let better = |a: (f64, usize), b: (f64, usize)| a.0 > b.0 || (a.0 == b.0 && a.1 < b.1);
    if list.len() == COMMUNITY_KNN_K {
        let worst = list[list.len() - 1];
        if !better((c, j), worst) {
            return;
        }
        list.pop();
    }
    let pos = list
        .iter()
        .position(|&x| better((c, j), x))
        .unwrap_or(list.len());
    list.insert(pos, (c, j));
}
