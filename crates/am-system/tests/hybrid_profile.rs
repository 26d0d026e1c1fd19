//! The hybrid retrieval profile (`ReconstructConfig::hybrid`) keeps the five
//! stability contracts of reconstruction (api.md "Reconstruction",
//! architecture.md "Presence is not use"): a recall is a pure read; commit is
//! the only strengthening path; relevance admits and activation only
//! reorders; the same `as_of` anchor reproduces a result; a degraded path is
//! labelled `#FALLBACK`. And it finds what the spec's default cannot: an exact
//! or short token anywhere in the home, and a match's conversational neighbour.
//! Both stacks (in memory; SQLite store and journal in one home).

mod common;

use am_journal::ClosureKind;
use am_journal::SearchState;
use am_system::RecordKind;
use am_system::{
    Activation, Bind, CloseAssertions, CommitSelection, Reconstruct, Reinforce, Remember,
    RememberMany,
};
use am_system::{
    MemoryRecordInput as R, RecallBudget, ReconstructConfig, ReconstructionResult, Stimulus,
    SystemOptions, View, ids,
};
use am_triples::TextEmbedder;
use common::{Stack, on_both_with, written};
use std::sync::Arc;

const S1: &[(&str, &str)] = &[("session", "s1")];

fn hybrid() -> SystemOptions {
    SystemOptions {
        reconstruct_config: ReconstructConfig::hybrid(),
        ..SystemOptions::default()
    }
}

fn hybrid_embedded() -> SystemOptions {
    let e: Arc<dyn TextEmbedder> = Arc::new(am_embed::OfflineEmbedder::new().unwrap());
    SystemOptions {
        embedder: Some(e),
        ..hybrid()
    }
}

/// Form the standard records in `session`/`s1`; returns their assertion ids.
fn form(s: &Stack) -> Vec<String> {
    let recs = vec![
        R::new(
            RecordKind::Episode,
            "Pool outage",
            "The database pool failed at noon.",
        ),
        R::new(
            RecordKind::Lesson,
            "Restart order",
            "Restart the database pool first.",
        ),
        R::new(RecordKind::Memory, "Lunch", "Ada had soup for lunch."),
        R::new(
            RecordKind::Memory,
            "Garden",
            "The tomatoes are ripening in the garden.",
        ),
    ];
    let n = recs.len();
    s.system
        .remember_many(&RememberMany::new(recs, "session", "s1", "k"))
        .unwrap();
    (0..n).map(|i| ids::digest_assertion_id("k", i)).collect()
}

fn recall(s: &Stack, cue: &str, budget: &RecallBudget) -> ReconstructionResult {
    s.system
        .reconstruct(&Reconstruct {
            budget: budget.clone(),
            view: View::Shelf,
            journal: false,
            ..Reconstruct::new(Stimulus::new(cue), S1)
        })
        .unwrap()
}

fn journaled(s: &Stack, cue: &str, trace_id: Option<&str>) -> ReconstructionResult {
    s.system
        .reconstruct(&Reconstruct {
            journal: true,
            trace_id: trace_id.map(str::to_owned),
            ..Reconstruct::new(Stimulus::new(cue), S1)
        })
        .unwrap()
}

fn handle_ids(r: &ReconstructionResult) -> Vec<&str> {
    r.handles.iter().map(|h| h.record_id.as_str()).collect()
}

fn base_levels(s: &Stack, ids: &[String]) -> Vec<f64> {
    s.system
        .activation(&Activation::new("session", "s1").of(ids))
        .unwrap()
        .iter()
        .map(|(_, a)| a.base_level)
        .collect()
}

#[test]
fn the_spec_default_carries_no_profile_and_serializes_as_before() {
    let spec = ReconstructConfig::default();
    assert!(spec.hybrid.is_none());
    let v = serde_json::to_value(&spec).unwrap();
    assert!(v.get("hybrid").is_none(), "{v}");
    let h = serde_json::to_value(ReconstructConfig::hybrid()).unwrap();
    assert!(h["hybrid"].is_object());
    let back: ReconstructConfig = serde_json::from_value(h).unwrap();
    assert_eq!(back, ReconstructConfig::hybrid());
}

#[test]
fn under_the_hybrid_profile_a_recall_is_a_pure_read() {
    on_both_with(hybrid_embedded, |s| {
        let aids = form(s);
        let before = written(s);
        let r = recall(s, "database pool", &RecallBudget::default());
        assert!(!r.handles.is_empty(), "[{}]", s.name);
        assert_eq!(written(s), before, "[{}] journal=false wrote", s.name);
        // A journaled recall appends its trace and inert listed events only.
        let r = journaled(s, "database pool", None);
        assert_eq!(
            written(s).seq_delta(&before),
            1 + r.handles.len() as i64,
            "[{}]",
            s.name
        );
        let act = base_levels(s, &aids);
        assert!(act.iter().all(|b| *b == 0.0), "[{}] {act:?}", s.name);
    });
}

