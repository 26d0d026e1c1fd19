//! The in-memory community index (faculty state): per home pair, the
//! current version's members, its topics' centroids, and the records placed
//! provisionally at formation since the version.
//!
//! Caught up from the store's row high-water mark: each use reads the
//! change feed past the index's mark (at formation: the rows formed since
//! the previous formation, a handful). A new community row drops its pair's
//! entry (rebuilt on the next use, once a night); new rows of any other kind
//! make the pair fetch the `placed` events above its event mark once (another
//! process's formations). A version that only dissolves topics writes no
//! community row: it is seen at the next version (as the spec says of
//! placement and the membership reads).

use crate::communities::graph::{closed_ids, pair_rows};
use crate::communities::{COMMUNITY_KIND, PLACED_EVENT_KIND};
use crate::error::{Error, Result};
use crate::feed::{Followed, follow_feed};
use crate::kinds::RecordKind;
use crate::record::DigestRow;
use am_journal::{EventFilter, MemoryEvent, MemoryJournal};
use am_triples::lent::{self, Lent};
use am_triples::{Narrow, TripleAssertion, TripleQuery, TripleStore};
use serde_json::Value;
use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::Arc;

/// The index's maps: keyed by graph ids and pairs, read on every membership
/// read and formation, hashed with foldhash's fixed seed (deterministic; no
/// map is iterated where order shows).
pub(crate) type FastMap<K, V> = HashMap<K, V, foldhash::fast::FixedState>;

/// A topic's key as the index holds it: one allocation per topic, shared
/// by its members' entries and by every membership answer.
pub type TopicKey = Arc<str>;

/// One topic of the current version, as placement needs it.
#[derive(Debug, Clone)]
pub(crate) struct TopicPoint {
    pub key: String,
    /// The same key, shared with its members' entries.
    pub shared: TopicKey,
    pub id: String,
    /// Unit-length centroid (`None`: no detected member had a vector).
    pub centroid: Option<Vec<f32>>,
    /// The embedding space the centroid was computed in.
    pub model_id: Option<String>,
}

/// A record's provisional placement (its newest `placed` event at the
/// current version).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Provisional {
    pub key: TopicKey,
    pub community_id: String,
    pub how: String,
    pub score: f64,
    pub version_seq: i64,
}

/// The index of one home pair.
#[derive(Debug, Clone, Default)]
pub(crate) struct PairIndex {
    /// Member graph id → key (the ids shared with the membership answers).
    pub members: FastMap<Arc<str>, TopicKey>,
    /// The current topics, sorted by key.
    pub topics: Vec<TopicPoint>,
    /// The current version (the newest `basis.version_seq` of its topics;
    /// `None`: no version yet).
    pub version_seq: Option<i64>,
    /// Records placed provisionally at the current version.
    pub provisional: FastMap<Arc<str>, Provisional>,
    /// The journal seq the `placed` events were read through.
    pub event_mark: i64,
    /// New rows of the pair since the events were read.
    pub events_stale: bool,
}

/// The cache (faculty state).
#[derive(Default)]
pub(crate) struct IndexCache {
    /// The change feed's position the index is caught up to (`None`: never).
    mark: Option<i64>,
    /// `(scope, owner)` → its index.
    by_pair: FastMap<(String, String), PairIndex>,
    /// The store offers no change feed: the index is kept until this
    /// process's next pass clears it.
    no_feed: bool,
    /// Assertion ids of rows this process committed with placements it
    /// noted since the last catch-up (which reads to the feed's head, so it
    /// meets them or a catch-up before it did: it forgets them).
    own: HashSet<String, foldhash::fast::FixedState>,
}

impl IndexCache {
    /// Forget everything (a pass wrote a new version).
    pub(crate) fn clear(&mut self) {
        self.mark = None;
        self.by_pair.clear();
        self.no_feed = false;
        self.own.clear();
    }

    /// Catch up with the store's rows past the mark: one feed read when
    /// nothing is new.
    pub(crate) fn catch_up(&mut self, store: &dyn TripleStore) {
        if self.no_feed {
            return;
        }
        let Some(mut mark) = self.mark else {
            // The pairs are built from their rows on use: the feed is
            // followed from its head.
            self.by_pair.clear();
            self.own.clear();
            match store.feed_head() {
                Ok(head) => self.mark = Some(head),
                Err(_) => self.no_feed = true,
            }
            return;
        };
        let (own, by_pair) = (&mut self.own, &mut self.by_pair);
        let followed = follow_feed(store, &mut mark, None, None, None, 10_000, |_, row| {
            let pair = (row.scope.clone(), row.owner_id.clone().unwrap_or_default());
            let mine = row.assertion_id.as_deref().is_some_and(|a| own.remove(a));
            if DigestRow::of(&row).kind_trimmed() == Some(RecordKind::Community) {
                by_pair.remove(&pair);
            } else if mine {
                // A row this process formed with its placements, which
                // the index already holds: no other process's events.
            } else if let Some(p) = by_pair.get_mut(&pair) {
                p.events_stale = true;
            }
        });
        if !matches!(followed, Ok(Followed::ToEnd)) {
            self.clear();
            return;
        }
        self.mark = Some(mark);
        self.own.clear();
    }

