//! The communities reads: the payload (`communities`), one record's
//! community (`community_of`), and the membership-only read
//! (`community_keys_of` / `community_memberships_of`) served from the
//! in-memory community index.

use crate::communities::args::{Communities, CommunityKeysOf, CommunityOf};
use crate::communities::graph::{closed_ids, pair_rows};
use crate::communities::topics::{Standing, standing_of};
use crate::communities::{
    ALGORITHM, COMMUNITIES_PAYLOAD_VERSION, FACTS_PATHS_TOP, FACTS_WINDOW_DAYS,
};
use crate::error::{Error, Result};
use crate::kinds::RecordKind;
use crate::record::DigestRow;
use am_journal::{ClosureFilter, EventFilter, EventKind};
use am_triples::{Timestamp, TripleAssertion, TripleQuery};
use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

/// A member of a topic: `{id, via}` (`detected` by the Louvain, or
/// `attached` through its engraved neighbours).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Member {
    /// The record's graph id.
    pub id: String,
    /// How it joined.
    pub via: String,
}

/// One line of `links`: two topic keys and the engraved edges between
/// their members.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Link {
    /// The smaller key.
    pub a: String,
    /// The larger key.
    pub b: String,
    /// How many engraved edges join their members.
    pub weight: f64,
}

/// `span`: when the first and newest members formed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Span {
    /// The oldest member's `observed_at`.
    pub first: Option<String>,
    /// The newest member's `observed_at`.
    pub last: Option<String>,
}

/// One of `paths`: a member pair used together.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PathCount {
    /// One member.
    pub from: String,
    /// The other.
    pub to: String,
    /// Its `co_selected` events in the window.
    pub count: usize,
}

/// `changed_since_last_sleep`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Changed {
    /// Members that joined at this version.
    pub added: usize,
    /// Members that left at this version.
    pub moved: usize,
    /// The key of the previous topic this one was split from, when it was
    /// born tonight as a piece of one (docs/communities.md "Splits").
    pub split_from: Option<String>,
}

/// A topic's `facts`, read as the store and journal are now.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Facts {
    /// When its first and newest members formed.
    pub span: Span,
    /// Its members' `selected` events in the last `FACTS_WINDOW_DAYS`.
    pub activity: usize,
    /// The member used most, all time (`None`: none was ever used).
    pub hub: Option<String>,
    /// Members with an engraved edge to a member of another topic.
    pub bridges: Vec<String>,
    /// The `FACTS_PATHS_TOP` member pairs most often used together in the
    /// window.
    pub paths: Vec<PathCount>,
    /// What this version changed (zeros unless it is the newest).
    pub changed_since_last_sleep: Changed,
}

/// One topic of the payload.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CommunityView {
    /// This version's record id.
    pub id: String,
    /// The stable key.
    pub key: String,
    /// Its title (`None` while pending).
    pub title: Option<String>,
    /// Its summary (`None` while pending).
    pub summary: Option<String>,
    /// The fields still being written.
    pub pending: Vec<String>,
    /// `new`, `kept` or `renamed`: what the pass that wrote it said.
    pub verdict: String,
    /// The version's member count.
    pub size: usize,
    /// Its members' kinds.
    pub kinds: BTreeMap<String, usize>,
    /// The version's members.
    pub members: Vec<Member>,
    /// Records placed at formation since the version (none before placement
    /// lands).
    pub provisional_ids: Vec<String>,
    /// Mean cosine of its detected members to their centroid.
    pub cohesion: f64,
    /// `{xy, radius, seats}`.
    pub layout: Value,
    /// Whether its centroid belongs to another embedding space than the
    /// store's now.
    pub centroid_stale: bool,
    /// Its facts.
    pub facts: Facts,
}

/// `communities(...)`'s payload (version 2).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CommunitiesPayload {
    /// `COMMUNITIES_PAYLOAD_VERSION`.
    pub version: u32,
    /// The version read (`None`: none yet).
    pub version_seq: Option<i64>,
    /// No version yet.
    pub first_sleep_pending: bool,
    /// The detection's name.
    pub algorithm: String,
    /// The topics, largest first (ties by key).
    pub communities: Vec<CommunityView>,
    /// Topic pairs joined by engraved edges.
    pub links: Vec<Link>,
}

