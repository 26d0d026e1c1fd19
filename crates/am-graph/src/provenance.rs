//! `Provenance`: where a memory or a revision came from (ledger sources, parent
//! memories, the actor), the strict `from_dict` and the one legacy lift `from_legacy`.
//!
//! Spec: api.md "The memory graph: revisions and provenance" / `Provenance`.

use crate::error::{Error, Result};
use crate::source::{
    SourceFields, SourceKind, SourceRef, check_digest_agreement, is_synthetic_run_id,
};
use am_triples::JsonMap;
use serde_json::Value;

/// The six keys of a provenance dict, in `to_dict`'s order.
pub const PROVENANCE_KEYS: [&str; 6] = [
    "sources",
    "derived_from",
    "actor",
    "reader",
    "reason",
    "extra",
];

/// The flat keys of the pre-graph provenance shape; `from_dict` refuses them and
/// names `from_legacy`.
pub const LEGACY_KEYS: [&str; 6] = [
    "run_id",
    "turn_id",
    "writer_run_id",
    "span_id",
    "payload_ref",
    "entry_id",
];

/// The actor `from_legacy` uses when neither the caller nor the dict names one.
pub const LEGACY_DEFAULT_ACTOR: &str = "runtime";

/// Where a memory (or a revision) came from.
///
/// Invariants (checked by every constructor): `actor` is non-blank; `sources`
/// hold one ref per [`SourceRef::key`] (the first wins; two refs to one key with
/// different digests are refused); `derived_from` ids are non-blank.
///
/// JSON (`to_dict`): `{"sources": [...], "derived_from": [...], "actor", "reader",
/// "reason", "extra"}` in [`PROVENANCE_KEYS`] order; `sources`, `derived_from` and
/// `actor` always, `reader`/`reason` only when set, `extra` only when non-empty.
///
/// Spec: api.md `Provenance`.
#[derive(Debug, Clone, PartialEq)]
pub struct Provenance {
    sources: Vec<SourceRef>,
    derived_from: Vec<String>,
    actor: String,
    reader: Option<String>,
    reason: Option<String>,
    extra: JsonMap,
}

impl Provenance {
    /// A provenance naming `sources` and parents `derived_from`, by `actor`
    /// (`"abstractnote"`, `"entity:<id>"`, `"runtime"`, `"abstractmemory:<pass>"`).
    /// Duplicate sources collapse on their key, the first kept.
    ///
    /// # Errors
    /// `InvalidInput` for a blank actor or a blank `derived_from` id;
    /// `InvalidSourceRef` for two refs to one key with different digests.
    ///
    /// # Examples
    /// ```
    /// use am_graph::{Provenance, SourceRef};
    /// let p = Provenance::new(
    ///     vec![SourceRef::step("run-42", 3).unwrap(), SourceRef::step("run-42", 3).unwrap()],
    ///     vec![],
    ///     "abstractnote",
    /// ).unwrap();
    /// assert_eq!(p.sources().len(), 1);
    /// assert!(p.is_grounded());
    /// ```
    pub fn new(
        sources: Vec<SourceRef>,
        derived_from: Vec<String>,
        actor: &str,
    ) -> Result<Provenance> {
        if actor.trim().is_empty() {
            return Err(Error::invalid(format!(
                "provenance actor is required and must be non-empty, got {actor:?}"
            )));
        }
        for (i, id) in derived_from.iter().enumerate() {
            if id.trim().is_empty() {
                return Err(Error::invalid(format!(
                    "derived_from[{i}] must be a non-blank memory id, got {id:?}"
                )));
            }
        }
        Ok(Provenance {
            sources: dedupe_sources(sources)?,
            derived_from,
            actor: actor.to_owned(),
            reader: None,
            reason: None,
            extra: JsonMap::new(),
        })
    }

    /// The same provenance with `reader` (the model that exercised judgement).
    pub fn with_reader(mut self, reader: Option<&str>) -> Self {
        self.reader = reader.map(str::to_owned);
        self
    }

    /// The same provenance with `reason` (free text).
    pub fn with_reason(mut self, reason: Option<&str>) -> Self {
        self.reason = reason.map(str::to_owned);
        self
    }

    /// The same provenance with `extra` (anything else: `turn_id`, `note_id`, ...).
    pub fn with_extra(mut self, extra: JsonMap) -> Self {
        self.extra = extra;
        self
    }

