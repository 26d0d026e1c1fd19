//! Row and vector encodings: float32 little-endian BLOBs, 0.3.x JSON-text vectors,
//! and the mapping between table rows and `TripleAssertion`s.
//!
//! Spec: stores.md "SQLiteTripleStore" (stored columns).

use am_triples::{JsonMap, TripleAssertion};
use rusqlite::Row;
use rusqlite::types::ValueRef;
use serde_json::Value;

/// The assertion columns (never `embedding` or `text`) as one literal, shared
/// by [`ASSERTION_COLUMNS`] and [`ASSERTION_COLUMNS_WITHOUT_ROWID`].
macro_rules! assertion_columns {
    () => {
        "assertion_id, subject, predicate, object, scope, owner_id, \
         observed_at, valid_from, valid_until, confidence, provenance_json, attributes_json"
    };
}

/// The assertion columns a structured read selects (never `embedding` or `text`),
/// in the order [`row_to_assertion`] reads them, after a leading `rowid`.
pub const ASSERTION_COLUMNS: &str = concat!("rowid, ", assertion_columns!());

/// [`ASSERTION_COLUMNS`] without the leading `rowid`, in the order
/// [`row_to_assertion_without_rowid`] reads them (a read ordered by SQL needs
/// no rowid: one column fewer per row).
pub const ASSERTION_COLUMNS_WITHOUT_ROWID: &str = assertion_columns!();

/// Encode a vector as float32 little-endian bytes (4 bytes per dimension).
pub fn encode_f32(v: &[f32]) -> Vec<u8> {
    let mut out = Vec::with_capacity(v.len() * 4);
    for x in v {
        out.extend_from_slice(&x.to_le_bytes());
    }
    out
}

/// A JSON object column as stored: `{}` for an empty map (no serializer call),
/// otherwise serde_json's compact text.
///
/// # Errors
/// serde_json's error when a value cannot be serialized.
pub fn encode_object(m: &JsonMap) -> serde_json::Result<std::borrow::Cow<'static, str>> {
    if m.is_empty() {
        return Ok(std::borrow::Cow::Borrowed("{}"));
    }
    serde_json::to_string(m).map(std::borrow::Cow::Owned)
}

/// A stored vector, decoded.
#[derive(Debug, Clone, PartialEq)]
pub enum Decoded {
    /// No vector (NULL, empty).
    Missing,
    /// A vector float32 holds exactly as stored (BLOB, or JSON whose values fit).
    F32(Vec<f32>),
    /// A JSON vector with a value float32 cannot hold; the reference scan scores
    /// it in f64 as AbstractMemory 0.3.x did.
    F64(Vec<f64>),
    /// Bytes or text that are not a vector (skipped by ranking).
    Malformed(String),
}

/// Decode a stored `embedding` cell (BLOB or 0.3.x JSON text).
pub fn decode_cell(cell: ValueRef<'_>) -> Decoded {
    match cell {
        ValueRef::Null => Decoded::Missing,
        ValueRef::Blob(b) => decode_blob(b),
        ValueRef::Text(t) => match std::str::from_utf8(t) {
            Ok(s) if s.trim().is_empty() => Decoded::Missing,
            Ok(s) => decode_json(s),
            Err(_) => Decoded::Malformed("embedding text is not UTF-8".into()),
        },
        ValueRef::Integer(_) | ValueRef::Real(_) => {
            Decoded::Malformed("embedding holds a number, not a vector".into())
        }
    }
}

/// Decode a float32 little-endian BLOB.
pub fn decode_blob(b: &[u8]) -> Decoded {
    if b.is_empty() {
        return Decoded::Missing;
    }
    if !b.len().is_multiple_of(4) {
        return Decoded::Malformed(format!(
            "embedding BLOB of {} bytes is not a whole number of float32 values",
            b.len()
        ));
    }
    Decoded::F32(
        b.chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect(),
    )
}

