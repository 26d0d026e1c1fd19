//! Placement at formation (api.md "Communities (topics)", "Placement at
//! formation"; `remember_many`'s last sentence; `records_since_maintenance`'s
//! `fragmented.provisional`).

use crate::common::Stack;
use crate::support::*;
use am_journal::{EventFilter, EventKind, MemoryEvent};
use am_system::communities::{Communities, CommunityKeysOf, CommunityOf};
use am_system::sleep::RecordsSinceMaintenance;
use am_system::{MemoryRecordInput, RecordKind, RememberMany};
use serde_json::{Value, json};

fn placed(s: &Stack) -> Vec<MemoryEvent> {
    let mut v = s
        .journal
        .events(&EventFilter {
            kinds: vec!["placed".into()],
            limit: 0,
            ..EventFilter::new(SCOPE, OWNER)
        })
        .unwrap();
    v.sort_by_key(|e| e.seq);
    v
}

fn key_of(s: &Stack, id: &str) -> Option<String> {
    s.system
        .community_keys_of(&CommunityKeysOf::new(&[id], &[(SCOPE, OWNER)], OWNER))
        .unwrap()[id]
        .as_deref()
        .map(str::to_owned)
}

/// The standing topic whose members include `member`.
fn topic_of(s: &Stack, member: &str) -> String {
    s.system
        .community_of(&CommunityOf::new(member))
        .unwrap()
        .community_key
        .unwrap()
}

#[test]
fn before_the_first_sleep_nothing_is_placed_and_the_reads_answer_first_sleep_pending() {
    on_both(|s| {
        let (garden, _) = two_topics(s);
        let later = live(
            s,
            "later",
            vec![episode("garden later", "More garden work.")],
        );
        assert!(placed(s).is_empty(), "[{}]", s.name);
        let one = s.system.community_of(&CommunityOf::new(&later[0])).unwrap();
        assert!(one.first_sleep_pending && one.community_key.is_none());
        assert_eq!(key_of(s, &garden[0]), None);
    });
}

#[test]
fn a_record_with_a_vector_goes_to_the_nearest_centroid_in_one_placed_event() {
    on_both(|s| {
        let (garden, music) = two_topics(s);
        let r = pass(s);
        let seq_before = s.journal.current_seq().unwrap();
        let ids = live(
            s,
            "later",
            vec![
                episode("garden fence", "Mended the garden fence."),
                episode("music stand", "A new music stand."),
            ],
        );
        let events = placed(s);
        assert_eq!(events.len(), 2, "[{}] one event per record", s.name);
        let g = topic_of(s, &garden[0]);
        let m = topic_of(s, &music[0]);
        let e = events
            .iter()
            .find(|e| e.record_id.as_deref() == Some(ids[0].as_str()))
            .unwrap();
        assert_eq!(e.kind, EventKind::Placed);
        assert!(e.seq > seq_before);
        let p = &e.provenance;
        assert_eq!(p["community_key"], json!(g), "[{}]", s.name);
        assert_eq!(p["how"], json!("centroid"));
        assert_eq!(p["provisional"], json!(true));
        assert_eq!(p["version_seq"], json!(r.version_seq.unwrap()));
        assert!(p["score"].as_f64().unwrap() > 0.5);
        let mut keys: Vec<&str> = p.keys().map(String::as_str).collect();
        keys.sort_unstable();
        assert_eq!(
            keys,
            [
                "community_id",
                "community_key",
                "how",
                "provisional",
                "score",
                "version_seq"
            ]
        );
        // The community record is not rewritten: the id names the standing
        // version.
        let of = s.system.community_of(&CommunityOf::new(&ids[0])).unwrap();
        assert_eq!(p["community_id"], json!(of.community_id.clone().unwrap()));
        assert!(of.provisional);
        assert_eq!(of.via.as_deref(), Some("provisional"));
        assert_eq!(of.how.as_deref(), Some("centroid"));
        assert_eq!(of.version_seq, r.version_seq);
        let e2 = events
            .iter()
            .find(|e| e.record_id.as_deref() == Some(ids[1].as_str()))
            .unwrap();
        assert_eq!(e2.provenance["community_key"], json!(m));
    });
}

#[test]
fn a_provisional_placement_is_served_by_the_membership_reads_and_the_payload() {
    on_both(|s| {
        let (garden, _) = two_topics(s);
        pass(s);
        let ids = live(
            s,
            "later",
            vec![episode("garden fence", "Mended the garden fence.")],
        );
        let g = topic_of(s, &garden[0]);
        assert_eq!(key_of(s, &ids[0]), Some(g.clone()), "[{}]", s.name);
        let m = s
            .system
            .community_memberships_of(&CommunityKeysOf::new(
                &[&ids[0], &garden[0]],
                &[(SCOPE, OWNER)],
                OWNER,
            ))
            .unwrap();
        let mine = m[ids[0].as_str()].clone().unwrap();
        assert!(mine.provisional && *mine.key == *g);
        assert!(!m[garden[0].as_str()].clone().unwrap().provisional);
        let p = s
            .system
            .communities(&Communities::new(&[(SCOPE, OWNER)], OWNER))
            .unwrap();
        let topic = p.communities.iter().find(|c| c.key == g).unwrap();
        assert_eq!(topic.provisional_ids, [ids[0].clone()], "[{}]", s.name);
        assert_eq!(topic.size, 6, "size and members are the version's");
        assert!(topic.members.iter().all(|x| x.id != ids[0]));
    });
}