    /// The ledger sources, one per key, in first-seen order.
    pub fn sources(&self) -> &[SourceRef] {
        &self.sources
    }

    /// The parent memory ids.
    pub fn derived_from(&self) -> &[String] {
        &self.derived_from
    }

    /// Who wrote it.
    pub fn actor(&self) -> &str {
        &self.actor
    }

    /// The model that exercised judgement, when one did.
    pub fn reader(&self) -> Option<&str> {
        self.reader.as_deref()
    }

    /// Free text.
    pub fn reason(&self) -> Option<&str> {
        self.reason.as_deref()
    }

    /// Anything else.
    pub fn extra(&self) -> &JsonMap {
        &self.extra
    }

    /// True when it names a ledger source or a parent memory.
    pub fn is_grounded(&self) -> bool {
        !self.sources.is_empty() || !self.derived_from.is_empty()
    }

    /// The JSON object form (see the type's doc for the shape).
    pub fn to_dict(&self) -> Value {
        let mut m = JsonMap::new();
        m.insert(
            "sources".into(),
            Value::Array(self.sources.iter().map(SourceRef::to_dict).collect()),
        );
        m.insert(
            "derived_from".into(),
            Value::Array(
                self.derived_from
                    .iter()
                    .cloned()
                    .map(Value::String)
                    .collect(),
            ),
        );
        m.insert("actor".into(), Value::String(self.actor.clone()));
        if let Some(r) = &self.reader {
            m.insert("reader".into(), Value::String(r.clone()));
        }
        if let Some(r) = &self.reason {
            m.insert("reason".into(), Value::String(r.clone()));
        }
        if !self.extra.is_empty() {
            m.insert("extra".into(), Value::Object(self.extra.clone()));
        }
        Value::Object(m)
    }

    /// The JSON object form as a map (what an assertion row's `provenance` holds).
    pub fn to_map(&self) -> JsonMap {
        match self.to_dict() {
            Value::Object(m) => m,
            _ => JsonMap::new(),
        }
    }

    /// Strict parse of the graph shape. `null` values are absent.
    ///
    /// # Errors
    /// `ProvenanceRequired` for a key outside [`PROVENANCE_KEYS`] (a
    /// legacy flat key from [`LEGACY_KEYS`] names `Provenance::from_legacy` in
    /// the message) or a non-object; `InvalidSourceRef` for a malformed
    /// source; `InvalidInput` for a missing or blank `actor` or a
    /// mistyped field.
    pub fn from_dict(value: &Value) -> Result<Provenance> {
        let obj = value.as_object().ok_or_else(|| {
            Error::provenance_required(format!("provenance must be a JSON object, got {value}"))
        })?;
        let legacy: Vec<&str> = obj
            .keys()
            .map(String::as_str)
            .filter(|k| LEGACY_KEYS.contains(k))
            .collect();
        if !legacy.is_empty() {
            return Err(Error::provenance_required(format!(
                "provenance takes the keys {PROVENANCE_KEYS:?}, got the legacy flat keys {legacy:?}: \
                 convert the old shape with Provenance::from_legacy"
            )));
        }
        if let Some(k) = obj.keys().find(|k| !PROVENANCE_KEYS.contains(&k.as_str())) {
            return Err(Error::provenance_required(format!(
                "provenance takes the keys {PROVENANCE_KEYS:?}, got the unknown key {k:?}"
            )));
        }
        let actor = match obj.get("actor") {
            Some(Value::String(a)) => a.clone(),
            None | Some(Value::Null) => {
                return Err(Error::invalid(
                    "provenance actor is required and must be non-empty, got none",
                ));
            }
            Some(other) => {
                return Err(Error::invalid(format!(
                    "provenance actor must be a string, got {other}"
                )));
            }
        };
        Ok(Provenance::new(
            parse_sources(obj.get("sources"))?,
            parse_derived(obj.get("derived_from"))?,
            &actor,
        )?
        .with_reader(opt_string(obj, "reader")?.as_deref())
        .with_reason(opt_string(obj, "reason")?.as_deref())
        .with_extra(opt_object(obj, "extra")?))
    }

