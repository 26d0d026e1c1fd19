//! `unresolved_dreams`: the standing dreams (`continuation_state`
//! `unresolved` or `continued`), oldest first; with a journal, closed and
//! hidden dreams leave the set.
//!
//! Spec: api.md "Consolidation (sleep and dreams)" (`unresolved_dreams`),
//! memory-system.md "Dreams". The spec names `unresolved`; `continued`
//! stands too, as in 0.3.2 (the spec leaves it open).

use crate::common::written;
use crate::support::{OWNER, SCOPE, form, stacks};
use am_journal::{ClosureKind, SearchState};
use am_system::sleep::{UnresolvedDreams, unresolved_dreams};
use am_system::{Bind, CloseRecord, MemoryRecordInput, RecordKind};
use am_triples::ErrorKind;

fn dream(title: &str, state: Option<&str>) -> MemoryRecordInput {
    let r = MemoryRecordInput::new(RecordKind::Dream, title, "Rivers crossing the archive");
    match state {
        Some(st) => r.with_attribute("continuation_state", st),
        None => r,
    }
}

fn ids(rows: &[am_triples::TripleAssertion]) -> Vec<String> {
    rows.iter().map(|a| a.subject.clone()).collect()
}

#[test]
fn standing_dreams_are_the_unresolved_and_continued_ones_oldest_first() {
    for (s, hands) in stacks(true) {
        hands.set("2026-03-03T01:00:00+00:00");
        let late = form(&s, dream("Late", Some("unresolved")), "d-late");
        hands.set("2026-03-01T01:00:00+00:00");
        let early = form(&s, dream("Early", Some("continued")), "d-early");
        hands.set("2026-03-02T01:00:00+00:00");
        form(&s, dream("Settled", Some("resolved")), "d-settled");
        form(&s, dream("No state", None), "d-none");
        form(
            &s,
            MemoryRecordInput::new(RecordKind::Episode, "Not a dream", "x")
                .with_attribute("continuation_state", "unresolved"),
            "e",
        );
        let got = unresolved_dreams(
            s.store.as_ref(),
            Some(s.journal.as_ref()),
            &UnresolvedDreams::new(SCOPE, OWNER),
        )
        .unwrap();
        assert_eq!(ids(&got), [early, late], "[{}]", s.name);
    }
}

#[test]
fn with_a_journal_closed_and_hidden_dreams_leave_the_set_without_one_they_stay() {
    for (s, _) in stacks(true) {
        let a = form(&s, dream("A", Some("unresolved")), "a");
        let b = form(&s, dream("B", Some("unresolved")), "b");
        let c = form(&s, dream("C", Some("unresolved")), "c");
        s.system
            .close_record(&CloseRecord::new(
                &a,
                ClosureKind::Retract,
                "a mistaken dream",
            ))
            .unwrap();
        s.system
            .bind(&Bind::new(&b, SCOPE, OWNER, SearchState::Hidden))
            .unwrap();
        let args = UnresolvedDreams::new(SCOPE, OWNER);
        let folded = unresolved_dreams(s.store.as_ref(), Some(s.journal.as_ref()), &args).unwrap();
        assert_eq!(ids(&folded), [c.as_str()], "[{}]", s.name);
        let raw = unresolved_dreams(s.store.as_ref(), None, &args).unwrap();
        assert_eq!(ids(&raw).len(), 3, "the layer-1 read is store truth");
    }
}

#[test]
fn limit_bounds_the_list_oldest_first_and_zero_lists_every_dream() {
    for (s, hands) in stacks(true) {
        let mut all = Vec::new();
        for i in 0..4 {
            hands.set(&format!("2026-03-0{}T01:00:00+00:00", i + 1));
            all.push(form(
                &s,
                dream(&format!("D{i}"), Some("unresolved")),
                &format!("d{i}"),
            ));
        }
        let mut args = UnresolvedDreams::new(SCOPE, OWNER);
        args.limit = 2;
        let two = unresolved_dreams(s.store.as_ref(), Some(s.journal.as_ref()), &args).unwrap();
        assert_eq!(ids(&two), all[..2].to_vec());
        args.limit = 0;
        let every = unresolved_dreams(s.store.as_ref(), Some(s.journal.as_ref()), &args).unwrap();
        assert_eq!(ids(&every), all);
    }
}

#[test]
fn a_blank_owner_reads_every_owner_of_the_scope_and_another_scope_reads_none() {
    for (s, _) in stacks(true) {
        let d = form(&s, dream("A", Some("unresolved")), "a");
        let any =
            unresolved_dreams(s.store.as_ref(), None, &UnresolvedDreams::new(SCOPE, " ")).unwrap();
        assert_eq!(ids(&any), [d]);
        let other = unresolved_dreams(
            s.store.as_ref(),
            None,
            &UnresolvedDreams::new("work", OWNER),
        )
        .unwrap();
        assert!(other.is_empty());
    }
}

#[test]
fn a_blank_scope_is_refused_and_the_read_writes_nothing() {
    for (s, _) in stacks(true) {
        form(&s, dream("A", Some("unresolved")), "a");
        let before = written(&s);
        let err = unresolved_dreams(
            s.store.as_ref(),
            Some(s.journal.as_ref()),
            &UnresolvedDreams::new("  ", OWNER),
        )
        .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidInput);
        assert!(err.to_string().contains("scope"));
        unresolved_dreams(
            s.store.as_ref(),
            Some(s.journal.as_ref()),
            &UnresolvedDreams::new(SCOPE, OWNER),
        )
        .unwrap();
        assert_eq!(written(&s), before, "a pure read");
    }
}