/// `community_of`'s answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CommunityOfAnswer {
    /// The record asked about.
    pub record_id: String,
    /// Its topic's key (`None`: in no topic).
    pub community_key: Option<String>,
    /// Its topic's current record id.
    pub community_id: Option<String>,
    /// Whether the placement is provisional.
    pub provisional: bool,
    /// How the version names it (`detected`, `attached`; `provisional`).
    pub via: Option<String>,
    /// A provisional placement's `how` (`centroid`, `neighbour`).
    pub how: Option<String>,
    /// A provisional placement's score.
    pub score: Option<f64>,
    /// The topic version's seq.
    pub version_seq: Option<i64>,
    /// No version yet.
    pub first_sleep_pending: bool,
}

/// One answer of `community_memberships_of`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CommunityMembership {
    /// The topic's key.
    pub key: TopicKey,
    /// Whether it is a provisional placement.
    pub provisional: bool,
}

use crate::communities::index::{IndexCache, PairIndex, TopicKey, schema_error, version_seq_of};

/// The answer of `community_keys_of` and `community_memberships_of`: each
/// asked record id once, in the order first asked (as the spec's Python
/// dict), with its answer. Reads as an [`IndexMap`] (`answer[id.as_str()]`,
/// `get`, `iter`); its JSON is an object in that order.
///
/// The ids and values share the index's allocations (an id the index
/// does not know is allocated once), so building an answer for known
/// records allocates nothing per id (issue 40's ≤ 10 µs for 50 ids).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PerRecord<T>(IndexMap<Arc<str>, T, foldhash::fast::FixedState>);

impl<T> std::ops::Deref for PerRecord<T> {
    type Target = IndexMap<Arc<str>, T, foldhash::fast::FixedState>;
    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

impl<T> IntoIterator for PerRecord<T> {
    type Item = (Arc<str>, T);
    type IntoIter = indexmap::map::IntoIter<Arc<str>, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

impl<T: Serialize> Serialize for PerRecord<T> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.collect_map(self.0.iter())
    }
}

fn home_pair(scopes: &[(String, String)], owner: &str, verb: &str) -> Result<(String, String)> {
    let owner = owner.trim();
    if owner.is_empty() {
        return Err(Error::invalid(format!("{verb} needs an owner_id")));
    }
    let Some((scope, _)) = scopes.first() else {
        return Err(Error::invalid(format!(
            "{verb} needs at least one (scope, owner_id) pair"
        )));
    };
    if scope.trim().is_empty() {
        return Err(Error::invalid(format!(
            "{verb}: a scope pair has a blank scope"
        )));
    }
    Ok((scope.trim().to_lowercase(), owner.to_owned()))
}

/// Every community row of the pair, closed ones included.
fn community_rows(
    store: &dyn am_triples::TripleStore,
    scope: &str,
    owner: &str,
) -> Result<Vec<TripleAssertion>> {
    Ok(pair_rows(store, scope, owner)?
        .into_iter()
        .filter(|a| DigestRow::of(a).kind_trimmed() == Some(RecordKind::Community))
        .collect())
}