/// Decode a JSON-text vector (`[0.1,0.2,...]`).
pub fn decode_json(s: &str) -> Decoded {
    // The common case (a flat list of plain JSON numbers) is split and parsed by
    // the standard library (correctly rounded, as serde_json with
    // `float_roundtrip` is); anything else takes the serde_json path below.
    if let Some(values) = parse_number_list(s) {
        return match am_triples::vector::to_f32_vector(&values) {
            Ok(v) => Decoded::F32(v),
            Err(_) => Decoded::F64(values),
        };
    }
    // A list of numbers parses straight into f64s; anything else goes through
    // `Value` to say what it is.
    if let Ok(values) = serde_json::from_str::<Vec<f64>>(s) {
        if values.is_empty() {
            return Decoded::Malformed("empty embedding list".into());
        }
        return match am_triples::vector::to_f32_vector(&values) {
            Ok(v) => Decoded::F32(v),
            Err(_) => Decoded::F64(values),
        };
    }
    let values: Vec<f64> = match serde_json::from_str::<Value>(s) {
        Ok(Value::Array(items)) => {
            let mut out = Vec::with_capacity(items.len());
            for it in items {
                match it.as_f64() {
                    Some(x) => out.push(x),
                    None => {
                        return Decoded::Malformed(format!("non-numeric JSON vector value {it}"));
                    }
                }
            }
            out
        }
        Ok(other) => return Decoded::Malformed(format!("embedding JSON is not a list: {other}")),
        Err(e) => return Decoded::Malformed(format!("embedding JSON does not parse: {e}")),
    };
    if values.is_empty() {
        return Decoded::Malformed("empty embedding list".into());
    }
    match am_triples::vector::to_f32_vector(&values) {
        Ok(v) => Decoded::F32(v),
        Err(_) => Decoded::F64(values),
    }
}

