//! The `stores` group: every structured contract sentence of the `TripleStore`
//! trait (canonicalization, scope and owner rules, time filters, limit, order and
//! ties, id lookups, id idempotency, refusals, in-place window changes, the change
//! feed).
//!
//! Spec: api.md "TripleAssertion", "TripleQuery", "TripleStore protocol"; stores.md
//! "Shared behavior"; spec README "Our rules".

use crate::check;
use crate::harness::{Check, CheckResult, StoreFactory, ensure, ensure_eq, expect_kind, ok};
use crate::rewrites::{
    digest_rewrite_refuses_a_row_that_is_not_a_record_digest,
    digest_rewrite_refuses_a_row_that_moved, digest_rewrite_replaces_the_reading_in_place,
};
use crate::rows::{all_rows, ids, snapshot, unchanged};
use am_triples::{ErrorKind, Order, TripleAssertion, TripleQuery, TripleStore};
use serde_json::Value;

const T0: &str = "2026-01-01T00:00:00.000000+00:00";
const T1: &str = "2026-01-01T01:00:00.000000+00:00";
const T2: &str = "2026-01-01T02:00:00.000000+00:00";
const T3: &str = "2026-01-01T03:00:00.000000+00:00";

/// Every check of the group, with the capability each needs.
pub fn checks() -> Vec<Check<dyn StoreFactory>> {
    vec![
        check!(terms_are_trimmed_and_lowercased),
        check!(literal_object_keeps_its_case),
        check!(object_filter_matches_literal_after_trim_and_others_after_canonicalization),
        check!(scope_defaults_to_run_and_is_lowercased),
        check!(blank_owner_is_none),
        check!(owner_none_means_any_owner),
        check!(observed_at_defaults_to_now),
        check!(timestamps_are_stored_in_canonical_utc),
        check!(since_is_inclusive_across_offsets),
        check!(until_is_inclusive_across_offsets),
        check!(active_at_includes_valid_from_and_excludes_valid_until),
        check!(active_at_treats_missing_ends_as_open),
        check!(bad_write_timestamp_is_invalid_input_and_writes_nothing),
        check!(bad_query_timestamp_is_invalid_input),
        check!(limit_zero_is_unbounded),
        check!(negative_limit_is_unbounded),
        check!(default_limit_is_100),
        check!(limit_applies_after_ordering),
        check!(order_defaults_to_newest_first),
        check!(order_asc_is_oldest_first),
        check!(ties_follow_insertion_order_in_query_direction),
        check!(assertion_ids_return_only_those_rows),
        check!(assertion_ids_still_apply_other_filters),
        check!(add_returns_ids_in_input_order_and_stamps_missing_ones),
        check!(readding_an_id_is_a_noop_that_returns_the_id),
        check!(refused_batch_writes_nothing),
        check!(provenance_and_attributes_round_trip),
        check!(visit_narrow_lends_the_rows_query_narrow_returns),
        check!(close_assertion_ends_an_open_window, CloseAssertion),
        check!(
            close_assertion_on_closed_window_changes_nothing,
            CloseAssertion
        ),
        check!(close_assertion_unknown_id_is_false, CloseAssertion),
        check!(
            close_assertion_refuses_empty_or_bad_arguments,
            CloseAssertion
        ),
        check!(close_assertion_touches_nothing_else, CloseAssertion),
        check!(narrow_assertion_moves_a_closed_end_earlier, NarrowAssertion),
        check!(
            narrow_assertion_never_widens_comparing_instants,
            NarrowAssertion
        ),
        check!(narrow_assertion_refuses_an_open_window, NarrowAssertion),
        check!(narrow_assertion_unknown_id_is_false, NarrowAssertion),
        check!(
            narrow_assertion_refuses_empty_or_bad_arguments,
            NarrowAssertion
        ),
        check!(change_feed_cursor_never_repeats_or_skips, ChangeFeed),
        check!(change_feed_filters_by_scope_and_owner, ChangeFeed),
        check!(change_feed_cursor_stays_when_nothing_is_new, ChangeFeed),
        check!(change_feed_zero_limit_is_invalid_input, ChangeFeed),
        check!(
            change_feed_head_is_the_cursor_after_the_newest_row,
            ChangeFeed
        ),
        check!(digest_rewrite_replaces_the_reading_in_place, DigestRewrite),
        check!(digest_rewrite_refuses_a_row_that_moved, DigestRewrite),
        check!(
            digest_rewrite_refuses_a_row_that_is_not_a_record_digest,
            DigestRewrite
        ),
    ]
}

// ---------------------------------------------------------------------------
// Helpers of this group (the row helpers it shares with `rewrites` and
// `vectors` are in `rows`).

/// Open a fresh store without an embedder.
pub(crate) fn fresh(f: &dyn StoreFactory) -> Result<Box<dyn TripleStore>, String> {
    ok("open a fresh store", f.open(None))
}

fn at(s: &str, p: &str, o: &str, observed_at: &str, id: &str) -> TripleAssertion {
    TripleAssertion::new(s, p, o)
        .with_observed_at(observed_at)
        .with_id(id)
}

fn query(s: &dyn TripleStore, q: TripleQuery) -> Result<Vec<TripleAssertion>, String> {
    ok("query", s.query(&q))
}

fn q() -> TripleQuery {
    TripleQuery {
        limit: 0,
        order: Order::Asc,
        ..TripleQuery::default()
    }
}

fn add(s: &dyn TripleStore, rows: &[TripleAssertion]) -> Result<Vec<String>, String> {
    ok("add", s.add(rows))
}

/// Three rows at T0, T1, T2 with ids a, b, c.
fn three(s: &dyn TripleStore) -> CheckResult {
    add(
        s,
        &[
            at("alice", "knows", "bob", T0, "a"),
            at("alice", "knows", "carol", T1, "b"),
            at("alice", "knows", "dave", T2, "c"),
        ],
    )
    .map(drop)
}

