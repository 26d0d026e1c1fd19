//! `familiarity` on both stacks: density, never content.

use crate::common::{assert_refused, home_bytes, on_both, written};
use crate::support::{BOTH, LIFE, garden};
use am_system::Stimulus;
use am_system::reach::{Familiarity, Strength};
use am_triples::ErrorKind::InvalidInput;

#[test]
fn a_topic_held_by_many_records_reads_strong_and_an_alien_one_none() {
    on_both(|s| {
        garden(s);
        let strong = s
            .system
            .familiarity(&Familiarity::new(
                Stimulus::new("compost heap thermophilic allotment garden"),
                BOTH,
            ))
            .unwrap();
        assert_eq!(strong.strength, Strength::Strong, "[{}] {strong:?}", s.name);
        assert!(strong.distinct_records > 3);
        let none = s
            .system
            .familiarity(&Familiarity::new(
                Stimulus::new("zorblat quixotic fenwick marmalade"),
                LIFE,
            ))
            .unwrap();
        assert_eq!(none.strength, Strength::None);
        assert_eq!(none.distinct_records, 0);
        assert!(
            none.warnings
                .iter()
                .any(|w| w.starts_with("nothing within reach"))
        );
    });
}

#[test]
fn one_matched_token_without_a_vector_channel_reads_weak() {
    on_both(|s| {
        garden(s);
        let r = s
            .system
            .familiarity(&Familiarity::new(Stimulus::new("reclaimed"), LIFE))
            .unwrap();
        assert_eq!(r.strength, Strength::Weak, "[{}] {r:?}", s.name);
        assert_eq!(r.distinct_records, 1);
        assert!(
            r.warnings
                .contains(&"#FALLBACK: keyword-only familiarity".to_owned())
        );
    });
}

#[test]
fn the_answer_names_no_record_id_digest_or_title_and_reports_every_scope() {
    on_both(|s| {
        let g = garden(s);
        let r = s
            .system
            .familiarity(&Familiarity::new(Stimulus::new("compost heap"), BOTH))
            .unwrap();
        let text = serde_json::to_string(&r).unwrap();
        for needle in [
            g.compost.as_str(),
            g.heap.as_str(),
            "Heap temperature",
            "fifty degrees",
            "ex:",
        ] {
            assert!(!text.contains(needle), "[{}] {needle} in {text}", s.name);
        }
        let scopes: Vec<&str> = r.by_scope.0.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(scopes, ["life", "notes"]);
        let zero = s
            .system
            .familiarity(&Familiarity::new(Stimulus::new("reclaimed wood"), BOTH))
            .unwrap();
        assert_eq!(zero.by_scope.0[1], ("notes".to_owned(), 0));
    });
}

#[test]
fn familiarity_writes_nothing() {
    on_both(|s| {
        garden(s);
        let (rows, bytes) = (written(s), home_bytes(s));
        s.system
            .familiarity(&Familiarity::new(Stimulus::new("compost heap"), BOTH))
            .unwrap();
        assert_eq!(written(s), rows);
        assert_eq!(home_bytes(s), bytes, "[{}]", s.name);
    });
}

#[test]
fn a_strong_threshold_below_one_is_refused() {
    on_both(|s| {
        garden(s);
        let before = written(s);
        let r = s.system.familiarity(&Familiarity {
            strong_threshold: 0,
            ..Familiarity::new(Stimulus::new("compost"), LIFE)
        });
        assert_refused(s, &before, r, InvalidInput, &["strong_threshold"]);
    });
}
