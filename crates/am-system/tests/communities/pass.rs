//! `communities_pass`: each rule api.md states about it, on both stacks.

use crate::common::{Stack, written};
use crate::support::*;
use am_journal::ClosureFilter;
use am_system::RecordKind;
use am_system::communities::{CommunitiesPass, MAX_DETECTION_ROUNDS};
use am_system::tasks::{COMMUNITY_PRIORITY, ListTasks};
use serde_json::Value;
use std::collections::BTreeSet;

fn keys(r: &am_system::communities::CommunitiesReport) -> BTreeSet<String> {
    r.new
        .iter()
        .chain(&r.kept)
        .chain(&r.renamed)
        .chain(&r.unchanged)
        .cloned()
        .collect()
}

fn live_tasks(s: &Stack, target: &str) -> Vec<am_journal::TaskRow> {
    s.system
        .tasks()
        .unwrap()
        .tasks(&ListTasks {
            target_id: Some(target.to_owned()),
            ..ListTasks::default()
        })
        .unwrap()
        .into_iter()
        .filter(|t| t.status.is_live())
        .collect()
}

#[test]
fn a_home_opened_without_task_queue_is_refused_before_anything_is_written() {
    for s in [memory(false), sqlite(false).stack] {
        two_topics(&s);
        let before = written(&s);
        let r = s.system.communities_pass(&pass_args(), None, &never);
        crate::common::assert_refused(
            &s,
            &before,
            r,
            am_triples::ErrorKind::InvalidInput,
            &["task_queue"],
        );
    }
}

#[test]
fn the_constants_are_the_specs() {
    assert_eq!(MAX_DETECTION_ROUNDS, 5);
    assert_eq!(am_system::communities::COMMUNITIES_PAYLOAD_VERSION, 2);
    assert_eq!(am_system::communities::COMMUNITY_KIND, "community");
    assert_eq!(am_system::communities::PLACED_EVENT_KIND, "placed");
    assert_eq!(am_system::communities::FACTS_WINDOW_DAYS, 7);
    assert_eq!(am_system::communities::FACTS_PATHS_TOP, 5);
}

#[test]
fn the_receipt_carries_the_keys_the_spec_lists() {
    on_both(|s| {
        two_topics(s);
        let v = serde_json::to_value(pass(s)).unwrap();
        for k in [
            "version_seq",
            "new",
            "kept",
            "renamed",
            "dissolved",
            "unchanged",
            "written",
            "unvectored",
            "unplaced",
            "unplaced_closed",
            "authored",
            "authored_in_place",
            "pending",
            "failed",
            "reprioritized",
            "budget",
            "budget_spent",
            "authoring",
            "cancelled",
            "skipped",
            "timings_ms",
        ] {
            assert!(v.get(k).is_some(), "[{}] receipt lacks {k}: {v}", s.name);
        }
        assert!(
            v["authoring"].get("authored").is_some() && v["authoring"].get("failures").is_some()
        );
    });
}

#[test]
fn detection_finds_one_community_record_per_topic_each_a_new_graph_id_of_kind_community() {
    on_both(|s| {
        let (garden, music) = two_topics(s);
        let r = pass(s);
        assert_eq!(r.new.len(), 2, "[{}] {r:?}", s.name);
        assert_eq!(r.written.len(), 2);
        let rows = community_rows(s);
        assert_eq!(rows.len(), 2);
        let mut sets: Vec<BTreeSet<String>> = rows
            .iter()
            .map(|row| {
                row.attributes["members"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|m| m["id"].as_str().unwrap().to_owned())
                    .collect()
            })
            .collect();
        sets.sort_by_key(BTreeSet::len);
        assert_eq!(
            sets[0],
            music.iter().cloned().collect::<BTreeSet<_>>(),
            "[{}]",
            s.name
        );
        assert_eq!(
            sets[1],
            garden.iter().cloned().collect::<BTreeSet<_>>(),
            "[{}]",
            s.name
        );
        for row in &rows {
            assert!(row.subject.starts_with("ex:community-"), "{}", row.subject);
            let seq = row.attributes["basis"]["version_seq"].as_i64().unwrap();
            assert_eq!(
                Some(seq),
                r.version_seq,
                "every record of one version carries its seq"
            );
            assert!(row.attributes["community_key"].as_str().is_some());
        }
    });
}

#[test]
fn community_records_are_never_embedded() {
    on_both(|s| {
        two_topics(s);
        pass(s);
        for row in community_rows(s) {
            let v = s
                .store
                .stored_vector(row.assertion_id.as_deref().unwrap())
                .unwrap();
            assert!(v.is_none(), "[{}] a community record got a vector", s.name);
        }
    });
}