impl crate::MemorySystem {
    /// `communities(...)` — PURE READ: the topics of the home pair (the
    /// current version, or `version`'s), largest first, with their facts
    /// and the links between them.
    ///
    /// # Errors
    /// `InvalidInput` for a blank owner, no pair, or a `version` older than
    /// the first; `Internal` (`CommunitySchemaError`) for a community record
    /// missing a field the read serves; the home's failure.
    pub fn communities(&self, args: &Communities) -> Result<CommunitiesPayload> {
        let (scope, owner) = home_pair(&args.scopes, &args.owner_id, "communities")?;
        let store = self.store.as_ref();
        let rows = community_rows(store, &scope, &owner)?;
        let closures = self.journal.closures(&ClosureFilter {
            limit: 0,
            ..ClosureFilter::default()
        })?;
        let closed_at: HashMap<&str, i64> = closures
            .iter()
            .map(|c| (c.assertion_id.as_str(), c.seq))
            .collect();
        let rows_closed_at = |a: &TripleAssertion| -> Option<i64> {
            a.assertion_id
                .as_deref()
                .and_then(|x| closed_at.get(x))
                .or_else(|| closed_at.get(a.subject.as_str()))
                .copied()
        };
        let mut seqs: BTreeSet<i64> = BTreeSet::new();
        for r in &rows {
            seqs.insert(version_seq_of(r)?);
        }
        let empty = |first: bool, v: Option<i64>| CommunitiesPayload {
            version: COMMUNITIES_PAYLOAD_VERSION,
            version_seq: v,
            first_sleep_pending: first,
            algorithm: ALGORITHM.to_owned(),
            communities: Vec::new(),
            links: Vec::new(),
        };
        let Some(&newest) = seqs.last() else {
            if let Some(v) = args.version {
                return Err(Error::invalid(format!(
                    "communities: version {v} is older than the first version (there is none yet)"
                )));
            }
            return Ok(empty(true, None));
        };
        let chosen: Vec<&TripleAssertion> = match args.version {
            None => rows
                .iter()
                .filter(|r| rows_closed_at(r).is_none())
                .collect(),
            Some(v) => {
                let first = *seqs.first().unwrap_or(&newest);
                if v < first {
                    return Err(Error::invalid(format!(
                        "communities: version {v} is older than the first version ({first})"
                    )));
                }
                // The newest record of each key at or before v, if it was
                // still standing when the next version was written.
                let next = seqs.range(v + 1..).next().copied();
                let mut best: BTreeMap<String, &TripleAssertion> = BTreeMap::new();
                for r in &rows {
                    let s = version_seq_of(r)?;
                    if s > v {
                        continue;
                    }
                    let key = DigestRow::of(r)
                        .text("community_key")
                        .ok_or_else(|| schema_error(r, "community_key"))?
                        .to_owned();
                    let keep = best
                        .get(&key)
                        .is_none_or(|b| version_seq_of(b).is_ok_and(|bs| bs < s));
                    if keep {
                        best.insert(key, r);
                    }
                }
                best.into_values()
                    .filter(|r| match (rows_closed_at(r), next) {
                        (None, _) => true,
                        // Closed by a later version's write: it stood at v.
                        (Some(c), Some(n)) => c > n,
                        (Some(_), None) => false,
                    })
                    .collect()
            }
        };
        let version_seq = match args.version {
            Some(v) => Some(*seqs.range(..=v).next_back().unwrap_or(&newest)),
            None => chosen
                .iter()
                .map(|r| version_seq_of(r))
                .collect::<Result<Vec<_>>>()?
                .into_iter()
                .max(),
        };
        let is_newest = version_seq == Some(newest);
        let standing = standing_of(&chosen.iter().map(|r| (*r).clone()).collect::<Vec<_>>());
        let mut views = Vec::with_capacity(standing.len());
        let facts = self.facts_of(&args.scopes, &standing)?;
        let pin = store.embedding_pin()?;
        // The records placed at formation since the version (the current
        // version only: an earlier version is read without them).
        let provisional = if args.version.is_none() {
            crate::communities::index::provisional_by_key(
                &self.community_index_of(&(scope.clone(), owner.clone()))?,
            )
        } else {
            HashMap::new()
        };
        for (s, f) in standing.iter().zip(facts.per_topic) {
            // "when its version is the newest": the topic's own record was
            // written by the newest version (an unchanged topic keeps an
            // older record and reads zeros).
            let its_newest = is_newest && version_seq_of(&s.row)? == newest;
            let mut view = view_of(s, f, its_newest, &rows, pin.as_ref())?;
            if let Some(ids) = provisional.get(&view.key) {
                view.provisional_ids = ids.iter().cloned().collect();
            }
            views.push(view);
        }
        views.sort_by(|a, b| b.size.cmp(&a.size).then(a.key.cmp(&b.key)));
        Ok(CommunitiesPayload {
            version: COMMUNITIES_PAYLOAD_VERSION,
            version_seq,
            first_sleep_pending: false,
            algorithm: ALGORITHM.to_owned(),
            communities: views,
            links: facts.links,
        })
    }

