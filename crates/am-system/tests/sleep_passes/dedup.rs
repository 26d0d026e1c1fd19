//! `wake_cue_dedup_pass`: near-identical same-day records collapse into ONE
//! day summary, authored by the host's `author` or formed pending with the
//! failure recorded; its members close `supersede` with the summary as their
//! replacement; `report_only` writes nothing.
//!
//! Spec: api.md "Maintenance, health, and operator tools"
//! (`wake_cue_dedup_pass`), "Authored with the record", "The memory task
//! queue" (a pending field needs the queue). 0.5.2 differs from 0.3.2 on
//! purpose: 0.3.2's day summary is mechanical (a composed title, the
//! witness's digest as its summary); here both are authored or pending
//! (`..._is_authored_...`, `..._forms_pending_...`).

use crate::common::{Stack, written};
use crate::support::{
    LOOP, OWNER, SCOPE, deposits, episode, form, operator_author, raising_author, stacks, tasks,
};
use am_journal::{ClosureFilter, ClosureKind};
use am_system::formation::authoring::AuthoringFailureReason;
use am_system::sleep::{DEDUP_SOURCE, WakeCueDedup, WakeCueDedupResult};
use am_system::{Bind, MemoryRecordInput, RecordKind, RememberMany};
use am_triples::{ErrorKind, TripleAssertion, TripleQuery, TripleStore};
use std::sync::{Arc, Mutex};

/// Four wake-cue repeats on 2026-03-01 (one title differs by a word), and one
/// genuine episode the same day. Returns (loop ids, genuine id).
fn loop_day(s: &Stack, hands: &crate::support::Hands) -> (Vec<String>, String) {
    let mut ids = Vec::new();
    for (i, t) in ["09:00", "10:00", "11:00", "12:00"].iter().enumerate() {
        hands.set(&format!("2026-03-01T{t}:00+00:00"));
        let title = if i == 2 {
            "Frost question again"
        } else {
            "Frost question"
        };
        ids.push(form(s, episode(title, LOOP), &format!("loop-{i}")));
    }
    hands.set("2026-03-01T13:00:00+00:00");
    let genuine = form(
        s,
        episode(
            "Planted the tomatoes",
            "Planted six tomato seedlings along the south fence",
        ),
        "genuine",
    );
    (ids, genuine)
}

fn run(
    s: &Stack,
    args: &WakeCueDedup,
    author: Option<&dyn am_system::Author>,
) -> WakeCueDedupResult {
    s.system.wake_cue_dedup_pass(args, author).unwrap().value
}

fn digest_row(store: &dyn TripleStore, graph_id: &str) -> TripleAssertion {
    store
        .query(&TripleQuery {
            subject: Some(graph_id.to_owned()),
            predicate: Some("dcterms:abstract".to_owned()),
            limit: 0,
            ..TripleQuery::default()
        })
        .unwrap()
        .into_iter()
        .next()
        .unwrap_or_else(|| panic!("no digest row for {graph_id}"))
}

fn edges_of(store: &dyn TripleStore, graph_id: &str, predicate: &str) -> Vec<String> {
    let mut out: Vec<String> = store
        .query(&TripleQuery {
            subject: Some(graph_id.to_owned()),
            predicate: Some(predicate.to_owned()),
            limit: 0,
            ..TripleQuery::default()
        })
        .unwrap()
        .into_iter()
        .map(|a| a.object)
        .collect();
    out.sort();
    out
}

/// The closures naming the digest row of `graph_id`.
fn closures_of(s: &Stack, graph_id: &str) -> Vec<am_journal::ClosureRecord> {
    let aid = digest_row(s.store.as_ref(), graph_id).assertion_id.unwrap();
    s.journal
        .closures(&ClosureFilter::default())
        .unwrap()
        .into_iter()
        .filter(|c| c.assertion_id == aid)
        .collect()
}

fn sorted(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v
}

