//! [`Lent`]: a row's attribute values read by position from the stored JSON
//! text, borrowed where they can be, for a whole-pair scan that reads the
//! same few keys of every row ([`crate::ReadAccelerator::visit_narrow_text`]).
//!
//! The answer is the one a decode into a [`JsonMap`] gives, cut to the
//! kept keys ([`crate::Narrow`]): text that is not one JSON object (or is
//! malformed anywhere, a skipped value included) reads as `{}`; a repeated
//! key keeps its last value; a skipped value is checked as a [`Value`]
//! would check it (numbers in range, strings with valid escapes). What
//! differs is the shape: a kept key's value is found by its index in the
//! key list (no map, no key copied, no hashing), a string value is
//! borrowed from the text unless it holds an escape, and an array keeps
//! its items lent the same way.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use crate::assertion::{JsonMap, json_truthy};
use crate::text::py_str;

/// One attribute value, lent.
#[derive(Debug, Clone, PartialEq)]
pub enum Lent<'t> {
    /// A string (borrowed unless it held an escape).
    Str(Cow<'t, str>),
    /// An array, its items lent.
    Array(Vec<Lent<'t>>),
    /// Any other value (a boolean, a number, `null`, an object).
    Other(Cow<'t, Value>),
}

impl<'t> Lent<'t> {
    /// The lent form of a decoded value (strings and arrays borrowed from
    /// it).
    #[must_use]
    pub fn of(v: &'t Value) -> Lent<'t> {
        match v {
            Value::String(s) => Lent::Str(Cow::Borrowed(s)),
            Value::Array(items) => Lent::Array(items.iter().map(Lent::of).collect()),
            other => Lent::Other(Cow::Borrowed(other)),
        }
    }

    /// The string, when the value is one.
    #[must_use]
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Lent::Str(s) => Some(s),
            Lent::Other(_) | Lent::Array(_) => None,
        }
    }

    /// The items, when the value is an array.
    #[must_use]
    pub fn as_array(&self) -> Option<&[Lent<'t>]> {
        match self {
            Lent::Array(items) => Some(items),
            Lent::Str(_) | Lent::Other(_) => None,
        }
    }

    /// Python truthiness, as [`json_truthy`] reads the decoded value.
    #[must_use]
    pub fn truthy(&self) -> bool {
        match self {
            Lent::Str(s) => !s.is_empty(),
            Lent::Array(items) => !items.is_empty(),
            Lent::Other(v) => json_truthy(Some(v)),
        }
    }

    /// Python's `str(v)`, as [`py_str`] reads the decoded value.
    #[must_use]
    pub fn py_str(&self) -> Cow<'_, str> {
        match self {
            Lent::Str(s) => Cow::Borrowed(s),
            Lent::Array(_) => Cow::Owned(py_str(&self.to_value())),
            Lent::Other(v) => Cow::Owned(py_str(v)),
        }
    }

    /// The decoded value.
    #[must_use]
    pub fn to_value(&self) -> Value {
        match self {
            Lent::Str(s) => Value::String(s.clone().into_owned()),
            Lent::Array(items) => Value::Array(items.iter().map(Lent::to_value).collect()),
            Lent::Other(v) => v.clone().into_owned(),
        }
    }
}

/// Whether a lent value is truthy (absent is false).
#[must_use]
pub fn truthy(v: Option<&Lent<'_>>) -> bool {
    v.is_some_and(Lent::truthy)
}

/// The values of `keys` in a decoded map, by index.
#[must_use]
pub fn lend_map_keys<'t, const N: usize>(
    map: &'t JsonMap,
    keys: &[&str; N],
) -> [Option<Lent<'t>>; N] {
    keys.map(|k| map.get(k).map(Lent::of))
}

/// The values of `keys` in the JSON object `text` (`None`: a NULL cell),
/// by index: what [`lend_map_keys`] gives of the text decoded into a map
/// (text that is not one JSON object, or is malformed anywhere, is `{}`).
#[must_use]
pub fn lend_text_keys<'t, const N: usize>(
    text: Option<&'t str>,
    keys: &[&str; N],
) -> [Option<Lent<'t>>; N] {
    let empty = || std::array::from_fn(|_| None);
    match text {
        None | Some("{}") => empty(),
        Some(_) if N == 0 => empty(),
        Some(t) => {
            let mut de = serde_json::Deserializer::from_str(t);
            match Kept(keys)
                .deserialize(&mut de)
                .and_then(|m| de.end().map(|()| m))
            {
                Ok(m) => m,
                Err(_) => empty(),
            }
        }
    }
}

