//! `SourceRef`: a typed pointer into AbstractRuntime's ledger (a run, a step, an
//! artifact, a message, an event, a diary entry), validated at construction.
//!
//! Spec: api.md "The memory graph: revisions and provenance" / `SourceRef`;
//! memory-system.md "Provenance: every memory points back to the ledger".
//!
//! It lives here, below layer 2, so that the journal's readings and the
//! understanding verbs' arguments carry it typed; `am_graph` re-exports it
//! (`am_graph::source`) for the graph's provenance.

use crate::error::{Error, Result};
use serde_json::{Map, Value};
use std::fmt;

/// The six kinds of ledger source, in the spec's order.
pub const SOURCE_KINDS: [&str; 6] = ["run", "step", "artifact", "message", "event", "diary_entry"];

/// Run-id prefixes no ledger can load (ADR 0003 decision 11): such an id is not a
/// source; the artifact or diary entry it belongs to is.
pub const SYNTHETIC_RUN_ID_PREFIXES: [&str; 4] =
    ["chat-", "diary:", "session_memory_", "global_memory"];

/// Whether `run_id` is a synthetic pseudo-run (it starts with one of
/// [`SYNTHETIC_RUN_ID_PREFIXES`]): a `run` or `step` ref naming it is refused.
///
/// # Examples
/// ```
/// use am_journal::is_synthetic_run_id;
/// assert!(is_synthetic_run_id("diary:entity-7"));
/// assert!(!is_synthetic_run_id("run-42"));
/// ```
pub fn is_synthetic_run_id(run_id: &str) -> bool {
    SYNTHETIC_RUN_ID_PREFIXES
        .iter()
        .any(|p| run_id.starts_with(p))
}

/// The kind of a [`SourceRef`]; its wire name is one of [`SOURCE_KINDS`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SourceKind {
    /// A run (`run_id`).
    Run,
    /// A ledger row of a run (`run_id`, `seq` ≥ 1; optional `step_id`).
    Step,
    /// An artifact (`artifact_id`; optional `run_id`).
    Artifact,
    /// A message (`message_id`; optional `run_id`).
    Message,
    /// An event (`event_id`; optional `stream`).
    Event,
    /// A diary entry (`entry_id`; optional `run_id`, `diary:<entity_id>`).
    DiaryEntry,
}

impl SourceKind {
    /// The wire name (`"run"`, `"step"`, ..., `"diary_entry"`).
    pub fn as_str(self) -> &'static str {
        match self {
            SourceKind::Run => "run",
            SourceKind::Step => "step",
            SourceKind::Artifact => "artifact",
            SourceKind::Message => "message",
            SourceKind::Event => "event",
            SourceKind::DiaryEntry => "diary_entry",
        }
    }

    /// Parse a wire name.
    ///
    /// # Errors
    /// `InvalidSourceRef` for a name outside [`SOURCE_KINDS`].
    pub fn parse(name: &str) -> Result<SourceKind> {
        Ok(match name {
            "run" => SourceKind::Run,
            "step" => SourceKind::Step,
            "artifact" => SourceKind::Artifact,
            "message" => SourceKind::Message,
            "event" => SourceKind::Event,
            "diary_entry" => SourceKind::DiaryEntry,
            other => {
                return Err(Error::invalid_ref(format!(
                    "kind must be one of {SOURCE_KINDS:?}, got {other:?}"
                )));
            }
        })
    }

    /// The fields this kind requires, in the spec's order.
    pub fn required_fields(self) -> &'static [&'static str] {
        match self {
            SourceKind::Run => &["run_id"],
            SourceKind::Step => &["run_id", "seq"],
            SourceKind::Artifact => &["artifact_id"],
            SourceKind::Message => &["message_id"],
            SourceKind::Event => &["event_id"],
            SourceKind::DiaryEntry => &["entry_id"],
        }
    }

    /// The fields this kind may carry besides its required ones and the
    /// kind-independent `runtime_id` and `digest`, in the spec's order.
    pub fn optional_fields(self) -> &'static [&'static str] {
        match self {
            SourceKind::Run => &[],
            SourceKind::Step => &["step_id"],
            SourceKind::Artifact | SourceKind::Message | SourceKind::DiaryEntry => &["run_id"],
            SourceKind::Event => &["stream"],
        }
    }

    /// Every field a dict of this kind may hold, in `to_dict`'s key order:
    /// `kind`, the required fields, the optional fields, `runtime_id`, `digest`.
    pub fn dict_keys(self) -> Vec<&'static str> {
        let mut keys = vec!["kind"];
        keys.extend_from_slice(self.required_fields());
        keys.extend_from_slice(self.optional_fields());
        keys.extend_from_slice(&["runtime_id", "digest"]);
        keys
    }
}