    /// Lift the old flat provenance shape, in one place.
    ///
    /// Legacy shape (no `sources` and no `derived_from` key):
    /// - `run_id` → a `run` ref, unless synthetic ([`is_synthetic_run_id`]): a
    ///   `diary:<entity_id>` pseudo-run rides the `diary_entry` ref as its
    ///   `run_id` (when `entry_id` is there; otherwise it stays in `extra`), any
    ///   other synthetic id stays in `extra`;
    /// - `span_id`, then `payload_ref` → `artifact` refs;
    /// - `entry_id` → a `diary_entry` ref;
    /// - `reader` and `reason` (strings) → their fields; `extra` (an object) is
    ///   merged into `extra` and wins over a flat key of the same name;
    /// - everything else → `extra`, as written.
    ///
    /// A ref is never fabricated for an absent, `null`, empty or non-string
    /// value: such a legacy key is kept in `extra` as written.
    ///
    /// Mixed shape (a `sources` or `derived_from` key present, e.g. the runtime's
    /// stamp: legacy flat keys for older readers plus the sources it vouches for):
    /// the graph keys ([`PROVENANCE_KEYS`]) are kept as they are (parsed
    /// strictly), every other key is lifted into `extra`, no ref is lifted from a
    /// flat key, and an explicit `extra` wins over a flat key of the same name.
    ///
    /// `actor`: the argument (when non-blank), else the dict's own (a non-blank
    /// string), else `"runtime"`.
    ///
    /// Ref order: the `run` ref, then `artifact` refs, then the `diary_entry` ref
    /// (first wins on duplicates).
    ///
    /// # Errors
    /// `InvalidInput` when `flat` is not an object or a kept graph key
    /// is mistyped; `InvalidSourceRef` when a kept `sources` entry is
    /// malformed or a lifted id makes a malformed ref (blank after trimming).
    pub fn from_legacy(flat: &Value, actor: Option<&str>) -> Result<Provenance> {
        let obj = flat.as_object().ok_or_else(|| {
            Error::invalid(format!("from_legacy expects a JSON object, got {flat}"))
        })?;
        let own_actor = match obj.get("actor") {
            Some(Value::String(a)) if !a.trim().is_empty() => Some(a.clone()),
            _ => None,
        };
        let actor = actor
            .filter(|a| !a.trim().is_empty())
            .map(str::to_owned)
            .or(own_actor)
            .unwrap_or_else(|| LEGACY_DEFAULT_ACTOR.to_owned());
        let explicit_extra = opt_object(obj, "extra")?;

        if obj.contains_key("sources") || obj.contains_key("derived_from") {
            // Mixed shape: graph keys as they are; every other key into extra.
            let mut extra = JsonMap::new();
            for (k, v) in obj {
                if !PROVENANCE_KEYS.contains(&k.as_str()) {
                    extra.insert(k.clone(), v.clone());
                }
            }
            for (k, v) in explicit_extra {
                extra.insert(k, v);
            }
            return Ok(Provenance::new(
                parse_sources(obj.get("sources"))?,
                parse_derived(obj.get("derived_from"))?,
                &actor,
            )?
            .with_reader(opt_string(obj, "reader")?.as_deref())
            .with_reason(opt_string(obj, "reason")?.as_deref())
            .with_extra(extra));
        }

        let text = |k: &str| match obj.get(k) {
            Some(Value::String(s)) if !s.trim().is_empty() => Some(s.clone()),
            _ => None,
        };
        let run_id = text("run_id");
        let entry_id = text("entry_id");
        let mut sources = Vec::new();
        let mut lifted: Vec<&str> = Vec::new();
        let mut diary_run: Option<String> = None;
        if let Some(run_id) = &run_id {
            if !is_synthetic_run_id(run_id) {
                sources.push(SourceRef::run(run_id)?);
                lifted.push("run_id");
            } else if run_id.starts_with("diary:") && entry_id.is_some() {
                diary_run = Some(run_id.clone());
                lifted.push("run_id");
            }
        }
        for k in ["span_id", "payload_ref"] {
            if let Some(id) = text(k) {
                sources.push(SourceRef::artifact(&id)?);
                lifted.push(k);
            }
        }
        if let Some(entry_id) = entry_id {
            sources.push(SourceRef::new(
                SourceKind::DiaryEntry,
                SourceFields {
                    entry_id: Some(entry_id),
                    run_id: diary_run,
                    ..SourceFields::default()
                },
            )?);
            lifted.push("entry_id");
        }
        let mut extra = JsonMap::new();
        let mut reader = None;
        let mut reason = None;
        for (k, v) in obj {
            match (k.as_str(), v) {
                (k, _) if lifted.contains(&k) => {}
                ("actor", Value::String(_)) | ("extra", _) => {}
                ("reader", Value::String(s)) => reader = Some(s.clone()),
                ("reason", Value::String(s)) => reason = Some(s.clone()),
                _ => {
                    extra.insert(k.clone(), v.clone());
                }
            }
        }
        for (k, v) in explicit_extra {
            extra.insert(k, v);
        }
        Ok(Provenance::new(sources, Vec::new(), &actor)?
            .with_reader(reader.as_deref())
            .with_reason(reason.as_deref())
            .with_extra(extra))
    }
}

