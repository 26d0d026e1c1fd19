//! The card reads and the alias reads on both stacks.

use crate::common::written;
use crate::support::{OWNER, SCOPE, current, live, on_both, standing, three_with_ada};
use am_system::world_models::{
    AliasCandidates, CardsOf, WorldModelPass, alias_candidates, alias_map, current_world_models,
    standing_world_models,
};
use am_system::{MemoryRecordInput, RecordKind};
use am_triples::ErrorKind;
use serde_json::json;
use std::collections::BTreeMap;

fn card(target: &str, revision: serde_json::Value, aliases: &[&str]) -> MemoryRecordInput {
    let mut c = MemoryRecordInput::new(RecordKind::WorldModel, "", &format!("card {revision}"));
    c.title = None;
    c.pending = vec!["title".into(), "summary".into()];
    c.attributes.insert("target".into(), json!(target));
    c.attributes.insert("revision".into(), revision);
    if !aliases.is_empty() {
        c.attributes.insert("aliases".into(), json!(aliases));
    }
    c
}

#[test]
fn current_is_the_highest_standing_revision_and_a_closed_card_is_folded_only_with_the_journal() {
    on_both(|s| {
        three_with_ada(s, "a");
        s.system
            .world_model_pass(&WorldModelPass::new(&[(SCOPE, OWNER)], OWNER), None)
            .unwrap();
        let rev1 = current(s)["person:ada"].subject.clone();
        live(
            s,
            "b",
            vec![crate::support::episode(
                "Ada",
                "Ada again.",
                &["person:ada"],
            )],
        );
        s.system
            .world_model_pass(&WorldModelPass::new(&[(SCOPE, OWNER)], OWNER), None)
            .unwrap();
        let args = CardsOf::new(SCOPE, OWNER);
        let layer1 = standing_world_models(s.store.as_ref(), None, &args).unwrap();
        let revs: Vec<&str> = layer1["person:ada"]
            .iter()
            .map(|a| a.subject.as_str())
            .collect();
        assert_eq!(
            revs.len(),
            2,
            "[{}] the layer-1 read keeps the superseded card",
            s.name
        );
        assert_eq!(revs[0], rev1, "revision ascending");
        assert_eq!(standing(s)["person:ada"].len(), 1, "the fold drops it");
        let cur = current_world_models(s.store.as_ref(), None, &args).unwrap();
        assert_eq!(cur["person:ada"].subject, revs[1]);
        assert_eq!(current(s)["person:ada"].subject, revs[1]);
    });
}

#[test]
fn a_malformed_revision_sorts_as_zero_and_a_blank_target_is_no_card() {
    on_both(|s| {
        live(
            s,
            "c",
            vec![
                card("topic:x", json!("2"), &[]),
                card("topic:x", json!("not a number"), &[]),
                card("topic:x", json!(1.0), &[]),
                card("  ", json!(5), &[]),
            ],
        );
        let st = standing(s);
        assert_eq!(st.len(), 1, "[{}] {st:?}", s.name);
        let order: Vec<&str> = st["topic:x"].iter().map(|a| a.object.as_str()).collect();
        assert_eq!(order, ["card \"not a number\"", "card 1.0", "card \"2\""]);
    });
}

#[test]
fn alias_map_reads_the_current_cards_aliases_and_the_reads_write_nothing() {
    on_both(|s| {
        live(
            s,
            "c",
            vec![
                card(
                    "person:laurent",
                    json!(1),
                    &["person:admin", "person:laurent", " "],
                ),
                card("person:ada", json!(1), &[]),
            ],
        );
        let before = written(s);
        let args = CardsOf::new(SCOPE, OWNER);
        let map = alias_map(s.store.as_ref(), Some(s.journal.as_ref()), &args).unwrap();
        assert_eq!(
            map,
            BTreeMap::from([("person:admin".to_owned(), "person:laurent".to_owned())]),
            "[{}] a card's own key is not its alias",
            s.name
        );
        assert_eq!(written(s), before);
    });
}

#[test]
fn alias_candidates_proposes_same_namespace_pairs_at_the_floor_and_never_a_bound_one() {
    let by: BTreeMap<String, Vec<String>> = [
        ("person:a", vec!["r1", "r2", "r3"]),
        ("person:b", vec!["r1", "r2", "r3", "r4"]),
        ("topic:a", vec!["r1", "r2", "r3"]),
        ("person:c", vec!["r1"]),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v.into_iter().map(str::to_owned).collect()))
    .collect();
    let p = alias_candidates(&AliasCandidates::new(by.clone())).unwrap();
    assert_eq!(p.len(), 1);
    assert_eq!(p[0].targets, ["person:a", "person:b"]);
    assert!((p[0].overlap - 0.75).abs() < 1e-12);
    assert_eq!(p[0].shared_evidence, 3);
    let bound = AliasCandidates {
        existing: BTreeMap::from([("person:b".to_owned(), "person:a".to_owned())]),
        ..AliasCandidates::new(by.clone())
    };
    assert!(alias_candidates(&bound).unwrap().is_empty());
    let bad = AliasCandidates {
        overlap_floor: 1.5,
        ..AliasCandidates::new(by)
    };
    assert_eq!(
        alias_candidates(&bad).unwrap_err().kind(),
        ErrorKind::InvalidInput
    );
}
