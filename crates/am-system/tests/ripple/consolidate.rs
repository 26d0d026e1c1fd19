//! The end of a ripple: the night-only `ripple.consolidate` task,
//! `form_consolidation` (the first-person "what this changes" record),
//! `revert_ripple` (restored as new versions) and the `ripple` key of the
//! task packets.

use crate::common::{Stack, written};
use crate::support::*;
use am_journal::{AuthorKind, AuthorRef, TaskKind, TaskRow, TaskStatus, Window};
use am_system::Reason;
use am_system::ripple::{Change, FormConsolidation, RevertRipple, RippleStatus};
use am_system::tasks::{Claim, ClaimTasks, LeftOutReason, SelectForWindow, TaskPacket};
use am_system::understanding::args::RewriteDigest;
use am_triples::{ErrorKind, TripleQuery};
use serde_json::json;

/// A ripple on `seed` that changed `b` and `c`: (ripple id, seed, b, c).
fn two_changes(s: &Stack) -> (String, String, String, String) {
    let seed_id = ep(s, "seed", &[]);
    let b = ep(s, "b", &[("summarizes", &seed_id)]);
    let c = ep(s, "c", &[("supports", &seed_id)]);
    let r = seed(s, &seeding(&seed_id, Change::Overturned));
    rewrite_and_settle(s, &r.ripple_id, &b, Change::Revised);
    let last = rewrite_and_settle(s, &r.ripple_id, &c, Change::Revised);
    assert_eq!(last.status, Some(RippleStatus::Consolidating));
    (r.ripple_id, seed_id, b, c)
}

fn consolidate_task(s: &Stack, ripple_id: &str) -> TaskRow {
    let d = s.system.ripple(ripple_id).unwrap().unwrap();
    d.tasks
        .into_iter()
        .find(|t| t.kind == TaskKind::RippleConsolidate)
        .expect("a consolidation task")
}

fn claim_as(s: &Stack, task_id: &str, holder: &str) {
    let c = Claim::new(ClaimTasks::Ids(vec![task_id.to_owned()]), holder);
    let r = s.system.tasks().unwrap().claim(&c).unwrap();
    assert_eq!(r.claimed.len(), 1, "{r:?}");
}

fn entity() -> AuthorRef {
    AuthorRef::new(AuthorKind::Operator, "entity:castor")
}

fn consolidation(task_id: &str, holder: &str) -> FormConsolidation {
    FormConsolidation::new(
        task_id,
        holder,
        "I held the seed one way; now b and c read differently because of it.",
        "What the seed's change changes",
        entity(),
    )
}

#[test]
fn the_consolidation_is_leased_only_in_a_night_window() {
    on_both(|s| {
        let (ripple_id, ..) = two_changes(s);
        let t = consolidate_task(s, &ripple_id);
        let q = s.system.tasks().unwrap();
        for window in [
            Window::Turn,
            Window::Visit,
            Window::Nap,
            Window::Cycle,
            Window::Idle,
        ] {
            let mut a = SelectForWindow::new(3600.0);
            a.window = window;
            let sel = q.select_for_window(&a).unwrap();
            assert!(sel.tasks.iter().all(|x| x.task.task_id != t.task_id));
            let left = sel
                .left_out
                .iter()
                .find(|l| l.task_id() == t.task_id)
                .unwrap_or_else(|| panic!("{window:?}: {sel:#?}"));
            assert_eq!(left.reason, LeftOutReason::Window);
        }
        let mut a = SelectForWindow::new(3600.0);
        a.window = Window::Night;
        let sel = q.select_for_window(&a).unwrap();
        assert!(sel.tasks.iter().any(|x| x.task.task_id == t.task_id));
        let r = q.claim(&Claim::new(&sel, "night-reader")).unwrap();
        assert!(r.claimed.iter().any(|x| x.task_id == t.task_id));
    });
}