    /// The index of `pair`, built when missing, its `placed` events fetched
    /// when the pair has new rows.
    pub(crate) fn pair(
        &mut self,
        store: &dyn TripleStore,
        journal: &dyn MemoryJournal,
        pair: &(String, String),
    ) -> Result<&mut PairIndex> {
        if !self.by_pair.contains_key(pair) {
            let built = build(store, journal, pair)?;
            self.by_pair.insert(pair.clone(), built);
        }
        let idx = self
            .by_pair
            .get_mut(pair)
            .ok_or_else(|| Error::internal("community index: the pair just built is missing"))?;
        if idx.events_stale {
            read_placed(journal, pair, idx)?;
            idx.events_stale = false;
        }
        Ok(idx)
    }

    /// Note placements this process committed (their events are in the
    /// journal now) with the rows of their transaction (`row_ids`: assertion
    /// ids), which the next catch-up then reads without fetching the events
    /// again.
    pub(crate) fn note_placed(&mut self, events: &[MemoryEvent], row_ids: &[String]) {
        if self.mark.is_some() && !self.no_feed {
            self.own.extend(row_ids.iter().cloned());
        }
        for e in events {
            let pair = (e.scope.clone(), e.owner_id.clone());
            if let Some(idx) = self.by_pair.get_mut(&pair) {
                absorb(idx, e);
                idx.event_mark = idx.event_mark.max(e.seq);
            }
        }
    }
}

pub(crate) fn schema_error(row: &TripleAssertion, field: &str) -> Error {
    Error::internal(format!(
        "CommunitySchemaError: community record {} lacks {field}",
        row.subject
    ))
}

pub(crate) fn version_seq_of(row: &TripleAssertion) -> Result<i64> {
    DigestRow::of(row)
        .get("basis")
        .and_then(|b| b.get("version_seq"))
        .and_then(Value::as_i64)
        .ok_or_else(|| schema_error(row, "basis.version_seq"))
}

/// Build a pair's index: its live community rows, then its `placed` events
/// at the current version.
fn build(
    store: &dyn TripleStore,
    journal: &dyn MemoryJournal,
    pair: &(String, String),
) -> Result<PairIndex> {
    let closed = closed_ids(journal)?;
    let mut idx = PairIndex::default();
    for t in community_rows(store, &pair.0, &pair.1)? {
        let v = DigestRow::of(&t);
        if v.kind_text() != Some(COMMUNITY_KIND) || v.is_edge() {
            continue;
        }
        if t.assertion_id
            .as_deref()
            .is_some_and(|x| closed.contains(x))
            || closed.contains(&t.subject)
        {
            continue;
        }
        let key = v
            .text("community_key")
            .ok_or_else(|| schema_error(&t, "community_key"))?;
        let Some(Value::Array(members)) = v.get("members") else {
            return Err(schema_error(&t, "members"));
        };
        let shared: TopicKey = Arc::from(key);
        for m in members {
            if let Some(id) = m.get("id").and_then(Value::as_str) {
                idx.members.insert(Arc::from(id), Arc::clone(&shared));
            }
        }
        let version_seq = version_seq_of(&t)?;
        let centroid = match v.get("centroid") {
            Some(Value::Array(a)) => {
                #[allow(clippy::cast_possible_truncation)]
                let c: Vec<f32> = a
                    .iter()
                    .filter_map(Value::as_f64)
                    .map(|x| x as f32)
                    .collect();
                (c.len() == a.len() && !c.is_empty()).then_some(c)
            }
            _ => None,
        };
        let model_id = v
            .get("embedding_space")
            .and_then(|s| s.get("model_id"))
            .and_then(Value::as_str)
            .map(str::to_owned);
        idx.version_seq = Some(idx.version_seq.map_or(version_seq, |s| s.max(version_seq)));
        idx.topics.push(TopicPoint {
            key: key.to_owned(),
            shared,
            id: t.subject.clone(),
            centroid,
            model_id,
        });
    }
    idx.topics
        .sort_by(|a, b| a.key.cmp(&b.key).then(a.id.cmp(&b.id)));
    if let Some(v) = idx.version_seq {
        idx.event_mark = v;
        read_placed(journal, pair, &mut idx)?;
    }
    Ok(idx)
}

