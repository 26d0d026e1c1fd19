//! `alive_drives`: what is alive right now. The standing drives of a ladder
//! (open questions, problems, commitments, incubating ideas, standing
//! dreams, unexplored interests) joined with two aliveness signals:
//!
//! - **trail**: the drive's stored activation in its own stream (it was
//!   selected, co-selected or spread-reached lately), divided by the
//!   strongest drive's of this read;
//! - **recency**: the drive's newest binding ranks among the newest
//!   [`DRIVE_WINDOW_LIMIT`] distinct records of the ladder's binding axis
//!   (one axis across the ladder; machine rows, maintenance candidates and
//!   bookkeeping, take no place), scored `1 / (1 + rank / decay_window)`
//!   with the attention fold's `decay_window`. Formation writes a binding, so
//!   a drive formed yesterday is recent before any trail forms.
//!
//! Aliveness is the larger of the two (`alive_via` says which: `trail`,
//! `recency` or `both`); a drive with neither is dormant and absent (an
//! empty answer is a quiet desk). Then the one partition folds groups: the
//! alive members of a group surface as ONE item, its strongest member's,
//! boosted by [`GROUP_BOOST_STEP`] per extra member of the whole group
//! (`group_size`, `group_members`, `group_alive_members`,
//! `group_shared_terms`); a group of at least [`GROUP_OFFER_FLOOR`] whose
//! members all sleep surfaces through its exemplar with the boost alone
//! (`alive_via: "group_size"`). Strongest first (ties by record id), at most
//! `k`. Aliveness orders one read; it is no meter across reads.
//!
//! Pure read: nothing is deposited, and a cue built from these items must
//! not deposit either.

use super::args::{AliveDrives, required_ladder};
use super::grouping::{DriveGroup, partition_of};
use super::health::round4;
use super::index::DriveIndex;
use super::interests::InterestFold;
use super::pressure::standing_of_pair;
use super::view::DriveView;
use crate::config::{DRIVE_DIGEST_CHARS, DRIVE_WINDOW_LIMIT, GROUP_BOOST_STEP, GROUP_OFFER_FLOOR};
use crate::error::Result;
use crate::kinds::DIGEST_PREDICATE;
use crate::record::DigestRow;
use crate::system::MemorySystem;
use am_journal::BindingFilter;
use am_triples::TripleAssertion;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::{HashMap, HashSet};

/// The drive label of a family.
fn label(family: &str) -> &'static str {
    match family {
        "question" => "open question",
        "problem" => "open problem",
        "commitment" => "open commitment",
        "idea" => "incubating idea",
        "interest" => "unexplored interest",
        _ => "unresolved tension",
    }
}

/// The record of a cut digest: `{mark, kept, of, unit}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct DigestTruncation {
    /// Always `#TRUNCATION`.
    pub mark: String,
    /// Characters kept before the `…`.
    pub kept: usize,
    /// Characters of the whole digest.
    pub of: usize,
    /// Always `chars`.
    pub unit: String,
}

/// One alive drive, handle-shaped.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct AliveDrive {
    /// The drive's graph id.
    pub record_id: String,
    /// Its record kind.
    pub kind: String,
    /// `open question`, `open problem`, `open commitment`, `incubating
    /// idea`, `unexplored interest` or `unresolved tension`.
    pub drive: String,
    /// Its title (`None` while pending).
    pub title: Option<String>,
    /// Its digest, at most 280 characters (a cut one ends in `…`).
    pub digest: String,
    /// The day it formed (`observed_at`'s first ten characters).
    pub born_at: Option<String>,
    /// `provenance.source`, trimmed (empty when none).
    pub origin: String,
    /// Ordering currency of this read only.
    pub aliveness: f64,
    /// `trail`, `recency`, `both` or `group_size`.
    pub alive_via: String,
    /// Present only when the digest was cut.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub digest_truncation: Option<DigestTruncation>,
    /// The whole group's size, when the item speaks for a group.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group_size: Option<usize>,
    /// The group's members.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group_members: Option<Vec<String>>,
    /// The group's members alive in this read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group_alive_members: Option<Vec<String>>,
    /// The group's shared terms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group_shared_terms: Option<Vec<String>>,
}

