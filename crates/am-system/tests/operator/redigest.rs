//! `redigestion_candidates` on both stacks: worst first (poverty, then the
//! most used, then the id), the protected kinds and unlabelled digests left
//! out, a pure read, and its refusals.

use crate::common::{Stack, assert_refused, on_both, written};
use am_journal::{EventKind, MemoryEvent};
use am_system::kinds::RecordKind;
use am_system::operator::{REDIGESTION_PROTECTED_KINDS, RedigestionCandidates, content_residue};
use am_system::{MemoryRecordInput, RememberMany};
use am_triples::ErrorKind::InvalidInput;

const PAIR: (&str, &str) = ("session", "s1");

fn debt(s: &Stack, key: &str, kind: RecordKind, method: &str, digest: &str) -> String {
    let mut r = MemoryRecordInput::new(kind, &format!("Debt {key}"), digest);
    r.attributes
        .insert("digest_method".into(), serde_json::json!(method));
    s.system
        .remember_many(&RememberMany::new(vec![r], PAIR.0, PAIR.1, key))
        .unwrap()
        .value
        .remove(0)
}

#[test]
fn the_residue_strips_act_frame_markers_of_one_to_120_characters_and_folds_white_space() {
    assert_eq!(content_residue("[used tool: read_file]"), "");
    assert_eq!(
        content_residue("  [kept a note]  wash   the bisque "),
        "wash the bisque"
    );
    assert_eq!(content_residue("[] and [a[b]c]"), "[] and [a c]");
    let long = format!("[{}] tail", "x".repeat(121));
    assert_eq!(content_residue(&long), long);
    assert_eq!(
        content_residue(&format!("[{}] tail", "y".repeat(120))),
        "tail"
    );
}

#[test]
fn the_protected_kinds_are_the_seven_the_spec_names() {
    assert_eq!(
        REDIGESTION_PROTECTED_KINDS,
        [
            "diary",
            "value",
            "purpose",
            "trait",
            "interest",
            "dream",
            "world_model"
        ]
    );
}

#[test]
fn redigestion_candidates_rank_poverty_then_the_most_used_and_write_nothing() {
    on_both(|s| {
        let rich_used = debt(
            s,
            "a",
            RecordKind::Memory,
            "mechanical-v1",
            "the kiln glaze crawled because the bisque was dusty",
        );
        let rich = debt(
            s,
            "b",
            RecordKind::Episode,
            "mechanical-v2",
            "wash the bisque before glazing it every single time",
        );
        let poor = debt(
            s,
            "c",
            RecordKind::Episode,
            "mechanical-v1",
            "[used tool: read_file]",
        );
        let poor_used = debt(
            s,
            "d",
            RecordKind::Lesson,
            "mechanical-flow-v1",
            "[kept in diary] ok",
        );
        debt(
            s,
            "e",
            RecordKind::Memory,
            "entity-authored",
            "[used tool: read_file]",
        );
        debt(
            s,
            "f",
            RecordKind::Memory,
            "mechanical-dedup-v1",
            "[used tool: read_file]",
        );
        // Use, as the journal records it: selected events naming the graph id.
        for (i, rid) in [&rich_used, &poor_used, &rich_used].into_iter().enumerate() {
            s.journal
                .append_events(&[MemoryEvent {
                    event_id: format!("use-{i}"),
                    kind: EventKind::Selected,
                    scope: PAIR.0.into(),
                    owner_id: PAIR.1.into(),
                    record_id: Some(rid.clone()),
                    weight: 8.0,
                    observed_at: "2026-01-01T00:00:00+00:00".into(),
                    actor: "runtime".into(),
                    ..MemoryEvent::default()
                }])
                .unwrap();
        }
        let before = written(s);
        let r = s
            .system
            .redigestion_candidates(&RedigestionCandidates::new(&[PAIR]))
            .unwrap();
        assert_eq!(written(s), before, "[{}] the read wrote something", s.name);
        let order: Vec<&str> = r.candidates.iter().map(|c| c.record_id.as_str()).collect();
        assert_eq!(
            order,
            vec![
                poor_used.as_str(),
                poor.as_str(),
                rich_used.as_str(),
                rich.as_str()
            ],
            "[{}]",
            s.name
        );
        assert_eq!((r.total_labeled, r.poverty_count), (4, 2), "[{}]", s.name);
        assert_eq!(r.candidates[2].selected_count, 2, "[{}]", s.name);
        let mut two = RedigestionCandidates::new(&[PAIR]);
        two.limit = 2;
        let top = s.system.redigestion_candidates(&two).unwrap();
        assert_eq!(top.candidates.len(), 2);
        assert_eq!(
            top.total_labeled, 4,
            "[{}] the total counts past the limit",
            s.name
        );
    });
}