impl serde::Serialize for Provenance {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        self.to_dict().serialize(s)
    }
}

impl<'de> serde::Deserialize<'de> for Provenance {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        Provenance::from_dict(&v).map_err(serde::de::Error::custom)
    }
}

/// The graph shape `to_dict` writes and `from_dict` reads: `actor` required
/// (non-blank), `sources` a list of [`SourceRef`]s, `derived_from` a list of
/// memory ids, `reader`/`reason` strings, `extra` an object; any other key
/// (a legacy flat key included) is refused.
impl schemars::JsonSchema for Provenance {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Provenance".into()
    }

    fn schema_id() -> std::borrow::Cow<'static, str> {
        "am_graph::Provenance".into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let source = generator.subschema_for::<SourceRef>();
        schemars::json_schema!({
            "type": "object",
            "description": "Where a memory (or a revision) came from. `null` reads as absent.",
            "properties": {
                "sources": {"type": "array", "items": source},
                "derived_from": {"type": "array", "items": {"type": "string", "pattern": "\\S"}},
                "actor": {"type": "string", "pattern": "\\S"},
                "reader": {"type": "string"},
                "reason": {"type": "string"},
                "extra": {"type": "object", "additionalProperties": true},
            },
            "required": ["actor"],
            "additionalProperties": false,
        })
    }
}

/// Collapse refs on their key, the first kept; refuse two refs to one key whose
/// digests differ.
///
/// # Errors
/// `InvalidSourceRef` on conflicting digests.
pub fn dedupe_sources(sources: Vec<SourceRef>) -> Result<Vec<SourceRef>> {
    let mut out: Vec<SourceRef> = Vec::with_capacity(sources.len());
    let mut keys: Vec<String> = Vec::with_capacity(sources.len());
    for s in sources {
        let key = s.key();
        if let Some(i) = keys.iter().position(|k| *k == key) {
            check_digest_agreement(&out[i], &s)?;
            continue;
        }
        keys.push(key);
        out.push(s);
    }
    Ok(out)
}

fn parse_sources(v: Option<&Value>) -> Result<Vec<SourceRef>> {
    match v {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, item)| {
                SourceRef::from_dict(item).map_err(|e| e.with_prefix(&format!("sources[{i}]")))
            })
            .collect(),
        Some(other) => Err(Error::invalid(format!(
            "provenance sources must be a list of source refs, got {other}"
        ))),
    }
}

fn parse_derived(v: Option<&Value>) -> Result<Vec<String>> {
    match v {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, item)| match item {
                Value::String(s) => Ok(s.clone()),
                other => Err(Error::invalid(format!(
                    "derived_from[{i}] must be a memory id string, got {other}"
                ))),
            })
            .collect(),
        Some(other) => Err(Error::invalid(format!(
            "provenance derived_from must be a list of memory ids, got {other}"
        ))),
    }
}

fn opt_string(obj: &JsonMap, key: &str) -> Result<Option<String>> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err(Error::invalid(format!(
            "provenance {key} must be a string, got {other}"
        ))),
    }
}

fn opt_object(obj: &JsonMap, key: &str) -> Result<JsonMap> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(JsonMap::new()),
        Some(Value::Object(m)) => Ok(m.clone()),
        Some(other) => Err(Error::invalid(format!(
            "provenance {key} must be a JSON object, got {other}"
        ))),
    }
}
