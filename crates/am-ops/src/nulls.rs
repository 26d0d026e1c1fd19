//! "A JSON `null` is an absent argument" at every depth of an exec line.
//!
//! [`NullIsAbsent`] reads a line's JSON into the verb's arguments struct the
//! way `serde_json::Value` does, except that inside any struct (the arguments
//! themselves and every dataclass argument: `Stimulus`, `MemoryRecordInput`,
//! `RecallBudget`, `TripleQuery`, ...) a field whose value is `null` is dropped
//! before the struct sees it, so it takes its default as if omitted: the
//! spec's `None` keyword (a `null` under a name the struct does not take is
//! still refused as unknown). Free-form JSON (`attributes`, `provenance`, `cause`,
//! `payload`: fields typed `Value` or a JSON map) is read as it stands, nulls
//! included, because there a `null` is data. A required field given `null`
//! is refused as missing, naming it.

use serde::de::{
    self, DeserializeSeed, Deserializer, IntoDeserializer, MapAccess, SeqAccess, Visitor,
};
use serde_json::{Error, Value};

/// A `serde_json::Value` read with struct-field nulls as absent fields.
pub(crate) struct NullIsAbsent(pub(crate) Value);

macro_rules! forward {
    ($($method:ident)*) => {
        $(
            fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
                self.0.$method(visitor)
            }
        )*
    };
}

impl<'de> Deserializer<'de> for NullIsAbsent {
    type Error = Error;

    forward! {
        deserialize_any deserialize_bool deserialize_i8 deserialize_i16 deserialize_i32
        deserialize_i64 deserialize_i128 deserialize_u8 deserialize_u16 deserialize_u32
        deserialize_u64 deserialize_u128 deserialize_f32 deserialize_f64 deserialize_char
        deserialize_str deserialize_string deserialize_bytes deserialize_byte_buf
        deserialize_unit deserialize_identifier deserialize_ignored_any
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            Value::Null => visitor.visit_none(),
            v => visitor.visit_some(NullIsAbsent(v)),
        }
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.0.deserialize_unit_struct(name, visitor)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            Value::Array(items) => {
                let len = items.len();
                let mut seq = Seq(items.into_iter());
                let out = visitor.visit_seq(&mut seq)?;
                if seq.0.len() == 0 {
                    Ok(out)
                } else {
                    Err(de::Error::invalid_length(
                        len,
                        &"fewer elements in the array",
                    ))
                }
            }
            v => v.deserialize_seq(visitor),
        }
    }

    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_seq(visitor)
    }

    /// A map keeps its nulls (a JSON object typed as a map is data).
    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            Value::Object(m) => visitor.visit_map(Map::new(m.into_iter().collect())),
            v => v.deserialize_map(visitor),
        }
    }

    /// A struct's `null` fields are absent (a `null` under a name the struct
    /// does not have stays, so `deny_unknown_fields` still refuses it).
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        match self.0 {
            Value::Object(m) => visitor.visit_map(Map::new(
                m.into_iter()
                    .filter(|(k, v)| !(v.is_null() && fields.contains(&k.as_str())))
                    .collect(),
            )),
            v => v.deserialize_struct(name, fields, visitor),
        }
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.0.deserialize_enum(name, variants, visitor)
    }
}

struct Seq(std::vec::IntoIter<Value>);

impl<'de> SeqAccess<'de> for Seq {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Error> {
        self.0
            .next()
            .map(|v| seed.deserialize(NullIsAbsent(v)))
            .transpose()
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.0.len())
    }
}

struct Map {
    entries: std::vec::IntoIter<(String, Value)>,
    value: Option<Value>,
}

impl Map {
    fn new(entries: Vec<(String, Value)>) -> Self {
        Map {
            entries: entries.into_iter(),
            value: None,
        }
    }
}

impl<'de> MapAccess<'de> for Map {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Error> {
        let Some((key, value)) = self.entries.next() else {
            return Ok(None);
        };
        self.value = Some(value);
        seed.deserialize(key.into_deserializer()).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Error> {
        let value = self
            .value
            .take()
            .ok_or_else(|| de::Error::custom("a map value was read before its key"))?;
        seed.deserialize(NullIsAbsent(value))
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.entries.len())
    }
}

#[cfg(test)]
mod tests {
    use super::NullIsAbsent;
    use serde::Deserialize;
    use serde_json::{Value, json};

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct Inner {
        #[serde(default)]
        tags: Vec<String>,
        #[serde(default = "seven")]
        n: i64,
        #[serde(default)]
        when: Option<String>,
        #[serde(default)]
        data: Value,
    }

    fn seven() -> i64 {
        7
    }

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct Outer {
        name: String,
        inner: Inner,
        #[serde(default)]
        items: Vec<Inner>,
        #[serde(default)]
        pair: Option<(String, i64)>,
    }

    fn read(v: Value) -> Result<Outer, serde_json::Error> {
        Outer::deserialize(NullIsAbsent(v))
    }

    #[test]
    fn a_null_field_of_a_nested_struct_takes_its_default() {
        let got = read(json!({
            "name": "a",
            "inner": {"tags": null, "n": null, "when": null},
            "items": [{"tags": ["x"], "n": null}],
            "pair": null,
        }))
        .unwrap();
        assert_eq!(got.inner.tags, Vec::<String>::new());
        assert_eq!(got.inner.n, 7);
        assert_eq!(got.inner.when, None);
        assert_eq!(got.items[0].tags, vec!["x".to_owned()]);
        assert_eq!(got.items[0].n, 7);
        assert_eq!(got.pair, None);
    }

    #[test]
    fn free_form_json_keeps_its_nulls() {
        let got = read(json!({
            "name": "a",
            "inner": {"data": {"k": null, "list": [null, 1]}},
        }))
        .unwrap();
        assert_eq!(got.inner.data, json!({"k": null, "list": [null, 1]}));
    }

    #[test]
    fn a_required_field_given_null_is_missing_and_unknown_fields_are_still_refused() {
        let err = read(json!({"name": null, "inner": {}})).unwrap_err();
        assert!(err.to_string().contains("missing field `name`"), "{err}");
        let err = read(json!({"name": "a", "inner": {"colour": null}})).unwrap_err();
        assert!(err.to_string().contains("unknown field `colour`"), "{err}");
        let err = read(json!({"name": "a", "inner": {"colour": 1}})).unwrap_err();
        assert!(err.to_string().contains("unknown field `colour`"), "{err}");
        let err = read(json!({"name": "a", "inner": {"n": "x"}})).unwrap_err();
        assert!(err.to_string().contains("invalid type"), "{err}");
    }

    #[test]
    fn values_read_as_serde_json_reads_them() {
        let v = json!({"name": "a", "inner": {"tags": ["t"], "n": 3, "when": "w", "data": [1]},
                       "items": [], "pair": ["p", 2]});
        let plain: Outer = serde_json::from_value(v.clone()).unwrap();
        assert_eq!(read(v).unwrap(), plain);
    }
}