// ---------------------------------------------------------------------------
// Canonicalization.

/// `add` trims and lowercases subject, predicate and object; queries
/// canonicalize their terms the same way.
pub fn terms_are_trimmed_and_lowercased(f: &dyn StoreFactory) -> CheckResult {
    let s = fresh(f)?;
    let mut raw = TripleAssertion::new("x", "y", "z").with_observed_at(T0);
    raw.subject = "  Alice ".into();
    raw.predicate = "KNOWS".into();
    raw.object = " Bob\t".into();
    add(&*s, &[raw])?;
    let rows = query(
        &*s,
        TripleQuery {
            subject: Some(" ALICE".into()),
            predicate: Some("Knows ".into()),
            object: Some("BOB".into()),
            ..q()
        },
    )?;
    ensure_eq("rows matching the canonical terms", rows.len(), 1)?;
    let r = &rows[0];
    ensure_eq(
        "stored terms",
        (r.subject.as_str(), r.predicate.as_str(), r.object.as_str()),
        ("alice", "knows", "bob"),
    )
}

/// An assertion with `attributes.literal` keeps its object's case (trimmed only).
pub fn literal_object_keeps_its_case(f: &dyn StoreFactory) -> CheckResult {
    let s = fresh(f)?;
    let mut lit = TripleAssertion::new_literal("Report", "dcterms:title", "x").with_observed_at(T0);
    lit.object = "  Report Q3 ".into();
    add(&*s, &[lit])?;
    let rows = all_rows(&*s)?;
    ensure_eq("rows", rows.len(), 1)?;
    ensure_eq("literal object", rows[0].object.as_str(), "Report Q3")?;
    ensure_eq("subject", rows[0].subject.as_str(), "report")
}

/// Our rule: a query's `object` matches a literal row when equal after trimming,
/// and any other row when equal after canonicalization.
pub fn object_filter_matches_literal_after_trim_and_others_after_canonicalization(
    f: &dyn StoreFactory,
) -> CheckResult {
    let s = fresh(f)?;
    add(
        &*s,
        &[
            TripleAssertion::new_literal("r", "title", "Report Q3")
                .with_observed_at(T0)
                .with_id("lit"),
            at("alice", "knows", "bob", T1, "plain"),
        ],
    )?;
    let by_object = |o: &str| {
        query(
            &*s,
            TripleQuery {
                object: Some(o.into()),
                ..q()
            },
        )
        .map(|r| ids(&r))
    };
    ensure_eq(
        "literal, exact after trim",
        by_object(" Report Q3 ")?,
        vec!["lit".to_owned()],
    )?;
    ensure_eq(
        "literal, other case",
        by_object("report q3")?,
        Vec::<String>::new(),
    )?;
    ensure_eq(
        "plain, other case",
        by_object(" BOB ")?,
        vec!["plain".to_owned()],
    )
}

/// The scope is lowercased; a missing or blank scope is `run`.
pub fn scope_defaults_to_run_and_is_lowercased(f: &dyn StoreFactory) -> CheckResult {
    let s = fresh(f)?;
    let mut blank = at("a", "b", "c", T0, "blank");
    blank.scope = "  ".into();
    let mut upper = at("a", "b", "c", T1, "upper");
    upper.scope = " Session ".into();
    add(&*s, &[blank, upper])?;
    let rows = all_rows(&*s)?;
    ensure_eq(
        "stored scopes",
        rows.iter().map(|r| r.scope.as_str()).collect::<Vec<_>>(),
        vec!["run", "session"],
    )?;
    let by_scope = |sc: &str| {
        query(
            &*s,
            TripleQuery {
                scope: Some(sc.into()),
                ..q()
            },
        )
        .map(|r| ids(&r))
    };
    ensure_eq("scope RUN", by_scope("RUN")?, vec!["blank".to_owned()])?;
    ensure_eq(
        "scope SESSION",
        by_scope("SESSION")?,
        vec!["upper".to_owned()],
    )
}

/// An empty or blank `owner_id` is stored as none.
pub fn blank_owner_is_none(f: &dyn StoreFactory) -> CheckResult {
    let s = fresh(f)?;
    let mut a = at("a", "b", "c", T0, "x");
    a.owner_id = Some("   ".into());
    add(&*s, &[a])?;
    ensure_eq("owner", all_rows(&*s)?[0].owner_id.clone(), None)
}

/// Our rule: `owner_id = None` in a read means any owner.
pub fn owner_none_means_any_owner(f: &dyn StoreFactory) -> CheckResult {
    let s = fresh(f)?;
    add(
        &*s,
        &[
            at("a", "b", "c", T0, "o1").with_owner("alice"),
            at("a", "b", "c", T1, "o2").with_owner("bob"),
            at("a", "b", "c", T2, "none"),
        ],
    )?;
    ensure_eq(
        "owner None",
        ids(&query(&*s, q())?),
        vec!["o1".to_owned(), "o2".into(), "none".into()],
    )?;
    ensure_eq(
        "owner alice",
        ids(&query(
            &*s,
            TripleQuery {
                owner_id: Some(" alice ".into()),
                ..q()
            },
        )?),
        vec!["o1".to_owned()],
    )
}

/// A missing `observed_at` becomes the time of the write.
pub fn observed_at_defaults_to_now(f: &dyn StoreFactory) -> CheckResult {
    let s = fresh(f)?;
    let before = am_triples::timestamp::now_utc();
    add(
        &*s,
        &[TripleAssertion::new("a", "b", "c").with_observed_at("")],
    )?;
    let after = am_triples::timestamp::now_utc();
    let got = all_rows(&*s)?[0].observed_at.clone();
    ensure(before <= got && got <= after, || {
        format!("observed_at: expected between {before} and {after}, got {got}")
    })
}

