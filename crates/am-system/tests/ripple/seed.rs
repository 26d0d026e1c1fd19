//! `seed_ripple`'s rules: the cause, the magnitude, the election's hop 0,
//! surprise as words, dry runs, idempotence, refusals, the tasks it queues.

use crate::common::{Stack, written};
use crate::support::*;
use am_backend_sqlite::{SqliteHome, SqliteMemoryHome, SqliteStoreOptions};
use am_journal::{MemoryJournal, TaskKind};
use am_system::ripple::{Change, Decision, SeedRipple, measured_change, similarity_weight};
use am_system::{MemorySystem, SystemOptions};
use am_triples::{ErrorKind, TripleStore};
use serde_json::json;
use std::sync::Arc;

#[test]
fn change_magnitude_is_the_readers_enum_scaled_down_when_the_text_barely_moved_never_up() {
    assert!(close_to(
        measured_change(Change::Unchanged, None).unwrap(),
        0.0
    ));
    assert!(close_to(
        measured_change(Change::Refined, None).unwrap(),
        0.25
    ));
    assert!(close_to(
        measured_change(Change::Revised, None).unwrap(),
        0.6
    ));
    assert!(close_to(
        measured_change(Change::Overturned, None).unwrap(),
        1.0
    ));
    // Ours (docs/ripple.md): × d / 0.15 below a distance of 0.15.
    assert!(close_to(
        measured_change(Change::Revised, Some(0.03)).unwrap(),
        0.6 * 0.2
    ));
    assert!(close_to(
        measured_change(Change::Revised, Some(0.0)).unwrap(),
        0.0
    ));
    // Never up.
    assert!(close_to(
        measured_change(Change::Revised, Some(0.9)).unwrap(),
        0.6
    ));
    assert_eq!(
        measured_change(Change::Revised, Some(2.5))
            .unwrap_err()
            .kind(),
        ErrorKind::InvalidInput
    );
    assert!(measured_change(Change::Revised, Some(f64::NAN)).is_err());
}

#[test]
fn similarity_weight_is_zero_at_cosine_one_half_and_one_at_cosine_one() {
    assert!(close_to(similarity_weight(0.5), 0.0));
    assert!(close_to(similarity_weight(0.2), 0.0));
    assert!(close_to(similarity_weight(0.9), 0.8));
    assert!(close_to(similarity_weight(1.0), 1.0));
}

#[test]
fn the_magnitude_is_magnitude_when_given_else_measured_change() {
    on_both(|s| {
        let seed_id = ep(s, "seed", &[]);
        let b = ep(s, "b", &[("summarizes", &seed_id)]);
        let mut args = seeding(&seed_id, Change::Revised);
        args.cosine_distance = Some(0.075);
        let r = s.system.seed_ripple(&{
            let mut a = args.clone();
            a.dry_run = true;
            a
        });
        let r = r.unwrap().value;
        assert!(close_to(r.magnitude, 0.3));
        assert_decision(on(&r.decisions, &b), Decision::Reconsider, 0.15);
        args.magnitude = Some(0.2);
        let r = seed(s, &args);
        assert!(close_to(r.magnitude, 0.2));
        assert_decision(on(&r.decisions, &b), Decision::BelowFloor, 0.1);
    });
}

#[test]
fn an_election_re_reads_the_seed_at_hop_0_and_its_neighbours_wait_for_it() {
    on_both(|s| {
        let seed_id = ep(s, "seed", &[]);
        let b = ep(s, "b", &[("summarizes", &seed_id)]);
        let args = SeedRipple::new(
            &seed_id,
            json!({"cause": "evidence", "election": "revise", "evidence": ["obs:1"]}),
        );
        let r = seed(s, &args);
        let d0 = on(&r.decisions, &seed_id);
        assert_eq!(
            (d0.hop, d0.decision, d0.via.as_str()),
            (0, Decision::Reconsider, "seed")
        );
        let seed_task = task_on(s, &r.ripple_id, &seed_id);
        assert_eq!(seed_task.hop, Some(0));
        let bt = task_on(s, &r.ripple_id, &b);
        assert_eq!(bt.hop, Some(1));
        assert_eq!(bt.depends_on, vec![seed_task.task_id.clone()]);
        // A rewrite's ripple does not re-read its seed unless asked.
        let other = ep(s, "other", &[]);
        let r2 = seed(s, &seeding(&other, Change::Revised));
        assert!(r2.decisions.iter().all(|d| d.hop != 0));
    });
}

