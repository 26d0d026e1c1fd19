//! `embed_missing`: each sentence api.md states about it, on both stacks.
//! The embedders here are the host's part (one that fails, one that answers
//! another dimension): a switch over the topic embedder of `support`.

use crate::common::{Stack, assert_refused, written};
use crate::support::*;
use am_journal::ClosureKind;
use am_system::communities::EmbedMissing;
use am_system::recall::args::CloseRecord;
use am_triples::{TextEmbedder, TripleQuery};
use std::cell::Cell;
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, AtomicUsize, Ordering};

/// The topic embedder's answers (a text without a topic word: the zero
/// vector, stored vector-less).
const TOPIC: u8 = 0;
/// Every text gets a vector (a text without a topic word: the last axis).
const FULL: u8 = 1;
/// Every call fails.
const FAIL: u8 = 2;
/// Vectors of dimension 9 (the store is pinned to 8).
const WIDE: u8 = 3;
/// As `FULL` for `ok_calls` calls, then every call fails.
const FAIL_AFTER: u8 = 4;

struct Switch {
    mode: AtomicU8,
    ok_calls: AtomicUsize,
}

impl Switch {
    fn set(&self, mode: u8) {
        self.mode.store(mode, Ordering::SeqCst);
    }
}

impl TextEmbedder for Switch {
    fn embed_texts(&self, texts: &[String]) -> am_triples::Result<Vec<Vec<f32>>> {
        let mut out = TopicEmbedder.embed_texts(texts)?;
        let full = |out: &mut Vec<Vec<f32>>| {
            for v in out.iter_mut() {
                if v.iter().all(|x| *x == 0.0) {
                    v[7] = 1.0;
                }
            }
        };
        match self.mode.load(Ordering::SeqCst) {
            FULL => full(&mut out),
            FAIL => return Err(am_triples::Error::embedder("the embedding service is down")),
            WIDE => {
                full(&mut out);
                for v in &mut out {
                    v.push(0.5);
                }
            }
            FAIL_AFTER => {
                if self
                    .ok_calls
                    .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
                    .is_err()
                {
                    return Err(am_triples::Error::embedder(
                        "the embedding service went down",
                    ));
                }
                full(&mut out);
            }
            _ => {}
        }
        Ok(out)
    }
    fn model_id(&self) -> Option<String> {
        Some("topic-embedder-v1".into())
    }
    fn dimension(&self) -> Option<usize> {
        Some(8)
    }
}

fn switch() -> Arc<Switch> {
    Arc::new(Switch {
        mode: AtomicU8::new(TOPIC),
        ok_calls: AtomicUsize::new(0),
    })
}

/// Run `check` on both stacks over a switch embedder.
fn on_both_switched(queue: bool, check: impl Fn(&Stack, &Switch)) {
    let e = switch();
    check(&memory_with(queue, Some(e.clone())), &e);
    let e = switch();
    let s = sqlite_with(queue, Some(e.clone()));
    check(&s.stack, &e);
}

/// Three garden records (vectored) and `n` plain ones (no topic word: the
/// topic embedder gives them the zero vector, so they are stored without
/// one). Returns the plain records' ids.
fn home_with_plain(s: &Stack, n: usize) -> Vec<String> {
    about(s, "garden", 3, "g1");
    live(
        s,
        "plain",
        (0..n)
            .map(|i| {
                episode(
                    &format!("A quiet day {i}"),
                    &format!("Nothing happened, part {i}."),
                )
            })
            .collect(),
    )
}

/// The stored vector of a record's digest row.
fn vector_of(s: &Stack, id: &str) -> Option<Vec<f32>> {
    let rows = s
        .store
        .query(&TripleQuery {
            subject: Some(id.to_owned()),
            predicate: Some("dcterms:abstract".to_owned()),
            limit: 0,
            ..TripleQuery::default()
        })
        .unwrap();
    let row = rows.first().expect("the record's digest row");
    s.store
        .stored_vector(row.assertion_id.as_deref().unwrap())
        .unwrap()
}

fn args() -> EmbedMissing {
    EmbedMissing::new(&[(SCOPE, OWNER)], OWNER)
}

fn listed(ids: &[&str]) -> EmbedMissing {
    EmbedMissing {
        record_ids: Some(ids.iter().map(|s| (*s).to_owned()).collect()),
        ..args()
    }
}

fn run(s: &Stack, a: &EmbedMissing) -> am_system::communities::EmbedMissingReport {
    s.system.embed_missing(a, &never).unwrap()
}