#[test]
fn without_an_author_every_topic_forms_pending_with_its_failure_and_tasks_at_community_priority() {
    on_both(|s| {
        two_topics(s);
        let r = pass(s);
        assert_eq!(r.authoring.failures.len(), 2, "[{}]", s.name);
        assert!(
            r.authoring
                .failures
                .iter()
                .all(|f| f.reason.as_str() == "no_author_supplied")
        );
        assert_eq!(r.pending.len(), 2);
        assert_eq!(r.budget_spent, 0);
        for id in &r.written {
            let tasks = live_tasks(s, id);
            assert_eq!(
                tasks.len(),
                2,
                "[{}] title.author and digest.author",
                s.name
            );
            assert!(tasks.iter().all(|t| t.priority == COMMUNITY_PRIORITY));
        }
    });
}

#[test]
fn an_author_writes_title_and_summary_in_one_call_per_topic_largest_first() {
    on_both(|s| {
        two_topics(s);
        let calls = std::sync::Mutex::new(Vec::new());
        let author = |k: &str, b: &str, c: &am_system::formation::authoring::AuthorContext| {
            calls
                .lock()
                .unwrap()
                .push(b.lines().next().unwrap_or("").to_owned());
            namer(k, b, c)
        };
        let r = s
            .system
            .communities_pass(&pass_args(), Some(&author), &never)
            .unwrap();
        assert_eq!(r.budget_spent, 2);
        assert_eq!(r.authored.len(), 2);
        assert!(r.pending.is_empty(), "[{}] {r:?}", s.name);
        let calls = calls.into_inner().unwrap();
        assert_eq!(
            calls,
            ["A topic of 6 memories.", "A topic of 4 memories."],
            "[{}]",
            s.name
        );
        for row in community_rows(s) {
            assert!(
                row.attributes["title"]
                    .as_str()
                    .unwrap()
                    .starts_with("Topic: ")
            );
            assert!(row.attributes.get("pending").is_none_or(Value::is_null));
        }
    });
}

#[test]
fn the_budget_authors_the_largest_topics_and_the_rest_form_pending_without_a_failure() {
    on_both(|s| {
        two_topics(s);
        let args = CommunitiesPass {
            budget: Some(1),
            ..pass_args()
        };
        let r = s
            .system
            .communities_pass(&args, Some(&namer), &never)
            .unwrap();
        assert_eq!(r.budget, Some(1));
        assert_eq!(r.budget_spent, 1);
        assert_eq!(r.authored.len(), 1);
        assert_eq!(r.pending.len(), 1, "[{}] {r:?}", s.name);
        assert!(
            r.authoring.failures.is_empty(),
            "a topic left pending by the budget is no failure"
        );
        let rows = community_rows(s);
        let big = rows.iter().find(|a| a.attributes["size"] == 6).unwrap();
        let small = rows.iter().find(|a| a.attributes["size"] == 4).unwrap();
        assert!(
            big.attributes["title"].as_str().is_some(),
            "[{}] largest first",
            s.name
        );
        assert!(small.attributes.get("title").is_none_or(Value::is_null));
        assert_eq!(live_tasks(s, &small.subject).len(), 2);
    });
}

#[test]
fn cancelled_is_called_once_and_a_cancelled_pass_writes_nothing() {
    on_both(|s| {
        two_topics(s);
        let before = written(s);
        let n = std::sync::atomic::AtomicUsize::new(0);
        let stop = || {
            n.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            true
        };
        let r = s
            .system
            .communities_pass(&pass_args(), None, &stop)
            .unwrap();
        assert!(r.cancelled);
        assert_eq!(n.load(std::sync::atomic::Ordering::SeqCst), 1);
        assert!(r.written.is_empty());
        assert_eq!(written(s), before, "[{}]", s.name);
    });
}

#[test]
fn an_unchanged_home_with_no_pending_topic_writes_nothing() {
    on_both(|s| {
        two_topics(s);
        pass_authored(s);
        let before = written(s);
        let r = s
            .system
            .communities_pass(&pass_args(), Some(&namer), &never)
            .unwrap();
        assert_eq!(r.unchanged.len(), 2, "[{}] {r:?}", s.name);
        assert!(r.written.is_empty() && r.new.is_empty() && r.version_seq.is_none());
        assert_eq!(written(s), before, "[{}]", s.name);
    });
}

fn pass_authored(s: &Stack) -> am_system::communities::CommunitiesReport {
    s.system
        .communities_pass(&pass_args(), Some(&namer), &never)
        .unwrap()
}