/// The pair's community digest rows (`record_kind` `community` once
/// trimmed, no `record_edge`), whole, in the pair's order: the rows of
/// [`pair_rows`] that [`build`] reads. The pair is scanned for those two
/// keys only (a home's rows are nearly all records and edges, read here
/// without building one); the few rows found are then read whole by id.
fn community_rows(
    store: &dyn TripleStore,
    scope: &str,
    owner: &str,
) -> Result<Vec<TripleAssertion>> {
    const KEYS: [&str; 2] = ["record_kind", "record_edge"];
    let query = TripleQuery {
        scope: Some(scope.to_owned()),
        owner_id: (!owner.is_empty()).then(|| owner.to_owned()),
        limit: 0,
        ..TripleQuery::default()
    };
    let mut found: Vec<String> = Vec::new();
    let mut unnamed = false;
    store.visit_narrow_text(
        &query,
        Narrow {
            attributes: &KEYS,
            provenance: &[],
        },
        &mut |row| {
            let [kind, edge] = row.lend_attributes(&KEYS);
            let community = kind.as_ref().and_then(Lent::as_str).map(str::trim)
                == Some(COMMUNITY_KIND)
                && !lent::truthy(edge.as_ref());
            if community {
                match row.assertion_id {
                    Some(id) => found.push(id.to_owned()),
                    None => unnamed = true,
                }
            }
        },
    )?;
    if unnamed {
        // A row without an id cannot be read back by id: the whole read.
        return pair_rows(store, scope, owner);
    }
    if found.is_empty() {
        return Ok(Vec::new());
    }
    let place: HashMap<&str, usize> = found
        .iter()
        .enumerate()
        .map(|(i, id)| (id.as_str(), i))
        .collect();
    let mut rows = store.query(&TripleQuery {
        assertion_ids: Some(found.clone()),
        ..query
    })?;
    rows.retain(|r| {
        r.assertion_id
            .as_deref()
            .is_some_and(|id| place.contains_key(id))
    });
    rows.sort_by_key(|r| r.assertion_id.as_deref().map_or(usize::MAX, |id| place[id]));
    Ok(rows)
}

/// Fetch the pair's `placed` events above its event mark.
fn read_placed(
    journal: &dyn MemoryJournal,
    pair: &(String, String),
    idx: &mut PairIndex,
) -> Result<()> {
    if idx.version_seq.is_none() || pair.0.trim().is_empty() {
        return Ok(());
    }
    let mut events = journal.events(&EventFilter {
        kinds: vec![PLACED_EVENT_KIND.to_owned()],
        since_seq: Some(idx.event_mark),
        limit: 0,
        ..EventFilter::new(&pair.0, &pair.1)
    })?;
    events.sort_by_key(|e| e.seq);
    for e in &events {
        if e.seq <= idx.event_mark {
            continue;
        }
        absorb(idx, e);
    }
    if let Some(last) = events.last() {
        idx.event_mark = idx.event_mark.max(last.seq);
    }
    Ok(())
}

/// Take one `placed` event into the index when it names the current version
/// and a record that is not a member (the newest event wins).
fn absorb(idx: &mut PairIndex, e: &MemoryEvent) {
    let Some(rid) = e.record_id.as_deref() else {
        return;
    };
    let p = &e.provenance;
    let (Some(key), Some(id), Some(vs)) = (
        p.get("community_key").and_then(Value::as_str),
        p.get("community_id").and_then(Value::as_str),
        p.get("version_seq").and_then(Value::as_i64),
    ) else {
        return;
    };
    if Some(vs) != idx.version_seq || idx.members.contains_key(rid) {
        return;
    }
    idx.provisional.insert(
        Arc::from(rid),
        Provisional {
            key: idx
                .topics
                .iter()
                .find(|t| t.key == key)
                .map_or_else(|| Arc::from(key), |t| Arc::clone(&t.shared)),
            community_id: id.to_owned(),
            how: p
                .get("how")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned(),
            score: p.get("score").and_then(Value::as_f64).unwrap_or(0.0),
            version_seq: vs,
        },
    );
}

/// The provisionally placed records of each topic, by key (`communities`'
/// `provisional_ids`).
pub(crate) fn provisional_by_key(idx: &PairIndex) -> HashMap<String, BTreeSet<String>> {
    let mut out: HashMap<String, BTreeSet<String>> = HashMap::new();
    for (rid, p) in &idx.provisional {
        out.entry(p.key.to_string())
            .or_default()
            .insert(rid.to_string());
    }
    out
}