/// The end of the JSON number (RFC 8259:
/// `-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?`) starting at `b[i]`, and
/// whether it is an integer (no fraction, no exponent); `None` when no JSON
/// number starts there.
fn json_number_end(b: &[u8], mut i: usize) -> Option<(usize, bool)> {
    let digits = |i: &mut usize| {
        let start = *i;
        while *i < b.len() && b[*i].is_ascii_digit() {
            *i += 1;
        }
        *i - start
    };
    if b.get(i) == Some(&b'-') {
        i += 1;
    }
    match b.get(i) {
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => {
            digits(&mut i);
        }
        _ => return None,
    }
    let mut integer = true;
    if b.get(i) == Some(&b'.') {
        i += 1;
        integer = false;
        if digits(&mut i) == 0 {
            return None;
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        integer = false;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if digits(&mut i) == 0 {
            return None;
        }
    }
    Some((i, integer))
}

/// The fast path of [`decode_json`]: a non-empty `[n, n, ...]` of JSON numbers
/// (JSON whitespace allowed) whose values are finite and, for integers, not a
/// negative zero (serde_json reads `-0` as the integer 0). `None` sends the
/// text to the general path, which decides exactly as before. One pass over
/// the bytes checks the grammar and finds each number; std's correctly
/// rounded parse reads it.
fn parse_number_list(s: &str) -> Option<Vec<f64>> {
    let b = s.as_bytes();
    let skip_ws = |i: &mut usize| {
        while *i < b.len() && matches!(b[*i], b' ' | b'\t' | b'\n' | b'\r') {
            *i += 1;
        }
    };
    let mut i = 0;
    skip_ws(&mut i);
    if b.get(i) != Some(&b'[') {
        return None;
    }
    i += 1;
    // A 0.3.x vector value is about 20 characters ("-0.012345678901234567,").
    let mut out = Vec::with_capacity(b.len() / 16 + 1);
    loop {
        skip_ws(&mut i);
        let (end, integer) = json_number_end(b, i)?;
        // `i..end` is ASCII (the grammar above), so both are char boundaries.
        let x: f64 = s.get(i..end)?.parse().ok()?;
        if !x.is_finite() || (integer && x == 0.0 && x.is_sign_negative()) {
            return None;
        }
        out.push(x);
        i = end;
        skip_ws(&mut i);
        match b.get(i) {
            Some(b',') => i += 1,
            Some(b']') => {
                i += 1;
                break;
            }
            _ => return None,
        }
    }
    skip_ws(&mut i);
    (i == b.len()).then_some(out)
}

impl Decoded {
    /// The vector as f64 values, for the reference scan (`None` when absent or
    /// malformed).
    pub fn as_f64(&self) -> Option<Vec<f64>> {
        match self {
            Decoded::F32(v) => Some(v.iter().map(|x| f64::from(*x)).collect()),
            Decoded::F64(v) => Some(v.clone()),
            Decoded::Missing | Decoded::Malformed(_) => None,
        }
    }
}

/// A TEXT (or NULL) cell borrowed without copying. Any other storage class,
/// or text that is not UTF-8, is read through `get::<Option<String>>`, which
/// refuses it with rusqlite's error exactly as before.
#[inline]
fn text_ref<'r>(r: &'r Row<'_>, i: usize) -> rusqlite::Result<Option<&'r str>> {
    match r.get_ref(i)? {
        ValueRef::Null => Ok(None),
        ValueRef::Text(t) => match std::str::from_utf8(t) {
            Ok(s) => Ok(Some(s)),
            Err(_) => r.get::<_, Option<String>>(i).map(|_| None),
        },
        _ => r.get::<_, Option<String>>(i).map(|_| None),
    }
}

fn parse_object(s: Option<&str>) -> JsonMap {
    match s {
        None | Some("{}") => JsonMap::new(),
        Some(v) => match serde_json::from_str::<Value>(v) {
            Ok(Value::Object(m)) => m,
            _ => JsonMap::new(),
        },
    }
}

/// [`parse_object`] keeping only the keys in `keep`: the same map with the
/// other keys left out (empty exactly when `parse_object` would be empty
/// of them: text that is not one JSON object is `{}` whole). The skipped
/// values are read as a [`Value`] would read them (numbers in range,
/// strings with valid escapes), without building them.
fn parse_object_keys(s: Option<&str>, keep: &[&str]) -> JsonMap {
    match s {
        None | Some("{}") => JsonMap::new(),
        Some(_) if keep.is_empty() => {
            // Nothing kept: only whether the text is an object matters, and
            // an empty map is the answer either way.
            JsonMap::new()
        }
        Some(v) => {
            let mut de = serde_json::Deserializer::from_str(v);
            match serde::de::DeserializeSeed::deserialize(narrow::Kept(keep), &mut de)
                .and_then(|m| de.end().map(|()| m))
            {
                Ok(m) => m,
                Err(_) => JsonMap::new(),
            }
        }
    }
}

/// The visitors of [`parse_object_keys`].
mod narrow {
    use am_triples::JsonMap;
    use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
    use serde_json::Value;
    use std::fmt;

    /// The top-level object, keeping the listed keys.
    pub(super) struct Kept<'k>(pub(super) &'k [&'k str]);

    impl<'de> DeserializeSeed<'de> for Kept<'_> {
        type Value = JsonMap;
        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<JsonMap, D::Error> {
            d.deserialize_any(self)
        }
    }

    impl<'de> Visitor<'de> for Kept<'_> {
        type Value = JsonMap;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a JSON object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<JsonMap, A::Error> {
            let mut out = JsonMap::new();
            while let Some(found) = m.next_key_seed(Key(self.0))? {
                match found {
                    // A repeated key replaces the value in place, as
                    // `Value`'s map does.
                    Some(i) => {
                        let v: Value = m.next_value()?;
                        out.insert(self.0[i].to_owned(), v);
                    }
                    None => {
                        m.next_value::<Skip>()?;
                    }
                }
            }
            Ok(out)
        }
    }

    /// A key: the index of the kept key it names, if any.
    struct Key<'k>(&'k [&'k str]);

    impl<'de> DeserializeSeed<'de> for Key<'_> {
        type Value = Option<usize>;
        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Option<usize>, D::Error> {
            d.deserialize_str(self)
        }
    }

    impl<'de> Visitor<'de> for Key<'_> {
        type Value = Option<usize>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a key")
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<Option<usize>, E> {
            Ok(self.0.iter().position(|k| *k == v))
        }
    }

    /// Any JSON value, read and dropped.
    struct Skip;

    impl<'de> de::Deserialize<'de> for Skip {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Skip, D::Error> {
            d.deserialize_any(SkipVisitor)
        }
    }

    struct SkipVisitor;

    impl<'de> Visitor<'de> for SkipVisitor {
        type Value = Skip;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("any JSON value")
        }
        fn visit_bool<E>(self, _: bool) -> Result<Skip, E> {
            Ok(Skip)
        }
        fn visit_i64<E>(self, _: i64) -> Result<Skip, E> {
            Ok(Skip)
        }
        fn visit_u64<E>(self, _: u64) -> Result<Skip, E> {
            Ok(Skip)
        }
        fn visit_f64<E>(self, _: f64) -> Result<Skip, E> {
            Ok(Skip)
        }
        fn visit_str<E>(self, _: &str) -> Result<Skip, E> {
            Ok(Skip)
        }
        fn visit_unit<E>(self) -> Result<Skip, E> {
            Ok(Skip)
        }
        fn visit_none<E>(self) -> Result<Skip, E> {
            Ok(Skip)
        }
        fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Skip, D::Error> {
            de::Deserialize::deserialize(d)
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut s: A) -> Result<Skip, A::Error> {
            while s.next_element::<Skip>()?.is_some() {}
            Ok(Skip)
        }
        fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Skip, A::Error> {
            while m.next_key::<Skip>()?.is_some() {
                m.next_value::<Skip>()?;
            }
            Ok(Skip)
        }
    }
}

