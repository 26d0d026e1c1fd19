//! [`DigestRow`]: the one typed view over a stored digest row (a
//! `TripleAssertion` whose predicate is [`DIGEST_PREDICATE`](crate::kinds::DIGEST_PREDICATE)),
//! so a faculty reads a record's kind, title, pending marker, versions and
//! references by name instead of by `attributes.get("…")`.
//!
//! A stored row is read as it is: formation writes canonical attributes, but
//! a row written through layer 1, or by another version of the library, may
//! hold anything, so every accessor states its rule. The text accessors
//! differ on purpose, each keeping the rule its callers have always had:
//!
//! | accessor | a string value is read | blank |
//! |---|---|---|
//! | [`text`](DigestRow::text) | trimmed | `None` |
//! | [`nonblank`](DigestRow::nonblank) | as stored | `None` |
//! | [`nonempty`](DigestRow::nonempty) | as stored | only `""` is `None` |
//! | [`as_stored`](DigestRow::as_stored) | as stored | kept |
//!
//! A value that is not a string is `None` for all four. The kind has two
//! readings for the same reason: [`kind`](DigestRow::kind) names the stored
//! text exactly, [`kind_trimmed`](DigestRow::kind_trimmed) trims it first; a
//! name outside [`RecordKind`] is no kind for both (its text stays readable
//! through [`kind_text`](DigestRow::kind_text)).

use crate::kinds::RecordKind;
use am_triples::assertion::json_truthy;
use am_triples::{JsonMap, TripleAssertion};
use serde_json::Value;

/// A stored digest row, read by name. `Copy`: a view, never an owner.
#[derive(Debug, Clone, Copy)]
pub(crate) struct DigestRow<'a>(&'a JsonMap);

impl<'a> DigestRow<'a> {
    /// The view of `row`.
    pub(crate) fn of(row: &'a TripleAssertion) -> DigestRow<'a> {
        DigestRow(&row.attributes)
    }

    /// The view of a row's attributes (a row lent by
    /// [`am_triples::ReadAccelerator::visit_narrow`]).
    pub(crate) fn of_attributes(attributes: &'a JsonMap) -> DigestRow<'a> {
        DigestRow(attributes)
    }

    /// The attribute `key` as stored (any JSON value).
    pub(crate) fn get(self, key: &str) -> Option<&'a Value> {
        self.0.get(key)
    }

    /// Python truthiness of the attribute `key` (absent is false).
    pub(crate) fn flag(self, key: &str) -> bool {
        json_truthy(self.get(key))
    }

    /// The string attribute `key`, trimmed; `None` when blank or not a string.
    pub(crate) fn text(self, key: &str) -> Option<&'a str> {
        self.as_stored(key).map(str::trim).filter(|s| !s.is_empty())
    }