    /// The facts of `standing`'s topics and the links between them: one
    /// read of the pairs' rows and one of their use events.
    fn facts_of(&self, scopes: &[(String, String)], standing: &[Standing]) -> Result<AllFacts> {
        let mut topic_of: HashMap<&str, usize> = HashMap::new();
        for (i, s) in standing.iter().enumerate() {
            for m in &s.members {
                topic_of.insert(m.as_str(), i);
            }
        }
        let mut observed: HashMap<String, String> = HashMap::new();
        let mut subject_of: HashMap<String, String> = HashMap::new();
        let mut bridges: Vec<BTreeSet<String>> = vec![BTreeSet::new(); standing.len()];
        let mut links: BTreeMap<(String, String), f64> = BTreeMap::new();
        let closed = closed_ids(self.journal.as_ref())?;
        for (scope, owner) in scopes {
            for a in pair_rows(self.store.as_ref(), scope, owner)? {
                let v = DigestRow::of(&a);
                if v.is_edge() {
                    if a.predicate == "written_amid"
                        || a.assertion_id
                            .as_deref()
                            .is_some_and(|x| closed.contains(x))
                    {
                        continue;
                    }
                    if let (Some(&i), Some(&j)) = (
                        topic_of.get(a.subject.as_str()),
                        topic_of.get(a.object.as_str()),
                    ) && i != j
                    {
                        bridges[i].insert(a.subject.clone());
                        bridges[j].insert(a.object.clone());
                        let (ka, kb) = (&standing[i].key, &standing[j].key);
                        let k = if ka < kb {
                            (ka.clone(), kb.clone())
                        } else {
                            (kb.clone(), ka.clone())
                        };
                        *links.entry(k).or_insert(0.0) += 1.0;
                    }
                    continue;
                }
                if topic_of.contains_key(a.subject.as_str()) {
                    observed.insert(a.subject.clone(), a.observed_at.clone());
                    if let Some(aid) = &a.assertion_id {
                        subject_of.insert(aid.clone(), a.subject.clone());
                    }
                }
            }
        }
        // Use events: `selected` (activity, hub) and `co_selected` (paths).
        let now = (self.clock)();
        let window_start =
            Timestamp::from_datetime(now.as_datetime() - time::Duration::days(FACTS_WINDOW_DAYS))?
                .canonical();
        let mut uses: Vec<HashMap<String, usize>> = vec![HashMap::new(); standing.len()];
        let mut recent: Vec<usize> = vec![0; standing.len()];
        let mut pairs: Vec<HashMap<(String, String), usize>> = vec![HashMap::new(); standing.len()];
        let graph_id = |id: &str| subject_of.get(id).cloned().unwrap_or_else(|| id.to_owned());
        let mut seen_pairs: BTreeSet<(String, String)> = BTreeSet::new();
        for (scope, owner) in scopes {
            if !seen_pairs.insert((scope.clone(), owner.clone())) {
                continue;
            }
            for e in self.journal.events(&EventFilter {
                kinds: vec![
                    EventKind::Selected.as_str().to_owned(),
                    EventKind::CoSelected.as_str().to_owned(),
                ],
                limit: 0,
                ..EventFilter::new(scope, owner)
            })? {
                let in_window = e.observed_at >= window_start;
                match e.kind {
                    EventKind::Selected => {
                        let Some(rid) = e.record_id.as_deref().map(graph_id) else {
                            continue;
                        };
                        if let Some(&i) = topic_of.get(rid.as_str()) {
                            *uses[i].entry(rid.clone()).or_default() += 1;
                            recent[i] += usize::from(in_window);
                        }
                    }
                    EventKind::CoSelected if in_window => {
                        let Some((a, b)) = &e.pair_ids else { continue };
                        let (a, b) = (graph_id(a), graph_id(b));
                        if let (Some(&i), Some(&j)) =
                            (topic_of.get(a.as_str()), topic_of.get(b.as_str()))
                            && i == j
                        {
                            let k = if a < b { (a, b) } else { (b, a) };
                            *pairs[i].entry(k).or_default() += 1;
                        }
                    }
                    _ => {}
                }
            }
        }
        let mut per_topic = Vec::with_capacity(standing.len());
        for (i, s) in standing.iter().enumerate() {
            let times: Vec<&String> = s.members.iter().filter_map(|m| observed.get(m)).collect();
            let hub = uses[i]
                .iter()
                .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0)))
                .map(|(k, _)| k.clone());
            let mut paths: Vec<((String, String), usize)> = pairs[i].clone().into_iter().collect();
            paths.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
            per_topic.push(Facts {
                span: Span {
                    first: times.iter().min().map(|t| (*t).clone()),
                    last: times.iter().max().map(|t| (*t).clone()),
                },
                activity: recent[i],
                hub,
                bridges: bridges[i].iter().cloned().collect(),
                paths: paths
                    .into_iter()
                    .take(FACTS_PATHS_TOP)
                    .map(|((from, to), count)| PathCount { from, to, count })
                    .collect(),
                changed_since_last_sleep: Changed::default(),
            });
        }
        Ok(AllFacts {
            per_topic,
            links: links
                .into_iter()
                .map(|((a, b), weight)| Link { a, b, weight })
                .collect(),
        })
    }

    /// `community_of(record_id)` — which topic a record is in now.
    ///
    /// # Errors
    /// `InvalidInput` for an unknown record or a community record; the
    /// home's failure.
    pub fn community_of(&self, args: &CommunityOf) -> Result<CommunityOfAnswer> {
        let rid = args.record_id.trim();
        let rows = self.store.query(&TripleQuery {
            subject: Some(rid.to_owned()),
            limit: 0,
            ..TripleQuery::default()
        })?;
        let Some(row) = rows.iter().find(|a| {
            let v = DigestRow::of(a);
            !v.is_edge() && v.kind_text().is_some()
        }) else {
            return Err(Error::invalid(format!(
                "community_of: unknown record {rid:?}"
            )));
        };
        if DigestRow::of(row).kind_trimmed() == Some(RecordKind::Community) {
            return Err(Error::invalid(format!(
                "community_of: {rid} is a community record (topics are in no topic)"
            )));
        }
        let owner = row.owner_id.clone().unwrap_or_default();
        let closed = closed_ids(self.journal.as_ref())?;
        let topics: Vec<TripleAssertion> = community_rows(self.store.as_ref(), &row.scope, &owner)?
            .into_iter()
            .filter(|a| {
                !a.assertion_id
                    .as_deref()
                    .is_some_and(|x| closed.contains(x))
                    && !closed.contains(&a.subject)
            })
            .collect();
        let mut answer = CommunityOfAnswer {
            record_id: rid.to_owned(),
            community_key: None,
            community_id: None,
            provisional: false,
            via: None,
            how: None,
            score: None,
            version_seq: None,
            first_sleep_pending: topics.is_empty()
                && community_rows(self.store.as_ref(), &row.scope, &owner)?.is_empty(),
        };
        for t in &topics {
            let v = DigestRow::of(t);
            let Some(Value::Array(members)) = v.get("members") else {
                return Err(schema_error(t, "members"));
            };
            if let Some(m) = members
                .iter()
                .find(|m| m.get("id").and_then(Value::as_str) == Some(rid))
            {
                answer.community_key = v.text("community_key").map(str::to_owned);
                answer.community_id = Some(t.subject.clone());
                answer.via = m.get("via").and_then(Value::as_str).map(str::to_owned);
                answer.version_seq = Some(version_seq_of(t)?);
                break;
            }
        }
        if answer.community_key.is_none() && !answer.first_sleep_pending {
            let idx = self.community_index_of(&(row.scope.clone(), owner.clone()))?;
            if let Some(p) = idx.provisional.get(rid) {
                answer.community_key = Some(p.key.to_string());
                answer.community_id = Some(p.community_id.clone());
                answer.provisional = true;
                answer.via = Some("provisional".into());
                answer.how = Some(p.how.clone());
                answer.score = Some(p.score);
                answer.version_seq = Some(p.version_seq);
            }
        }
        Ok(answer)
    }

    /// `community_keys_of(record_ids, scopes, owner_id)` — each record's
    /// topic key (`None`: unplaced, unknown, a community record, another
    /// owner's, no version yet), from the in-memory index.
    ///
    /// # Errors
    /// `InvalidInput` for a blank owner or no pair; the home's failure.
    pub fn community_keys_of(&self, args: &CommunityKeysOf) -> Result<PerRecord<Option<TopicKey>>> {
        self.with_index(args, |idx, id| {
            if let Some((id, key)) = idx.members.get_key_value(id) {
                return (Some(Arc::clone(id)), Some(Arc::clone(key)));
            }
            match idx.provisional.get_key_value(id) {
                Some((id, p)) => (Some(Arc::clone(id)), Some(Arc::clone(&p.key))),
                None => (None, None),
            }
        })
    }

    /// `community_memberships_of(...)` — as [`Self::community_keys_of`],
    /// each answer `{key, provisional}`.
    ///
    /// # Errors
    /// As [`Self::community_keys_of`].
    pub fn community_memberships_of(
        &self,
        args: &CommunityKeysOf,
    ) -> Result<PerRecord<Option<CommunityMembership>>> {
        self.with_index(args, |idx, id| {
            if let Some((id, key)) = idx.members.get_key_value(id) {
                let m = CommunityMembership {
                    key: Arc::clone(key),
                    provisional: false,
                };
                return (Some(Arc::clone(id)), Some(m));
            }
            match idx.provisional.get_key_value(id) {
                Some((id, p)) => {
                    let m = CommunityMembership {
                        key: Arc::clone(&p.key),
                        provisional: true,
                    };
                    (Some(Arc::clone(id)), Some(m))
                }
                None => (None, None),
            }
        })
    }

    /// Each asked id once, in the order first asked, with `answer`'s
    /// value; `answer` hands back the index's own copy of the id when it
    /// holds one (else the asked id is allocated).
    fn with_index<T>(
        &self,
        args: &CommunityKeysOf,
        answer: impl Fn(&PairIndex, &str) -> (Option<Arc<str>>, T),
    ) -> Result<PerRecord<T>> {
        let pair = home_pair(&args.scopes, &args.owner_id, "community_keys_of")?;
        let cache = self.faculty_state.cache::<IndexCache>();
        let mut cache = cache.lock();
        cache.catch_up(self.store.as_ref());
        let idx = cache.pair(self.store.as_ref(), self.journal.as_ref(), &pair)?;
        let mut out = IndexMap::with_capacity_and_hasher(
            args.record_ids.len(),
            foldhash::fast::FixedState::default(),
        );
        for asked in &args.record_ids {
            let id = asked.trim();
            let (known, value) = answer(idx, id);
            // The key is the id as asked (the spec's dict is keyed by the
            // caller's ids); the index's copy serves when it is the same.
            let key = match known {
                Some(k) if *k == **asked => k,
                _ => Arc::from(asked.as_str()),
            };
            out.entry(key).or_insert(value);
        }
        Ok(PerRecord(out))
    }

    /// The index of `pair`, caught up (for the reads that serve the
    /// provisional placements).
    pub(crate) fn community_index_of(&self, pair: &(String, String)) -> Result<PairIndex> {
        let cache = self.faculty_state.cache::<IndexCache>();
        let mut cache = cache.lock();
        cache.catch_up(self.store.as_ref());
        Ok(cache
            .pair(self.store.as_ref(), self.journal.as_ref(), pair)?
            .clone())
    }
}