#[test]
fn two_runs_on_the_same_home_with_the_same_pinned_clock_give_byte_identical_versions() {
    let one = memory(true);
    let two = memory(true);
    let sq = sqlite(true);
    let mut outs = Vec::new();
    for s in [&one, &two, &sq.stack] {
        two_topics(s);
        pass(s);
        about(s, "garden", 2, "g2");
        pass(s);
        let rows: Vec<String> = community_rows(s)
            .into_iter()
            .map(|a| serde_json::to_string(&(a.subject, a.object, a.attributes)).unwrap())
            .collect();
        outs.push(rows);
    }
    assert_eq!(outs[0], outs[1]);
    assert_eq!(outs[0], outs[2], "the SQLite home writes the same versions");
}

#[test]
fn warm_start_keeps_keys_and_a_changed_topic_refines_its_previous_version_which_is_closed_supersede()
 {
    on_both(|s| {
        two_topics(s);
        let first = pass(s);
        let before_keys = keys(&first);
        let old_rows = community_rows(s);
        about(s, "garden", 2, "g2");
        let second = pass(s);
        assert_eq!(keys(&second), before_keys, "[{}] keys are carried", s.name);
        assert_eq!(second.kept.len(), 1, "[{}] {second:?}", s.name);
        assert_eq!(second.unchanged.len(), 1);
        assert_eq!(second.written.len(), 1);
        let new_id = &second.written[0];
        let garden_old = old_rows.iter().find(|a| a.attributes["size"] == 6).unwrap();
        // The new version refines the previous one.
        let edges = s
            .store
            .query(&am_triples::TripleQuery {
                subject: Some(new_id.clone()),
                predicate: Some("refines".into()),
                limit: 0,
                ..am_triples::TripleQuery::default()
            })
            .unwrap();
        assert_eq!(edges.len(), 1);
        assert_eq!(edges[0].object, garden_old.subject);
        let closures = s
            .journal
            .closures(&ClosureFilter {
                limit: 0,
                ..ClosureFilter::default()
            })
            .unwrap();
        let c = closures
            .iter()
            .find(|c| {
                c.assertion_id == garden_old.subject
                    || Some(&c.assertion_id) == garden_old.assertion_id.as_ref()
            })
            .expect("the previous version is closed");
        assert_eq!(c.kind.as_str(), "supersede");
        assert_eq!(c.replacement_ids, std::slice::from_ref(new_id));
        // Its tasks went with it; the new version owes its own.
        assert!(
            live_tasks(s, &garden_old.subject).is_empty(),
            "[{}]",
            s.name
        );
        assert_eq!(live_tasks(s, new_id).len(), 2);
        let seq = second.version_seq.unwrap();
        assert!(seq > first.version_seq.unwrap());
    });
}

#[test]
fn a_topic_no_group_carries_is_dissolved_and_closed() {
    on_both(|s| {
        let garden = about(s, "garden", 4, "g1");
        let music = about(s, "music", 3, "m1");
        pass(s);
        for id in &music {
            s.system
                .close_record(&am_system::CloseRecord::new(
                    id,
                    am_journal::ClosureKind::Retract,
                    "not music after all",
                ))
                .unwrap();
        }
        let r = pass(s);
        assert_eq!(r.dissolved.len(), 1, "[{}] {r:?}", s.name);
        assert_eq!(r.unchanged.len(), 1);
        let _ = garden;
        let payload = s
            .system
            .communities(&am_system::communities::Communities::new(
                &[(SCOPE, OWNER)],
                OWNER,
            ))
            .unwrap();
        assert_eq!(payload.communities.len(), 1, "[{}]", s.name);
    });
}

#[test]
fn vector_less_records_attach_through_their_engraved_neighbours() {
    on_both(|s| {
        let (garden, _) = two_topics(s);
        // No topic word: embeds to zero, stored vector-less.
        let mut r = episode("A plain note", "Nothing in particular.");
        r.edges = vec![
            ("about".into(), garden[0].clone()),
            ("about".into(), garden[1].clone()),
        ];
        let lone = episode("Another plain note", "Still nothing.");
        let ids = live(s, "plain", vec![r, lone]);
        let rep = pass(s);
        assert_eq!(rep.unvectored, 2, "[{}] {rep:?}", s.name);
        assert_eq!(
            rep.unplaced, 1,
            "a record without vector or edges stays unplaced"
        );
        let row = community_rows(s)
            .into_iter()
            .find(|a| a.attributes["size"] == 7)
            .unwrap();
        let via = row.attributes["members"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["id"] == ids[0].as_str())
            .map(|m| m["via"].clone());
        assert_eq!(via, Some(Value::from("attached")), "[{}]", s.name);
    });
}