#[test]
fn near_identical_same_day_records_collapse_into_one_day_summary_that_supersedes_them() {
    for (s, hands) in stacks(true) {
        let (loop_ids, genuine) = loop_day(&s, &hands);
        let calls = Arc::new(Mutex::new(Vec::new()));
        let author = operator_author(calls.clone());
        let r = run(
            &s,
            &WakeCueDedup::new(SCOPE, OWNER, "doctor"),
            Some(&author),
        );
        assert_eq!(r.pass_name, "wake_cue_dedup");
        assert_eq!(r.scanned, 5, "[{}]", s.name);
        assert_eq!(r.cluster_count, 1);
        assert_eq!(r.members_total, 4);
        assert_eq!(r.clusters[0].day, "2026-03-01");
        assert_eq!(r.clusters[0].members, loop_ids, "oldest first");
        let summary = r.formed_summaries.clone().unwrap();
        assert_eq!(summary.len(), 1);
        let row = digest_row(s.store.as_ref(), &summary[0]);
        assert_eq!(row.attributes["record_kind"], "summary");
        assert_eq!(row.provenance["source"], DEDUP_SOURCE);
        assert_eq!(row.provenance["actor"], "doctor");
        assert_eq!(row.attributes["dedup_members"], 4);
        assert_eq!(row.attributes["origin_date"], "2026-03-01");
        assert_eq!(
            edges_of(s.store.as_ref(), &summary[0], "summarizes"),
            sorted(loop_ids.clone())
        );
        for m in &loop_ids {
            let c = closures_of(&s, m);
            assert_eq!(c.len(), 1, "[{}] {m}", s.name);
            assert_eq!(c[0].kind, ClosureKind::Supersede);
            assert_eq!(c[0].replacement_ids, summary);
            assert_eq!(c[0].actor, "doctor");
            assert!(c[0].reason.contains("doctor"), "{}", c[0].reason);
        }
        assert!(
            closures_of(&s, &genuine).is_empty(),
            "a genuine episode stays"
        );
    }
}

#[test]
fn the_day_summary_is_authored_by_the_hosts_author_from_the_witness_digest() {
    for (s, hands) in stacks(true) {
        let (loop_ids, _) = loop_day(&s, &hands);
        let calls = Arc::new(Mutex::new(Vec::new()));
        let author = operator_author(calls.clone());
        let r = run(
            &s,
            &WakeCueDedup::new(SCOPE, OWNER, "doctor"),
            Some(&author),
        );
        let ctx = calls.lock().unwrap().clone();
        assert_eq!(ctx.len(), 1, "asked once per summary");
        assert_eq!(ctx[0].pass, "wake_cue_dedup_pass");
        assert_eq!(ctx[0].record_kind, "summary");
        assert_eq!(ctx[0].source_ids, loop_ids);
        let id = &r.formed_summaries.unwrap()[0];
        let row = digest_row(s.store.as_ref(), id);
        assert_eq!(
            row.attributes["title"],
            "A morning of repeated frost questions"
        );
        assert_eq!(
            row.object,
            format!("The same frost question, asked many times: {LOOP}")
        );
        assert_eq!(row.attributes["digest_method"], "authored-v1");
        assert!(row.attributes.get("pending").is_none());
        assert_eq!(r.authoring.authored.len(), 1);
        assert_eq!(&r.authoring.authored[0].record_id, id);
        assert!(r.authoring.failures.is_empty());
        assert!(
            tasks(&s)
                .iter()
                .all(|(k, t)| !(t == id && k.ends_with(".author"))),
            "[{}] no authoring task for authored fields: {:?}",
            s.name,
            tasks(&s)
        );
    }
}

#[test]
fn without_an_author_the_day_summary_forms_pending_with_the_failure_recorded_and_its_tasks() {
    for (s, hands) in stacks(true) {
        loop_day(&s, &hands);
        let r = run(&s, &WakeCueDedup::new(SCOPE, OWNER, "doctor"), None);
        let id = r.formed_summaries.unwrap()[0].clone();
        let row = digest_row(s.store.as_ref(), &id);
        assert!(
            row.attributes.get("title").is_none_or(|t| t.is_null()),
            "{:?}",
            row.attributes
        );
        assert_eq!(row.attributes["pending"]["title"], true);
        assert_eq!(row.attributes["pending"]["summary"], true);
        assert_eq!(
            row.attributes["pending"]["failure"]["reason"],
            "no_author_supplied"
        );
        assert_eq!(
            row.object, LOOP,
            "the witness's words are the provisional body"
        );
        assert_eq!(r.authoring.failures.len(), 1);
        assert_eq!(
            r.authoring.failures[0].reason,
            AuthoringFailureReason::NoAuthorSupplied
        );
        let owed: Vec<String> = tasks(&s)
            .into_iter()
            .filter(|(_, t)| *t == id)
            .map(|(k, _)| k)
            .collect();
        assert_eq!(owed, ["digest.author", "title.author"], "[{}]", s.name);
    }
}