impl fmt::Display for SourceKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Every field any kind owns (the union), to tell "a field another kind owns"
/// from "an unknown key".
const ALL_FIELDS: [&str; 11] = [
    "kind",
    "run_id",
    "seq",
    "step_id",
    "artifact_id",
    "message_id",
    "event_id",
    "stream",
    "entry_id",
    "runtime_id",
    "digest",
];

/// The fields of a [`SourceRef`] before validation: fill the ones its kind needs
/// and pass them to [`SourceRef::new`]. `None` is absent.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct SourceFields {
    /// `run`, `step` (required); `artifact`, `message`, `diary_entry` (optional).
    pub run_id: Option<String>,
    /// `step` (required): the ledger row address, an int ≥ 1.
    pub seq: Option<i64>,
    /// `step` (optional).
    pub step_id: Option<String>,
    /// `artifact` (required).
    pub artifact_id: Option<String>,
    /// `message` (required).
    pub message_id: Option<String>,
    /// `event` (required).
    pub event_id: Option<String>,
    /// `event` (optional).
    pub stream: Option<String>,
    /// `diary_entry` (required).
    pub entry_id: Option<String>,
    /// Any kind: which ledger (a plane's runtime or an entity home).
    pub runtime_id: Option<String>,
    /// Any kind: the sha256 hex of the verbatim at stamp time (64 hex digits).
    pub digest: Option<String>,
}

/// A typed pointer into the ledger (a frozen value: fields are read through
/// accessors; every `SourceRef` that exists passed validation).
///
/// Identity is [`key`](SourceRef::key): two refs with the same key are the same
/// source; `digest` rides beside the address and is not part of the key.
///
/// JSON (`to_dict`/`from_dict`): `{"kind", <required fields>, <optional fields>,
/// "runtime_id", "digest"}` in that order (the spec table's order), absent fields
/// omitted; e.g. `{"kind": "step", "run_id": "run-42", "seq": 3}`.
///
/// Spec: api.md `SourceRef`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SourceRef {
    kind: SourceKind,
    fields: SourceFields,
}

impl SourceRef {
    /// Build and validate a ref of `kind`.
    ///
    /// # Errors
    /// `InvalidSourceRef` when a required field is missing, a present id
    /// is blank, `seq` is below 1, a field belongs to another kind (an `artifact`
    /// with a `seq`), `digest` is not 64 hex digits, or a `run`/`step` names a
    /// synthetic run id ([`is_synthetic_run_id`]).
    ///
    /// # Examples
    /// ```
    /// use am_journal::{SourceFields, SourceKind, SourceRef};
    /// let step = SourceRef::new(SourceKind::Step, SourceFields {
    ///     run_id: Some("run-42".into()), seq: Some(3), ..Default::default()
    /// }).unwrap();
    /// assert_eq!(step.key(), "step:run-42#3");
    /// ```
    pub fn new(kind: SourceKind, fields: SourceFields) -> Result<SourceRef> {
        let mut fields = fields;
        let present: Vec<&'static str> = ALL_FIELDS[1..]
            .iter()
            .copied()
            .filter(|f| field_present(&fields, f))
            .collect();
        let allowed = kind.dict_keys();
        for f in &present {
            if !allowed.contains(f) {
                return Err(Error::invalid_ref(format!(
                    "a \"{kind}\" ref takes {:?}, got {f:?} (a field another kind owns)",
                    &allowed[1..]
                )));
            }
        }
        for f in kind.required_fields() {
            if !field_present(&fields, f) {
                return Err(Error::invalid_ref(format!(
                    "a \"{kind}\" ref requires {f:?}, got none"
                )));
            }
        }
        for (name, value) in string_fields(&fields) {
            if let Some(v) = value
                && v.trim().is_empty()
            {
                return Err(Error::invalid_ref(format!(
                    "{name} must be a non-blank string, got {v:?}"
                )));
            }
        }
        if let Some(seq) = fields.seq
            && seq < 1
        {
            return Err(Error::invalid_ref(format!(
                "seq must be an int >= 1 (the ledger row address; rows are numbered from 1), got {seq}"
            )));
        }
        if let Some(d) = fields.digest.as_mut() {
            if d.len() != 64 || !d.bytes().all(|b| b.is_ascii_hexdigit()) {
                return Err(Error::invalid_ref(format!(
                    "digest must be a sha256 hex digest (64 hex digits), got {d:?}"
                )));
            }
            d.make_ascii_lowercase();
        }
        if matches!(kind, SourceKind::Run | SourceKind::Step)
            && let Some(run_id) = fields.run_id.as_deref()
            && is_synthetic_run_id(run_id)
        {
            return Err(Error::invalid_ref(format!(
                "a \"{kind}\" ref needs a run id a ledger can load, got the synthetic {run_id:?} \
                 (prefixes {SYNTHETIC_RUN_ID_PREFIXES:?}): name the artifact or diary entry it belongs to"
            )));
        }
        Ok(SourceRef { kind, fields })
    }