impl AliveDrive {
    fn of(a: &TripleAssertion, family: &str, aliveness: f64, via: &str) -> AliveDrive {
        let row = DigestRow::of(a);
        let title = if row.pending().iter().any(|f| f == "title") {
            None
        } else {
            Some(row.text("title").unwrap_or("").to_owned())
        };
        let total = a.object.chars().count();
        let (digest, digest_truncation) = if total <= DRIVE_DIGEST_CHARS {
            (a.object.clone(), None)
        } else {
            let mut cut: String = a.object.chars().take(DRIVE_DIGEST_CHARS - 1).collect();
            cut.push('…');
            (
                cut,
                Some(DigestTruncation {
                    mark: "#TRUNCATION".into(),
                    kept: DRIVE_DIGEST_CHARS - 1,
                    of: total,
                    unit: "chars".into(),
                }),
            )
        };
        let born: String = a.observed_at.chars().take(10).collect();
        let origin = match a.provenance.get("source") {
            Some(Value::String(s)) => s.trim().to_owned(),
            Some(Value::Number(n)) => n.to_string(),
            _ => String::new(),
        };
        AliveDrive {
            record_id: a.subject.clone(),
            kind: row.as_stored("record_kind").unwrap_or("").to_owned(),
            drive: label(family).to_owned(),
            title,
            digest,
            born_at: (!born.is_empty()).then_some(born),
            origin,
            aliveness: round4(aliveness),
            alive_via: via.to_owned(),
            digest_truncation,
            group_size: None,
            group_members: None,
            group_alive_members: None,
            group_shared_terms: None,
        }
    }

    fn speak_for(&mut self, g: &DriveGroup, alive: Vec<String>) {
        self.group_size = Some(g.size);
        self.group_members = Some(g.members.clone());
        self.group_alive_members = Some(alive);
        self.group_shared_terms = Some(g.shared_terms.clone());
    }
}

impl MemorySystem {
    /// The top-`k` alive drives of a ladder, strongest first (see the
    /// module doc). Pure read.
    ///
    /// # Errors
    /// `InvalidInput` for a ladder with no pair; the store's or journal's
    /// failure.
    pub fn alive_drives(&self, args: &AliveDrives) -> Result<Vec<AliveDrive>> {
        let pairs = required_ladder("alive_drives", &args.scopes)?;
        self.with_drive_view(&pairs, |view, index| self.alive_over(view, index, args.k))
    }

    /// The drive view of a normalized ladder, through the drive index when
    /// the store has a change feed (whole otherwise), handed to `body` with
    /// the index it came through. A failed read drops the index.
    pub(crate) fn with_drive_view<T>(
        &self,
        pairs: &[(String, String)],
        body: impl FnOnce(&DriveView, Option<&DriveIndex>) -> Result<T>,
    ) -> Result<T> {
        let store = self.store().as_ref();
        let journal = self.journal().as_ref();
        let cache = self.faculty_state.cache::<DriveIndex>();
        let mut index = cache.lock();
        let view = match DriveView::indexed(store, journal, &mut index, pairs) {
            Ok(v) => v,
            Err(e) => {
                *index = DriveIndex::default();
                return Err(e);
            }
        };
        match view {
            Some(view) => body(&view, Some(&index)),
            None => body(&DriveView::whole(store, journal, pairs)?, None),
        }
    }