#[test]
fn form_consolidation_forms_a_re_understanding_summary_that_summarizes_every_change_and_derives_from_the_seed()
 {
    on_both(|s| {
        let (ripple_id, seed_id, b, c) = two_changes(s);
        let t = consolidate_task(s, &ripple_id);
        claim_as(s, &t.task_id, "night-reader");
        let mut args = consolidation(&t.task_id, "night-reader");
        args.keywords = vec!["re-read".into()];
        let out = s.system.form_consolidation(&args).unwrap();
        assert_eq!(out.outcome, "formed");
        assert_eq!(out.status, RippleStatus::Consolidated);
        assert_eq!(out.summarizes, vec![b.clone(), c.clone()]);
        assert_eq!(out.derived_from, seed_id);
        let id = out.record_id.clone().unwrap();
        let u = s.system.record_understanding(&id).unwrap();
        assert_eq!(u.digest, args.text);
        assert_eq!(u.title.as_deref(), Some(args.title.as_str()));
        let row = s
            .store
            .query(&TripleQuery {
                subject: Some(id.clone()),
                limit: 0,
                ..TripleQuery::default()
            })
            .unwrap();
        let digest = row
            .iter()
            .find(|a| a.predicate == am_system::formation::DIGEST_PREDICATE)
            .unwrap();
        assert_eq!(
            digest.attributes.get("record_kind"),
            Some(&json!("summary"))
        );
        assert_eq!(
            digest.attributes.get("summary_role"),
            Some(&json!("re-understanding"))
        );
        assert_eq!(digest.attributes.get("ripple_id"), Some(&json!(ripple_id)));
        // Authored by the caller, not pending.
        assert!(digest.attributes.get("pending").is_none());
        let mut edges: Vec<(String, String)> = row
            .iter()
            .filter(|a| a.predicate == "summarizes" || a.predicate == "derived_from")
            .map(|a| (a.predicate.clone(), a.object.clone()))
            .collect();
        edges.sort();
        let mut want = vec![
            ("derived_from".to_owned(), seed_id.clone()),
            ("summarizes".to_owned(), b.clone()),
            ("summarizes".to_owned(), c.clone()),
        ];
        want.sort();
        assert_eq!(edges, want);
        // The task is done, the ripple consolidated.
        let task = s.system.tasks().unwrap().task(&t.task_id).unwrap().unwrap();
        assert_eq!(task.status, TaskStatus::Done);
        let d = s.system.ripple(&ripple_id).unwrap().unwrap();
        assert_eq!(d.ripple.status, RippleStatus::Consolidated);
        // Never batch-rewritten: a ripple or backfill rewrite is refused.
        let rw = RewriteDigest::new(
            &id,
            "a batch's words",
            AuthorRef::new(AuthorKind::Operator, "op:batch"),
            json!("backfill"),
            0,
        );
        let refused = s.system.rewrite_digest(&rw).unwrap();
        assert_eq!(refused.outcome.reason(), Some(Reason::ConsolidationRecord));
    });
}

#[test]
fn form_consolidation_refusals_write_nothing() {
    on_both(|s| {
        let (ripple_id, ..) = two_changes(s);
        let t = consolidate_task(s, &ripple_id);
        claim_as(s, &t.task_id, "night-reader");
        let before = written(s);
        let detail = s.system.ripple(&ripple_id).unwrap();
        let mut empty = consolidation(&t.task_id, "night-reader");
        empty.text = "  ".into();
        let out = s.system.form_consolidation(&empty).unwrap();
        assert_eq!(
            (out.outcome.as_str(), out.reason.as_deref()),
            ("refused", Some("empty_text"))
        );
        let mut untitled = consolidation(&t.task_id, "night-reader");
        untitled.title = String::new();
        let out = s.system.form_consolidation(&untitled).unwrap();
        assert_eq!(out.reason.as_deref(), Some("empty_title"));
        let out = s
            .system
            .form_consolidation(&consolidation(&t.task_id, "someone-else"))
            .unwrap();
        assert_eq!(out.reason.as_deref(), Some("not_holder"));
        assert_eq!(written(s), before);
        assert_eq!(s.system.ripple(&ripple_id).unwrap(), detail);
        // Formed once; a second call is refused `not_live`.
        s.system
            .form_consolidation(&consolidation(&t.task_id, "night-reader"))
            .unwrap();
        let after = written(s);
        let again = s
            .system
            .form_consolidation(&consolidation(&t.task_id, "night-reader"))
            .unwrap();
        assert_eq!(again.reason.as_deref(), Some("not_live"));
        assert_eq!(written(s), after);
    });
}

#[test]
fn form_consolidation_of_another_kind_of_task_or_with_bad_provenance_is_an_error() {
    on_both(|s| {
        let (ripple_id, _, b, _) = two_changes(s);
        let reconsider = s
            .system
            .ripple(&ripple_id)
            .unwrap()
            .unwrap()
            .tasks
            .into_iter()
            .find(|t| t.kind == TaskKind::RippleReconsider && t.target_id == b)
            .unwrap();
        let before = written(s);
        let err = s
            .system
            .form_consolidation(&consolidation(&reconsider.task_id, "reader"))
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidInput);
        let err = s
            .system
            .form_consolidation(&consolidation("nope", "reader"))
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidInput);
        // A model author without its reader and sources.
        let t = consolidate_task(s, &ripple_id);
        let mut model = consolidation(&t.task_id, "reader");
        model.author = AuthorRef::new(AuthorKind::CapabilityModel, "model:x");
        let err = s.system.form_consolidation(&model).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidInput);
        assert_eq!(written(s), before);
    });
}

