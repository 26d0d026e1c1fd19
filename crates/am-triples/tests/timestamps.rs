//! The one timestamp rule: every accepted form normalizes to the instant Python's
//! `datetime.fromisoformat(...)` (naive read as UTC) gives, rendered as
//! `YYYY-MM-DDTHH:MM:SS.ffffff+00:00`; anything that is not a timestamp is
//! `InvalidInput` naming the value. Expected values were computed with Python 3.11.
//! Spec: api.md "TripleAssertion" (`observed_at`), "The memory graph" (times of a
//! revision); spec README "Our rules" (timestamps normalized at the write boundary).

use am_triples::ErrorKind;
use am_triples::timestamp::{normalize_timestamp, parse_timestamp};

/// `(input, what Python's fromisoformat + astimezone(UTC) renders)`.
const AGREED: &[(&str, &str)] = &[
    ("2026-01-01T00:00:00,5", "2026-01-01T00:00:00.500000+00:00"),
    ("2026-01-01 10:30+05:45", "2026-01-01T04:45:00.000000+00:00"),
    (
        "2026-01-01T00:00:00.1234567",
        "2026-01-01T00:00:00.123456+00:00",
    ),
    ("2026-01-01T00:00:00+02", "2025-12-31T22:00:00.000000+00:00"),
    (
        "2026-01-01T00:00:00+0200",
        "2025-12-31T22:00:00.000000+00:00",
    ),
    (
        "2026-01-01T00:00:00-00:30",
        "2026-01-01T00:30:00.000000+00:00",
    ),
    ("2024-02-29", "2024-02-29T00:00:00.000000+00:00"),
    ("2026-01-01T00:00:00.5Z", "2026-01-01T00:00:00.500000+00:00"),
    (
        "1843-12-24T23:59:59.999999-01:00",
        "1843-12-25T00:59:59.999999+00:00",
    ),
    (
        "9999-12-31T23:59:59+00:00",
        "9999-12-31T23:59:59.000000+00:00",
    ),
    ("2026-06-30T12:00", "2026-06-30T12:00:00.000000+00:00"),
];

/// Values that are not timestamps for Python either.
const REFUSED: &[&str] = &[
    "2025-02-29",
    "2026-01-01T24:00:00",
    "2026-01-01T00:00:60",
    "2026-001",
    "next tuesday",
    "2026/01/01",
    "2026-1-1",
    "2026-01-01T00:00:00+25:00",
    "2026-01-01T00:00:00 UTC",
];

#[test]
fn accepted_forms_normalize_to_pythons_instant() {
    for (input, expected) in AGREED {
        assert_eq!(normalize_timestamp(input).unwrap(), *expected, "{input}");
    }
}

#[test]
fn normalizing_is_idempotent() {
    for (_, canonical) in AGREED {
        assert_eq!(normalize_timestamp(canonical).unwrap(), *canonical);
    }
}

#[test]
fn canonical_text_order_is_instant_order() {
    let mut by_text: Vec<String> = AGREED
        .iter()
        .map(|(i, _)| normalize_timestamp(i).unwrap())
        .collect();
    by_text.sort();
    let mut by_instant: Vec<_> = AGREED
        .iter()
        .map(|(i, _)| parse_timestamp(i).unwrap())
        .collect();
    by_instant.sort();
    let rendered: Vec<String> = by_instant
        .into_iter()
        .map(am_triples::timestamp::format_utc)
        .collect();
    assert_eq!(by_text, rendered);
}

#[test]
fn non_timestamps_are_invalid_input_naming_the_value() {
    for input in REFUSED {
        let err = normalize_timestamp(input).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidInput, "{input}");
        assert!(err.to_string().contains(input), "{input}: {err}");
    }
}