#[test]
fn under_the_hybrid_profile_commit_is_the_only_strengthening_path() {
    on_both_with(hybrid_embedded, |s| {
        let aids = form(s);
        for _ in 0..3 {
            recall(s, "database pool", &RecallBudget::default());
        }
        let act = base_levels(s, &aids);
        assert!(act.iter().all(|b| *b == 0.0), "[{}] {act:?}", s.name);
        let r = journaled(s, "database pool", Some("t-commit"));
        let first = r.handles[0].record_id.clone();
        s.system
            .commit_selection(&CommitSelection::new(
                "t-commit",
                std::slice::from_ref(&first),
            ))
            .unwrap();
        let act = base_levels(s, std::slice::from_ref(&first));
        assert!(
            !act.is_empty() && act.iter().all(|b| *b > 0.0),
            "[{}] {act:?}",
            s.name
        );
    });
}

#[test]
fn under_the_hybrid_profile_relevance_admits_and_activation_only_reorders() {
    on_both_with(hybrid, |s| {
        let aids = form(s);
        // The garden record is made as hot as a record can be, but never matches.
        for i in 0..4 {
            s.system
                .reinforce(
                    &Reinforce::new(&aids[3], "pin", "session", "s1")
                        .with_weight(25.0)
                        .with_event_id(&format!("p{i}")),
                )
                .unwrap();
        }
        let budget = RecallBudget {
            stm_fraction: 0.0,
            ..RecallBudget::default()
        };
        let r = recall(s, "database pool", &budget);
        let pos = |r: &ReconstructionResult, id: &str| {
            handle_ids(r).iter().position(|h| *h == id).unwrap()
        };
        assert!(
            pos(&r, &aids[3]) > pos(&r, &aids[0]) && pos(&r, &aids[3]) > pos(&r, &aids[1]),
            "[{}] {:?}",
            s.name,
            handle_ids(&r)
        );
        let garden = &r.handles[pos(&r, &aids[3])];
        assert!(garden.relevance.is_empty() && garden.activation.base_level == 25.0);
        // Among matched records close in relevance (two keyword hits ranked
        // 1 and 2: fused 1 and about 0.95), activation reorders: pin the second.
        let trail = r.handles[1].record_id.clone();
        assert!(
            r.handles[1].relevance.contains_key("keyword"),
            "[{}]",
            s.name
        );
        s.system
            .reinforce(&Reinforce::new(&trail, "pin", "session", "s1").with_weight(25.0))
            .unwrap();
        let after = recall(s, "database pool", &budget);
        assert_eq!(after.handles[0].record_id, trail, "[{}]", s.name);
    });
}

#[test]
fn under_the_hybrid_profile_the_same_as_of_anchor_reproduces_a_result_exactly() {
    on_both_with(hybrid_embedded, |s| {
        let aids = form(s);
        let anchor = s.system.current_seq().unwrap();
        let st = Stimulus::new("database pool lunch").with_as_of(anchor);
        let b = RecallBudget::default();
        let anchored = || Reconstruct {
            budget: b.clone(),
            view: View::WorkingSet,
            journal: false,
            trace_id: Some("t".into()),
            ..Reconstruct::new(st.clone(), S1)
        };
        let first = s.system.reconstruct(&anchored()).unwrap();
        s.system
            .commit_selection(&CommitSelection::new("c1", &aids[2..4]))
            .unwrap();
        s.system
            .reinforce(&Reinforce::new(&aids[3], "pin", "session", "s1"))
            .unwrap();
        s.system
            .bind(&Bind::new(&aids[0], "session", "s1", SearchState::Hidden))
            .unwrap();
        s.system
            .close_assertions(&CloseAssertions::new(
                &aids[1..2],
                ClosureKind::Retract,
                "wrong",
            ))
            .unwrap();
        let again = s.system.reconstruct(&anchored()).unwrap();
        assert_eq!(first, again, "[{}]", s.name);
        let now = recall(s, "database pool lunch", &b);
        assert!(
            !handle_ids(&now).contains(&aids[0].as_str())
                && !handle_ids(&now).contains(&aids[1].as_str()),
            "[{}] the head read moved on",
            s.name
        );
    });
}