/// Every timestamp a write carries is stored in the canonical UTC form.
pub fn timestamps_are_stored_in_canonical_utc(f: &dyn StoreFactory) -> CheckResult {
    let s = fresh(f)?;
    add(
        &*s,
        &[TripleAssertion::new("a", "b", "c")
            .with_observed_at("2026-01-01T03:00:00+02:00")
            .with_validity(Some("2026-01-01"), Some("2026-01-01T05:30:00.25Z"))],
    )?;
    let r = &all_rows(&*s)?[0];
    ensure_eq(
        "timestamps",
        (
            r.observed_at.as_str(),
            r.valid_from.as_deref(),
            r.valid_until.as_deref(),
        ),
        (T1, Some(T0), Some("2026-01-01T05:30:00.250000+00:00")),
    )
}

/// `since` keeps `observed_at >= since`, compared as instants whatever the offset.
pub fn since_is_inclusive_across_offsets(f: &dyn StoreFactory) -> CheckResult {
    let s = fresh(f)?;
    three(&*s)?;
    let rows = query(
        &*s,
        TripleQuery {
            since: Some("2026-01-01T03:00:00+02:00".into()), // = T1
            ..q()
        },
    )?;
    ensure_eq(
        "since T1 (+02:00)",
        ids(&rows),
        vec!["b".to_owned(), "c".into()],
    )
}

/// `until` keeps `observed_at <= until`, compared as instants whatever the offset.
pub fn until_is_inclusive_across_offsets(f: &dyn StoreFactory) -> CheckResult {
    let s = fresh(f)?;
    three(&*s)?;
    let rows = query(
        &*s,
        TripleQuery {
            until: Some("2025-12-31T20:00:00-05:00".into()), // = T1
            ..q()
        },
    )?;
    ensure_eq(
        "until T1 (-05:00)",
        ids(&rows),
        vec!["a".to_owned(), "b".into()],
    )?;
    let both = query(
        &*s,
        TripleQuery {
            since: Some("2026-01-01T01:00:00Z".into()),
            until: Some("2026-01-01T01:00:00".into()),
            ..q()
        },
    )?;
    ensure_eq("since = until = T1", ids(&both), vec!["b".to_owned()])
}

/// `active_at` keeps rows with `valid_from <= at < valid_until` (instants).
pub fn active_at_includes_valid_from_and_excludes_valid_until(f: &dyn StoreFactory) -> CheckResult {
    let s = fresh(f)?;
    add(
        &*s,
        &[at("a", "b", "c", T0, "w").with_validity(Some(T1), Some(T2))],
    )?;
    let active = |t: &str| {
        query(
            &*s,
            TripleQuery {
                active_at: Some(t.into()),
                ..q()
            },
        )
        .map(|r| r.len())
    };
    ensure_eq(
        "at valid_from (+01:00)",
        active("2026-01-01T02:00:00+01:00")?,
        1,
    )?;
    ensure_eq(
        "just before valid_from",
        active("2026-01-01T00:59:59.999999Z")?,
        0,
    )?;
    ensure_eq("inside the window", active("2026-01-01T01:30:00Z")?, 1)?;
    ensure_eq(
        "at valid_until (-01:00)",
        active("2026-01-01T01:00:00-01:00")?,
        0,
    )
}

/// A missing `valid_from` or `valid_until` leaves that end of the window open.
pub fn active_at_treats_missing_ends_as_open(f: &dyn StoreFactory) -> CheckResult {
    let s = fresh(f)?;
    add(
        &*s,
        &[
            at("a", "b", "c", T0, "open"),
            at("a", "b", "c", T0, "from").with_validity(Some(T2), None),
            at("a", "b", "c", T0, "until").with_validity(None, Some(T2)),
        ],
    )?;
    let active = |t: &str| {
        query(
            &*s,
            TripleQuery {
                active_at: Some(t.into()),
                ..q()
            },
        )
        .map(|r| ids(&r))
    };
    ensure_eq(
        "at 1900",
        active("1900-01-01T00:00:00Z")?,
        vec!["open".to_owned(), "until".into()],
    )?;
    ensure_eq(
        "at 2100",
        active("2100-01-01T00:00:00Z")?,
        vec!["open".to_owned(), "from".into()],
    )
}

/// A write timestamp that is not a timestamp is `InvalidInput` and writes nothing.
pub fn bad_write_timestamp_is_invalid_input_and_writes_nothing(
    f: &dyn StoreFactory,
) -> CheckResult {
    let s = fresh(f)?;
    three(&*s)?;
    let before = snapshot(&*s)?;
    for (field, a) in [
        (
            "observed_at",
            TripleAssertion::new("x", "y", "z").with_observed_at("yesterday"),
        ),
        (
            "valid_from",
            TripleAssertion::new("x", "y", "z").with_validity(Some("2026-13-01"), None),
        ),
        (
            "valid_until",
            TripleAssertion::new("x", "y", "z").with_validity(None, Some("soon")),
        ),
    ] {
        expect_kind(field, s.add(&[a]), ErrorKind::InvalidInput)?;
        unchanged(field, &*s, &before)?;
    }
    Ok(())
}