#[test]
fn reconsider_tasks_carry_the_ripple_id_and_hop() {
    on_both(|s| {
        let seed_id = ep(s, "seed", &[]);
        let b = ep(s, "b", &[("summarizes", &seed_id)]);
        let r = seed(s, &seeding(&seed_id, Change::Revised));
        let t = task_on(s, &r.ripple_id, &b);
        assert_eq!(t.kind, TaskKind::RippleReconsider);
        assert_eq!(t.ripple_id.as_deref(), Some(r.ripple_id.as_str()));
        assert_eq!(t.hop, Some(1));
        assert_eq!(t.cause["cause"], "ripple");
        assert_eq!(t.cause["seed_id"], json!(seed_id));
        assert_eq!(r.reconsider_task_ids, vec![t.task_id]);
    });
}

#[test]
fn surprise_is_stored_as_words_and_no_feeling_is_written() {
    on_both(|s| {
        let seed_id = ep(s, "seed", &[]);
        ep(s, "b", &[("summarizes", &seed_id)]);
        let before = written(s);
        let mut args = seeding(&seed_id, Change::Overturned);
        args.surprise = Some("I did not expect Ada to leave.".to_owned());
        let r = seed(s, &args);
        let row = s.system.ripple(&r.ripple_id).unwrap().unwrap().ripple;
        assert_eq!(
            row.surprise.as_deref(),
            Some("I did not expect Ada to leave.")
        );
        // No memory, event or feeling: the store and the journal are as they were.
        assert_eq!(written(s), before);
    });
}

#[test]
fn seed_ripple_is_idempotent_on_seed_cause_and_seed_version() {
    on_both(|s| {
        let seed_id = ep(s, "seed", &[]);
        let b = ep(s, "b", &[("summarizes", &seed_id)]);
        let first = seed(s, &seeding(&seed_id, Change::Revised));
        let n_tasks = s.system.tasks().unwrap().counts().unwrap();
        let again = seed(s, &seeding(&seed_id, Change::Revised));
        assert_eq!(again.ripple_id, first.ripple_id);
        assert!(!again.opened);
        assert_eq!(again.reconsider_task_ids, first.reconsider_task_ids);
        assert_eq!(again.decisions, first.decisions);
        assert_eq!(s.system.tasks().unwrap().counts().unwrap(), n_tasks);
        assert_eq!(s.system.ripples(&Default::default()).unwrap().len(), 1);
        // Another cause is another ripple.
        let mut other = seeding(&seed_id, Change::Revised);
        other.cause = json!("operator");
        assert_ne!(seed(s, &other).ripple_id, first.ripple_id);
        // A new version of the seed is another ripple.
        let _ = rewrite_and_settle(s, &first.ripple_id, &b, Change::Revised);
        let mut rw = am_system::understanding::args::RewriteDigest::new(
            &seed_id,
            "seed: read anew.",
            am_journal::AuthorRef::new(am_journal::AuthorKind::Operator, "op:x"),
            json!("operator"),
            0,
        );
        rw.task_id = None;
        assert!(s.system.rewrite_digest(&rw).unwrap().outcome.applied());
        assert_ne!(
            seed(s, &seeding(&seed_id, Change::Revised)).ripple_id,
            first.ripple_id
        );
    });
}

