//! Who wrote a record's reading: the one derivation of a reading's
//! provenance ([`reading_provenance`]) and the pure provenance read the
//! display blocks use ([`understanding_fields`]). The validation of the
//! provenance arguments the understanding verbs take is
//! `understanding::reading`'s.
//!
//! Spec: api.md "Understanding: in-place rewrites and versions"
//! (`reading_provenance`, `understanding_fields`);
//! memory-system.md "Understanding: a reading can change, its history stays".

use crate::kinds::RecordKind;
use crate::record::DigestRow;
use am_journal::AuthorKind;
use am_triples::{JsonMap, TripleAssertion};
use serde::Serialize;
use serde_json::{Value, json};

/// The kinds whose words are the entity's own (`ENTITY_WORDS_KINDS`): a row of
/// one of them that nobody stamped reads as written by the entity's mind.
pub const ENTITY_WORDS_KINDS: &[&str] = &[
    "diary",
    "interest",
    "lesson",
    "observation",
    "purpose",
    "question",
    "realization",
    "trait",
    "value",
];

/// Who wrote a reading, when and why: `{author, reader, understood_at, cause}`
/// (an unknown value is absent, never guessed).
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct ReadingProvenance {
    /// `{kind, id}`; kind `unrecorded` (no id) when the row names no origin.
    pub author: JsonMap,
    /// `{provider, model, thinking}` when a model wrote it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reader: Option<JsonMap>,
    /// When it was written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub understood_at: Option<String>,
    /// Why (`formation` for a row nobody stamped).
    pub cause: Value,
    /// The ledger sources the stamp names (empty when none).
    #[serde(skip)]
    pub sources: Vec<Value>,
}

fn author(kind: &str, id: Option<&str>) -> JsonMap {
    let mut m = JsonMap::new();
    m.insert("kind".into(), Value::String(kind.to_owned()));
    if let Some(id) = id {
        m.insert("id".into(), Value::String(id.to_owned()));
    }
    m
}