fn blank_none(s: Option<&str>) -> Option<String> {
    s.map(am_triples::assertion::py_strip)
        .filter(|v| !v.is_empty())
        .map(str::to_owned)
}

/// Map a row selected with [`ASSERTION_COLUMNS`] to `(rowid, assertion)`, as
/// AbstractMemory's `_row_to_assertion` reads it (blank owner → `None`, blank
/// scope → `run`, malformed JSON → `{}`). Text cells are borrowed and copied
/// once.
///
/// # Errors
/// A rusqlite error when a column has an unexpected type.
pub fn row_to_assertion(r: &Row<'_>) -> rusqlite::Result<(i64, TripleAssertion)> {
    Ok((r.get(0)?, assertion_at(r, 1)?))
}

/// Map a row selected with [`ASSERTION_COLUMNS_WITHOUT_ROWID`] to its
/// assertion, exactly as [`row_to_assertion`] maps the same columns.
///
/// # Errors
/// A rusqlite error when a column has an unexpected type.
pub fn row_to_assertion_without_rowid(r: &Row<'_>) -> rusqlite::Result<TripleAssertion> {
    assertion_at(r, 0)
}

/// [`row_to_assertion`] with the attributes and provenance cut to the keys
/// `keep` names, decoding only those (`ReadAccelerator::query_narrow`).
///
/// # Errors
/// As [`row_to_assertion`].
pub fn row_to_narrow_assertion(
    r: &Row<'_>,
    keep: am_triples::Narrow<'_>,
) -> rusqlite::Result<(i64, TripleAssertion)> {
    Ok((r.get(0)?, assertion_at_with(r, 1, Some(keep))?))
}

/// [`row_to_assertion_without_rowid`], cut as [`row_to_narrow_assertion`].
///
/// # Errors
/// As [`row_to_assertion`].
pub fn row_to_narrow_assertion_without_rowid(
    r: &Row<'_>,
    keep: am_triples::Narrow<'_>,
) -> rusqlite::Result<TripleAssertion> {
    assertion_at_with(r, 0, Some(keep))
}