#[test]
fn redigestion_candidates_refuse_a_zero_limit_and_no_pair() {
    on_both(|s| {
        debt(
            s,
            "a",
            RecordKind::Memory,
            "mechanical-v1",
            "[used tool: x]",
        );
        let before = written(s);
        let mut zero = RedigestionCandidates::new(&[PAIR]);
        zero.limit = 0;
        assert_refused(
            s,
            &before,
            s.system.redigestion_candidates(&zero),
            InvalidInput,
            &["limit"],
        );
        assert_refused(
            s,
            &before,
            s.system
                .redigestion_candidates(&RedigestionCandidates::new(&[])),
            InvalidInput,
            &["pair"],
        );
    });
}

// ------------------------------------------------ apply_redigestion (deprecated)

mod apply {
    use crate::common::oracle::{in_memory_copy, run_generator};
    use am_backend_sqlite::{SqliteHome, SqliteMemoryHome, SqliteStoreOptions};
    use am_journal::{ClosureFilter, MemoryJournal};
    use am_system::operator::{APPLY_REDIGESTION_DEPRECATION, ApplyRedigestion, RedigestionEntry};
    use am_system::{MemorySystem, SystemOptions};
    use am_triples::{TripleQuery, TripleStore};
    use serde_json::{Value, json};
    use std::sync::Arc;

    type Stacks = Vec<(
        &'static str,
        MemorySystem,
        Arc<dyn TripleStore>,
        Arc<dyn MemoryJournal>,
    )>;

    fn stacks(dir: &std::path::Path, source: &std::path::Path) -> Stacks {
        let path = dir.join("home.sqlite3");
        std::fs::copy(source, &path).unwrap();
        let home = SqliteHome::open(&path).unwrap();
        let mh =
            Arc::new(SqliteMemoryHome::open(&home, None, SqliteStoreOptions::default()).unwrap());
        let store: Arc<dyn TripleStore> = mh.sqlite_store().clone();
        let journal: Arc<dyn MemoryJournal> = mh.sqlite_journal().clone();
        let (ms, mj) = in_memory_copy(store.as_ref(), journal.as_ref());
        vec![
            (
                "sqlite",
                MemorySystem::over_home_with_options(mh, SystemOptions::default()).unwrap(),
                store,
                journal,
            ),
            (
                "memory",
                MemorySystem::with_options(ms.clone(), mj.clone(), SystemOptions::default())
                    .unwrap(),
                ms,
                mj,
            ),
        ]
    }

    fn rows_of(store: &dyn TripleStore, gid: &str) -> Value {
        let mut rows: Vec<Value> = store
            .query(&TripleQuery {
                subject: Some(gid.to_owned()),
                limit: 0,
                ..TripleQuery::default()
            })
            .unwrap()
            .into_iter()
            .map(|a| {
                json!({"predicate": a.predicate, "object": a.object, "scope": a.scope,
                       "owner_id": a.owner_id, "attributes": a.attributes,
                       "provenance": a.provenance, "assertion_id": a.assertion_id})
            })
            .collect();
        rows.sort_by_key(|r| r["assertion_id"].as_str().unwrap_or_default().to_owned());
        json!(rows)
    }

    /// Closures of a record's rows, their reasons by presence.
    fn closures_of(store: &dyn TripleStore, journal: &dyn MemoryJournal, gid: &str) -> Value {
        let mut out: Vec<Value> = Vec::new();
        for a in store
            .query(&TripleQuery {
                subject: Some(gid.to_owned()),
                limit: 0,
                ..TripleQuery::default()
            })
            .unwrap()
        {
            for c in journal
                .closures(&ClosureFilter {
                    assertion_id: a.assertion_id.clone(),
                    limit: 0,
                    ..ClosureFilter::default()
                })
                .unwrap()
            {
                out.push(json!({"assertion_id": c.assertion_id, "kind": c.kind,
                    "replacement_ids": c.replacement_ids, "actor": c.actor,
                    "reason": !c.reason.trim().is_empty()}));
            }
        }
        out.sort_by_key(|c| c.to_string());
        json!(out)
    }

