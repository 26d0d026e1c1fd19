//! Placement at formation: the [`Placement`] hook formation (core) calls for
//! the records it forms, implemented here over the in-memory community index.
//!
//! A record of a pair with a communities version goes, provisionally:
//! - with a vector, to the topic whose centroid is nearest by cosine (ties:
//!   the smaller key), among the centroids computed in the store's embedding
//!   space (its pin's model id and the vector's dimension);
//! - without one, or when every centroid belongs to another embedding space
//!   (`centroid_stale`), to the topic most of the records its formation edges
//!   name are in (members, earlier placements, and records placed earlier in
//!   the same formation; `written_amid` left out; ties: the smaller key),
//!   scored by that topic's share of the named records;
//! - with neither, nowhere (unplaced until the next sleep).
//!
//! One `placed` event per placement (audit kind, never scored), its id
//! derived from the record and the version, so a replay places nothing
//! twice; a member of the version or a record already placed at it is not
//! placed again. Formation appends the events in the records' own
//! transaction and never fails for placement.

use crate::communities::graph::{dot, unit};
use crate::communities::index::{IndexCache, PairIndex, TopicPoint};
use crate::error::Result;
use crate::hooks::{Formed, Placement};
use crate::system::MemorySystem;
use am_journal::{EventKind, MemoryEvent};
use am_triples::JsonMap;
use serde_json::json;
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, HashMap};

/// The installed placement ([`crate::hooks::placement`]).
pub(crate) struct Placer;

fn round6(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

/// The event id of `record_id`'s placement at `version_seq`.
pub(crate) fn placed_event_id(record_id: &str, version_seq: i64) -> String {
    let h = hex::encode(Sha256::digest(
        format!("placed|{record_id}|{version_seq}").as_bytes(),
    ));
    format!("placed-{}", &h[..32])
}

/// Where one record goes: `(topic, how, score)`.
fn choose<'a>(
    idx: &'a PairIndex,
    f: &Formed,
    model: Option<&str>,
    placed_now: &HashMap<String, String>,
) -> Option<(&'a TopicPoint, &'static str, f64)> {
    if let Some(v) = f.vector.clone().and_then(unit) {
        let mut best: Option<(&TopicPoint, f64)> = None;
        for t in &idx.topics {
            let Some(c) = &t.centroid else { continue };
            if c.len() != v.len() || t.model_id.as_deref() != model {
                continue;
            }
            let s = dot(&v, c);
            if best.is_none_or(|(_, b)| s > b) {
                best = Some((t, s));
            }
        }
        if let Some((t, s)) = best {
            return Some((t, "centroid", round6(s)));
        }
    }
    if f.neighbours.is_empty() {
        return None;
    }
    let mut votes: BTreeMap<&str, usize> = BTreeMap::new();
    for n in &f.neighbours {
        let key = idx
            .members
            .get(n.as_str())
            .or_else(|| idx.provisional.get(n.as_str()).map(|p| &p.key))
            .map(|k| &**k)
            .or_else(|| placed_now.get(n).map(String::as_str));
        if let Some(k) = key {
            *votes.entry(k).or_default() += 1;
        }
    }
    let (key, n) = votes
        .iter()
        .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0)))
        .map(|(k, n)| (*k, *n))?;
    let topic = idx.topics.iter().find(|t| t.key == key)?;
    #[allow(clippy::cast_precision_loss)]
    let score = round6(n as f64 / f.neighbours.len() as f64);
    Some((topic, "neighbour", score))
}

impl Placement for Placer {
    fn active(&self, system: &MemorySystem, pairs: &[(String, String)]) -> Result<bool> {
        let cache = system.faculty_state.cache::<IndexCache>();
        let mut cache = cache.lock();
        cache.catch_up(system.store.as_ref());
        for p in pairs {
            if cache
                .pair(system.store.as_ref(), system.journal.as_ref(), p)?
                .version_seq
                .is_some()
            {
                return Ok(true);
            }
        }
        Ok(false)
    }

    fn plan(
        &self,
        system: &MemorySystem,
        formed: &[Formed],
        now: &str,
    ) -> Result<Vec<MemoryEvent>> {
        let model = system.store.embedding_pin()?.and_then(|p| p.model_id);
        let cache = system.faculty_state.cache::<IndexCache>();
        let mut cache = cache.lock();
        let mut placed_now: HashMap<(String, String), HashMap<String, String>> = HashMap::new();
        let mut out = Vec::new();
        for f in formed {
            let idx = cache.pair(system.store.as_ref(), system.journal.as_ref(), &f.pair)?;
            let Some(version_seq) = idx.version_seq else {
                continue;
            };
            if idx.members.contains_key(f.record_id.as_str())
                || idx.provisional.contains_key(f.record_id.as_str())
            {
                continue;
            }
            let now_map = placed_now.entry(f.pair.clone()).or_default();
            let Some((topic, how, score)) = choose(idx, f, model.as_deref(), now_map) else {
                continue;
            };
            let mut provenance = JsonMap::new();
            provenance.insert("community_key".into(), json!(topic.key));
            provenance.insert("community_id".into(), json!(topic.id));
            provenance.insert("how".into(), json!(how));
            provenance.insert("score".into(), json!(score));
            provenance.insert("provisional".into(), json!(true));
            provenance.insert("version_seq".into(), json!(version_seq));
            let event = MemoryEvent {
                kind: EventKind::Placed,
                scope: f.pair.0.clone(),
                owner_id: f.pair.1.clone(),
                record_id: Some(f.record_id.clone()),
                observed_at: now.to_owned(),
                actor: "system".into(),
                provenance,
                event_id: placed_event_id(&f.record_id, version_seq),
                ..MemoryEvent::default()
            };
            // An event the journal would refuse is left out: formation never
            // fails for placement.
            if let Ok(e) = event.normalized() {
                now_map.insert(f.record_id.clone(), topic.key.clone());
                out.push(e);
            }
        }
        Ok(out)
    }

    fn committed(&self, system: &MemorySystem, events: &[MemoryEvent], row_ids: &[String]) {
        let cache = system.faculty_state.cache::<IndexCache>();
        cache.lock().note_placed(events, row_ids);
    }
}
