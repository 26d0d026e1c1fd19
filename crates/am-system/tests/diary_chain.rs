//! `verify_diary_chain` on both stacks, one test per sentence of its
//! contract (api.md "Diary reads and chain verification"): an intact chain
//! verifies; a tampered title, digest or timestamp breaks at that entry;
//! entries that make no chain claim fail nothing; a back-pointer naming
//! anything but the last claimed hash breaks at its entry.

mod common;

use am_system::diary_entry_hash;
use am_system::observe::diary::verify_diary_chain;
use am_triples::{JsonMap, TripleAssertion};
use common::on_both;
use serde_json::json;

/// A chained owner-direct diary row as stored: `(title, digest, at)` with its
/// hash and back-pointer.
fn entry(i: usize, title: &str, digest: &str, at: &str, prev: &str, hash: &str) -> TripleAssertion {
    let mut attrs = JsonMap::new();
    attrs.insert("record_kind".into(), json!("diary"));
    attrs.insert("literal".into(), json!(true));
    attrs.insert("title".into(), json!(title));
    attrs.insert("diary_type".into(), json!("note"));
    attrs.insert("prev_entry_hash".into(), json!(prev));
    attrs.insert("entry_hash".into(), json!(hash));
    TripleAssertion::from_dict(&json!({
        "subject": format!("ex:diary-{i}"), "predicate": "dcterms:abstract",
        "object": digest, "scope": "diary", "owner_id": "entity:castor",
        "observed_at": at, "attributes": attrs}))
    .unwrap()
}

fn at(i: usize) -> String {
    format!("2026-03-0{}T08:00:00.000000+00:00", i + 1)
}

/// Five honest entries: `(title, digest, at, prev, hash)`.
fn honest() -> Vec<(String, String, String, String, String)> {
    let mut prev = String::new();
    (0..5)
        .map(|i| {
            let (t, d, a) = (format!("Day {i}"), format!("Entry {i}."), at(i));
            let h = diary_entry_hash(&t, &d, &a);
            let row = (t, d, a, prev.clone(), h.clone());
            prev = h;
            row
        })
        .collect()
}

fn rows(chain: &[(String, String, String, String, String)]) -> Vec<TripleAssertion> {
    chain
        .iter()
        .enumerate()
        .map(|(i, (t, d, a, p, h))| entry(i, t, d, a, p, h))
        .collect()
}

#[test]
fn an_intact_chain_verifies() {
    on_both(|s| {
        s.system.add(&rows(&honest())).unwrap();
        let r = verify_diary_chain(&*s.store, "diary", "entity:castor").unwrap();
        assert!(
            r.intact && r.break_at.is_none() && r.entries == 5,
            "[{}] {r:?}",
            s.name
        );
    });
}

#[test]
fn a_tampered_title_digest_or_timestamp_breaks_at_that_entry() {
    for field in ["title", "digest", "timestamp"] {
        on_both(|s| {
            let mut chain = honest();
            let e = &mut chain[2];
            match field {
                "title" => e.0 = "Day two, rewritten".into(),
                "digest" => e.1 = "Words changed after the hash was taken.".into(),
                // Still between its neighbours, so the chain order holds.
                _ => e.2 = "2026-03-03T09:30:00.000000+00:00".into(),
            }
            s.system.add(&rows(&chain)).unwrap();
            let r = verify_diary_chain(&*s.store, "diary", "entity:castor").unwrap();
            assert!(!r.intact, "[{}] {field}: {r:?}", s.name);
            assert_eq!(
                r.break_at.as_deref(),
                Some("ex:diary-2"),
                "[{}] {field}",
                s.name
            );
            assert_eq!(r.entries, 5);
        });
    }
}

#[test]
fn entries_that_make_no_chain_claim_fail_nothing() {
    on_both(|s| {
        let mut all = rows(&honest());
        // A book projection between chained entries: no hash, no pointer.
        let mut attrs = JsonMap::new();
        attrs.insert("record_kind".into(), json!("diary"));
        attrs.insert("title".into(), json!("Projection"));
        attrs.insert("diary_type".into(), json!("note"));
        attrs.insert("entry_id".into(), json!("book:7"));
        all.push(
            TripleAssertion::from_dict(&json!({
                "subject": "ex:diary-projection", "predicate": "dcterms:abstract",
                "object": "wrote about the tides", "scope": "diary", "owner_id": "entity:castor",
                "observed_at": "2026-03-02T12:00:00.000000+00:00", "attributes": attrs}))
            .unwrap(),
        );
        s.system.add(&all).unwrap();
        let r = verify_diary_chain(&*s.store, "diary", "entity:castor").unwrap();
        assert!(r.intact, "[{}] {r:?}", s.name);
        assert_eq!(r.entries, 6);
    });
}

#[test]
fn a_back_pointer_to_anything_but_the_last_claimed_hash_breaks_at_its_entry() {
    on_both(|s| {
        let mut chain = honest();
        chain[3].3 = chain[1].4.clone(); // skips entry 2
        s.system.add(&rows(&chain)).unwrap();
        let r = verify_diary_chain(&*s.store, "diary", "entity:castor").unwrap();
        assert_eq!(
            r.break_at.as_deref(),
            Some("ex:diary-3"),
            "[{}] {r:?}",
            s.name
        );
    });
}