struct AllFacts {
    per_topic: Vec<Facts>,
    links: Vec<Link>,
}

fn view_of(
    s: &Standing,
    mut facts: Facts,
    newest: bool,
    all: &[TripleAssertion],
    pin: Option<&am_triples::EmbeddingPin>,
) -> Result<CommunityView> {
    let v = DigestRow::of(&s.row);
    let need = |k: &str| v.get(k).ok_or_else(|| schema_error(&s.row, k));
    let pending = v.pending();
    let members: Vec<Member> = match need("members")? {
        Value::Array(a) => a
            .iter()
            .filter_map(|m| {
                Some(Member {
                    id: m.get("id")?.as_str()?.to_owned(),
                    via: m.get("via")?.as_str()?.to_owned(),
                })
            })
            .collect(),
        _ => return Err(schema_error(&s.row, "members")),
    };
    let kinds: BTreeMap<String, usize> = serde_json::from_value(need("kinds")?.clone())
        .map_err(|_| schema_error(&s.row, "kinds"))?;
    if newest {
        let prev_id = v.text("previous_id");
        let prev: BTreeSet<String> = prev_id
            .and_then(|p| all.iter().find(|r| r.subject == p))
            .map(|r| standing_of(std::slice::from_ref(r)))
            .and_then(|v| v.into_iter().next())
            .map(|p| p.members)
            .unwrap_or_default();
        if prev_id.is_some() {
            facts.changed_since_last_sleep.added = s.members.difference(&prev).count();
            facts.changed_since_last_sleep.moved = prev.difference(&s.members).count();
        } else {
            facts.changed_since_last_sleep.added = s.members.len();
        }
        facts.changed_since_last_sleep.split_from = v.text("split_from").map(str::to_owned);
    }
    let space = v.get("embedding_space");
    let model = space
        .and_then(|x| x.get("model_id"))
        .and_then(Value::as_str);
    let centroid_stale = match (model, pin.and_then(|p| p.model_id.as_deref())) {
        (Some(a), Some(b)) => a != b,
        _ => false,
    };
    Ok(CommunityView {
        id: s.row.subject.clone(),
        key: s.key.clone(),
        title: (!v.is_marked_pending("title"))
            .then(|| v.title().map(str::to_owned))
            .flatten(),
        summary: (!v.is_marked_pending("summary")).then(|| s.row.object.clone()),
        pending,
        verdict: v.text("verdict").unwrap_or("new").to_owned(),
        size: need("size")?
            .as_u64()
            .ok_or_else(|| schema_error(&s.row, "size"))? as usize,
        kinds,
        members,
        provisional_ids: Vec::new(),
        cohesion: need("cohesion")?
            .as_f64()
            .ok_or_else(|| schema_error(&s.row, "cohesion"))?,
        layout: need("layout")?.clone(),
        centroid_stale,
        facts,
    })
}