#[test]
fn a_vector_less_record_whose_every_relation_names_a_closed_record_is_unplaced_closed() {
    on_both(|s| {
        two_topics(s);
        let gone = live(s, "gone", vec![episode("garden to close", "garden gone")]);
        s.system
            .close_record(&am_system::CloseRecord::new(
                &gone[0],
                am_journal::ClosureKind::Retract,
                "wrong",
            ))
            .unwrap();
        let mut r = episode("A plain note", "Nothing in particular.");
        r.edges = vec![("about".into(), gone[0].clone())];
        live(s, "plain", vec![r]);
        let rep = pass(s);
        assert_eq!(rep.unplaced_closed, 1, "[{}] {rep:?}", s.name);
    });
}

#[test]
fn written_amid_never_drives_detection() {
    on_both(|s| {
        let (garden, _) = two_topics(s);
        let mut r = episode("A plain note", "Nothing in particular.");
        r.edges = vec![("written_amid".into(), garden[0].clone())];
        live(s, "amid", vec![r]);
        let rep = pass(s);
        assert_eq!(rep.unplaced, 1, "[{}] {rep:?}", s.name);
    });
}

#[test]
fn detect_kinds_restricts_detection_to_those_kinds() {
    on_both(|s| {
        two_topics(s);
        let args = CommunitiesPass {
            detect_kinds: Some(vec![RecordKind::Lesson]),
            ..pass_args()
        };
        let r = s.system.communities_pass(&args, None, &never).unwrap();
        assert!(
            r.written.is_empty(),
            "[{}] no lesson, no topic: {r:?}",
            s.name
        );
        assert_eq!(r.unvectored, 10);
        assert_eq!(r.unplaced, 10);
    });
}

#[test]
fn a_pass_with_seed_previous_false_still_keeps_keys_by_overlap() {
    on_both(|s| {
        two_topics(s);
        let first = pass(s);
        about(s, "garden", 2, "g2");
        let args = CommunitiesPass {
            seed_previous: false,
            ..pass_args()
        };
        let second = s.system.communities_pass(&args, None, &never).unwrap();
        assert_eq!(keys(&second), keys(&first), "[{}]", s.name);
    });
}

#[test]
fn recall_is_untouched_by_communities() {
    on_both(|s| {
        two_topics(s);
        let q = am_triples::TripleQuery {
            query_text: Some("garden".into()),
            limit: 20,
            ..am_triples::TripleQuery::default()
        };
        let ids = |s: &Stack| -> Vec<String> {
            s.store
                .query(&q)
                .unwrap()
                .into_iter()
                .map(|a| a.subject)
                .collect()
        };
        let before = ids(s);
        pass(s);
        assert_eq!(
            ids(s),
            before,
            "[{}] a vector search never meets a topic",
            s.name
        );
    });
}

/// The exec script's sequence (a first pass with a budget of one, an
/// unchanged pass, a new record, then a pass cancelled after planning): the
/// cancelled pass answers `pending` with the standing pending topic, read
/// back, on every fresh home (an exec line once answered it `[]` in one
/// snapshot; the sequence is run here many times on both stacks).
#[test]
fn a_cancelled_pass_reads_the_standing_pending_topic_back_on_every_run() {
    for _ in 0..8 {
        on_both(|s| {
            two_topics(s);
            let first = s
                .system
                .communities_pass(
                    &CommunitiesPass {
                        budget: Some(1),
                        ..pass_args()
                    },
                    Some(&namer),
                    &never,
                )
                .unwrap();
            assert_eq!(first.pending.len(), 1, "[{}] {first:?}", s.name);
            s.system
                .communities_pass(
                    &CommunitiesPass {
                        budget: Some(0),
                        ..pass_args()
                    },
                    None,
                    &never,
                )
                .unwrap();
            about(s, "garden", 1, "later");
            let before = written(s);
            let r = s
                .system
                .communities_pass(&pass_args(), None, &|| true)
                .unwrap();
            assert!(r.cancelled);
            assert_eq!(written(s), before, "[{}] nothing written", s.name);
            let standing: Vec<String> = community_rows(s)
                .iter()
                .filter(|a| a.attributes.get("pending").is_some_and(|p| p.is_object()))
                .map(|a| a.attributes["community_key"].as_str().unwrap().to_owned())
                .collect();
            assert_eq!(r.pending, standing, "[{}] read back", s.name);
            assert_eq!(r.pending, first.pending, "[{}]", s.name);
        });
    }
}