#[test]
fn revert_ripple_restores_what_it_changed_as_new_versions() {
    on_both(|s| {
        let (ripple_id, _, b, c) = two_changes(s);
        let original_b = s.system.versions(&b, None).unwrap()[0]
            .version
            .text
            .clone()
            .unwrap();
        let out = s
            .system
            .revert_ripple(&RevertRipple::new(&ripple_id))
            .unwrap();
        // Latest settlement first: c, then b.
        assert_eq!(out.len(), 2);
        assert!(out.iter().all(|r| r.outcome.applied()), "{out:#?}");
        assert_eq!(out[0].version, Some(2));
        for id in [&b, &c] {
            let versions = s.system.versions(id, None).unwrap();
            // Nothing erased: the original, the ripple's reading, the
            // restored one.
            assert_eq!(versions.len(), 3);
            let current = versions.iter().find(|v| v.current).unwrap();
            assert_eq!(current.version.version, 2);
            assert_eq!(current.version.cause["cause"], json!("revert"));
            assert_eq!(current.version.cause["reverted_to"], json!(0));
            assert_eq!(
                current.version.cause["reason"],
                json!(format!("revert_ripple {ripple_id}"))
            );
            assert_eq!(current.version.text, versions[0].version.text);
        }
        assert_eq!(
            s.system.record_understanding(&b).unwrap().digest,
            original_b
        );
        // A second revert finds the versions moved on: refused `stale`,
        // nothing written.
        let before = written(s);
        let again = s
            .system
            .revert_ripple(&RevertRipple::new(&ripple_id))
            .unwrap();
        assert!(
            again
                .iter()
                .all(|r| r.outcome.reason() == Some(Reason::Stale)),
            "{again:#?}"
        );
        assert_eq!(written(s), before);
        // An unknown ripple is an error.
        let err = s
            .system
            .revert_ripple(&RevertRipple::new("nope"))
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidInput);
    });
}

#[test]
fn a_reconsider_packet_carries_cause_surprise_seed_readings_how_it_was_reached_and_its_impact() {
    on_both(|s| {
        let seed_id = ep(s, "seed", &[]);
        let b = ep(s, "b", &[("summarizes", &seed_id)]);
        // The seed was rewritten: the ripple opens on version 1.
        let rw = RewriteDigest::new(
            &seed_id,
            "seed: now read the other way.",
            AuthorRef::new(AuthorKind::Operator, "op:reader"),
            json!("backfill"),
            0,
        );
        assert!(s.system.rewrite_digest(&rw).unwrap().outcome.applied());
        let mut a = seeding(&seed_id, Change::Revised);
        a.surprise = Some("I did not expect that.".into());
        let r = seed(s, &a);
        let t = task_on(s, &r.ripple_id, &b);
        let p = s.system.task_packet(&TaskPacket::new(&t.task_id)).unwrap();
        let ripple = &p["ripple"];
        assert_eq!(ripple["ripple_id"], json!(r.ripple_id));
        assert_eq!(ripple["cause"], json!("backfill"));
        assert_eq!(ripple["surprise"], json!("I did not expect that."));
        assert_eq!(
            ripple["seed"]["current"],
            json!({"version": 1, "text": "seed: now read the other way."})
        );
        assert_eq!(
            ripple["seed"]["replaced"],
            json!({"version": 0, "text": "seed: what was held."})
        );
        assert_eq!(ripple["from"], json!(seed_id));
        assert_eq!(ripple["via"], json!("summarizes"));
        assert_eq!(ripple["hops"], json!(1));
        assert!(close_to(ripple["received"].as_f64().unwrap(), 0.3));
        // The rest of the packet is the ordinary one.
        assert_eq!(p["target_state"], json!("live"));
        assert_eq!(p["target"]["record_id"], json!(b));
    });
}

#[test]
fn a_consolidation_packet_carries_every_change_with_before_and_after() {
    on_both(|s| {
        let (ripple_id, seed_id, b, c) = two_changes(s);
        let t = consolidate_task(s, &ripple_id);
        let p = s.system.task_packet(&TaskPacket::new(&t.task_id)).unwrap();
        assert_eq!(p["target_state"], json!("live"));
        let ripple = &p["ripple"];
        assert_eq!(ripple["seed"]["record_id"], json!(seed_id));
        assert_eq!(ripple["seed"]["replaced"], json!(null));
        let changes = ripple["changes"].as_array().unwrap();
        assert_eq!(changes.len(), 2);
        for (ch, id) in changes.iter().zip([&b, &c]) {
            assert_eq!(ch["record_id"], json!(id));
            assert_eq!(
                ch["before"],
                json!({"version": 0, "text": format!("{}: what was held.", if *id == b { "b" } else { "c" })})
            );
            assert_eq!(
                ch["after"],
                json!({"version": 1, "text": format!("{id}: read again after the change.")})
            );
        }
        // A packet reads; it closes nothing and writes nothing.
        let before = written(s);
        s.system.task_packet(&TaskPacket::new(&t.task_id)).unwrap();
        assert_eq!(written(s), before);
    });
}