    /// A `run` ref.
    ///
    /// # Errors
    /// As [`SourceRef::new`].
    pub fn run(run_id: &str) -> Result<SourceRef> {
        SourceRef::new(
            SourceKind::Run,
            SourceFields {
                run_id: Some(run_id.into()),
                ..SourceFields::default()
            },
        )
    }

    /// A `step` ref: the ledger row `seq` (≥ 1) of run `run_id`.
    ///
    /// # Errors
    /// As [`SourceRef::new`].
    pub fn step(run_id: &str, seq: i64) -> Result<SourceRef> {
        SourceRef::new(
            SourceKind::Step,
            SourceFields {
                run_id: Some(run_id.into()),
                seq: Some(seq),
                ..SourceFields::default()
            },
        )
    }

    /// An `artifact` ref.
    ///
    /// # Errors
    /// As [`SourceRef::new`].
    pub fn artifact(artifact_id: &str) -> Result<SourceRef> {
        SourceRef::new(
            SourceKind::Artifact,
            SourceFields {
                artifact_id: Some(artifact_id.into()),
                ..SourceFields::default()
            },
        )
    }

    /// A `message` ref.
    ///
    /// # Errors
    /// As [`SourceRef::new`].
    pub fn message(message_id: &str) -> Result<SourceRef> {
        SourceRef::new(
            SourceKind::Message,
            SourceFields {
                message_id: Some(message_id.into()),
                ..SourceFields::default()
            },
        )
    }

    /// An `event` ref.
    ///
    /// # Errors
    /// As [`SourceRef::new`].
    pub fn event(event_id: &str) -> Result<SourceRef> {
        SourceRef::new(
            SourceKind::Event,
            SourceFields {
                event_id: Some(event_id.into()),
                ..SourceFields::default()
            },
        )
    }

    /// A `diary_entry` ref.
    ///
    /// # Errors
    /// As [`SourceRef::new`].
    pub fn diary_entry(entry_id: &str) -> Result<SourceRef> {
        SourceRef::new(
            SourceKind::DiaryEntry,
            SourceFields {
                entry_id: Some(entry_id.into()),
                ..SourceFields::default()
            },
        )
    }

    /// The kind.
    pub fn kind(&self) -> SourceKind {
        self.kind
    }

    /// All fields (absent ones `None`).
    pub fn fields(&self) -> &SourceFields {
        &self.fields
    }

    /// The run id (required for `run`/`step`, optional for `artifact`,
    /// `message`, `diary_entry`, absent for `event`).
    pub fn run_id(&self) -> Option<&str> {
        self.fields.run_id.as_deref()
    }

    /// The ledger row of a `step`.
    pub fn seq(&self) -> Option<i64> {
        self.fields.seq
    }

    /// Which ledger (any kind, optional).
    pub fn runtime_id(&self) -> Option<&str> {
        self.fields.runtime_id.as_deref()
    }

    /// The sha256 hex of the verbatim at stamp time (lowercase), when stamped.
    pub fn digest(&self) -> Option<&str> {
        self.fields.digest.as_deref()
    }

