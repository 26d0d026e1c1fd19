//! Drive grouping: near-duplicate open drives cluster, and a group's size is
//! its signal (N similar questions press as one drive told N times).
//!
//! [`drive_groups`] is the pure clustering: each item's terms are the
//! matching lane's ([`crate::concepts::matching_terms`]) of its title and its
//! text, less the corpus's scaffold (the screen below); two items sharing at
//! least `min_shared_terms` terms join, transitively (union-find). Only
//! groups of two or more come back, largest first (ties by exemplar id);
//! each names its members in input order, its exemplar (the OLDEST member by
//! `(observed_at, record_id)`, so a growing group keeps it) and up to six
//! terms held by two or more members (most common first, then by name).
//!
//! The scaffold screen reads the items' own corpus: a term on at least 90%
//! of one surface (titles, or texts) and on at most 10% of the other is a
//! template's (a diary's "Diary entry (question) — date" titles); in a
//! family of sixteen or more, a term on at least 90% of all items groups
//! nothing apart and is dropped too.
//!
//! [`open_drive_partition`] is the ONE partition every grouping consumer
//! reads (`alive_drives`, `drive_pressure`): the three grouped families
//! (open questions and open problems from the diary's discharge fold,
//! unexplored interests from [`super::interests`]), each grouped whole.
//! Dreams carry the engine's digest template and never group; commitments
//! and ideas surface ungrouped.

use super::args::{DriveGroups, DriveItem, DriveScopes, ladder};
use super::interests::InterestFold;
use super::view::DriveView;
use crate::concepts::matching_terms;
use crate::error::Result;
use crate::record::DigestRow;
use am_journal::MemoryJournal;
use am_triples::TripleStore;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

/// One group of drives.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct DriveGroup {
    /// The members' record ids, in input order.
    pub members: Vec<String>,
    /// How many members.
    pub size: usize,
    /// The oldest member's id.
    pub exemplar: String,
    /// The terms two or more members share (at most six, most common first).
    pub shared_terms: Vec<String>,
}

/// [`open_drive_partition`]'s answer: the groups of each grouped family.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub struct DrivePartition {
    /// Groups of open questions.
    pub question: Vec<DriveGroup>,
    /// Groups of open problems.
    pub problem: Vec<DriveGroup>,
    /// Groups of unexplored interests.
    pub interest: Vec<DriveGroup>,
}

impl DrivePartition {
    /// `(family, groups)` in the families' name order.
    pub fn families(&self) -> [(&'static str, &[DriveGroup]); 3] {
        [
            ("interest", &self.interest),
            ("problem", &self.problem),
            ("question", &self.question),
        ]
    }
}

struct Row<'a> {
    id: &'a str,
    title: BTreeSet<String>,
    text: BTreeSet<String>,
    terms: BTreeSet<String>,
    observed_at: &'a str,
}

/// The scaffold terms of a corpus (see the module doc).
fn scaffold(rows: &[Row<'_>]) -> HashSet<String> {
    let n = rows.len();
    let mut out = HashSet::new();
    if n < 2 {
        return out;
    }
    let mut title_df: HashMap<&str, usize> = HashMap::new();
    let mut text_df: HashMap<&str, usize> = HashMap::new();
    let mut union_df: HashMap<&str, usize> = HashMap::new();
    for r in rows {
        for t in &r.title {
            *title_df.entry(t).or_default() += 1;
        }
        for t in &r.text {
            *text_df.entry(t).or_default() += 1;
        }
        for t in r.title.union(&r.text) {
            *union_df.entry(t).or_default() += 1;
        }
    }
    let bar = (9 * n).div_ceil(10);
    let cap = n / 10;
    for (t, c) in &title_df {
        if *c >= bar && text_df.get(t).copied().unwrap_or(0) <= cap {
            out.insert((*t).to_owned());
        }
    }
    for (t, c) in &text_df {
        if *c >= bar && title_df.get(t).copied().unwrap_or(0) <= cap {
            out.insert((*t).to_owned());
        }
    }
    if n >= 16 {
        out.extend(
            union_df
                .iter()
                .filter(|(_, c)| **c >= bar)
                .map(|(t, _)| (*t).to_owned()),
        );
    }
    out
}

fn find(parent: &mut [usize], mut i: usize) -> usize {
    while parent[i] != i {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    i
}

/// Cluster drive items by shared discriminative terms (see the module doc).
/// Pure, deterministic and order-independent as to which items group.
pub fn drive_groups(args: &DriveGroups) -> Vec<DriveGroup> {
    group_items(&args.items, args.min_shared_terms)
}

pub(crate) fn group_items(items: &[DriveItem], min_shared_terms: usize) -> Vec<DriveGroup> {
    let mut seen: HashSet<&str> = HashSet::new();
    let mut rows: Vec<Row<'_>> = Vec::new();
    for it in items {
        let id = it.record_id.trim();
        if id.is_empty() || !seen.insert(id) {
            continue;
        }
        let title = matching_terms(it.title.as_deref().unwrap_or(""));
        let text_src = it
            .text
            .as_deref()
            .filter(|t| !t.is_empty())
            .or(it.digest.as_deref())
            .unwrap_or("");
        let text = matching_terms(text_src);
        rows.push(Row {
            id,
            terms: title.union(&text).cloned().collect(),
            title,
            text,
            observed_at: it.observed_at.as_deref().unwrap_or(""),
        });
    }
    if rows.len() < 2 {
        return Vec::new();
    }
    let screen = scaffold(&rows);
    for r in &mut rows {
        r.terms.retain(|t| !screen.contains(t));
    }
    let n = rows.len();
    let mut parent: Vec<usize> = (0..n).collect();
    for i in 0..n {
        if rows[i].terms.is_empty() {
            continue;
        }
        for j in (i + 1)..n {
            let shared = rows[i].terms.intersection(&rows[j].terms).count();
            if shared >= min_shared_terms {
                let (ri, rj) = (find(&mut parent, i), find(&mut parent, j));
                if ri != rj {
                    parent[ri.max(rj)] = ri.min(rj);
                }
            }
        }
    }
    let mut clusters: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for i in 0..n {
        let root = find(&mut parent, i);
        clusters.entry(root).or_default().push(i);
    }
    let mut out: Vec<DriveGroup> = Vec::new();
    for members in clusters.values() {
        if members.len() < 2 {
            continue;
        }
        let exemplar = members
            .iter()
            .map(|&i| &rows[i])
            .min_by(|a, b| {
                let ka = if a.observed_at.is_empty() {
                    "9999"
                } else {
                    a.observed_at
                };
                let kb = if b.observed_at.is_empty() {
                    "9999"
                } else {
                    b.observed_at
                };
                ka.cmp(kb).then_with(|| a.id.cmp(b.id))
            })
            .map(|r| r.id.to_owned())
            .unwrap_or_default();
        let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
        for &i in members {
            for t in &rows[i].terms {
                *counts.entry(t).or_default() += 1;
            }
        }
        let mut shared: Vec<(&str, usize)> = counts.into_iter().filter(|(_, c)| *c >= 2).collect();
        shared.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(b.0)));
        out.push(DriveGroup {
            members: members.iter().map(|&i| rows[i].id.to_owned()).collect(),
            size: members.len(),
            exemplar,
            shared_terms: shared
                .into_iter()
                .take(6)
                .map(|(t, _)| t.to_owned())
                .collect(),
        });
    }
    out.sort_by(|a, b| {
        b.size
            .cmp(&a.size)
            .then_with(|| a.exemplar.cmp(&b.exemplar))
    });
    out
}

