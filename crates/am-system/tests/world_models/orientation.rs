//! Orientation admission in `reconstruct` (api.md "Reconstruction",
//! `ReconstructConfig.orientation_admission`; 0.3.2's
//! `mention_orientation_cards` settles the semantics): a stimulus that
//! mentions a card's target admits the target's current card, channel
//! `orientation`, score 1.0, at most `orientation_max_cards`, participant
//! mentions first; on by default.

use crate::common::{Stack, memory_stack, sqlite_stack};
use crate::support::{OWNER, SCOPE, live, on_both};
use am_system::config::ReconstructConfig;
use am_system::{
    MemoryRecordInput, Reconstruct, ReconstructionResult, RecordKind, Stimulus, SystemOptions,
};
use serde_json::json;

/// A card for `target` at `revision`, with `aliases`; its text never names
/// the target, so only orientation can admit it.
fn card(target: &str, revision: i64, aliases: &[&str], body: &str) -> MemoryRecordInput {
    MemoryRecordInput::new(RecordKind::WorldModel, "Orientation", body)
        .with_attribute("target", target)
        .with_attribute("revision", revision)
        .with_attribute("aliases", json!(aliases))
}

fn recall(s: &Stack, cue: &str, participants: &[&str]) -> (ReconstructionResult, Vec<String>) {
    let r = s
        .system
        .reconstruct(&Reconstruct::new(
            Stimulus::new(cue).with_participants(participants),
            &[(SCOPE, OWNER)],
        ))
        .unwrap();
    let warnings = r.warnings.clone();
    (r, warnings)
}

/// The channels the call's journaled trace says ran.
fn channels_run(s: &Stack, r: &ReconstructionResult) -> Vec<String> {
    s.journal
        .traces(&am_journal::TraceFilter {
            trace_id: Some(r.trace_id.clone()),
            until_seq: None,
            limit: 1,
        })
        .unwrap()
        .pop()
        .expect("the recall journaled its trace")
        .channels
}

/// `(digest, orientation score, orientation cues)` of every admitted card.
fn oriented(r: &ReconstructionResult) -> Vec<(String, f64, Vec<String>)> {
    r.handles
        .iter()
        .filter_map(|h| {
            let score = *h.relevance.get("orientation")?;
            let cues = h
                .cues
                .iter()
                .filter(|c| c.starts_with("orientation"))
                .cloned()
                .collect();
            Some((h.digest.clone(), score, cues))
        })
        .collect()
}

#[test]
fn a_cue_naming_a_cards_target_admits_its_current_card_on_the_orientation_channel_at_score_1() {
    on_both(|s| {
        live(
            s,
            "cards",
            vec![card("person:ada", 1, &[], "Sizes pools from the peak.")],
        );
        let (r, warnings) = recall(s, "what did ada say", &[]);
        assert_eq!(
            oriented(&r),
            vec![(
                "Sizes pools from the peak.".to_owned(),
                1.0,
                vec!["orientation: current card for person:ada (mentioned via cue)".to_owned()]
            )],
            "[{}]",
            s.name
        );
        assert!(
            channels_run(s, &r).iter().any(|c| c == "orientation"),
            "[{}]",
            s.name
        );
        assert!(
            !warnings.iter().any(|w| w.contains("orientation")),
            "[{}] {warnings:?}",
            s.name
        );
    });
}

#[test]
fn a_cue_that_does_not_name_a_target_admits_nothing_and_the_channel_does_not_run() {
    on_both(|s| {
        live(
            s,
            "cards",
            vec![card("person:ada", 1, &[], "Sizes pools from the peak.")],
        );
        let (r, _) = recall(s, "the weather today", &[]);
        assert!(oriented(&r).is_empty(), "[{}]", s.name);
        assert!(
            !channels_run(s, &r).iter().any(|c| c == "orientation"),
            "[{}]",
            s.name
        );
    });
}

#[test]
fn a_cue_mention_needs_every_word_of_the_name() {
    on_both(|s| {
        live(
            s,
            "cards",
            vec![card("topic:soil health", 1, &[], "Compost every spring.")],
        );
        assert!(
            oriented(&recall(s, "the soil", &[]).0).is_empty(),
            "[{}]",
            s.name
        );
        assert_eq!(
            oriented(&recall(s, "health of the soil", &[]).0).len(),
            1,
            "[{}]",
            s.name
        );
    });
}

