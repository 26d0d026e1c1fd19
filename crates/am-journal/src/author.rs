//! Who wrote a reading, as a caller names it: [`AuthorRef`] `{kind, id}`
//! and, for a model author, [`ReaderRef`] `{provider, model, thinking}`.
//! They live here, beside [`AuthorKind`] and below layer 2, so that the
//! understanding verbs' arguments carry them typed; their wire form is the
//! spec's dict.
//!
//! Spec: api.md "Understanding: in-place rewrites and versions"
//! ("Provenance arguments").

use crate::version::AuthorKind;
use am_triples::JsonMap;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

/// Who authored a reading: `{kind, id}` (the spec's `author` and
/// `revert_digest`'s `by`). On the wire `kind` is one of the spec's four
/// `AUTHOR_KINDS` ([`AuthorKind::AUTHORS`]): `unrecorded` names a stored
/// reading without an origin and is never a caller's. The verbs also refuse
/// a blank `id`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AuthorRef {
    /// `entity-mind` (the entity's own model), `capability-model` (a model
    /// the host names for this capability), `operator` or `mechanical`.
    #[serde(deserialize_with = "caller_kind")]
    #[schemars(schema_with = "caller_kinds_schema")]
    pub kind: AuthorKind,
    /// Who, within the kind (a person, a capability, a method).
    pub id: String,
}

impl AuthorRef {
    /// `{kind, id}`.
    pub fn new(kind: AuthorKind, id: &str) -> Self {
        AuthorRef {
            kind,
            id: id.to_owned(),
        }
    }

    /// Whether a model wrote the reading (`entity-mind`, `capability-model`):
    /// such an author also names its reader and a ledger source.
    pub fn is_model(&self) -> bool {
        matches!(
            self.kind,
            AuthorKind::EntityMind | AuthorKind::CapabilityModel
        )
    }

    /// The dict a stamp and a version row store: `{"kind", "id"}`.
    pub fn to_map(&self) -> JsonMap {
        let mut m = JsonMap::new();
        m.insert("kind".into(), Value::String(self.kind.as_str().to_owned()));
        m.insert("id".into(), Value::String(self.id.clone()));
        m
    }
}

/// The model that read for a model author: `{provider, model, thinking}`
/// (`thinking` as the host states it: a flag, a level, `null`, ...). Read
/// as a JSON object that holds exactly those three keys (a `null` value
/// present, so `thinking: null` is a reader), `provider` and `model`
/// strings; the verbs also refuse a blank one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "JsonMap")]
pub struct ReaderRef {
    /// Who serves the model.
    pub provider: String,
    /// The model.
    pub model: String,
    /// Whether (or how) it thought before answering.
    pub thinking: Value,
}

impl ReaderRef {
    /// The dict a stamp and a version row store: `{"provider", "model",
    /// "thinking"}`.
    pub fn to_map(&self) -> JsonMap {
        let mut m = JsonMap::new();
        m.insert("provider".into(), Value::String(self.provider.clone()));
        m.insert("model".into(), Value::String(self.model.clone()));
        m.insert("thinking".into(), self.thinking.clone());
        m
    }
}

const READER_KEYS: [&str; 3] = ["provider", "model", "thinking"];

impl TryFrom<JsonMap> for ReaderRef {
    type Error = String;

    fn try_from(m: JsonMap) -> Result<Self, String> {
        for key in READER_KEYS {
            if !m.contains_key(key) {
                return Err(format!(
                    "reader must be {{provider, model, thinking}}, got {} without {key:?}",
                    Value::Object(m)
                ));
            }
        }
        if let Some(other) = m.keys().find(|k| !READER_KEYS.contains(&k.as_str())) {
            return Err(format!(
                "reader must be {{provider, model, thinking}}, got the unknown key {other:?}"
            ));
        }
        let text = |key: &str| match m.get(key) {
            Some(Value::String(s)) => Ok(s.clone()),
            other => Err(format!(
                "reader.{key} must be a non-empty string, got {}",
                am_triples::text::shown(&other)
            )),
        };
        Ok(ReaderRef {
            provider: text("provider")?,
            model: text("model")?,
            thinking: m.get("thinking").cloned().unwrap_or(Value::Null),
        })
    }
}