/// The one derivation of who wrote a record's current reading. The row's own
/// stamp (`attributes.understanding`) wins; a row nobody stamped reads as its
/// formation reading (`cause` `formation`, `understood_at` its `observed_at`),
/// its author from its origin: a `mechanical*` `digest_method` gives
/// `mechanical` (id the method); a spark identity record
/// (`attributes.spark_version`) `operator` (id `spark-v<N>`); a row whose
/// provenance names the operator as `actor` `operator` (id its `source`); a
/// kind in [`ENTITY_WORDS_KINDS`] `entity-mind` (id the owner); anything else
/// `unrecorded`.
pub fn reading_provenance(a: &TripleAssertion) -> ReadingProvenance {
    let row = DigestRow::of(a);
    if let Some(Value::Object(stamp)) = row.get("understanding") {
        let obj = |k: &str| match stamp.get(k) {
            Some(Value::Object(m)) => Some(m.clone()),
            _ => None,
        };
        return ReadingProvenance {
            author: obj("author").unwrap_or_else(|| author(AuthorKind::Unrecorded.as_str(), None)),
            reader: obj("reader"),
            understood_at: stamp
                .get("understood_at")
                .and_then(Value::as_str)
                .map(str::to_owned),
            cause: stamp
                .get("cause")
                .cloned()
                .unwrap_or_else(|| json!("formation")),
            sources: match stamp.get("sources") {
                Some(Value::Array(v)) => v.clone(),
                _ => Vec::new(),
            },
        };
    }
    let method = row.nonblank("digest_method");
    let spark = row.get("spark_version").filter(|v| !v.is_null());
    let operator_actor = a.provenance.get("actor").and_then(Value::as_str) == Some("operator");
    let who = if let Some(m) = method.filter(|m| m.starts_with("mechanical")) {
        author(AuthorKind::Mechanical.as_str(), Some(m))
    } else if let Some(v) = spark {
        let n = match v {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        author(AuthorKind::Operator.as_str(), Some(&format!("spark-v{n}")))
    } else if operator_actor {
        let source = a
            .provenance
            .get("source")
            .and_then(Value::as_str)
            .unwrap_or("operator");
        author(AuthorKind::Operator.as_str(), Some(source))
    } else if row
        .kind()
        .is_some_and(|k| ENTITY_WORDS_KINDS.contains(&k.as_str()))
    {
        author(AuthorKind::EntityMind.as_str(), a.owner_id.as_deref())
    } else {
        author(AuthorKind::Unrecorded.as_str(), None)
    };
    ReadingProvenance {
        author: who,
        reader: None,
        understood_at: Some(a.observed_at.clone()),
        cause: json!("formation"),
        sources: Vec::new(),
    }
}

/// The formation reading `remember_many` stamps on a record the caller did
/// not stamp (`attributes.understanding`, version 0): `None` when the row is
/// stamped already or its author is not known ([`reading_provenance`] gives
/// `unrecorded`).
pub fn formation_reading(a: &TripleAssertion) -> Option<Value> {
    if DigestRow::of(a).get("understanding").is_some() {
        return None;
    }
    let p = reading_provenance(a);
    if p.author.get("kind").and_then(Value::as_str) == Some(AuthorKind::Unrecorded.as_str()) {
        return None;
    }
    let mut m = JsonMap::new();
    m.insert("field".into(), json!("digest"));
    m.insert("version".into(), json!(0));
    m.insert("author".into(), Value::Object(p.author));
    m.insert("sources".into(), Value::Array(Vec::new()));
    m.insert("cause".into(), p.cause);
    m.insert("understood_at".into(), json!(a.observed_at));
    Some(Value::Object(m))
}

/// The pure provenance read of a record's current reading (the replay display
/// blocks' fields): unknown values are absent.
#[derive(Debug, Clone, PartialEq, Default, Serialize, schemars::JsonSchema)]
pub struct UnderstandingFields {
    /// How the current words were produced.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub digest_method: Option<String>,
    /// 0 = never rewritten.
    pub digest_version: i64,
    /// 1 = never rewritten.
    pub version_count: i64,
    /// `{kind, id}` of the current reading.
    pub authored_by: JsonMap,
    /// The model that wrote it, when one did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reader: Option<JsonMap>,
    /// When it was written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub understood_at: Option<String>,
    /// Why.
    pub cause: Value,
    /// A card's key.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<Value>,
    /// A card's key type.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target_type: Option<Value>,
    /// A card's revision.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub card_revision: Option<Value>,
    /// A card's evidence count.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_count: Option<Value>,
    /// A dream: whether it has a narration.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub narrated: Option<bool>,
    /// A dream: its narration version.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub narration_version: Option<i64>,
    /// A superseded record's replacement.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replaced_by: Option<String>,
}

/// `understanding_fields(assertion, *, version_count=None, replaced_by=None)`:
/// the pure provenance read, through [`reading_provenance`]. Without
/// `version_count` it is `digest_version + 1` (every version is kept).
pub fn understanding_fields(
    a: &TripleAssertion,
    version_count: Option<i64>,
    replaced_by: Option<&str>,
) -> UnderstandingFields {
    let prov = reading_provenance(a);
    let row = DigestRow::of(a);
    let digest_version = row.version("digest_version");
    let kind = row.kind();
    let get = |k: &str| row.get(k).filter(|v| !v.is_null()).cloned();
    let mut out = UnderstandingFields {
        digest_method: row.nonblank("digest_method").map(str::to_owned),
        digest_version,
        version_count: version_count.unwrap_or(digest_version + 1),
        authored_by: prov.author,
        reader: prov.reader,
        understood_at: prov.understood_at,
        cause: prov.cause,
        replaced_by: replaced_by.map(str::to_owned),
        ..UnderstandingFields::default()
    };
    if kind == Some(RecordKind::WorldModel) {
        out.target = get("target");
        out.target_type = get("target_type");
        out.card_revision = get("revision").or_else(|| get("card_revision"));
        out.source_count = get("source_count");
    }
    if kind == Some(RecordKind::Dream) {
        out.narrated = Some(row.nonblank("narration").is_some());
        out.narration_version = Some(row.version("narration_version"));
    }
    out
}