#[test]
fn a_dry_run_writes_nothing_and_returns_the_hop_1_decisions() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("home.sqlite3");
    let home = SqliteHome::open(&path).unwrap();
    let mh = Arc::new(SqliteMemoryHome::open(&home, None, SqliteStoreOptions::default()).unwrap());
    let store: Arc<dyn TripleStore> = mh.sqlite_store().clone();
    let journal: Arc<dyn MemoryJournal> = mh.sqlite_journal().clone();
    let system = MemorySystem::over_home_with_options(
        mh,
        SystemOptions {
            task_queue: true,
            clock: Some(crate::common::pinned_clock()),
            ..SystemOptions::default()
        },
    )
    .unwrap();
    let s = Stack::over("sqlite-file", store, journal, system);
    let seed_id = ep(&s, "seed", &[]);
    let b = ep(&s, "b", &[("summarizes", &seed_id)]);
    let m = ep(&s, "m", &[("mentions", &seed_id)]);
    // The database and its WAL (the `-shm` index is shared memory every
    // reader touches, not the home's contents).
    let bytes = || {
        use sha2::Digest;
        let mut all = std::fs::read(&path).unwrap();
        if let Ok(b) = std::fs::read(dir.path().join("home.sqlite3-wal")) {
            all.extend(b);
        }
        hex::encode(sha2::Sha256::digest(&all))
    };
    let before = bytes();
    let mut args = seeding(&seed_id, Change::Revised);
    args.dry_run = true;
    let r = seed(&s, &args);
    assert!(!r.opened);
    // Nothing is queued, so no task is named.
    assert!(r.reconsider_task_ids.is_empty());
    assert!(r.decisions.iter().all(|d| d.task_id.is_none()));
    assert_decision(on(&r.decisions, &b), Decision::Reconsider, 0.3);
    assert_decision(on(&r.decisions, &m), Decision::BelowFloor, 0.075);
    assert!(r.decisions.iter().all(|d| d.hop == 1));
    assert_eq!(bytes(), before, "a dry run changed the home's file");
    assert!(s.system.ripple(&r.ripple_id).unwrap().is_none());
    // The real call opens the same ripple.
    assert_eq!(
        seed(&s, &seeding(&seed_id, Change::Revised)).ripple_id,
        r.ripple_id
    );
}

#[test]
fn an_unknown_seed_is_refused_with_its_reason_and_the_home_unchanged() {
    on_both(|s| {
        ep(s, "seed", &[]);
        let before = written(s);
        let counts = s.system.tasks().unwrap().counts().unwrap();
        let r = seed(s, &seeding("mem:nobody", Change::Revised));
        assert_eq!(r.reason.as_deref(), Some("unknown_record"));
        assert!(!r.opened && r.decisions.is_empty());
        assert_eq!(written(s), before);
        assert_eq!(s.system.tasks().unwrap().counts().unwrap(), counts);
        assert!(s.system.ripples(&Default::default()).unwrap().is_empty());
    });
}

#[test]
fn a_malformed_call_is_an_error_and_writes_nothing() {
    on_both(|s| {
        let seed_id = ep(s, "seed", &[]);
        ep(s, "b", &[("summarizes", &seed_id)]);
        let before = written(s);
        let bad = |f: &dyn Fn(&mut SeedRipple)| {
            let mut a = seeding(&seed_id, Change::Revised);
            f(&mut a);
            let e = s.system.seed_ripple(&a).unwrap_err();
            assert_eq!(e.kind(), ErrorKind::InvalidInput, "{e}");
        };
        bad(&|a| a.cause = json!("gossip"));
        bad(&|a| a.cause = json!(7));
        // An election passes its evidence.
        bad(&|a| a.cause = json!("evidence"));
        bad(&|a| a.cause = json!({"cause": "evidence", "election": "revise"}));
        // A ripple opens on `revised` or `overturned`.
        bad(&|a| a.change = Change::Refined);
        bad(&|a| a.change = Change::Unchanged);
        bad(&|a| a.magnitude = Some(1.5));
        bad(&|a| a.cosine_distance = Some(-0.1));
        assert_eq!(written(s), before);
        assert!(s.system.ripples(&Default::default()).unwrap().is_empty());
    });
}

#[test]
fn a_home_without_a_task_queue_is_refused() {
    crate::common::on_both(|s| {
        let seed_id = ep(s, "seed", &[]);
        let e = s
            .system
            .seed_ripple(&seeding(&seed_id, Change::Revised))
            .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidInput);
        assert!(e.to_string().contains("task_queue"), "{e}");
    });
}