    fn reasons_by_presence(v: &mut Value) {
        if let Some(os) = v["outcomes"].as_array_mut() {
            for o in os {
                if let Some(r) = o.get_mut("reason") {
                    *r = json!(r.as_str().is_some_and(|t| !t.trim().is_empty()));
                }
            }
        }
        v["deposits"] = json!("<prose>");
    }

    /// Thirteen entries on one home: two applied (one retitled with new
    /// keywords, one whose closed edge is not copied), the refusals
    /// (protected, authored, unlabeled, identical words, blank words, an
    /// unknown record, no id), a retracted record (`already_redigested`),
    /// and one record three times (applied, the same words again, other
    /// words). Outcomes, ids and what was written (the new records' rows,
    /// the closures) value for value; reasons by presence.
    #[test]
    fn apply_redigestion_matches_abstractmemory_0_3_2_value_for_value_on_both_stacks() {
        let gen_dir = tempfile::tempdir().unwrap();
        let o = run_generator(
            "redigestion_apply.py",
            &["3", gen_dir.path().to_str().unwrap()],
        );
        let entries: Vec<RedigestionEntry> = serde_json::from_value(o["entries"].clone()).unwrap();
        let dir = tempfile::tempdir().unwrap();
        for (name, system, store, journal) in
            stacks(dir.path(), &gen_dir.path().join("rust.sqlite3"))
        {
            let mut args = ApplyRedigestion::new(entries.clone(), " entity-reflection ");
            args.turn_id = Some("turn-9".into());
            let got = system.apply_redigestion(&args).unwrap();
            assert_eq!(got.warnings[0], APPLY_REDIGESTION_DEPRECATION, "[{name}]");
            let mut ours = serde_json::to_value(&got.value).unwrap();
            let mut theirs = o["result"].clone();
            reasons_by_presence(&mut ours);
            reasons_by_presence(&mut theirs);
            assert_eq!(ours, theirs, "[{name}] the answer");
            for (gid, rows) in o["written"].as_object().unwrap() {
                assert_eq!(
                    &rows_of(store.as_ref(), gid),
                    rows,
                    "[{name}] rows of {gid}"
                );
            }
            for (gid, cs) in o["closures"].as_object().unwrap() {
                let mut theirs = cs.clone();
                for c in theirs.as_array_mut().unwrap() {
                    c["reason"] = json!(c["reason"].as_str().is_some_and(|r| !r.trim().is_empty()));
                }
                let mut t: Vec<Value> = theirs.as_array().unwrap().clone();
                t.sort_by_key(|c| c.to_string());
                assert_eq!(
                    closures_of(store.as_ref(), journal.as_ref(), gid),
                    json!(t),
                    "[{name}] closures of {gid}"
                );
            }
        }
    }

    #[test]
    fn apply_redigestion_refuses_a_blank_actor_with_nothing_written_on_both_stacks() {
        let gen_dir = tempfile::tempdir().unwrap();
        let o = run_generator(
            "redigestion_apply.py",
            &["3", gen_dir.path().to_str().unwrap()],
        );
        let entries: Vec<RedigestionEntry> = serde_json::from_value(o["entries"].clone()).unwrap();
        let dir = tempfile::tempdir().unwrap();
        for (name, system, store, _) in stacks(dir.path(), &gen_dir.path().join("rust.sqlite3")) {
            let seq = system.current_seq().unwrap();
            let rows = store
                .query(&TripleQuery {
                    limit: 0,
                    ..TripleQuery::default()
                })
                .unwrap()
                .len();
            for args in [ApplyRedigestion::new(entries.clone(), "  "), {
                let mut a = ApplyRedigestion::new(entries.clone(), "op");
                a.digest_method = " ".into();
                a
            }] {
                let e = system.apply_redigestion(&args).unwrap_err();
                assert_eq!(
                    e.kind(),
                    am_triples::ErrorKind::InvalidInput,
                    "[{name}] {e}"
                );
            }
            assert_eq!(system.current_seq().unwrap(), seq, "[{name}]");
            assert_eq!(
                store
                    .query(&TripleQuery {
                        limit: 0,
                        ..TripleQuery::default()
                    })
                    .unwrap()
                    .len(),
                rows,
                "[{name}]"
            );
        }
    }
}