/// The top-level object, keeping the listed keys.
struct Kept<'k, const N: usize>(&'k [&'k str; N]);

impl<'de, const N: usize> DeserializeSeed<'de> for Kept<'_, N> {
    type Value = [Option<Lent<'de>>; N];
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de, const N: usize> Visitor<'de> for Kept<'_, N> {
    type Value = [Option<Lent<'de>>; N];
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Self::Value, A::Error> {
        let mut out: [Option<Lent<'de>>; N] = std::array::from_fn(|_| None);
        while let Some(found) = m.next_key_seed(Key(self.0))? {
            match found {
                // A repeated key keeps its last value, as a map does.
                Some(i) => out[i] = Some(m.next_value_seed(LentSeed)?),
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

/// A kept value, lent.
struct LentSeed;

impl<'de> DeserializeSeed<'de> for LentSeed {
    type Value = Lent<'de>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Lent<'de>, D::Error> {
        d.deserialize_any(LentVisitor)
    }
}

struct LentVisitor;

impl<'de> Visitor<'de> for LentVisitor {
    type Value = Lent<'de>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    // Each scalar becomes the `Value` serde_json's own visitor makes of it.
    fn visit_bool<E>(self, v: bool) -> Result<Lent<'de>, E> {
        Ok(Lent::Other(Cow::Owned(Value::Bool(v))))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Lent<'de>, E> {
        Ok(Lent::Other(Cow::Owned(Value::Number(v.into()))))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Lent<'de>, E> {
        Ok(Lent::Other(Cow::Owned(Value::Number(v.into()))))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Lent<'de>, E> {
        Ok(Lent::Other(Cow::Owned(
            serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number),
        )))
    }
    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Lent<'de>, E> {
        Ok(Lent::Str(Cow::Borrowed(v)))
    }
    fn visit_str<E>(self, v: &str) -> Result<Lent<'de>, E> {
        Ok(Lent::Str(Cow::Owned(v.to_owned())))
    }
    fn visit_string<E>(self, v: String) -> Result<Lent<'de>, E> {
        Ok(Lent::Str(Cow::Owned(v)))
    }
    fn visit_unit<E>(self) -> Result<Lent<'de>, E> {
        Ok(Lent::Other(Cow::Owned(Value::Null)))
    }
    fn visit_none<E>(self) -> Result<Lent<'de>, E> {
        Ok(Lent::Other(Cow::Owned(Value::Null)))
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Lent<'de>, D::Error> {
        d.deserialize_any(self)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut s: A) -> Result<Lent<'de>, A::Error> {
        let mut items = Vec::with_capacity(s.size_hint().unwrap_or(0));
        while let Some(item) = s.next_element_seed(LentSeed)? {
            items.push(item);
        }
        Ok(Lent::Array(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, m: A) -> Result<Lent<'de>, A::Error> {
        let v: Value = serde::Deserialize::deserialize(de::value::MapAccessDeserializer::new(m))?;
        Ok(Lent::Other(Cow::Owned(v)))
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The whole decode (a `Value` map, `{}` for anything else), cut.
    fn whole<const N: usize>(text: &str, keys: &[&str; N]) -> [Option<Value>; N] {
        let map = match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(m)) => m,
            _ => JsonMap::new(),
        };
        keys.map(|k| map.get(k).cloned())
    }

    #[test]
    fn a_lent_object_is_the_decoded_object_cut_to_its_kept_keys() {
        let keys = ["a", "b", "é", "t"];
        for text in [
            r#"{"a": 1, "b": [1, {"x": "y"}], "c": {"d": [true, null]}}"#,
            r#"{"c": 1, "a": "first", "b": 2, "a": "second"}"#,
            r#"{"\u0061": "escaped key", "\u00e9": 3}"#,
            r#"{"a": "tab\there", "b": ["x\"y", "plain", 2.5, -0, null, false, [[]]]}"#,
            r#"{"a": 1, "c": 1e999}"#,
            r#"{"a": 1e999}"#,
            r#"{"a": 1, "c": "\ud800"}"#,
            r#"{"a": 1, "c": [1, 2}"#,
            r#"{"a": 1} trailing"#,
            r#"{"a": 1}  "#,
            r#"[1, 2]"#,
            r#""a""#,
            r#"{}"#,
            "",
            "not json",
            r#"{"t": {"nested": {"k": [1, "v"]}}, "b": {}}"#,
            r#"{"c": -0, "b": 12345678901234567890, "a": 0.30000000000000004, "t": 1.0}"#,
        ] {
            let lent = lend_text_keys(Some(text), &keys);
            let got = lent.clone().map(|v| v.map(|v| v.to_value()));
            assert_eq!(got, whole(text, &keys), "{text}");
            let map = match serde_json::from_str::<Value>(text) {
                Ok(Value::Object(m)) => m,
                _ => JsonMap::new(),
            };
            for (i, v) in lend_map_keys(&map, &keys).iter().enumerate() {
                assert_eq!(
                    v.as_ref().map(Lent::truthy),
                    lent[i].as_ref().map(Lent::truthy)
                );
                assert_eq!(
                    v.as_ref().map(|v| v.py_str().into_owned()),
                    lent[i].as_ref().map(|v| v.py_str().into_owned()),
                    "{text}"
                );
                assert_eq!(
                    v.as_ref().map(Lent::truthy),
                    map.get(keys[i]).map(|v| json_truthy(Some(v)))
                );
            }
        }
        assert!(lend_text_keys(None, &keys).iter().all(Option::is_none));
        assert!(lend_text_keys(Some(r#"{"a": 1}"#), &[]).is_empty());
    }

    #[test]
    fn an_unescaped_string_is_borrowed() {
        let [a, b] = lend_text_keys(Some(r#"{"a": "plain", "b": ["x\ny", "z"]}"#), &["a", "b"]);
        assert!(matches!(a, Some(Lent::Str(Cow::Borrowed("plain")))));
        let Some(Lent::Array(items)) = b else {
            panic!("an array")
        };
        assert!(matches!(&items[0], Lent::Str(Cow::Owned(s)) if s == "x\ny"));
        assert!(matches!(&items[1], Lent::Str(Cow::Borrowed("z"))));
    }
}