#[test]
fn under_the_hybrid_profile_degraded_channels_are_labelled_fallback() {
    on_both_with(hybrid, |s| {
        form(s);
        let r = recall(s, "database pool", &RecallBudget::default());
        // No embedder anywhere: the vector channel says so.
        assert!(
            r.warnings
                .iter()
                .any(|w| w.starts_with("#FALLBACK: vector channel unavailable: ")),
            "[{}] {:?}",
            s.name,
            r.warnings
        );
        // The in-memory store has no keyword index: the token scan answers, labelled.
        let scan = r.warnings.iter().any(|w| {
            w.starts_with("#FALLBACK: hybrid keyword channel: the store has no keyword index")
        });
        assert_eq!(scan, s.name == "memory", "[{}] {:?}", s.name, r.warnings);
        assert!(!r.handles.is_empty(), "[{}]", s.name);
        let r = recall(s, "日本語", &RecallBudget::default());
        assert!(
            r.warnings
                .iter()
                .any(|w| w
                    .starts_with("#FALLBACK: keyword channel: cue produced no indexable tokens")),
            "[{}] {:?}",
            s.name,
            r.warnings
        );
    });
}

/// 300 filler turns, then one holding `needle`, then 100 more.
fn haystack(s: &Stack, needle: &str) -> String {
    let filler = |i: usize| {
        R::new(
            RecordKind::Episode,
            &format!("T{i}"),
            &format!("Routine note {i} about the weather."),
        )
    };
    let before: Vec<R> = (0..300).map(filler).collect();
    s.system
        .remember_many(&RememberMany::new(before, "session", "s1", "a"))
        .unwrap();
    s.system
        .remember(&Remember::new(
            R::new(
                RecordKind::Episode,
                "Needle",
                &format!("The {needle} was rotated on Friday."),
            ),
            "session",
            "s1",
            "needle",
        ))
        .unwrap();
    let after: Vec<R> = (300..400).map(filler).collect();
    s.system
        .remember_many(&RememberMany::new(after, "session", "s1", "b"))
        .unwrap();
    ids::digest_assertion_id("needle", 0)
}

#[test]
fn the_hybrid_profile_finds_an_exact_or_short_token_anywhere_in_the_home() {
    for needle in ["item12345", "VPN key"] {
        let s = common::sqlite_stack(hybrid());
        let id = haystack(&s, needle);
        for _ in 0..2 {
            // The first recall reads the store, the second the recall index.
            let cue = needle.split(' ').next().unwrap();
            let r = recall(&s, cue, &RecallBudget::default());
            assert_eq!(r.handles[0].record_id, id, "{needle}: {:?}", r.warnings);
            assert!(r.handles[0].relevance.contains_key("keyword"));
            assert!(
                !r.warnings.iter().any(|w| w.contains("no indexable tokens")),
                "{:?}",
                r.warnings
            );
        }
    }
}

#[test]
fn the_hybrid_profile_admits_the_conversational_neighbour_of_a_strong_match() {
    for which in ["memory", "sqlite"] {
        let s = if which == "memory" {
            common::memory_stack(hybrid())
        } else {
            common::sqlite_stack(hybrid())
        };
        let turns = vec![
            R::new(
                RecordKind::Episode,
                "Ada",
                "Did you ever adopt that zeppelin mascot?",
            ),
            R::new(
                RecordKind::Episode,
                "Bo",
                "Yes, we named her Clementine last spring.",
            ),
            R::new(RecordKind::Episode, "Ada", "Lovely. How is the garden?"),
        ];
        s.system
            .remember_many(&RememberMany::new(turns, "session", "s1", "chat"))
            .unwrap();
        let answer = ids::digest_assertion_id("chat", 1);
        for _ in 0..2 {
            let r = recall(&s, "zeppelin mascot", &RecallBudget::default());
            let h = r
                .handles
                .iter()
                .find(|h| h.record_id == answer)
                .unwrap_or_else(|| panic!("[{which}] {:?}", handle_ids(&r)));
            assert!(
                h.relevance.contains_key("neighbour"),
                "[{which}] {:?}",
                h.relevance
            );
            assert!(
                h.cues.iter().any(|c| c.starts_with("neighbour: ")),
                "[{which}]"
            );
        }
        let off = SystemOptions {
            reconstruct_config: ReconstructConfig {
                hybrid: Some(am_system::HybridConfig {
                    neighbour_weight: 0.0,
                    ..am_system::HybridConfig::default()
                }),
                ..ReconstructConfig::default()
            },
            ..SystemOptions::default()
        };
        let s2 =
            am_system::MemorySystem::over_home_with_options(s.system.home().clone(), off).unwrap();
        let r = s2
            .reconstruct(&Reconstruct {
                journal: false,
                ..Reconstruct::new(Stimulus::new("zeppelin mascot"), S1)
            })
            .unwrap();
        assert!(
            r.handles
                .iter()
                .all(|h| !h.relevance.contains_key("neighbour")),
            "[{which}]"
        );
    }
}