    /// The identity: `run:<run_id>`, `step:<run_id>#<seq>`, `artifact:<artifact_id>`,
    /// `message:<message_id>`, `event:<event_id>`, `diary_entry:<entry_id>`.
    pub fn key(&self) -> String {
        let f = &self.fields;
        let id = |v: &Option<String>| v.clone().unwrap_or_default();
        match self.kind {
            SourceKind::Run => format!("run:{}", id(&f.run_id)),
            SourceKind::Step => format!("step:{}#{}", id(&f.run_id), f.seq.unwrap_or(0)),
            SourceKind::Artifact => format!("artifact:{}", id(&f.artifact_id)),
            SourceKind::Message => format!("message:{}", id(&f.message_id)),
            SourceKind::Event => format!("event:{}", id(&f.event_id)),
            SourceKind::DiaryEntry => format!("diary_entry:{}", id(&f.entry_id)),
        }
    }

    /// The JSON object form, keys in [`SourceKind::dict_keys`] order, absent
    /// fields omitted.
    pub fn to_dict(&self) -> Value {
        let mut m = Map::new();
        for key in self.kind.dict_keys() {
            if key == "kind" {
                m.insert("kind".into(), Value::String(self.kind.as_str().into()));
            } else if key == "seq" {
                if let Some(seq) = self.fields.seq {
                    m.insert("seq".into(), Value::from(seq));
                }
            } else if let Some(v) = string_field(&self.fields, key) {
                m.insert(key.into(), Value::String(v.to_owned()));
            }
        }
        Value::Object(m)
    }

    /// Build from a JSON object (a plain dict on the wire). `null` is absent.
    ///
    /// # Errors
    /// `InvalidSourceRef` for a non-object, a missing or unknown `kind`,
    /// an unknown key, a field another kind owns, an id that is not a string, a
    /// `seq` that is not a JSON integer (a bool, `3.0`, a string are refused), and
    /// every rule of [`SourceRef::new`].
    pub fn from_dict(value: &Value) -> Result<SourceRef> {
        let obj = value.as_object().ok_or_else(|| {
            Error::invalid_ref(format!("a source ref must be a JSON object, got {value}"))
        })?;
        let kind = match obj.get("kind") {
            Some(Value::String(k)) => SourceKind::parse(k)?,
            None | Some(Value::Null) => {
                return Err(Error::invalid_ref(format!(
                    "a source ref requires \"kind\" (one of {SOURCE_KINDS:?}), got none"
                )));
            }
            Some(other) => {
                return Err(Error::invalid_ref(format!(
                    "kind must be one of {SOURCE_KINDS:?}, got {other}"
                )));
            }
        };
        let mut fields = SourceFields::default();
        for (key, v) in obj {
            if key == "kind" || v.is_null() {
                continue;
            }
            if !ALL_FIELDS.contains(&key.as_str()) {
                return Err(Error::invalid_ref(format!(
                    "a \"{kind}\" ref takes {:?}, got the unknown key {key:?}",
                    &kind.dict_keys()[1..]
                )));
            }
            if key == "seq" {
                fields.seq = Some(match v {
                    Value::Number(n) if n.is_i64() => n.as_i64().unwrap_or(0),
                    Value::Number(n) if n.is_u64() => i64::MAX,
                    other => {
                        return Err(Error::invalid_ref(format!(
                            "seq must be an int >= 1, got {other}"
                        )));
                    }
                });
                continue;
            }
            let Value::String(s) = v else {
                return Err(Error::invalid_ref(format!(
                    "{key} must be a string, got {v}"
                )));
            };
            let slot = match key.as_str() {
                "run_id" => &mut fields.run_id,
                "step_id" => &mut fields.step_id,
                "artifact_id" => &mut fields.artifact_id,
                "message_id" => &mut fields.message_id,
                "event_id" => &mut fields.event_id,
                "stream" => &mut fields.stream,
                "entry_id" => &mut fields.entry_id,
                "runtime_id" => &mut fields.runtime_id,
                _ => &mut fields.digest,
            };
            *slot = Some(s.clone());
        }
        SourceRef::new(kind, fields)
    }