/// `{provider, model, thinking}`, closed.
impl schemars::JsonSchema for ReaderRef {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "ReaderRef".into()
    }

    fn schema_id() -> std::borrow::Cow<'static, str> {
        "am_journal::ReaderRef".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "The model that read for a model author.",
            "type": "object",
            "properties": {
                "provider": {"type": "string", "description": "Who serves the model."},
                "model": {"type": "string", "description": "The model."},
                "thinking": {"description": "Whether (or how) it thought before answering."},
            },
            "required": READER_KEYS,
            "additionalProperties": false,
        })
    }
}

/// A caller's author kind: one of [`AuthorKind::AUTHORS`].
fn caller_kind<'de, D: Deserializer<'de>>(d: D) -> Result<AuthorKind, D::Error> {
    let name = std::borrow::Cow::<'de, str>::deserialize(d)?;
    match AuthorKind::parse(&name) {
        Ok(kind) if AuthorKind::AUTHORS.contains(&kind.as_str()) => Ok(kind),
        _ => Err(serde::de::Error::custom(format!(
            "must be one of {:?}, got {:?}",
            AuthorKind::AUTHORS,
            name
        ))),
    }
}

fn caller_kinds_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "type": "string",
        "enum": AuthorKind::AUTHORS,
        "description": "Who authored the reading: one of the spec's AUTHOR_KINDS.",
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_author_is_the_spec_dict_and_unrecorded_is_never_a_callers_kind() {
        let a: AuthorRef =
            serde_json::from_value(json!({"kind": "operator", "id": "ada"})).unwrap();
        assert_eq!(a, AuthorRef::new(AuthorKind::Operator, "ada"));
        assert_eq!(
            serde_json::to_value(&a).unwrap(),
            Value::Object(a.to_map()),
            "the wire form is the stored dict"
        );
        for kind in ["unrecorded", "human", "Operator"] {
            let err = serde_json::from_value::<AuthorRef>(json!({"kind": kind, "id": "x"}))
                .unwrap_err()
                .to_string();
            assert!(err.contains("must be one of"), "{kind}: {err}");
        }
        assert!(
            serde_json::from_value::<AuthorRef>(json!({"kind": "operator", "id": "x", "as": 1}))
                .is_err()
        );
        assert!(AuthorRef::new(AuthorKind::CapabilityModel, "s").is_model());
        assert!(!AuthorRef::new(AuthorKind::Mechanical, "m").is_model());
    }

    #[test]
    fn a_reader_is_exactly_provider_model_and_thinking_in_that_order_and_thinking_may_be_null() {
        let r: ReaderRef = serde_json::from_value(
            json!({"thinking": "high", "model": "qwen3", "provider": "lmstudio"}),
        )
        .unwrap();
        assert_eq!(
            serde_json::to_string(&r.to_map()).unwrap(),
            r#"{"provider":"lmstudio","model":"qwen3","thinking":"high"}"#
        );
        assert_eq!(serde_json::to_value(&r).unwrap(), Value::Object(r.to_map()));
        let none: ReaderRef =
            serde_json::from_value(json!({"provider": "p", "model": "m", "thinking": null}))
                .unwrap();
        assert_eq!(none.thinking, Value::Null, "a null thinking is a reader's");
        for bad in [
            json!({"provider": "p", "model": "m"}),
            json!({"provider": "p", "model": "m", "thinking": true, "temperature": 0}),
            json!({"provider": 1, "model": "m", "thinking": true}),
            json!({"provider": "p", "model": null, "thinking": true}),
        ] {
            assert!(
                serde_json::from_value::<ReaderRef>(bad.clone()).is_err(),
                "{bad}"
            );
        }
    }
}
