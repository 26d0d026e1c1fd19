//! A deterministic Louvain (modularity maximisation by local moving and
//! aggregation) over a [`Weighted`] graph, warm-started from a given
//! partition.
//!
//! Determinism: nodes are visited in index order (the records sorted by
//! graph id), every sum runs in adjacency order (neighbours sorted by
//! index), and a node moves only to the community of strictly greater gain,
//! ties going to the smaller label; so a run on the same graph and the same
//! warm start gives the same partition, bit for bit.

use crate::communities::graph::Weighted;
use crate::config::COMMUNITY_MAX_SWEEPS;

/// One level's graph: adjacency (neighbour, weight) sorted by neighbour,
/// and each node's self-loop weight.
struct Level {
    adj: Vec<Vec<(usize, f64)>>,
    selfw: Vec<f64>,
}

impl Level {
    fn of(g: &Weighted) -> Level {
        let mut adj: Vec<Vec<(usize, f64)>> = vec![Vec::new(); g.n];
        for &(i, j, w) in &g.edges {
            adj[i].push((j, w));
            adj[j].push((i, w));
        }
        for a in &mut adj {
            a.sort_by_key(|x| x.0);
        }
        Level {
            adj,
            selfw: vec![0.0; g.n],
        }
    }

    fn degree(&self, i: usize) -> f64 {
        self.adj[i].iter().map(|x| x.1).sum::<f64>() + 2.0 * self.selfw[i]
    }
}

/// The partition of `g`'s nodes: one label per node, labels numbered by
/// their smallest node. `initial` is the warm start (one label per node; a
/// fresh start gives each node its own). At most `max_rounds` aggregation
/// rounds; `resolution` is modularity's γ.
pub(crate) fn louvain(
    g: &Weighted,
    initial: &[usize],
    resolution: f64,
    max_rounds: usize,
) -> Vec<usize> {
    let n = g.n;
    if n == 0 {
        return Vec::new();
    }
    let mut level = Level::of(g);
    let m2: f64 = (0..n).map(|i| level.degree(i)).sum();
    // membership[original] = node of the current level.
    let mut membership: Vec<usize> = (0..n).collect();
    let mut start: Vec<usize> = compact(initial);
    if m2 <= 0.0 {
        return start;
    }
    for round in 0..max_rounds.max(1) {
        let nn = level.adj.len();
        let mut comm = start.clone();
        let k: Vec<f64> = (0..nn).map(|i| level.degree(i)).collect();
        let mut tot = vec![0.0f64; nn.max(comm.iter().copied().max().unwrap_or(0) + 1)];
        for i in 0..nn {
            tot[comm[i]] += k[i];
        }
        let mut scratch = vec![0.0f64; tot.len()];
        let mut touched: Vec<usize> = Vec::new();
        let mut moved_any = false;
        for _ in 0..COMMUNITY_MAX_SWEEPS {
            let mut moves = 0usize;
            for i in 0..nn {
                let own = comm[i];
                for &(j, w) in &level.adj[i] {
                    let c = comm[j];
                    if scratch[c] == 0.0 && !touched.contains(&c) {
                        touched.push(c);
                    }
                    scratch[c] += w;
                }
                tot[own] -= k[i];
                let gain = |c: usize, w_in: f64| w_in - resolution * tot[c] * k[i] / m2;
                let mut best = own;
                let mut best_gain = gain(own, scratch[own]);
                touched.sort_unstable();
                for &c in &touched {
                    let gc = gain(c, scratch[c]);
                    if gc > best_gain + 1e-12 || (c < best && (gc - best_gain).abs() <= 1e-12) {
                        best = c;
                        best_gain = gc;
                    }
                }
                tot[best] += k[i];
                if best != own {
                    comm[i] = best;
                    moves += 1;
                }
                for &c in &touched {
                    scratch[c] = 0.0;
                }
                touched.clear();
            }
            if moves == 0 {
                break;
            }
            moved_any = true;
        }
        let comm = compact(&comm);
        let groups = comm.iter().copied().max().map_or(0, |m| m + 1);
        for m in &mut membership {
            *m = comm[*m];
        }
        if (!moved_any && round > 0) || groups == nn || round + 1 == max_rounds.max(1) {
            break;
        }
        // Aggregate: one node per community, internal weight as a self-loop.
        let mut selfw = vec![0.0f64; groups];
        let mut between: std::collections::BTreeMap<(usize, usize), f64> =
            std::collections::BTreeMap::new();
        for i in 0..nn {
            selfw[comm[i]] += level.selfw[i];
            for &(j, w) in &level.adj[i] {
                if j < i {
                    continue;
                }
                let (a, b) = (comm[i], comm[j]);
                if a == b {
                    selfw[a] += w;
                } else {
                    *between.entry((a.min(b), a.max(b))).or_insert(0.0) += w;
                }
            }
        }
        let mut next = Level::of(&Weighted {
            n: groups,
            edges: between.into_iter().map(|((a, b), w)| (a, b, w)).collect(),
        });
        next.selfw = selfw;
        level = next;
        start = (0..groups).collect();
    }
    compact(&membership)
}

/// Relabel so labels count up from 0 in order of each label's first node.
pub(crate) fn compact(labels: &[usize]) -> Vec<usize> {
    let mut map: std::collections::HashMap<usize, usize> = std::collections::HashMap::new();
    labels
        .iter()
        .map(|l| {
            let next = map.len();
            *map.entry(*l).or_insert(next)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn two_cliques() -> Weighted {
        let mut edges = Vec::new();
        for a in 0..4 {
            for b in a + 1..4 {
                edges.push((a, b, 1.0));
                edges.push((a + 4, b + 4, 1.0));
            }
        }
        edges.push((3, 4, 0.1));
        edges.sort_by_key(|x| (x.0, x.1));
        Weighted { n: 8, edges }
    }

    #[test]
    fn two_cliques_joined_by_a_weak_edge_are_two_communities() {
        let g = two_cliques();
        let p = louvain(&g, &(0..8).collect::<Vec<_>>(), 1.0, 5);
        assert_eq!(p, [0, 0, 0, 0, 1, 1, 1, 1]);
    }

    #[test]
    fn a_warm_start_that_is_already_optimal_is_kept() {
        let g = two_cliques();
        let p = louvain(&g, &[7, 7, 7, 7, 2, 2, 2, 2], 1.0, 5);
        assert_eq!(p, [0, 0, 0, 0, 1, 1, 1, 1]);
    }

    #[test]
    fn compact_numbers_labels_by_first_node() {
        assert_eq!(compact(&[5, 5, 2, 9, 2]), [0, 0, 1, 2, 1]);
    }
}