#[test]
fn an_author_that_raises_forms_the_summary_pending_as_author_raised() {
    for (s, hands) in stacks(true) {
        loop_day(&s, &hands);
        let author = raising_author();
        let r = run(
            &s,
            &WakeCueDedup::new(SCOPE, OWNER, "doctor"),
            Some(&author),
        );
        let f = &r.authoring.failures[0];
        assert_eq!(f.reason, AuthoringFailureReason::AuthorRaised);
        assert_eq!(f.error_class.as_deref(), Some("GatewayDown"));
        let row = digest_row(s.store.as_ref(), &r.formed_summaries.unwrap()[0]);
        assert_eq!(
            row.attributes["pending"]["failure"]["error_class"],
            "GatewayDown"
        );
    }
}

#[test]
fn two_similar_records_are_a_life_a_cluster_acts_only_from_min_cluster_members() {
    for (s, hands) in stacks(true) {
        let (loop_ids, _) = loop_day(&s, &hands);
        let before = written(&s);
        let mut args = WakeCueDedup::new(SCOPE, OWNER, "doctor");
        args.min_cluster = 5;
        let r = run(&s, &args, None);
        assert_eq!(r.cluster_count, 0);
        assert_eq!(r.formed_summaries, Some(vec![]));
        assert_eq!(
            written(&s),
            before,
            "[{}] nothing to act on, nothing written",
            s.name
        );
        args.min_cluster = loop_ids.len();
        assert_eq!(run(&s, &args, None).cluster_count, 1);
    }
}

#[test]
fn records_of_different_days_never_cluster() {
    for (s, hands) in stacks(true) {
        for (i, day) in ["01", "02", "03", "04"].iter().enumerate() {
            hands.set(&format!("2026-03-{day}T09:00:00+00:00"));
            form(&s, episode("Frost question", LOOP), &format!("d{i}"));
        }
        let before = written(&s);
        let r = run(&s, &WakeCueDedup::new(SCOPE, OWNER, "doctor"), None);
        assert_eq!((r.scanned, r.cluster_count), (4, 0));
        assert_eq!(written(&s), before);
    }
}

#[test]
fn only_records_of_the_pass_kind_are_scanned() {
    for (s, hands) in stacks(true) {
        for i in 0..3 {
            hands.set(&format!("2026-03-01T0{i}:00:00+00:00"));
            form(
                &s,
                MemoryRecordInput::new(RecordKind::Observation, "Frost question", LOOP),
                &format!("o{i}"),
            );
        }
        let r = run(&s, &WakeCueDedup::new(SCOPE, OWNER, "doctor"), None);
        assert_eq!((r.scanned, r.cluster_count), (0, 0));
        let mut args = WakeCueDedup::new(SCOPE, OWNER, "doctor");
        args.kind = RecordKind::Observation;
        args.report_only = true;
        assert_eq!(run(&s, &args, None).cluster_count, 1);
    }
}

#[test]
fn report_only_computes_the_clusters_and_writes_nothing() {
    for (s, hands) in stacks(true) {
        let (loop_ids, _) = loop_day(&s, &hands);
        let before = (written(&s), tasks(&s));
        let calls = Arc::new(Mutex::new(Vec::new()));
        let author = operator_author(calls.clone());
        let mut args = WakeCueDedup::new(SCOPE, OWNER, "doctor");
        args.report_only = true;
        let r = run(&s, &args, Some(&author));
        assert!(r.report_only);
        assert_eq!(r.clusters[0].members, loop_ids);
        assert_eq!(r.formed_summaries, None, "the dry run forms nothing");
        assert!(
            calls.lock().unwrap().is_empty(),
            "the dry run asks no author"
        );
        assert_eq!((written(&s), tasks(&s)), before, "[{}]", s.name);
        let json = serde_json::to_value(&r).unwrap();
        assert!(
            json.get("formed_summaries").is_none(),
            "0.3.2's dry-run keys"
        );
    }
}

#[test]
fn a_run_again_is_idempotent_it_writes_nothing_and_asks_no_author() {
    for (s, hands) in stacks(true) {
        loop_day(&s, &hands);
        run(&s, &WakeCueDedup::new(SCOPE, OWNER, "doctor"), None);
        let before = (written(&s), tasks(&s));
        let calls = Arc::new(Mutex::new(Vec::new()));
        let author = operator_author(calls.clone());
        let again = run(
            &s,
            &WakeCueDedup::new(SCOPE, OWNER, "doctor"),
            Some(&author),
        );
        assert_eq!(again.cluster_count, 0);
        assert_eq!(again.scanned, 1, "only the genuine episode is still live");
        assert_eq!(again.formed_summaries, Some(vec![]));
        assert!(again.authoring.authored.is_empty() && again.authoring.failures.is_empty());
        assert!(calls.lock().unwrap().is_empty());
        assert_eq!((written(&s), tasks(&s)), before, "[{}]", s.name);
    }
}