/// A query timestamp that is not a timestamp is `InvalidInput`, never an empty answer.
pub fn bad_query_timestamp_is_invalid_input(f: &dyn StoreFactory) -> CheckResult {
    let s = fresh(f)?;
    three(&*s)?;
    for (field, query) in [
        (
            "since",
            TripleQuery {
                since: Some("last week".into()),
                ..q()
            },
        ),
        (
            "until",
            TripleQuery {
                until: Some("2026-02-30".into()),
                ..q()
            },
        ),
        (
            "active_at",
            TripleQuery {
                active_at: Some("now".into()),
                ..q()
            },
        ),
    ] {
        expect_kind(field, s.query(&query), ErrorKind::InvalidInput)?;
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// Limit, order, ties.

fn many(s: &dyn TripleStore, n: usize) -> CheckResult {
    let rows: Vec<_> = (0..n)
        .map(|i| at("a", "b", &format!("o{i}"), T0, &format!("id{i:03}")))
        .collect();
    add(s, &rows).map(drop)
}

/// `limit = 0` returns every matching row.
pub fn limit_zero_is_unbounded(f: &dyn StoreFactory) -> CheckResult {
    let s = fresh(f)?;
    many(&*s, 120)?;
    ensure_eq(
        "rows with limit 0",
        query(&*s, TripleQuery { limit: 0, ..q() })?.len(),
        120,
    )
}

/// A negative `limit` returns every matching row.
pub fn negative_limit_is_unbounded(f: &dyn StoreFactory) -> CheckResult {
    let s = fresh(f)?;
    many(&*s, 120)?;
    ensure_eq(
        "rows with limit -1",
        query(&*s, TripleQuery { limit: -1, ..q() })?.len(),
        120,
    )
}

/// The default `limit` is 100.
pub fn default_limit_is_100(f: &dyn StoreFactory) -> CheckResult {
    let s = fresh(f)?;
    many(&*s, 101)?;
    ensure_eq(
        "rows with the default limit",
        query(&*s, TripleQuery::default())?.len(),
        100,
    )
}

/// `limit` applies after ordering: the first rows in the query's order are kept.
pub fn limit_applies_after_ordering(f: &dyn StoreFactory) -> CheckResult {
    let s = fresh(f)?;
    add(
        &*s,
        &[
            at("a", "b", "c", T2, "late"),
            at("a", "b", "c", T0, "early"),
            at("a", "b", "c", T3, "latest"),
            at("a", "b", "c", T1, "mid"),
        ],
    )?;
    ensure_eq(
        "asc, limit 2",
        ids(&query(
            &*s,
            TripleQuery {
                limit: 2,
                order: Order::Asc,
                ..q()
            },
        )?),
        vec!["early".to_owned(), "mid".into()],
    )?;
    ensure_eq(
        "desc, limit 2",
        ids(&query(
            &*s,
            TripleQuery {
                limit: 2,
                order: Order::Desc,
                ..q()
            },
        )?),
        vec!["latest".to_owned(), "late".into()],
    )
}

/// Without `order`, results are newest `observed_at` first.
pub fn order_defaults_to_newest_first(f: &dyn StoreFactory) -> CheckResult {
    let s = fresh(f)?;
    add(
        &*s,
        &[
            at("a", "b", "c", T1, "b"),
            at("a", "b", "c", T2, "c"),
            at("a", "b", "c", T0, "a"),
        ],
    )?;
    ensure_eq(
        "default order",
        ids(&query(&*s, TripleQuery::default())?),
        vec!["c".to_owned(), "b".into(), "a".into()],
    )
}

/// `order = asc` returns oldest `observed_at` first.
pub fn order_asc_is_oldest_first(f: &dyn StoreFactory) -> CheckResult {
    let s = fresh(f)?;
    add(
        &*s,
        &[
            at("a", "b", "c", T1, "b"),
            at("a", "b", "c", T2, "c"),
            at("a", "b", "c", T0, "a"),
        ],
    )?;
    ensure_eq(
        "asc order",
        ids(&query(&*s, q())?),
        vec!["a".to_owned(), "b".into(), "c".into()],
    )
}

/// Our rule: equal `observed_at` ties break by insertion order in the query's
/// direction (asc: oldest inserted first; desc: newest inserted first).
pub fn ties_follow_insertion_order_in_query_direction(f: &dyn StoreFactory) -> CheckResult {
    let s = fresh(f)?;
    // Two batches, so insertion order spans calls; the instants are equal but
    // written with different offsets.
    add(
        &*s,
        &[
            at("a", "b", "c", "2026-01-01T01:00:00+01:00", "t1"),
            at("a", "b", "c", T1, "later"),
            at("a", "b", "c", T0, "t2"),
        ],
    )?;
    add(&*s, &[at("a", "b", "c", "2025-12-31T23:00:00-01:00", "t3")])?;
    ensure_eq(
        "asc ties",
        ids(&query(&*s, q())?),
        vec!["t1".to_owned(), "t2".into(), "t3".into(), "later".into()],
    )?;
    ensure_eq(
        "desc ties",
        ids(&query(
            &*s,
            TripleQuery {
                order: Order::Desc,
                ..q()
            },
        )?),
        vec!["later".to_owned(), "t3".into(), "t2".into(), "t1".into()],
    )
}

// ---------------------------------------------------------------------------
// Ids.

/// `assertion_ids` returns only the named rows (unknown ids match nothing).
pub fn assertion_ids_return_only_those_rows(f: &dyn StoreFactory) -> CheckResult {
    let s = fresh(f)?;
    three(&*s)?;
    let rows = query(
        &*s,
        TripleQuery {
            assertion_ids: Some(vec!["c".into(), " a ".into(), "missing".into()]),
            ..q()
        },
    )?;
    ensure_eq("id lookup", ids(&rows), vec!["a".to_owned(), "c".into()])
}

/// Every other filter still applies to an id lookup.
pub fn assertion_ids_still_apply_other_filters(f: &dyn StoreFactory) -> CheckResult {
    let s = fresh(f)?;
    three(&*s)?;
    let rows = query(
        &*s,
        TripleQuery {
            assertion_ids: Some(vec!["a".into(), "b".into(), "c".into()]),
            object: Some("carol".into()),
            ..q()
        },
    )?;
    ensure_eq("ids + object", ids(&rows), vec!["b".to_owned()])?;
    let rows = query(
        &*s,
        TripleQuery {
            assertion_ids: Some(vec!["a".into(), "b".into(), "c".into()]),
            since: Some(T1.into()),
            limit: 1,
            order: Order::Asc,
            ..q()
        },
    )?;
    ensure_eq("ids + since + limit", ids(&rows), vec!["b".to_owned()])
}

/// `add` returns one id per assertion in input order, stamping an id on those
/// without one; every result carries its id.
pub fn add_returns_ids_in_input_order_and_stamps_missing_ones(f: &dyn StoreFactory) -> CheckResult {
    let s = fresh(f)?;
    let got = add(
        &*s,
        &[
            at("a", "b", "c", T0, "first"),
            TripleAssertion::new("a", "b", "d").with_observed_at(T1),
            at("a", "b", "e", T2, " third "),
        ],
    )?;
    ensure_eq("number of ids", got.len(), 3)?;
    ensure_eq(
        "explicit ids",
        (got[0].as_str(), got[2].as_str()),
        ("first", "third"),
    )?;
    ensure(!got[1].trim().is_empty(), || {
        "stamped id: expected a non-empty id, got an empty one".into()
    })?;
    ensure_eq("ids on results", ids(&all_rows(&*s)?), got)
}

/// Re-adding an assertion whose id is stored writes nothing and returns the id.
pub fn readding_an_id_is_a_noop_that_returns_the_id(f: &dyn StoreFactory) -> CheckResult {
    let s = fresh(f)?;
    add(&*s, &[at("a", "b", "original", T0, "dup")])?;
    let before = snapshot(&*s)?;
    let got = add(&*s, &[at("x", "y", "replacement", T1, "dup")])?;
    ensure_eq("returned ids", got, vec!["dup".to_owned()])?;
    unchanged("re-add of a stored id", &*s, &before)?;
    let got = add(
        &*s,
        &[
            at("a", "b", "new", T2, "fresh"),
            at("a", "b", "again", T2, "dup"),
        ],
    )?;
    ensure_eq(
        "mixed batch ids",
        got,
        vec!["fresh".to_owned(), "dup".into()],
    )?;
    ensure_eq(
        "rows after mixed batch",
        all_rows(&*s)?
            .iter()
            .map(|r| r.object.clone())
            .collect::<Vec<_>>(),
        vec!["original".to_owned(), "new".into()],
    )
}

/// A batch with one bad assertion is refused whole: zero rows written.
pub fn refused_batch_writes_nothing(f: &dyn StoreFactory) -> CheckResult {
    let s = fresh(f)?;
    three(&*s)?;
    let before = snapshot(&*s)?;
    let batch = [
        at("good", "row", "one", T3, "g1"),
        TripleAssertion::new("bad", "row", "two").with_observed_at("not a time"),
        at("good", "row", "three", T3, "g3"),
    ];
    expect_kind("mixed batch", s.add(&batch), ErrorKind::InvalidInput)?;
    unchanged("mixed batch", &*s, &before)?;
    let mut bad_conf = at("x", "y", "z", T3, "nan");
    bad_conf.confidence = Some(f64::NAN);
    expect_kind(
        "NaN confidence",
        s.add(&[bad_conf]),
        ErrorKind::InvalidInput,
    )?;
    unchanged("NaN confidence", &*s, &before)
}

/// `confidence`, `provenance` and `attributes` come back as written.
pub fn provenance_and_attributes_round_trip(f: &dyn StoreFactory) -> CheckResult {
    let s = fresh(f)?;
    let prov = serde_json::json!({"source": "chat", "span": [1, 2], "nested": {"k": null}});
    let attrs = serde_json::json!({"note": "Kept As Written", "n": 1.5, "flag": false});
    let (Value::Object(p), Value::Object(a)) = (prov.clone(), attrs.clone()) else {
        return Err("fixture: expected JSON objects".into());
    };
    add(
        &*s,
        &[at("a", "b", "c", T0, "x")
            .with_confidence(0.25)
            .with_provenance(p)
            .with_attributes(a)],
    )?;
    let r = &all_rows(&*s)?[0];
    ensure_eq("confidence", r.confidence, Some(0.25))?;
    ensure_eq("provenance", Value::Object(r.provenance.clone()), prov)?;
    ensure_eq("attributes", Value::Object(r.attributes.clone()), attrs)
}

/// `visit_narrow` lends the rows `query_narrow` returns, in its order, each
/// field equal to that row's (the JSON cut to the kept keys), for a pair
/// read, a limited read, a selective read and an object-filtered one; so
/// does `visit_narrow_text`, its kept attributes read by position
/// (`NarrowRow::lend_attributes`).
pub fn visit_narrow_lends_the_rows_query_narrow_returns(f: &dyn StoreFactory) -> CheckResult {
    let s = fresh(f)?;
    let attrs = |kind: &str, n: i64| {
        serde_json::json!({"record_kind": kind, "n": n, "skip": {"deep": [1, "x"]},
                           "title": format!("T{n} \"quoted\"\tline"), "literal": true})
        .as_object()
        .cloned()
        .unwrap_or_default()
    };
    let prov = serde_json::json!({"source": "chat", "session_id": "s1"})
        .as_object()
        .cloned()
        .unwrap_or_default();
    let mut rows = Vec::new();
    for (i, t) in [T2, T0, T1, T0].iter().enumerate() {
        let n = i64::try_from(i).unwrap_or_default();
        rows.push(
            at(
                &format!("ex:s{i}"),
                "dcterms:abstract",
                &format!("Text {i}"),
                t,
                &format!("v{i}"),
            )
            .with_scope("life")
            .with_owner("o1")
            .with_provenance(prov.clone())
            .with_attributes(attrs(["lesson", "episode"][i % 2], n)),
        );
    }
    rows.push(
        at("ex:s0", "supports", "ex:s1", T1, "e0")
            .with_scope("life")
            .with_owner("o1"),
    );
    rows.push(at("ex:x", "knows", "ex:y", T0, "other").with_scope("work"));
    add(&*s, &rows)?;
    let kept = ["record_kind", "title", "missing"];
    let keep = am_triples::Narrow {
        attributes: &kept,
        provenance: &["session_id"],
    };
    let pair = TripleQuery {
        scope: Some("life".into()),
        owner_id: Some("o1".into()),
        ..q()
    };
    let queries = [
        ("the pair", pair.clone()),
        (
            "the pair, newest two",
            TripleQuery {
                limit: 2,
                order: Order::Desc,
                ..pair.clone()
            },
        ),
        (
            "one subject",
            TripleQuery {
                subject: Some("ex:s0".into()),
                ..pair.clone()
            },
        ),
        (
            "an object",
            // `at` builds the row before `literal` joins its attributes, so its
            // object is stored canonical ("text 2"), and a literal row's object
            // matches when equal after trimming.
            TripleQuery {
                object: Some("text 2".into()),
                ..pair.clone()
            },
        ),
        ("everything", q()),
    ];
    for (name, query) in queries {
        let want = ok("query_narrow", s.query_narrow(&query, keep))?;
        let mut lent: Vec<String> = Vec::new();
        ok(
            "visit_narrow",
            s.visit_narrow(&query, keep, &mut |r| {
                lent.push(format!(
                    "{:?} {} {} {} {} {} {}",
                    r.assertion_id,
                    r.subject,
                    r.predicate,
                    r.object,
                    r.observed_at,
                    Value::Object(r.attributes.clone()),
                    Value::Object(r.provenance.clone())
                ));
            }),
        )?;
        let want: Vec<String> = want
            .iter()
            .map(|r| {
                format!(
                    "{:?} {} {} {} {} {} {}",
                    r.assertion_id.as_deref(),
                    r.subject,
                    r.predicate,
                    r.object,
                    r.observed_at,
                    Value::Object(r.attributes.clone()),
                    Value::Object(r.provenance.clone())
                )
            })
            .collect();
        if want.is_empty() {
            return Err(format!("{name}: the fixture reads no row"));
        }
        ensure_eq(name, lent, want.clone())?;
        // `visit_narrow_text`: the same rows, their kept attributes read by
        // position (from the lent text, or from the map when the store
        // lends none) equal to the decoded ones.
        let by_key = |attrs: &[(&str, Value)]| {
            attrs
                .iter()
                .map(|(k, v)| ((*k).to_owned(), v.clone()))
                .collect::<std::collections::BTreeMap<String, Value>>()
        };
        let mut text_lent: Vec<String> = Vec::new();
        ok(
            "visit_narrow_text",
            s.visit_narrow_text(&query, keep, &mut |r| {
                let attrs: Vec<(&str, Value)> = kept
                    .iter()
                    .zip(r.lend_attributes(&kept))
                    .filter_map(|(k, v)| v.map(|v| (*k, v.to_value())))
                    .collect();
                text_lent.push(format!(
                    "{:?} {} {} {} {} {:?} {}",
                    r.assertion_id,
                    r.subject,
                    r.predicate,
                    r.object,
                    r.observed_at,
                    by_key(&attrs),
                    Value::Object(r.provenance.clone())
                ));
            }),
        )?;
        let want_text: Vec<String> = ok("query_narrow", s.query_narrow(&query, keep))?
            .iter()
            .map(|r| {
                let attrs: Vec<(&str, Value)> = kept
                    .iter()
                    .filter_map(|k| r.attributes.get(*k).map(|v| (*k, v.clone())))
                    .collect();
                format!(
                    "{:?} {} {} {} {} {:?} {}",
                    r.assertion_id.as_deref(),
                    r.subject,
                    r.predicate,
                    r.object,
                    r.observed_at,
                    by_key(&attrs),
                    Value::Object(r.provenance.clone())
                )
            })
            .collect();
        ensure_eq(&format!("{name} (text)"), text_lent, want_text)?;
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// In-place window changes.

fn one_window(s: &dyn TripleStore, valid_until: Option<&str>) -> CheckResult {
    add(
        s,
        &[at("a", "b", "c", T0, "w").with_validity(Some(T0), valid_until)],
    )
    .map(drop)
}

fn end_of(s: &dyn TripleStore) -> Result<Option<String>, String> {
    Ok(all_rows(s)?
        .into_iter()
        .find(|r| r.assertion_id.as_deref() == Some("w"))
        .and_then(|r| r.valid_until))
}

/// `close_assertion` sets the end of an open window (canonical form), so
/// `active_at` stops returning the row from that instant.
pub fn close_assertion_ends_an_open_window(f: &dyn StoreFactory) -> CheckResult {
    let s = fresh(f)?;
    one_window(&*s, None)?;
    ensure_eq(
        "close an open window",
        ok(
            "close_assertion",
            s.close_assertion(" w ", "2026-01-01T04:00:00+02:00"),
        )?,
        true,
    )?;
    ensure_eq("valid_until", end_of(&*s)?, Some(T2.to_owned()))?;
    let active = |t: &str| {
        query(
            &*s,
            TripleQuery {
                active_at: Some(t.into()),
                ..q()
            },
        )
        .map(|r| r.len())
    };
    ensure_eq("active before the end", active(T1)?, 1)?;
    ensure_eq("active at the end", active(T2)?, 0)
}

/// `close_assertion` on an already-closed window returns `false` and changes nothing.
pub fn close_assertion_on_closed_window_changes_nothing(f: &dyn StoreFactory) -> CheckResult {
    let s = fresh(f)?;
    one_window(&*s, Some(T2))?;
    let before = snapshot(&*s)?;
    ensure_eq(
        "close a closed window",
        ok("close_assertion", s.close_assertion("w", T1))?,
        false,
    )?;
    ensure_eq(
        "close a closed window later",
        ok("close_assertion", s.close_assertion("w", T3))?,
        false,
    )?;
    unchanged("close of a closed window", &*s, &before)
}

/// `close_assertion` on an unknown id returns `false`.
pub fn close_assertion_unknown_id_is_false(f: &dyn StoreFactory) -> CheckResult {
    let s = fresh(f)?;
    one_window(&*s, None)?;
    let before = snapshot(&*s)?;
    ensure_eq(
        "unknown id",
        ok("close_assertion", s.close_assertion("nope", T1))?,
        false,
    )?;
    unchanged("close of an unknown id", &*s, &before)
}

/// `close_assertion` refuses an empty id, an empty `valid_until` or a value that is
/// not a timestamp with `InvalidInput`, writing nothing.
pub fn close_assertion_refuses_empty_or_bad_arguments(f: &dyn StoreFactory) -> CheckResult {
    let s = fresh(f)?;
    one_window(&*s, None)?;
    let before = snapshot(&*s)?;
    for (what, id, end) in [
        ("empty id", " ", T1),
        ("empty valid_until", "w", ""),
        ("non-timestamp valid_until", "w", "tomorrow"),
    ] {
        expect_kind(what, s.close_assertion(id, end), ErrorKind::InvalidInput)?;
        unchanged(what, &*s, &before)?;
    }
    Ok(())
}

/// `close_assertion` changes `valid_until` only: terms, provenance and attributes stay.
pub fn close_assertion_touches_nothing_else(f: &dyn StoreFactory) -> CheckResult {
    let s = fresh(f)?;
    let mut attrs = am_triples::JsonMap::new();
    attrs.insert("note".into(), Value::String("kept".into()));
    let mut prov = am_triples::JsonMap::new();
    prov.insert("source".into(), Value::String("chat".into()));
    add(
        &*s,
        &[at("a", "b", "c", T0, "w")
            .with_owner("o")
            .with_validity(Some(T0), None)
            .with_attributes(attrs)
            .with_provenance(prov)],
    )?;
    let mut expected = all_rows(&*s)?.remove(0);
    ok("close_assertion", s.close_assertion("w", T3))?;
    expected.valid_until = Some(T3.to_owned());
    ensure_eq("row after close", all_rows(&*s)?.remove(0), expected)
}

/// `narrow_assertion` moves a closed window's end earlier (`true`), canonical form.
pub fn narrow_assertion_moves_a_closed_end_earlier(f: &dyn StoreFactory) -> CheckResult {
    let s = fresh(f)?;
    one_window(&*s, Some(T3))?;
    ensure_eq(
        "narrow earlier",
        ok(
            "narrow_assertion",
            s.narrow_assertion("w", "2026-01-01T03:00:00+01:00"),
        )?,
        true,
    )?;
    ensure_eq("valid_until", end_of(&*s)?, Some(T2.to_owned()))?;
    ensure_eq(
        "active at the new end",
        query(
            &*s,
            TripleQuery {
                active_at: Some(T2.into()),
                ..q()
            },
        )?
        .len(),
        0,
    )
}

/// `narrow_assertion` never widens: an end at or after the current one (compared
/// as instants, whatever the offsets) returns `false` and changes nothing.
pub fn narrow_assertion_never_widens_comparing_instants(f: &dyn StoreFactory) -> CheckResult {
    let s = fresh(f)?;
    one_window(&*s, Some(T2))?;
    let before = snapshot(&*s)?;
    for (what, end) in [
        ("same instant, other offset", "2026-01-01T04:00:00+02:00"),
        ("later instant", T3),
        // Sorts before T2 as text, but is a later instant.
        ("later instant, west offset", "2026-01-01T00:30:00-02:00"),
    ] {
        ensure_eq(what, ok(what, s.narrow_assertion("w", end))?, false)?;
        unchanged(what, &*s, &before)?;
    }
    Ok(())
}

/// `narrow_assertion` on an open window is `InvalidInput` (closing is
/// `close_assertion`'s job) and writes nothing.
pub fn narrow_assertion_refuses_an_open_window(f: &dyn StoreFactory) -> CheckResult {
    let s = fresh(f)?;
    one_window(&*s, None)?;
    let before = snapshot(&*s)?;
    expect_kind(
        "narrow an open window",
        s.narrow_assertion("w", T1),
        ErrorKind::InvalidInput,
    )?;
    unchanged("narrow of an open window", &*s, &before)
}

/// `narrow_assertion` on an unknown id returns `false`.
pub fn narrow_assertion_unknown_id_is_false(f: &dyn StoreFactory) -> CheckResult {
    let s = fresh(f)?;
    one_window(&*s, Some(T2))?;
    ensure_eq(
        "unknown id",
        ok("narrow_assertion", s.narrow_assertion("nope", T1))?,
        false,
    )
}

/// `narrow_assertion` refuses an empty argument or a non-timestamp with
/// `InvalidInput`, writing nothing.
pub fn narrow_assertion_refuses_empty_or_bad_arguments(f: &dyn StoreFactory) -> CheckResult {
    let s = fresh(f)?;
    one_window(&*s, Some(T2))?;
    let before = snapshot(&*s)?;
    for (what, id, end) in [
        ("empty id", "", T1),
        ("empty valid_until", "w", " "),
        ("non-timestamp valid_until", "w", "2026-01-01T99:00"),
    ] {
        expect_kind(what, s.narrow_assertion(id, end), ErrorKind::InvalidInput)?;
        unchanged(what, &*s, &before)?;
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// The change feed.

fn feed(
    s: &dyn TripleStore,
    cursor: i64,
    scope: Option<&str>,
    owner: Option<&str>,
    limit: usize,
) -> Result<am_triples::FeedPage, String> {
    ok(
        "assertions_after",
        s.assertions_after(cursor, scope, owner, limit),
    )
}

/// Paging the feed (with writes between pages) yields every row exactly once, in
/// insertion order, with strictly increasing positions.
pub fn change_feed_cursor_never_repeats_or_skips(f: &dyn StoreFactory) -> CheckResult {
    let s = fresh(f)?;
    let mut written = Vec::new();
    let mut seen = Vec::new();
    let mut positions: Vec<i64> = Vec::new();
    let mut cursor = 0;
    for round in 0..4 {
        // Observed times run backwards so insertion order differs from time order.
        let batch: Vec<_> = (0..3)
            .map(|i| {
                let id = format!("r{round}-{i}");
                at(
                    "a",
                    "b",
                    &id,
                    &format!("2026-01-0{}T00:00:00Z", 9 - round),
                    &id,
                )
            })
            .collect();
        written.extend(add(&*s, &batch)?);
        let page = feed(&*s, cursor, None, None, 2)?;
        positions.extend(page.rows.iter().map(|(p, _)| *p));
        seen.extend(ids(&page
            .rows
            .into_iter()
            .map(|(_, r)| r)
            .collect::<Vec<_>>()));
        cursor = page.next_cursor;
    }
    loop {
        let page = feed(&*s, cursor, None, None, 2)?;
        if page.rows.is_empty() {
            break;
        }
        positions.extend(page.rows.iter().map(|(p, _)| *p));
        seen.extend(ids(&page
            .rows
            .into_iter()
            .map(|(_, r)| r)
            .collect::<Vec<_>>()));
        cursor = page.next_cursor;
    }
    ensure_eq("feed order", seen, written)?;
    ensure(positions.windows(2).all(|w| w[0] < w[1]), || {
        format!("feed positions: expected strictly increasing, got {positions:?}")
    })
}

/// The feed's scope and owner filters keep only matching rows, and the cursor
/// still moves past the rows they drop.
pub fn change_feed_filters_by_scope_and_owner(f: &dyn StoreFactory) -> CheckResult {
    let s = fresh(f)?;
    add(
        &*s,
        &[
            at("a", "b", "c", T0, "s-x")
                .with_scope("session")
                .with_owner("x"),
            at("a", "b", "c", T0, "r-x").with_owner("x"),
            at("a", "b", "c", T0, "s-y")
                .with_scope("session")
                .with_owner("y"),
            at("a", "b", "c", T0, "s-x2")
                .with_scope("session")
                .with_owner("x"),
            at("a", "b", "c", T0, "r-none"),
        ],
    )?;
    let page = feed(&*s, 0, Some("SESSION"), Some("x"), 10)?;
    let got = ids(&page.rows.iter().map(|(_, r)| r.clone()).collect::<Vec<_>>());
    ensure_eq(
        "scope session, owner x",
        got,
        vec!["s-x".to_owned(), "s-x2".into()],
    )?;
    let page = feed(&*s, 0, Some("session"), None, 10)?;
    ensure_eq("scope session, any owner", page.rows.len(), 3)?;
    let rest = feed(&*s, page.next_cursor, Some("session"), None, 10)?;
    ensure_eq("after the last session row", rest.rows.len(), 0)?;
    let all = feed(&*s, 0, None, None, 10)?;
    ensure_eq("no filter", all.rows.len(), 5)?;
    let last = feed(&*s, all.next_cursor, None, None, 10)?;
    ensure_eq("cursor after everything", last.rows.len(), 0)
}

/// With nothing new after the cursor, the page is empty and the cursor unchanged.
pub fn change_feed_cursor_stays_when_nothing_is_new(f: &dyn StoreFactory) -> CheckResult {
    let s = fresh(f)?;
    let empty = feed(&*s, 0, None, None, 5)?;
    ensure_eq("empty store", (empty.rows.len(), empty.next_cursor), (0, 0))?;
    three(&*s)?;
    let page = feed(&*s, 0, None, None, 5)?;
    let again = feed(&*s, page.next_cursor, None, None, 5)?;
    ensure_eq(
        "nothing new",
        (again.rows.len(), again.next_cursor),
        (0, page.next_cursor),
    )
}

/// `feed_head` is the cursor after the newest row: 0 on an empty store, the
/// `next_cursor` of a read to the end after writes, and a read from it finds
/// only the rows written after it.
pub fn change_feed_head_is_the_cursor_after_the_newest_row(f: &dyn StoreFactory) -> CheckResult {
    let s = fresh(f)?;
    ensure_eq("empty store", ok("feed_head", s.feed_head())?, 0)?;
    three(&*s)?;
    let mut cursor = 0;
    loop {
        let page = feed(&*s, cursor, None, None, 2)?;
        cursor = page.next_cursor;
        if page.rows.is_empty() {
            break;
        }
    }
    let head = ok("feed_head", s.feed_head())?;
    ensure_eq("head after three rows", head, cursor)?;
    let later = add(&*s, &[at("a", "b", "late", "2026-01-05T00:00:00Z", "late")])?;
    let page = feed(&*s, head, None, None, 10)?;
    ensure_eq(
        "rows after the head",
        ids(&page.rows.into_iter().map(|(_, r)| r).collect::<Vec<_>>()),
        later,
    )
}

/// `assertions_after` with `limit = 0` is `InvalidInput`.
pub fn change_feed_zero_limit_is_invalid_input(f: &dyn StoreFactory) -> CheckResult {
    let s = fresh(f)?;
    three(&*s)?;
    expect_kind(
        "limit 0",
        s.assertions_after(0, None, None, 0),
        ErrorKind::InvalidInput,
    )
    .map(drop)
}