    /// Whether this ref belongs to run `run_id`: a `run` or `step` of it, or an
    /// `artifact`, `message` or `diary_entry` carrying it (how a `run` ref matches
    /// in `derived_from_source`).
    pub fn stamped_with_run(&self, run_id: &str) -> bool {
        self.fields.run_id.as_deref() == Some(run_id)
    }
}

impl fmt::Display for SourceRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.key())
    }
}

impl serde::Serialize for SourceRef {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        self.to_dict().serialize(s)
    }
}

impl<'de> serde::Deserialize<'de> for SourceRef {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        SourceRef::from_dict(&v).map_err(serde::de::Error::custom)
    }
}

/// One object per kind, told apart by `kind` (the shape `to_dict` writes and
/// `from_dict` reads): `kind` and the kind's required fields, its optional
/// fields, `runtime_id` and `digest`; any other key is refused.
impl schemars::JsonSchema for SourceRef {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "SourceRef".into()
    }

    fn schema_id() -> std::borrow::Cow<'static, str> {
        "am_journal::SourceRef".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let kinds = [
            SourceKind::Run,
            SourceKind::Step,
            SourceKind::Artifact,
            SourceKind::Message,
            SourceKind::Event,
            SourceKind::DiaryEntry,
        ];
        let variants: Vec<Value> = kinds
            .iter()
            .map(|&kind| {
                let mut properties = Map::new();
                for key in kind.dict_keys() {
                    let field = match key {
                        "kind" => serde_json::json!({"type": "string", "const": kind.as_str()}),
                        "seq" => serde_json::json!({
                            "type": "integer",
                            "minimum": 1,
                            "description": "The ledger row address (rows are numbered from 1).",
                        }),
                        "digest" => serde_json::json!({
                            "type": "string",
                            "pattern": "^[0-9a-fA-F]{64}$",
                            "description": "The sha256 hex of the verbatim at stamp time.",
                        }),
                        _ => serde_json::json!({"type": "string", "pattern": "\\S"}),
                    };
                    properties.insert(key.to_owned(), field);
                }
                let mut required = vec!["kind"];
                required.extend_from_slice(kind.required_fields());
                serde_json::json!({
                    "type": "object",
                    "properties": properties,
                    "required": required,
                    "additionalProperties": false,
                })
            })
            .collect();
        schemars::json_schema!({
            "description": "A typed pointer into the ledger, tagged by `kind` (one of \
                `run`, `step`, `artifact`, `message`, `event`, `diary_entry`). \
                Ids are non-blank strings; a `run` or `step` may not name a \
                synthetic run id; `null` reads as absent.",
            "oneOf": variants,
        })
    }
}

/// Refuse two refs to one key whose digests differ (the rule where two refs to
/// one source meet: a provenance's own sources, or a memory's stored refs and a
/// new revision's). A digest on only one side, or refs with different keys, pass.
///
/// # Errors
/// `InvalidSourceRef` naming the key and both digests.
pub fn check_digest_agreement(a: &SourceRef, b: &SourceRef) -> Result<()> {
    if let (Some(da), Some(db)) = (a.digest(), b.digest())
        && da != db
        && a.key() == b.key()
    {
        return Err(Error::invalid_ref(format!(
            "two refs to {} carry different digests: {da} and {db}",
            a.key()
        )));
    }
    Ok(())
}

fn string_fields(f: &SourceFields) -> [(&'static str, Option<&str>); 9] {
    [
        ("run_id", f.run_id.as_deref()),
        ("step_id", f.step_id.as_deref()),
        ("artifact_id", f.artifact_id.as_deref()),
        ("message_id", f.message_id.as_deref()),
        ("event_id", f.event_id.as_deref()),
        ("stream", f.stream.as_deref()),
        ("entry_id", f.entry_id.as_deref()),
        ("runtime_id", f.runtime_id.as_deref()),
        ("digest", f.digest.as_deref()),
    ]
}

fn string_field<'a>(f: &'a SourceFields, name: &str) -> Option<&'a str> {
    string_fields(f)
        .into_iter()
        .find(|(n, _)| *n == name)
        .and_then(|(_, v)| v)
}

fn field_present(f: &SourceFields, name: &str) -> bool {
    if name == "seq" {
        f.seq.is_some()
    } else {
        string_field(f, name).is_some()
    }
}