#[test]
fn a_home_without_the_task_queue_refuses_a_pending_summary_before_writing_anything() {
    for (s, hands) in stacks(false) {
        loop_day(&s, &hands);
        let before = written(&s);
        let err = s
            .system
            .wake_cue_dedup_pass(&WakeCueDedup::new(SCOPE, OWNER, "doctor"), None)
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidInput);
        assert!(err.to_string().contains("task_queue=True"), "{err}");
        assert!(err.to_string().contains("no_author_supplied"), "{err}");
        assert_eq!(written(&s), before, "[{}]", s.name);
        // The dry run still runs, and an authored summary needs no queue.
        let mut dry = WakeCueDedup::new(SCOPE, OWNER, "doctor");
        dry.report_only = true;
        assert_eq!(run(&s, &dry, None).cluster_count, 1);
        let calls = Arc::new(Mutex::new(Vec::new()));
        let author = operator_author(calls);
        let r = run(
            &s,
            &WakeCueDedup::new(SCOPE, OWNER, "doctor"),
            Some(&author),
        );
        assert_eq!(r.formed_summaries.unwrap().len(), 1);
    }
}

#[test]
fn a_blank_actor_a_cluster_of_one_or_a_floor_outside_0_1_is_refused_writing_nothing() {
    for (s, hands) in stacks(true) {
        loop_day(&s, &hands);
        let before = written(&s);
        let blank = WakeCueDedup::new(SCOPE, OWNER, "  ");
        let mut one = WakeCueDedup::new(SCOPE, OWNER, "doctor");
        one.min_cluster = 1;
        let mut floor = WakeCueDedup::new(SCOPE, OWNER, "doctor");
        floor.jaccard_floor = 1.5;
        let scope = WakeCueDedup::new(" ", OWNER, "doctor");
        for (args, needle) in [
            (blank, "actor"),
            (one, "min_cluster"),
            (floor, "jaccard_floor"),
            (scope, "scope"),
        ] {
            let err = s.system.wake_cue_dedup_pass(&args, None).unwrap_err();
            assert_eq!(err.kind(), ErrorKind::InvalidInput);
            assert!(err.to_string().contains(needle), "{err}");
        }
        assert_eq!(written(&s), before);
    }
}

#[test]
fn a_live_member_its_live_day_summary_already_summarizes_closes_against_that_summary() {
    for (s, hands) in stacks(true) {
        let (loop_ids, _) = loop_day(&s, &hands);
        // A torn home: this pass's summary stands over two live members.
        let mut summary = MemoryRecordInput::new(RecordKind::Summary, "Frost day", LOOP)
            .with_provenance("source", DEDUP_SOURCE)
            .with_provenance("actor", "earlier-doctor");
        for m in &loop_ids[..2] {
            summary = summary.with_edge("summarizes", m);
        }
        let summary_id = form(&s, summary, "torn-summary");
        let r = run(&s, &WakeCueDedup::new(SCOPE, OWNER, "doctor"), None);
        assert_eq!(
            sorted(r.residuals_repaired.clone()),
            sorted(loop_ids[..2].to_vec())
        );
        for m in &loop_ids[..2] {
            assert_eq!(closures_of(&s, m)[0].replacement_ids, [summary_id.as_str()]);
        }
        // The other two are below min_cluster now: they stay live.
        assert_eq!(r.cluster_count, 0);
        assert!(closures_of(&s, &loop_ids[3]).is_empty());
    }
}

#[test]
fn a_summary_the_pass_did_not_form_never_adopts_members() {
    for (s, hands) in stacks(true) {
        let (loop_ids, _) = loop_day(&s, &hands);
        // A session reflection summarizing episodes by design.
        let mut reflection =
            MemoryRecordInput::new(RecordKind::Summary, "Session reflection", "A session");
        for m in &loop_ids {
            reflection = reflection.with_edge("summarizes", m);
        }
        let reflection_id = form(&s, reflection, "reflection");
        let r = run(&s, &WakeCueDedup::new(SCOPE, OWNER, "doctor"), None);
        assert!(r.residuals_repaired.is_empty());
        let formed = r.formed_summaries.unwrap();
        assert_eq!(formed.len(), 1);
        assert_ne!(formed[0], reflection_id);
    }
}