/// An entry's book id as the discharge fold reads it: a string trimmed, a
/// number its decimal text, anything else none.
fn book_id(v: Option<&Value>) -> String {
    match v {
        Some(Value::String(s)) => s.trim().to_owned(),
        Some(Value::Number(n)) => n.to_string(),
        Some(Value::Bool(true)) => "True".to_owned(),
        _ => String::new(),
    }
}

/// The open questions and problems of the diary's discharge fold as items:
/// believed diary rows (closure and every pair's hidden folds), each graph
/// id once, that no believed entry of their own pair `answers` or `resolves`
/// (by graph id or book id), in store order.
fn open_diary_items(view: &DriveView) -> (Vec<DriveItem>, Vec<DriveItem>) {
    struct Entry {
        pair: usize,
        diary_type: String,
        entry_id: String,
        item: DriveItem,
    }
    let mut entries: Vec<Entry> = Vec::new();
    let mut refs: Vec<HashSet<String>> = vec![HashSet::new(); view.pairs.len()];
    let mut seen: HashSet<&str> = HashSet::new();
    for (p, rows) in view.rows.iter().enumerate() {
        for a in rows {
            let row = DigestRow::of(a);
            if row.as_stored("record_kind") != Some("diary")
                || !view.believed_anywhere(a)
                || !seen.insert(a.subject.as_str())
            {
                continue;
            }
            for key in ["answers", "resolves"] {
                if let Some(r) = row.text(key) {
                    refs[p].insert(r.to_owned());
                }
            }
            entries.push(Entry {
                pair: p,
                diary_type: row.as_stored("diary_type").unwrap_or("").to_owned(),
                entry_id: book_id(row.get("entry_id")),
                item: DriveItem {
                    title: Some(row.text("title").unwrap_or("").to_owned()),
                    text: Some(a.object.clone()),
                    digest: None,
                    observed_at: Some(a.observed_at.clone()),
                    record_id: a.subject.clone(),
                },
            });
        }
    }
    let mut questions = Vec::new();
    let mut problems = Vec::new();
    for e in entries {
        let r = &refs[e.pair];
        if r.contains(&e.item.record_id) || (!e.entry_id.is_empty() && r.contains(&e.entry_id)) {
            continue;
        }
        match e.diary_type.as_str() {
            "question" => questions.push(e.item),
            "problem" => problems.push(e.item),
            _ => {}
        }
    }
    (questions, problems)
}

/// The one partition over the full open drive families (see the module
/// doc). Pure read. A ladder with no pair left answers empty families.
///
/// # Errors
/// The store's or journal's failure.
pub fn open_drive_partition(
    store: &dyn TripleStore,
    journal: &dyn MemoryJournal,
    args: &DriveScopes,
) -> Result<DrivePartition> {
    let pairs = ladder(&args.scopes);
    if pairs.is_empty() {
        return Ok(DrivePartition::default());
    }
    let view = DriveView::whole(store, journal, &pairs)?;
    Ok(partition_of(&view, &InterestFold::of(&view)))
}

/// [`open_drive_partition`] over a view, with its interest fold.
pub(crate) fn partition_of(view: &DriveView, interests: &InterestFold) -> DrivePartition {
    if view.pairs.is_empty() {
        return DrivePartition::default();
    }
    let (questions, problems) = open_diary_items(view);
    let interest_items: Vec<DriveItem> = interests
        .unexplored()
        .into_iter()
        .map(|a| DriveItem {
            record_id: a.subject.clone(),
            title: Some(DigestRow::of(a).as_stored("title").unwrap_or("").to_owned()),
            text: Some(a.object.clone()),
            digest: None,
            observed_at: Some(a.observed_at.clone()),
        })
        .collect();
    let min = crate::config::GROUP_MIN_SHARED_TERMS;
    DrivePartition {
        question: group_items(&questions, min),
        problem: group_items(&problems, min),
        interest: group_items(&interest_items, min),
    }
}