#[test]
fn embed_missing_embeds_the_open_formed_records_that_have_no_vector_with_the_stores_embedder() {
    on_both_switched(true, |s, e| {
        let plain = home_with_plain(s, 2);
        for id in &plain {
            assert_eq!(vector_of(s, id), None, "[{}] formed vector-less", s.name);
        }
        e.set(FULL);
        let r = run(s, &args());
        assert_eq!(r.pass_name, "embed_missing");
        assert_eq!((r.embedded, r.skipped), (2, 0), "[{}] {r:?}", s.name);
        assert!(r.failed.is_empty() && r.reasons.is_empty() && !r.cancelled);
        for id in &plain {
            let v = vector_of(s, id).expect("embedded");
            assert_eq!(v.len(), 8);
            assert!(v[7] > 0.0, "[{}] the store's own embedder's vector", s.name);
        }
        // Nothing is left to embed: a second run writes nothing.
        let before = written(s);
        let again = run(s, &args());
        assert_eq!((again.embedded, again.skipped), (0, 0));
        assert_eq!(written(s), before);
    });
}

#[test]
fn a_list_of_record_ids_embeds_those_records_only() {
    on_both_switched(true, |s, e| {
        let plain = home_with_plain(s, 2);
        let garden = about(s, "garden", 1, "g2");
        e.set(FULL);
        let r = run(s, &listed(&[&plain[0], &garden[0], "ex:episode-unknown"]));
        assert_eq!((r.embedded, r.skipped), (1, 2), "[{}] {r:?}", s.name);
        assert_eq!(r.reasons["already_embedded"], 1);
        assert_eq!(r.reasons["unknown_record"], 1);
        assert!(vector_of(s, &plain[0]).is_some());
        assert_eq!(vector_of(s, &plain[1]), None, "[{}] not listed", s.name);
    });
}

#[test]
fn each_vector_is_its_own_commit_so_partial_progress_stands() {
    on_both_switched(true, |s, e| {
        let plain = home_with_plain(s, 3);
        e.ok_calls.store(1, Ordering::SeqCst);
        e.set(FAIL_AFTER);
        let r = run(s, &args());
        assert_eq!((r.embedded, r.skipped), (1, 2), "[{}] {r:?}", s.name);
        assert_eq!(r.reasons["embedder_unavailable"], 2);
        let mut sorted = plain.clone();
        sorted.sort();
        assert!(
            vector_of(s, &sorted[0]).is_some(),
            "[{}] the first stands",
            s.name
        );
        assert_eq!(vector_of(s, &sorted[1]), None);
        assert_eq!(vector_of(s, &sorted[2]), None);
        // The next run picks up the rest.
        e.set(FULL);
        assert_eq!(run(s, &args()).embedded, 2);
    });
}

#[test]
fn an_embedder_failure_is_never_raised_that_record_and_the_rest_are_skipped_embedder_unavailable() {
    on_both_switched(true, |s, e| {
        let plain = home_with_plain(s, 2);
        e.set(FAIL);
        let before = written(s);
        let r = run(s, &args());
        assert_eq!((r.embedded, r.skipped), (0, 2), "[{}] {r:?}", s.name);
        assert_eq!(r.reasons["embedder_unavailable"], 2);
        assert!(r.failed.is_empty());
        assert_eq!(written(s), before);
        for id in &plain {
            assert_eq!(vector_of(s, id), None);
        }
    });
}

#[test]
fn without_an_embedder_every_record_is_skipped_no_embedder() {
    for s in [memory_with(true, None), sqlite_with(true, None).stack] {
        let ids = about(&s, "garden", 2, "g1");
        let before = written(&s);
        let r = run(&s, &args());
        assert_eq!((r.embedded, r.skipped), (0, 2), "[{}] {r:?}", s.name);
        assert_eq!(r.reasons["no_embedder"], 2);
        assert_eq!(written(&s), before);
        assert_eq!(vector_of(&s, &ids[0]), None);
    }
}

#[test]
fn a_vector_of_the_wrong_dimension_is_failed_dimension_mismatch_and_never_written() {
    on_both_switched(true, |s, e| {
        let mut plain = home_with_plain(s, 2);
        plain.sort();
        e.set(WIDE);
        let r = run(s, &args());
        assert_eq!((r.embedded, r.skipped), (0, 0), "[{}] {r:?}", s.name);
        let failed: Vec<(String, String)> = r
            .failed
            .iter()
            .map(|f| (f.id.clone(), f.reason.clone()))
            .collect();
        assert_eq!(
            failed,
            plain
                .iter()
                .map(|id| (id.clone(), "dimension_mismatch".to_owned()))
                .collect::<Vec<_>>()
        );
        assert_eq!(r.reasons["dimension_mismatch"], 2);
        for id in &plain {
            assert_eq!(vector_of(s, id), None, "[{}] never written", s.name);
        }
    });
}