#[test]
fn a_vector_less_record_goes_to_the_majority_community_of_its_formation_edges() {
    on_both(|s| {
        let (garden, music) = two_topics(s);
        pass(s);
        // No topic word: embeds to zero, stored vector-less.
        let mut r = episode("A plain note", "Nothing in particular.");
        r.edges = vec![
            ("about".into(), garden[0].clone()),
            ("about".into(), garden[1].clone()),
            ("about".into(), music[0].clone()),
        ];
        let ids = live(s, "plain", vec![r]);
        let events = placed(s);
        assert_eq!(events.len(), 1, "[{}]", s.name);
        let p = &events[0].provenance;
        assert_eq!(events[0].record_id.as_deref(), Some(ids[0].as_str()));
        assert_eq!(p["community_key"], json!(topic_of(s, &garden[0])));
        assert_eq!(p["how"], json!("neighbour"));
        assert!((p["score"].as_f64().unwrap() - 2.0 / 3.0).abs() < 1e-5);
    });
}

#[test]
fn a_record_without_vector_or_edges_stays_unplaced() {
    on_both(|s| {
        two_topics(s);
        pass(s);
        let ids = live(s, "plain", vec![episode("A plain note", "Nothing at all.")]);
        assert!(placed(s).is_empty(), "[{}]", s.name);
        assert_eq!(key_of(s, &ids[0]), None);
        let of = s.system.community_of(&CommunityOf::new(&ids[0])).unwrap();
        assert!(of.community_key.is_none() && !of.first_sleep_pending);
    });
}

#[test]
fn placement_is_idempotent_by_record_and_version() {
    on_both(|s| {
        two_topics(s);
        let r = pass(s);
        let batch = || vec![episode("garden fence", "Mended the garden fence.")];
        let ids = live(s, "later", batch());
        let seq = s.journal.current_seq().unwrap();
        let again = live(s, "later", batch());
        assert_eq!(ids, again);
        assert_eq!(
            s.journal.current_seq().unwrap(),
            seq,
            "[{}] a replay places nothing",
            s.name
        );
        let events = placed(s);
        assert_eq!(events.len(), 1);
        // The id derives from the record and the version: the same on both
        // stacks and on every run.
        assert_eq!(
            events[0].event_id,
            expected_event_id(&ids[0], r.version_seq.unwrap())
        );
    });
}

fn expected_event_id(record_id: &str, version_seq: i64) -> String {
    use sha2::{Digest, Sha256};
    let h = hex::encode(Sha256::digest(
        format!("placed|{record_id}|{version_seq}").as_bytes(),
    ));
    format!("placed-{}", &h[..32])
}

#[test]
fn community_records_are_never_placed_and_members_are_not_placed_again() {
    on_both(|s| {
        two_topics(s);
        pass(s);
        // The next pass forms new versions (a new record changes a topic):
        // its community records get no placed event.
        live(
            s,
            "later",
            vec![episode("garden fence", "Mended the garden fence.")],
        );
        assert_eq!(placed(s).len(), 1);
        let r = pass(s);
        assert!(!r.written.is_empty(), "[{}] {r:?}", s.name);
        let events = placed(s);
        assert_eq!(events.len(), 1, "[{}] the pass placed nothing", s.name);
        assert!(
            events
                .iter()
                .all(|e| !e.record_id.as_deref().unwrap_or("").contains("community"))
        );
    });
}

#[test]
fn the_next_sleep_confirms_a_provisional_placement_as_membership() {
    on_both(|s| {
        let (garden, _) = two_topics(s);
        pass(s);
        let ids = live(
            s,
            "later",
            vec![episode("garden fence", "Mended the garden fence.")],
        );
        let g = topic_of(s, &garden[0]);
        pass(s);
        let m = s
            .system
            .community_memberships_of(&CommunityKeysOf::new(
                &[ids[0].as_str()],
                &[(SCOPE, OWNER)],
                OWNER,
            ))
            .unwrap();
        let mine = m[ids[0].as_str()].clone().unwrap();
        assert_eq!(&*mine.key, g.as_str(), "[{}]", s.name);
        assert!(!mine.provisional, "[{}] a member now", s.name);
        let p = s
            .system
            .communities(&Communities::new(&[(SCOPE, OWNER)], OWNER))
            .unwrap();
        assert!(p.communities.iter().all(|c| c.provisional_ids.is_empty()));
    });
}