    fn alive_over(
        &self,
        view: &DriveView,
        index: Option<&DriveIndex>,
        k: usize,
    ) -> Result<Vec<AliveDrive>> {
        let pairs = &view.pairs;
        let mut standing: Vec<(TripleAssertion, &'static str)> = Vec::new();
        for p in 0..pairs.len() {
            for (family, rows) in standing_of_pair(view, p) {
                standing.extend(rows.into_iter().map(|a| (a, family)));
            }
        }
        let interests = InterestFold::of(view);
        standing.extend(
            interests
                .unexplored()
                .into_iter()
                .map(|a| (a.clone(), "interest")),
        );
        if standing.is_empty() {
            return Ok(Vec::new());
        }

        // Trail: stored activation per drive, in its own stream (the
        // activation fold's level by the id its events carry: a digest row's
        // own assertion id, read from the fold directly; any other row's
        // record resolved to its digest row first, as `activation` does).
        let mut by_pair: Vec<((String, String), Vec<&TripleAssertion>)> = Vec::new();
        for (a, _) in &standing {
            let key = (a.scope.clone(), a.owner_id.clone().unwrap_or_default());
            match by_pair.iter_mut().find(|(k, _)| *k == key) {
                Some((_, rows)) => rows.push(a),
                None => by_pair.push((key, vec![a])),
            }
        }
        let mut activation: HashMap<String, f64> = HashMap::new();
        for ((scope, owner), rows) in by_pair {
            let scores: HashMap<String, f64> = self
                .activation_scores(&scope, &owner, None)?
                .into_iter()
                .map(|(rid, s)| (rid, s.base_level))
                .collect();
            let mut others: Vec<String> = Vec::new();
            for a in rows {
                match &a.assertion_id {
                    Some(id) if a.predicate == DIGEST_PREDICATE => {
                        let level = scores.get(id).copied().unwrap_or(0.0);
                        let e = activation.entry(id.clone()).or_insert(0.0);
                        *e = e.max(level);
                    }
                    _ => others.push(a.subject.clone()),
                }
            }
            for (requested, rid) in self.resolve_assertion_ids(&others)? {
                let level = scores.get(&rid).copied().unwrap_or(0.0);
                let e = activation.entry(requested).or_insert(0.0);
                *e = e.max(level);
            }
        }
        let key_of = |a: &TripleAssertion| -> String {
            match &a.assertion_id {
                Some(id) if a.predicate == DIGEST_PREDICATE => id.clone(),
                _ => a.subject.clone(),
            }
        };
        let max_act = activation.values().copied().fold(0.0_f64, f64::max);

        // Recency on the binding axis.
        let machine = view.machine_records();
        let window = match index {
            Some(index) => index.newest(pairs, &machine, DRIVE_WINDOW_LIMIT),
            None => newest_bound(self.journal().as_ref(), pairs, &machine)?,
        };
        let decay = self.attention_config().decay_window;
        let recency: HashMap<&str, f64> = window
            .iter()
            .enumerate()
            .map(|(rank, rid)| (rid.as_str(), 1.0 / (1.0 + rank as f64 / decay)))
            .collect();

        let mut out: Vec<AliveDrive> = Vec::new();
        for (a, family) in &standing {
            let act = activation.get(&key_of(a)).copied().unwrap_or(0.0);
            let trail = if max_act > 0.0 { act / max_act } else { 0.0 };
            let recent = recency.get(a.subject.as_str()).copied().unwrap_or(0.0);
            let aliveness = trail.max(recent);
            if aliveness <= 0.0 {
                continue;
            }
            let via = match (trail > 0.0, recent > 0.0) {
                (true, true) => "both",
                (true, false) => "trail",
                _ => "recency",
            };
            out.push(AliveDrive::of(a, family, aliveness, via));
        }

        // The group fold over the one partition.
        let partition = partition_of(view, &interests);
        let groups: Vec<&DriveGroup> =
            [&partition.question, &partition.problem, &partition.interest]
                .into_iter()
                .flatten()
                .collect();
        let mut group_of: HashMap<&str, &DriveGroup> = HashMap::new();
        for g in &groups {
            for m in &g.members {
                group_of.insert(m.as_str(), g);
            }
        }
        let mut folded: Vec<AliveDrive> = Vec::new();
        let mut emitted: HashSet<String> = HashSet::new();
        for d in &out {
            let Some(g) = group_of.get(d.record_id.as_str()) else {
                folded.push(d.clone());
                continue;
            };
            if !emitted.insert(g.exemplar.clone()) {
                continue;
            }
            let members: HashSet<&str> = g.members.iter().map(String::as_str).collect();
            let alive: Vec<&AliveDrive> = out
                .iter()
                .filter(|x| members.contains(x.record_id.as_str()))
                .collect();
            let Some(carrier) = alive.iter().copied().max_by(|x, y| {
                x.aliveness
                    .total_cmp(&y.aliveness)
                    .then_with(|| x.record_id.cmp(&y.record_id))
            }) else {
                continue;
            };
            let mut entry = carrier.clone();
            entry.aliveness = round4(carrier.aliveness + GROUP_BOOST_STEP * (g.size - 1) as f64);
            entry.speak_for(g, alive.iter().map(|x| x.record_id.clone()).collect());
            folded.push(entry);
        }
        let standing_by_id: HashMap<&str, &(TripleAssertion, &'static str)> =
            standing.iter().map(|s| (s.0.subject.as_str(), s)).collect();
        for g in &groups {
            if emitted.contains(&g.exemplar) || g.size < GROUP_OFFER_FLOOR {
                continue;
            }
            emitted.insert(g.exemplar.clone());
            let Some((a, family)) = standing_by_id.get(g.exemplar.as_str()) else {
                continue;
            };
            let mut entry = AliveDrive::of(
                a,
                family,
                GROUP_BOOST_STEP * (g.size - 1) as f64,
                "group_size",
            );
            entry.speak_for(g, Vec::new());
            folded.push(entry);
        }
        folded.sort_by(|a, b| {
            b.aliveness
                .total_cmp(&a.aliveness)
                .then_with(|| a.record_id.cmp(&b.record_id))
        });
        folded.truncate(k);
        Ok(folded)
    }
}

/// The newest records of a ladder's binding axis read whole from the
/// journal: every binding of every pair, newest first, each record once,
/// `skip`'s and blank ids taking no place, at most [`DRIVE_WINDOW_LIMIT`].
fn newest_bound(
    journal: &dyn am_journal::MemoryJournal,
    pairs: &[(String, String)],
    skip: &HashSet<&str>,
) -> Result<Vec<String>> {
    let mut merged = Vec::new();
    for (scope, owner) in pairs {
        merged.extend(journal.bindings(&BindingFilter {
            record_id: None,
            scope: Some(scope.clone()),
            owner_id: Some(owner.clone()),
            fold: false,
            until_seq: None,
        })?);
    }
    merged.sort_by_key(|b| std::cmp::Reverse(b.seq));
    let mut seen: HashSet<&str> = HashSet::new();
    let mut out = Vec::new();
    for b in &merged {
        let rid = b.record_id.as_str();
        if rid.is_empty() || skip.contains(rid) || !seen.insert(rid) {
            continue;
        }
        if out.len() >= DRIVE_WINDOW_LIMIT {
            break;
        }
        out.push(rid.to_owned());
    }
    Ok(out)
}