#[test]
fn a_residual_repair_leaves_the_rest_of_the_day_to_cluster_into_a_new_summary() {
    for (s, hands) in stacks(true) {
        let (loop_ids, _) = loop_day(&s, &hands);
        let summary = MemoryRecordInput::new(RecordKind::Summary, "Frost day", LOOP)
            .with_provenance("source", DEDUP_SOURCE)
            .with_edge("summarizes", &loop_ids[0]);
        let summary_id = form(&s, summary, "torn-summary");
        let r = run(&s, &WakeCueDedup::new(SCOPE, OWNER, "doctor"), None);
        assert_eq!(r.residuals_repaired, [loop_ids[0].clone()]);
        assert_eq!(r.cluster_count, 1, "the three others still cluster");
        assert_eq!(r.clusters[0].members, loop_ids[1..].to_vec());
        let formed = r.formed_summaries.unwrap();
        assert_ne!(formed[0], summary_id);
        assert_eq!(
            closures_of(&s, &loop_ids[0])[0].replacement_ids,
            [summary_id]
        );
        assert_eq!(closures_of(&s, &loop_ids[1])[0].replacement_ids, formed);
    }
}

#[test]
fn a_hidden_member_is_still_a_record_of_the_day_only_closures_leave_the_scan() {
    // 0.3.2 folds closures only (not bindings) in this pass's scan.
    for (s, hands) in stacks(true) {
        let (loop_ids, _) = loop_day(&s, &hands);
        s.system
            .bind(&Bind::new(
                &loop_ids[0],
                SCOPE,
                OWNER,
                am_journal::SearchState::Hidden,
            ))
            .unwrap();
        let mut dry = WakeCueDedup::new(SCOPE, OWNER, "doctor");
        dry.report_only = true;
        assert_eq!(run(&s, &dry, None).members_total, 4);
        s.system
            .close_record(&am_system::CloseRecord::new(
                &loop_ids[1],
                ClosureKind::Retract,
                "wrong",
            ))
            .unwrap();
        assert_eq!(run(&s, &dry, None).members_total, 3);
    }
}

#[test]
fn the_pass_deposits_nothing_access_counts_and_activation_are_unchanged() {
    for (s, hands) in stacks(true) {
        let (loop_ids, genuine) = loop_day(&s, &hands);
        let mut used = loop_ids.clone();
        used.push(genuine);
        s.system
            .commit_selection(&am_system::CommitSelection::new("t1", &used))
            .unwrap();
        let before = deposits(&s, &used);
        let r = run(&s, &WakeCueDedup::new(SCOPE, OWNER, "doctor"), None);
        assert_eq!(deposits(&s, &used), before, "[{}]", s.name);
        assert!(
            before.contains(", 1)"),
            "the members were used before the pass: {before}"
        );
        let summary = r.formed_summaries.unwrap().remove(0);
        let counts = s
            .system
            .access_counts(std::slice::from_ref(&summary), &[])
            .unwrap();
        assert_eq!(
            counts.records.get(&summary),
            Some(&0),
            "forming is not using"
        );
    }
}

#[test]
fn the_summary_its_edges_its_tasks_and_every_closure_commit_in_one_transaction() {
    let points = Arc::new(Mutex::new(Vec::<String>::new()));
    let p = points.clone();
    let make = move || am_system::SystemOptions {
        task_queue: true,
        commit_guard: Some(am_triples::CommitGuard::new({
            let p = p.clone();
            move |point| {
                p.lock().unwrap().push(point.to_owned());
                Ok(())
            }
        })),
        ..am_system::SystemOptions::default()
    };
    for s in [
        crate::common::memory_stack(make()),
        crate::common::sqlite_stack(make()),
    ] {
        for i in 0..3 {
            s.system
                .remember_many(&RememberMany::new(
                    vec![episode("Frost question", LOOP)],
                    SCOPE,
                    OWNER,
                    &format!("k{i}"),
                ))
                .unwrap();
        }
        points.lock().unwrap().clear();
        let r = run(&s, &WakeCueDedup::new(SCOPE, OWNER, "doctor"), None);
        assert_eq!(r.cluster_count, 1);
        assert_eq!(
            *points.lock().unwrap(),
            ["tasks.form_with_tasks"],
            "[{}]",
            s.name
        );
    }
}