    /// The string attribute `key` as stored (untrimmed); `None` when blank
    /// (empty once trimmed) or not a string.
    pub(crate) fn nonblank(self, key: &str) -> Option<&'a str> {
        self.as_stored(key).filter(|s| !s.trim().is_empty())
    }

    /// The string attribute `key` as stored (untrimmed); `None` when empty
    /// (`""`; whitespace is kept) or not a string.
    pub(crate) fn nonempty(self, key: &str) -> Option<&'a str> {
        self.as_stored(key).filter(|s| !s.is_empty())
    }

    /// The string attribute `key` exactly as stored (even blank); `None`
    /// when absent or not a string.
    pub(crate) fn as_stored(self, key: &str) -> Option<&'a str> {
        self.get(key).and_then(Value::as_str)
    }

    /// The integer attribute `key` (a version counter: `title_version`,
    /// `digest_version`, ...), 0 when absent or not an integer.
    pub(crate) fn version(self, key: &str) -> i64 {
        self.get(key).and_then(Value::as_i64).unwrap_or(0)
    }

    /// A world-model card's `attributes.revision`, read tolerantly: an
    /// integer, a float (truncated), a boolean (0 or 1) or an integer's text;
    /// anything else is 0, so a malformed card sorts first instead of failing
    /// a read. One rule for the card folds of world_models and recall's
    /// orientation admission.
    pub(crate) fn card_revision(self) -> i64 {
        match self.get("revision") {
            Some(Value::Number(n)) => n
                .as_i64()
                .or_else(|| {
                    n.as_f64()
                        .filter(|f| f.is_finite())
                        .map(|f| f.trunc() as i64)
                })
                .unwrap_or(0),
            Some(Value::Bool(b)) => i64::from(*b),
            Some(Value::String(s)) => s.trim().parse().unwrap_or(0),
            _ => 0,
        }
    }

    /// A world-model card's key (`attributes.target`, trimmed), `None` when
    /// blank.
    pub(crate) fn card_target(self) -> Option<&'a str> {
        self.text("target").map(str::trim).filter(|t| !t.is_empty())
    }

    /// The record's kind: `attributes.record_kind` naming a [`RecordKind`]
    /// exactly as stored; `None` when absent, not a string, or outside the
    /// vocabulary.
    pub(crate) fn kind(self) -> Option<RecordKind> {
        self.as_stored("record_kind")
            .and_then(|k| RecordKind::parse(k).ok())
    }

    /// The record's kind read trimmed (`" diary "` is a diary); `None` as
    /// [`kind`](DigestRow::kind).
    pub(crate) fn kind_trimmed(self) -> Option<RecordKind> {
        self.kind_text().and_then(|k| RecordKind::parse(k).ok())
    }

    /// `attributes.record_kind` as text, trimmed ([`text`](DigestRow::text)),
    /// whatever it names: what a read shows.
    pub(crate) fn kind_text(self) -> Option<&'a str> {
        self.text("record_kind")
    }

    /// Whether the row is a formed record's: a digest with a `record_kind`,
    /// or a formation edge with a truthy `record_edge`.
    pub(crate) fn is_formed(self) -> bool {
        self.kind_text().is_some() || self.is_edge()
    }

    /// Whether the row is a formation edge (`record_edge` truthy).
    pub(crate) fn is_edge(self) -> bool {
        self.flag("record_edge")
    }

    /// The stored title, trimmed ([`text`](DigestRow::text)).
    pub(crate) fn title(self) -> Option<&'a str> {
        self.text("title")
    }

    /// The fields the `attributes.pending` marker names as still pending
    /// (`title`, `summary`, each truthy), in that order; empty when none.
    pub(crate) fn pending(self) -> Vec<String> {
        let Some(Value::Object(marker)) = self.get("pending") else {
            return Vec::new();
        };
        ["title", "summary"]
            .into_iter()
            .filter(|f| json_truthy(marker.get(*f)))
            .map(str::to_owned)
            .collect()
    }

    /// Whether the marker holds `field: true` (a JSON `true`, not merely a
    /// truthy value: the understanding verbs' test).
    pub(crate) fn is_marked_pending(self, field: &str) -> bool {
        self.get("pending")
            .and_then(|p| p.get(field))
            .and_then(Value::as_bool)
            .unwrap_or(false)
    }

    /// The title a read serves: the stored title, whole (never cut), or
    /// `None` while the title is pending or missing (api.md "Formation":
    /// never a placeholder or words from the body).
    pub(crate) fn served_title(self) -> Option<String> {
        if self.pending().iter().any(|f| f == "title") {
            return None;
        }
        self.title().map(str::to_owned)
    }

    /// A diary entry's book id, trimmed ([`text`](DigestRow::text)).
    pub(crate) fn entry_id(self) -> Option<&'a str> {
        self.text("entry_id")
    }

    /// The host artifact of the verbatim, trimmed ([`text`](DigestRow::text)).
    pub(crate) fn payload_ref(self) -> Option<&'a str> {
        self.text("payload_ref")
    }

    /// Whether a diary entry is private (`attributes.private` anything but
    /// absent, `null` or `false`).
    pub(crate) fn is_private(self) -> bool {
        !matches!(
            self.get("private"),
            None | Some(Value::Null) | Some(Value::Bool(false))
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn row(attributes: Value) -> TripleAssertion {
        let mut a = TripleAssertion::new("ex:r", "dcterms:abstract", "words");
        a.attributes = attributes.as_object().unwrap().clone();
        a
    }

    #[test]
    fn the_four_text_rules_differ_only_on_blank_and_padded_values() {
        let a = row(json!({"t": " padded ", "b": "  ", "e": "", "n": 3}));
        let r = DigestRow::of(&a);
        assert_eq!(
            (
                r.text("t"),
                r.nonblank("t"),
                r.nonempty("t"),
                r.as_stored("t")
            ),
            (
                Some("padded"),
                Some(" padded "),
                Some(" padded "),
                Some(" padded ")
            )
        );
        assert_eq!(
            (
                r.text("b"),
                r.nonblank("b"),
                r.nonempty("b"),
                r.as_stored("b")
            ),
            (None, None, Some("  "), Some("  "))
        );
        assert_eq!(
            (
                r.text("e"),
                r.nonblank("e"),
                r.nonempty("e"),
                r.as_stored("e")
            ),
            (None, None, None, Some(""))
        );
        assert_eq!(
            (
                r.text("n"),
                r.nonblank("n"),
                r.nonempty("n"),
                r.as_stored("n")
            ),
            (None, None, None, None)
        );
    }

    #[test]
    fn a_kind_is_read_exactly_or_trimmed_and_a_name_outside_the_vocabulary_is_no_kind() {
        let padded = row(json!({"record_kind": " diary "}));
        let r = DigestRow::of(&padded);
        assert_eq!(r.kind(), None);
        assert_eq!(r.kind_trimmed(), Some(RecordKind::Diary));
        assert_eq!(r.kind_text(), Some("diary"));
        let odd = row(json!({"record_kind": "musing"}));
        let r = DigestRow::of(&odd);
        assert_eq!((r.kind(), r.kind_trimmed()), (None, None));
        assert_eq!(r.kind_text(), Some("musing"));
        assert!(r.is_formed());
        let plain = row(json!({"record_kind": "dream"}));
        assert_eq!(DigestRow::of(&plain).kind(), Some(RecordKind::Dream));
    }

    #[test]
    fn the_pending_list_reads_truthy_fields_and_the_marked_test_reads_true_only() {
        let a = row(json!({"title": "T", "pending": {"title": 1, "summary": true}}));
        let r = DigestRow::of(&a);
        assert_eq!(r.pending(), ["title", "summary"]);
        assert!(!r.is_marked_pending("title"));
        assert!(r.is_marked_pending("summary"));
        assert_eq!(r.served_title(), None);
        let b = row(json!({"title": " T ", "title_version": 2, "private": 0}));
        let r = DigestRow::of(&b);
        assert_eq!(r.served_title().as_deref(), Some("T"));
        assert_eq!(
            (r.version("title_version"), r.version("digest_version")),
            (2, 0)
        );
        assert!(r.is_private());
    }
}