#[test]
fn cancelled_is_checked_before_each_record() {
    on_both_switched(true, |s, e| {
        home_with_plain(s, 3);
        e.set(FULL);
        let asked = Cell::new(0usize);
        // The second ask (before the second record) says stop.
        let stop = || {
            asked.set(asked.get() + 1);
            asked.get() >= 2
        };
        let r = s.system.embed_missing(&args(), &stop).unwrap();
        assert!(r.cancelled, "[{}] {r:?}", s.name);
        assert_eq!(r.embedded, 1);
        assert_eq!(
            asked.get(),
            2,
            "[{}] asked once per record until it stopped",
            s.name
        );
        // Cancelled before the first record: nothing written.
        let before = written(s);
        let r = s.system.embed_missing(&args(), &|| true).unwrap();
        assert!(r.cancelled && r.embedded == 0);
        assert_eq!(written(s), before);
    });
}

#[test]
fn community_records_are_never_embedded() {
    on_both_switched(true, |s, e| {
        two_topics(s);
        let report = pass(s);
        assert!(!report.written.is_empty());
        e.set(FULL);
        let r = run(s, &args());
        assert_eq!(r.embedded, 0, "[{}] {r:?}", s.name);
        let topic = &report.written[0];
        let r = run(s, &listed(&[topic]));
        assert_eq!((r.embedded, r.skipped), (0, 1), "[{}] {r:?}", s.name);
        assert_eq!(r.reasons["community_record"], 1);
        assert_eq!(vector_of(s, topic), None);
    });
}

#[test]
fn closed_records_are_not_embedded() {
    on_both_switched(true, |s, e| {
        let plain = home_with_plain(s, 2);
        s.system
            .close_record(&CloseRecord::new(
                &plain[0],
                ClosureKind::Retract,
                "a mistake",
            ))
            .unwrap();
        e.set(FULL);
        let r = run(s, &args());
        assert_eq!(r.embedded, 1, "[{}] {r:?}", s.name);
        assert_eq!(vector_of(s, &plain[0]), None);
        assert!(vector_of(s, &plain[1]).is_some());
    });
}

#[test]
fn the_embedded_records_join_the_next_communities_pass() {
    on_both_switched(true, |s, e| {
        about(s, "garden", 4, "g1");
        // Garden words the topic embedder misses: stored vector-less.
        let late = live(
            s,
            "late",
            vec![episode(
                "Weeding the beds",
                "Pulled weeds from the tomato beds.",
            )],
        );
        let first = pass(s);
        assert_eq!(first.unvectored, 1, "[{}] {first:?}", s.name);
        e.set(FULL);
        assert_eq!(run(s, &args()).embedded, 1);
        assert!(vector_of(s, &late[0]).is_some());
        let second = pass(s);
        assert_eq!(second.unvectored, 0, "[{}] {second:?}", s.name);
    });
}

#[test]
fn a_home_opened_without_task_queue_is_refused_before_anything_is_written() {
    on_both_switched(false, |s, e| {
        let plain = home_with_plain(s, 1);
        e.set(FULL);
        let before = written(s);
        let r = s.system.embed_missing(&args(), &never);
        assert_refused(
            s,
            &before,
            r,
            am_triples::ErrorKind::InvalidInput,
            &["embed_missing", "task_queue"],
        );
        assert_eq!(vector_of(s, &plain[0]), None);
    });
}

#[test]
fn a_malformed_call_is_an_error_before_anything_is_written() {
    on_both_switched(true, |s, e| {
        home_with_plain(s, 1);
        e.set(FULL);
        let before = written(s);
        for (a, needle) in [
            (
                EmbedMissing {
                    owner_id: " ".into(),
                    ..args()
                },
                "owner_id",
            ),
            (EmbedMissing::new(&[], OWNER), "pair"),
            (listed(&[" "]), "record_ids"),
        ] {
            let r = s.system.embed_missing(&a, &never);
            assert_refused(
                s,
                &before,
                r,
                am_triples::ErrorKind::InvalidInput,
                &[needle],
            );
        }
    });
}

#[test]
fn the_receipt_carries_the_keys_the_spec_lists() {
    on_both_switched(true, |s, _| {
        home_with_plain(s, 1);
        let v = serde_json::to_value(run(s, &args())).unwrap();
        let mut keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
        keys.sort_unstable();
        assert_eq!(
            keys,
            [
                "cancelled",
                "embedded",
                "failed",
                "pass_name",
                "reasons",
                "skipped"
            ]
        );
    });
}