#[test]
fn a_home_without_the_task_queue_places_nothing() {
    // A home opened without the queue forms records (no pending field) and
    // never places them: placement belongs to a home with the task queue.
    let q = memory(true);
    two_topics(&q);
    pass(&q);
    let plain = crate::common::Stack::over(
        "memory-no-queue",
        q.store.clone(),
        q.journal.clone(),
        am_system::MemorySystem::with_options(
            q.store.clone(),
            q.journal.clone(),
            am_system::SystemOptions {
                clock: Some(crate::common::pinned_clock()),
                ..am_system::SystemOptions::default()
            },
        )
        .unwrap(),
    );
    live(
        &plain,
        "later",
        vec![episode("garden fence", "Mended the garden fence.")],
    );
    assert!(placed(&plain).is_empty());
}

#[test]
fn centroids_of_another_embedding_space_are_stale_and_placement_goes_by_the_edges() {
    on_both(|s| {
        let (garden, music) = two_topics(s);
        // A topic version whose centroid was computed in another embedding
        // space (as after a change of embedder): formed by hand here.
        let seq = s.journal.current_seq().unwrap();
        let mut topic =
            MemoryRecordInput::new(RecordKind::Community, "Old garden", "Garden things.");
        let members: Vec<Value> = garden
            .iter()
            .map(|id| json!({"id": id, "via": "detected"}))
            .collect();
        for (k, v) in [
            ("community_key", json!("topic-old-garden")),
            ("basis", json!({"version_seq": seq, "algorithm": "by-hand"})),
            ("verdict", json!("new")),
            ("size", json!(garden.len())),
            ("kinds", json!({"episode": garden.len()})),
            ("members", Value::Array(members)),
            ("cohesion", json!(1.0)),
            (
                "layout",
                json!({"xy": [0.0, 0.0], "radius": 1.0, "seats": 6}),
            ),
            ("centroid", json!([1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0])),
            (
                "embedding_space",
                json!({"model_id": "another-model-v0", "dimension": 8}),
            ),
        ] {
            topic.attributes.insert(k.into(), v);
        }
        s.system
            .remember_many(&RememberMany::new(vec![topic], SCOPE, OWNER, "old-topic"))
            .unwrap();
        let p = s
            .system
            .communities(&Communities::new(&[(SCOPE, OWNER)], OWNER))
            .unwrap();
        assert!(p.communities[0].centroid_stale, "[{}]", s.name);
        // A vectored music record with an edge to a garden member: the stale
        // centroid is not used; the edge places it.
        let mut r = episode("music by the beds", "Music in the garden.");
        r.edges = vec![("about".into(), garden[0].clone())];
        let mut r2 = episode("music alone", "Only music.");
        r2.edges = vec![("about".into(), music[0].clone())];
        let ids = live(s, "later", vec![r, r2]);
        let events = placed(s);
        assert_eq!(events.len(), 1, "[{}] {events:?}", s.name);
        assert_eq!(events[0].record_id.as_deref(), Some(ids[0].as_str()));
        assert_eq!(events[0].provenance["how"], json!("neighbour"));
        assert_eq!(
            events[0].provenance["community_key"],
            json!("topic-old-garden")
        );
    });
}

#[test]
fn fragmented_provisional_counts_the_placements_since_the_night() {
    on_both(|s| {
        two_topics(s);
        pass(s);
        live(
            s,
            "later",
            vec![
                episode("garden fence", "Mended the garden fence."),
                episode("music stand", "A new music stand."),
            ],
        );
        let r = s
            .system
            .records_since_maintenance(&RecordsSinceMaintenance::default())
            .unwrap();
        let f = r.fragmented.unwrap();
        assert_eq!(f.provisional, 2, "[{}] {f:?}", s.name);
    });
}

#[test]
fn a_placed_event_is_audit_and_never_scored() {
    on_both(|s| {
        two_topics(s);
        pass(s);
        let ids = live(
            s,
            "later",
            vec![episode("garden fence", "Mended the garden fence.")],
        );
        assert_eq!(placed(s).len(), 1);
        assert!(EventKind::Placed.is_audit());
        assert_eq!(
            s.journal.selected_count(&ids[0], None).unwrap(),
            0,
            "[{}]",
            s.name
        );
    });
}

/// The membership reads are caught up with placements another handle made
/// (another process on the same home), between and after this handle's own
/// formations, whose placements it serves without asking the journal again.
#[test]
fn placements_another_handle_made_are_served_beside_this_handles_own() {
    let home = sqlite(true);
    let a = &home.stack;
    two_topics(a);
    pass(a);
    let b = home.second_handle();
    let own = live(
        a,
        "a-1",
        vec![episode("garden fence", "Mended the garden fence.")],
    );
    assert!(key_of(a, &own[0]).is_some());
    let theirs = live(
        &b,
        "b-1",
        vec![episode("music stand", "A new music stand.")],
    );
    let own2 = live(
        a,
        "a-2",
        vec![episode("garden gate", "Painted the garden gate.")],
    );
    let theirs2 = live(
        &b,
        "b-2",
        vec![episode("music lesson", "A music lesson on Tuesday.")],
    );
    for id in [&own[0], &theirs[0], &own2[0], &theirs2[0]] {
        let here = key_of(a, id);
        assert!(here.is_some(), "{id} unplaced on the first handle");
        assert_eq!(here, key_of(&b, id), "{id}: the two handles disagree");
    }
    assert_ne!(key_of(a, &own[0]), key_of(a, &theirs[0]));
}