fn pass_budget(s: &Stack, budget: usize) -> am_system::communities::CommunitiesReport {
    s.system
        .communities_pass(
            &CommunitiesPass {
                budget: Some(budget),
                ..pass_args()
            },
            Some(&namer),
            &never,
        )
        .unwrap()
}

fn live_topics(s: &Stack) -> Vec<am_triples::TripleAssertion> {
    let closed: BTreeSet<String> = s
        .journal
        .closures(&ClosureFilter {
            limit: 0,
            ..ClosureFilter::default()
        })
        .unwrap()
        .into_iter()
        .map(|c| c.assertion_id)
        .collect();
    community_rows(s)
        .into_iter()
        .filter(|a| !closed.contains(a.assertion_id.as_deref().unwrap_or("")))
        .collect()
}

#[test]
fn a_standing_pending_topic_is_authored_in_place_with_the_budget_left_largest_first() {
    on_both(|s| {
        two_topics(s);
        let first = pass(s);
        assert_eq!(first.pending.len(), 2);
        let before: BTreeSet<String> = live_topics(s).iter().map(|a| a.subject.clone()).collect();
        let r = pass_budget(s, 1);
        assert_eq!(r.unchanged.len(), 2, "[{}] {r:?}", s.name);
        assert!(r.written.is_empty(), "no new version");
        assert_eq!(r.budget_spent, 1);
        assert_eq!(r.authored_in_place.len(), 1, "[{}] {r:?}", s.name);
        assert_eq!(r.authored, r.authored_in_place);
        assert_eq!(r.pending.len(), 1);
        let after = live_topics(s);
        let ids: BTreeSet<String> = after.iter().map(|a| a.subject.clone()).collect();
        assert_eq!(
            ids, before,
            "[{}] the same records, written in place",
            s.name
        );
        let garden = after
            .iter()
            .find(|a| a.attributes["community_key"] == r.authored_in_place[0].as_str())
            .unwrap();
        assert_eq!(garden.attributes["size"], 6, "the largest first");
        assert_eq!(garden.attributes["title"], "Topic: A topic of 6 memories.");
        assert_eq!(garden.object, "About A topic of 6 memories.");
        let pending = garden
            .attributes
            .get("pending")
            .cloned()
            .unwrap_or(Value::Null);
        assert!(
            pending.get("title").is_none_or(|v| v != true)
                && pending.get("summary").is_none_or(|v| v != true),
            "[{}] the marker cleared: {pending}",
            s.name
        );
        assert_eq!(garden.attributes["digest_version"], 1, "[{}]", s.name);
        assert_eq!(garden.attributes["title_version"], 1, "[{}]", s.name);
        assert!(
            live_tasks(s, &garden.subject).is_empty(),
            "[{}] its authoring tasks completed",
            s.name
        );
    });
}

#[test]
fn the_changed_topics_take_the_budget_first_and_the_standing_ones_get_what_is_left() {
    on_both(|s| {
        two_topics(s);
        pass(s);
        about(s, "garden", 2, "g2");
        let r = pass_budget(s, 1);
        assert_eq!(r.kept.len() + r.renamed.len(), 1, "[{}] {r:?}", s.name);
        assert_eq!(r.budget_spent, 1);
        assert!(r.authored_in_place.is_empty(), "[{}] nothing left", s.name);
        assert_eq!(r.pending.len(), 1, "the music topic still pending");
        let r2 = pass_budget(s, 2);
        assert_eq!(r2.authored_in_place, r.pending, "[{}] {r2:?}", s.name);
        assert_eq!(r2.budget_spent, 1, "one call per standing topic");
        assert!(r2.pending.is_empty());
    });
}

#[test]
fn an_author_failure_in_place_is_recorded_and_the_topic_stays_pending() {
    on_both(|s| {
        two_topics(s);
        pass(s);
        let raise = |_: &str,
                     _: &str,
                     _: &am_system::formation::authoring::AuthorContext|
         -> Result<
            am_system::formation::authoring::Authored,
            am_system::formation::authoring::AuthorError,
        > {
            Err(am_system::formation::authoring::AuthorError::new(
                "Boom",
                "no words tonight",
            ))
        };
        let r = s
            .system
            .communities_pass(&pass_args(), Some(&raise), &never)
            .unwrap();
        assert!(r.authored_in_place.is_empty(), "[{}] {r:?}", s.name);
        assert_eq!(r.authoring.failures.len(), 2);
        assert_eq!(r.budget_spent, 2);
        assert_eq!(r.pending.len(), 2);
    });
}