#[test]
fn a_participant_naming_the_target_or_an_alias_admits_the_card() {
    on_both(|s| {
        live(
            s,
            "cards",
            vec![card(
                "person:laurent",
                1,
                &["person:admin"],
                "Keeps the plot map.",
            )],
        );
        let (r, _) = recall(s, "", &["person:admin"]);
        assert_eq!(
            oriented(&r)[0].2,
            vec![
                "orientation: current card for person:laurent (mentioned via participant alias person:admin)"
                    .to_owned()
            ],
            "[{}]",
            s.name
        );
        let (r, _) = recall(s, "", &["person:laurent"]);
        assert_eq!(
            oriented(&r)[0].2,
            vec![
                "orientation: current card for person:laurent (mentioned via participant)"
                    .to_owned()
            ],
            "[{}]",
            s.name
        );
    });
}

#[test]
fn only_the_current_revision_of_a_card_is_admitted() {
    on_both(|s| {
        live(
            s,
            "cards",
            vec![
                card("person:ada", 1, &[], "The old view of her."),
                card("person:ada", 2, &[], "The revised view of her."),
            ],
        );
        let got: Vec<String> = oriented(&recall(s, "ada", &[]).0)
            .into_iter()
            .map(|o| o.0)
            .collect();
        assert_eq!(
            got,
            vec!["The revised view of her.".to_owned()],
            "[{}]",
            s.name
        );
    });
}

#[test]
fn at_most_orientation_max_cards_are_admitted_participant_mentions_first() {
    on_both(|s| {
        live(
            s,
            "cards",
            vec![
                card("person:ada", 1, &[], "First card."),
                card("person:cyd", 1, &[], "Second card."),
                card("person:eve", 1, &[], "Third card."),
                card("person:zed", 1, &[], "Fourth card."),
            ],
        );
        let (r, _) = recall(s, "ada cyd eve", &["person:zed"]);
        let mut cues: Vec<String> = oriented(&r).into_iter().flat_map(|o| o.2).collect();
        cues.sort();
        assert_eq!(
            cues,
            vec![
                "orientation: current card for person:ada (mentioned via cue)",
                "orientation: current card for person:cyd (mentioned via cue)",
                "orientation: current card for person:zed (mentioned via participant)",
            ],
            "[{}]",
            s.name
        );
    });
}

#[test]
fn a_closed_card_is_not_admitted() {
    on_both(|s| {
        let ids = live(s, "cards", vec![card("person:ada", 1, &[], "Sizes pools.")]);
        s.system
            .close_record(&am_system::CloseRecord::retract(&ids[0], "wrong"))
            .unwrap();
        assert!(
            oriented(&recall(s, "ada", &[]).0).is_empty(),
            "[{}]",
            s.name
        );
    });
}

#[test]
fn with_orientation_admission_off_no_card_is_admitted() {
    let off = || SystemOptions {
        task_queue: true,
        reconstruct_config: ReconstructConfig {
            orientation_admission: false,
            ..ReconstructConfig::default()
        },
        ..SystemOptions::default()
    };
    for s in [memory_stack(off()), sqlite_stack(off())] {
        live(
            &s,
            "cards",
            vec![card("person:ada", 1, &[], "Sizes pools.")],
        );
        let (r, warnings) = recall(&s, "ada", &[]);
        assert!(oriented(&r).is_empty(), "[{}]", s.name);
        assert!(
            !channels_run(&s, &r).iter().any(|c| c == "orientation"),
            "[{}]",
            s.name
        );
        assert!(
            !warnings.iter().any(|w| w.contains("orientation")),
            "[{}]",
            s.name
        );
    }
}

#[test]
fn orientation_admission_is_on_by_default_with_0_3_2s_bounds() {
    let c = ReconstructConfig::default();
    assert!(c.orientation_admission);
    assert_eq!(
        (c.orientation_scan_limit, c.orientation_max_cards),
        (400, 3)
    );
}