/// Lend the row selected with [`ASSERTION_COLUMNS_WITHOUT_ROWID`] to `visit`
/// as the [`am_triples::NarrowRow`] of the assertion
/// [`row_to_narrow_assertion_without_rowid`] builds: its text cells
/// borrowed, its JSON columns cut to `keep`. Every cell is checked as that
/// decode checks it (the same error for the same row).
///
/// # Errors
/// As [`row_to_assertion`].
pub fn visit_narrow_row_without_rowid(
    r: &Row<'_>,
    keep: am_triples::Narrow<'_>,
    visit: &mut dyn FnMut(am_triples::NarrowRow<'_>),
) -> rusqlite::Result<()> {
    lend_narrow_at(r, 0, keep, false, visit)
}

/// [`visit_narrow_row_without_rowid`] lending the attributes column's text
/// as [`am_triples::NarrowRow::attributes_text`] (checked as UTF-8, as
/// every text cell is) instead of decoding its kept keys
/// (`ReadAccelerator::visit_narrow_text`): `attributes` is empty.
///
/// # Errors
/// As [`row_to_assertion`].
pub fn visit_narrow_text_row_without_rowid(
    r: &Row<'_>,
    keep: am_triples::Narrow<'_>,
    visit: &mut dyn FnMut(am_triples::NarrowRow<'_>),
) -> rusqlite::Result<()> {
    lend_narrow_at(r, 0, keep, true, visit)
}

/// [`visit_narrow_row_without_rowid`] of a row selected with
/// [`ASSERTION_COLUMNS`]: its rowid and its lent row.
///
/// # Errors
/// As [`row_to_assertion`].
pub fn visit_narrow_row(
    r: &Row<'_>,
    keep: am_triples::Narrow<'_>,
    visit: &mut dyn FnMut(i64, am_triples::NarrowRow<'_>),
) -> rusqlite::Result<i64> {
    let rowid: i64 = r.get(0)?;
    lend_narrow_at(r, 1, keep, false, &mut |row| visit(rowid, row))?;
    Ok(rowid)
}

/// Lend the assertion whose `assertion_id` is column `base` of `r`; with
/// `text`, its attributes as their stored text, not decoded.
fn lend_narrow_at(
    r: &Row<'_>,
    base: usize,
    keep: am_triples::Narrow<'_>,
    text: bool,
    visit: &mut dyn FnMut(am_triples::NarrowRow<'_>),
) -> rusqlite::Result<()> {
    let assertion_id = text_ref(r, base)?
        .map(am_triples::assertion::py_strip)
        .filter(|v| !v.is_empty());
    let subject = text_ref(r, base + 1)?.unwrap_or_default();
    let predicate = text_ref(r, base + 2)?.unwrap_or_default();
    let object = text_ref(r, base + 3)?.unwrap_or_default();
    // Read as the owned decode reads them (a cell of another type fails).
    text_ref(r, base + 4)?;
    text_ref(r, base + 5)?;
    let observed_at = text_ref(r, base + 6)?.unwrap_or_default();
    text_ref(r, base + 7)?;
    text_ref(r, base + 8)?;
    r.get::<_, Option<f64>>(base + 9)?;
    let provenance = parse_object_keys(text_ref(r, base + 10)?, keep.provenance);
    let attributes_cell = text_ref(r, base + 11)?;
    let (attributes, attributes_text) = if text {
        (JsonMap::new(), attributes_cell)
    } else {
        (parse_object_keys(attributes_cell, keep.attributes), None)
    };
    visit(am_triples::NarrowRow {
        assertion_id,
        subject,
        predicate,
        object,
        observed_at,
        attributes: &attributes,
        provenance: &provenance,
        attributes_text,
    });
    Ok(())
}

/// The assertion whose `assertion_id` is column `base` of `r` (the other
/// assertion columns follow it in [`ASSERTION_COLUMNS`] order).
#[inline]
fn assertion_at(r: &Row<'_>, base: usize) -> rusqlite::Result<TripleAssertion> {
    assertion_at_with(r, base, None)
}

/// [`assertion_at`], its JSON columns cut to `keep` when given.
#[inline]
fn assertion_at_with(
    r: &Row<'_>,
    base: usize,
    keep: Option<am_triples::Narrow<'_>>,
) -> rusqlite::Result<TripleAssertion> {
    let object = |i: usize, keys: fn(am_triples::Narrow<'_>) -> &[&str]| {
        let cell = text_ref(r, base + i)?;
        Ok::<_, rusqlite::Error>(match keep {
            None => parse_object(cell),
            Some(k) => parse_object_keys(cell, keys(k)),
        })
    };
    let text = |i: usize| -> rusqlite::Result<String> {
        Ok(text_ref(r, base + i)?.unwrap_or_default().to_owned())
    };
    let scope = text_ref(r, base + 4)?.unwrap_or_default();
    Ok(TripleAssertion {
        assertion_id: blank_none(text_ref(r, base)?),
        subject: text(1)?,
        predicate: text(2)?,
        object: text(3)?,
        scope: if scope.is_empty() {
            "run".into()
        } else {
            scope.to_owned()
        },
        owner_id: blank_none(text_ref(r, base + 5)?),
        observed_at: text(6)?,
        valid_from: blank_none(text_ref(r, base + 7)?),
        valid_until: blank_none(text_ref(r, base + 8)?),
        confidence: r.get(base + 9)?,
        provenance: object(10, |k| k.provenance)?,
        attributes: object(11, |k| k.attributes)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blob_round_trips_little_endian() {
        let v = vec![1.5f32, -0.25, 3.0e-8];
        let b = encode_f32(&v);
        assert_eq!(&b[..4], &1.5f32.to_le_bytes());
        assert_eq!(decode_blob(&b), Decoded::F32(v));
        assert!(matches!(decode_blob(&[1, 2, 3]), Decoded::Malformed(_)));
    }

    #[test]
    fn json_fast_path_agrees_with_serde_json() {
        for text in [
            "[0.1, -0.2, 3e-5, 1E+2, 0, -0.0, 12345678901234567890, 0.30000000000000004]",
            " [ 1 ,\n2\t] ",
            "[-0]",
            "[1e400, 1]",
            "[.5]",
            "[+1]",
            "[01]",
            "[1.]",
            "[NaN]",
            "[]",
            "[1,]",
            "[[1]]",
            "[1 2]",
            "[1,,2]",
            "[1]]",
            "[1] x",
            "[1e]",
            "[1e+]",
            "[-]",
            "[-1.5E-3, 2e10]",
            "\t[0.25]\r\n",
            "[,1]",
            "[1",
            "1]",
        ] {
            let serde = serde_json::from_str::<Vec<f64>>(text).ok();
            let fast = parse_number_list(text);
            if let Some(f) = &fast {
                let s = serde
                    .as_ref()
                    .expect("fast path accepted what serde_json refuses");
                assert_eq!(
                    f.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
                    s.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
                    "{text}"
                );
            }
        }
        assert!(parse_number_list("[0.1, -0.2]").is_some());
        assert!(parse_number_list("[-1.5E-3, 2e10]").is_some());
        assert!(parse_number_list("[1 2]").is_none());
        assert!(parse_number_list("[1] x").is_none());
        assert!(parse_number_list("[-0]").is_none());
        assert!(parse_number_list("[.5]").is_none());
    }

    #[test]
    fn a_narrow_object_is_the_whole_object_cut_to_its_kept_keys() {
        let keep = ["a", "b", "é"];
        for text in [
            r#"{"a": 1, "b": [1, {"x": "y"}], "c": {"d": [true, null]}}"#,
            r#"{"c": 1, "a": "first", "b": 2, "a": "second"}"#,
            r#"{"\u0061": "escaped key", "\u00e9": 3}"#,
            r#"{"a": 1, "c": 1e999}"#,
            r#"{"a": 1, "c": "\ud800"}"#,
            r#"{"a": 1, "c": [1, 2}"#,
            r#"{"a": 1} trailing"#,
            r#"{"a": 1}  "#,
            r#"[1, 2]"#,
            r#""a""#,
            r#"{}"#,
            "",
            "not json",
            r#"{"c": -0, "b": 12345678901234567890, "a": 0.30000000000000004}"#,
        ] {
            let mut whole = parse_object(Some(text));
            whole.retain(|k, _| keep.contains(&k.as_str()));
            let narrow = parse_object_keys(Some(text), &keep);
            assert_eq!(narrow, whole, "{text}");
            assert!(narrow.keys().eq(whole.keys()), "key order of {text}");
        }
        assert!(parse_object_keys(None, &keep).is_empty());
        assert!(parse_object_keys(Some(r#"{"a": 1}"#), &[]).is_empty());
    }

    #[test]
    fn json_vectors_decode_and_unholdable_values_stay_f64() {
        assert_eq!(decode_json("[0.5,1]"), Decoded::F32(vec![0.5, 1.0]));
        assert_eq!(decode_json("[1e300,1]"), Decoded::F64(vec![1e300, 1.0]));
        assert!(matches!(decode_json("[\"a\"]"), Decoded::Malformed(_)));
        assert!(matches!(decode_json("{}"), Decoded::Malformed(_)));
    }
}
