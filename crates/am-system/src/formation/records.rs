//! `MemoryRecordInput`: one typed record to remember, and its validation
//! (kinds, mandatory title and digest, summary edges, value classes, the diary
//! formation rules, lesson and instruction conventions, pending fields).
//!
//! Validation is pure and runs before any write. Spec: api.md "Formation
//! (typed records)"; 0.3.2's `records.MemoryRecordInput.__post_init__` where
//! the spec is silent.

use crate::error::{Error, Result};
use crate::kinds::{
    AUTHOR_KINDS, DIARY_SOURCES, DIARY_TYPES, INSTRUCTION_CATEGORIES, LESSON_EVIDENCE_CLASSES,
    PENDING_FIELDS, RecordKind, UNDERSTANDING_PROTECTED_KINDS, VALUE_CLASSES,
};
use am_triples::JsonMap;
use am_triples::assertion::py_strip;
use am_triples::text::{RECALL_MIN_TOKEN_LEN, tokenize};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One record to remember.
///
/// A title and a digest are mandatory; the one exception is `pending =
/// ["title"]` with no title (a pending field needs a task queue, which
/// `MemorySystem::remember_many` refuses on this port). `edges` are
/// `(relation, target_record_id)` pairs; a target may be `local:<i>`, a sibling
/// of the same batch. `participants` are identity strings (`person:ada`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MemoryRecordInput {
    /// The kind (required; read trimmed and lowercased).
    #[serde(deserialize_with = "am_triples::vocab::folded")]
    pub kind: RecordKind,
    /// The title; `None` only with `pending` naming `title`.
    #[serde(default)]
    pub title: Option<String>,
    /// 1–3 sentences: what gets indexed and embedded.
    #[serde(default)]
    pub digest: String,
    /// Selection metadata.
    #[serde(default)]
    pub intents: Vec<String>,
    /// Selection metadata.
    #[serde(default)]
    pub outcomes: Vec<String>,
    /// Keywords (lessons and instructions gain their `applies_when` tokens).
    #[serde(default)]
    pub keywords: Vec<String>,
    /// Identity strings of who lived this memory.
    #[serde(default)]
    pub participants: Vec<String>,
    /// `(relation, target_record_id)` pairs; targets may be `local:<i>`.
    #[serde(default)]
    pub edges: Vec<(String, String)>,
    /// Host artifact reference of the full verbatim.
    #[serde(default)]
    pub payload_ref: Option<String>,
    /// Optional topic label.
    #[serde(default)]
    pub topic: Option<String>,
    /// Optional confidence (finite).
    #[serde(default)]
    pub confidence: Option<f64>,
    /// Host attributes (reserved keys are overlaid at encoding).
    #[serde(default)]
    pub attributes: JsonMap,
    /// Host provenance.
    #[serde(default)]
    pub provenance: JsonMap,
    /// Fields formed pending (`title`, `summary`).
    #[serde(default)]
    pub pending: Vec<String>,
    /// Why authoring failed (`{reason, error_class, message, at, fields}`);
    /// needs pending fields.
    #[serde(default)]
    pub pending_failure: Option<JsonMap>,
}

impl MemoryRecordInput {
    /// A record of `kind` with a title and a digest.
    ///
    /// # Examples
    /// ```
    /// use am_system::{MemoryRecordInput, RecordKind};
    /// let r = MemoryRecordInput::new(RecordKind::Lesson, "Pool sizing", "Size the pool.")
    ///     .with_keywords(&["pool"]);
    /// assert!(r.validated(&mut Vec::new()).is_ok());
    /// ```
    pub fn new(kind: RecordKind, title: &str, digest: &str) -> Self {
        MemoryRecordInput {
            kind,
            title: Some(title.to_owned()),
            digest: digest.to_owned(),
            ..MemoryRecordInput::default()
        }
    }

    /// Add an edge `(relation, target)`.
    pub fn with_edge(mut self, relation: &str, target: &str) -> Self {
        self.edges.push((relation.to_owned(), target.to_owned()));
        self
    }

    /// Set the keywords.
    pub fn with_keywords(mut self, keywords: &[&str]) -> Self {
        self.keywords = keywords.iter().map(|s| (*s).to_owned()).collect();
        self
    }

    /// Set the participants.
    pub fn with_participants(mut self, participants: &[&str]) -> Self {
        self.participants = participants.iter().map(|s| (*s).to_owned()).collect();
        self
    }

    /// Set one host attribute.
    pub fn with_attribute(mut self, key: &str, value: impl Into<Value>) -> Self {
        self.attributes.insert(key.to_owned(), value.into());
        self
    }

    /// Set one provenance entry.
    pub fn with_provenance(mut self, key: &str, value: impl Into<Value>) -> Self {
        self.provenance.insert(key.to_owned(), value.into());
        self
    }

    /// Set the payload reference.
    pub fn with_payload_ref(mut self, payload_ref: &str) -> Self {
        self.payload_ref = Some(payload_ref.to_owned());
        self
    }

    /// Set the pending fields.
    pub fn with_pending(mut self, fields: &[&str]) -> Self {
        self.pending = fields.iter().map(|s| (*s).to_owned()).collect();
        self
    }

    /// The validated, normalized record: strings trimmed,
    /// blank list entries dropped, `value_class` / `diary_type` /
    /// `evidence_class` / `category` lowercased, `applies_when` tokens (sorted)
    /// appended to the keywords of lessons and instructions. `#FALLBACK`
    /// notes (an `applies_when` without recall tokens) are pushed to `warnings`.
    ///
    /// # Errors
    /// `InvalidInput` naming the rule, what was expected and what
    /// arrived: empty title (unless pending) or digest; a
    /// malformed edge; a summary without edges; a value without a valid
    /// `value_class`; a diary breaking the formation rules; a malformed lesson
    /// or instruction convention; unknown pending fields; a pending summary on a
    /// protected kind; `pending_failure` without pending fields; a non-finite
    /// confidence.
    pub fn validated(&self, warnings: &mut Vec<String>) -> Result<MemoryRecordInput> {
        let kind = self.kind;
        let pending = validate_pending(&self.pending)?;
        let title = self
            .title
            .as_deref()
            .map(py_strip)
            .filter(|t| !t.is_empty())
            .map(str::to_owned);
        let title = if pending.iter().any(|f| f == "title") {
            None
        } else if title.is_none() {
            return Err(Error::invalid(format!(
                "MemoryRecordInput.title must be a non-empty string ({:?} record), got {}; a null title is only valid with pending=[\"title\"]",
                kind.as_str(),
                am_triples::text::shown(&self.title)
            )));
        } else {
            title
        };
        let digest = py_strip(&self.digest).to_owned();
        if digest.is_empty() {
            return Err(Error::invalid(format!(
                "MemoryRecordInput.digest must be a non-empty string ({:?} record), got {}",
                kind.as_str(),
                am_triples::text::shown(&self.digest)
            )));
        }
        let mut edges = Vec::with_capacity(self.edges.len());
        for (relation, target) in &self.edges {
            let (r, t) = (relation.trim(), target.trim());
            if r.is_empty() || t.is_empty() {
                return Err(Error::invalid(format!(
                    "edges must be (relation, target_record_id) pairs of non-empty strings, got ({relation:?}, {target:?})"
                )));
            }
            edges.push((r.to_owned(), t.to_owned()));
        }
        if kind == RecordKind::Summary && edges.is_empty() {
            return Err(Error::invalid(
                "summary records require at least one edge naming what they summarize \
                 (e.g. (\"summarizes\", <record_id>)), got none: a summary detached from its sources is unverifiable",
            ));
        }
        if let Some(c) = self.confidence
            && !c.is_finite()
        {
            return Err(Error::invalid(format!(
                "MemoryRecordInput.confidence must be finite, got {c}"
            )));
        }
        if self.pending_failure.is_some() && pending.is_empty() {
            return Err(Error::invalid(
                "pending_failure needs pending fields (it says why authoring failed), got pending=[]",
            ));
        }

        let mut attributes = self.attributes.clone();
        let mut provenance = self.provenance.clone();
        let mut keywords = str_list(&self.keywords);
        match kind {
            RecordKind::Value => check_value(&mut attributes)?,
            RecordKind::Diary => check_diary(&mut attributes, &mut provenance, &pending)?,
            _ => {}
        }
        if pending.iter().any(|f| f == "summary")
            && kind != RecordKind::Diary
            && kind.is_understanding_protected()
        {
            return Err(Error::invalid(format!(
                "pending=[\"summary\"] is refused on kind {:?}: its digest is the entity's own act \
                 (protected kinds: {UNDERSTANDING_PROTECTED_KINDS:?})",
                kind.as_str()
            )));
        }
        if matches!(kind, RecordKind::Lesson | RecordKind::Instruction) {
            check_lesson(kind, &mut attributes, &mut keywords, warnings)?;
        }
        if kind == RecordKind::Instruction {
            lower_in(
                &mut attributes,
                "category",
                INSTRUCTION_CATEGORIES,
                "kind='instruction' attributes.category",
                "omit the key for an uncategorized instruction",
            )?;
        }

        Ok(MemoryRecordInput {
            kind,
            title,
            digest,
            intents: str_list(&self.intents),
            outcomes: str_list(&self.outcomes),
            keywords,
            participants: str_list(&self.participants),
            edges,
            payload_ref: trimmed(self.payload_ref.as_deref()),
            topic: trimmed(self.topic.as_deref()),
            confidence: self.confidence,
            attributes,
            provenance,
            pending,
            pending_failure: self.pending_failure.clone(),
        })
    }
}

fn str_list(values: &[String]) -> Vec<String> {
    values
        .iter()
        .map(|v| v.trim().to_owned())
        .filter(|v| !v.is_empty())
        .collect()
}

fn trimmed(v: Option<&str>) -> Option<String> {
    v.map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
}

fn validate_pending(fields: &[String]) -> Result<Vec<String>> {
    let mut out: Vec<String> = Vec::new();
    for f in fields {
        let f = f.trim().to_lowercase();
        if !PENDING_FIELDS.contains(&f.as_str()) {
            return Err(Error::invalid(format!(
                "pending fields must be within {PENDING_FIELDS:?}, got {f:?}"
            )));
        }
        if !out.contains(&f) {
            out.push(f);
        }
    }
    Ok(out)
}

fn check_value(attributes: &mut JsonMap) -> Result<()> {
    let raw = attributes.get("value_class");
    let class = match raw {
        Some(Value::String(s)) => s.trim().to_lowercase(),
        _ => String::new(),
    };
    if !VALUE_CLASSES.contains(&class.as_str()) {
        return Err(Error::invalid(format!(
            "kind='value' requires attributes.value_class to be one of {VALUE_CLASSES:?}, got {} \
             (declare explicitly whether this value is core or revisable)",
            raw.map_or("nothing".to_owned(), Value::to_string)
        )));
    }
    attributes.insert("value_class".into(), Value::String(class));
    Ok(())
}

/// Whether a JSON value is a non-empty (after trimming) string.
fn nonempty_str(v: &Value) -> bool {
    matches!(v, Value::String(s) if !s.trim().is_empty())
}

/// The rule that refuses authoring a diary entry's summary: `Some(why)` for a
/// private entry (`attributes.private` anything but absent or `false`), an
/// owner-direct entry (no book: its digest is the owner's words) and a
/// chained one (`prev_entry_hash` / `entry_hash`: the chain hash covers the
/// digest); `None` for a public book projection.
///
/// Spec: api.md "Diary formation rules" (`diary.diary_summary_refusal`).
pub fn diary_summary_refusal(attributes: &JsonMap, provenance: &JsonMap) -> Option<String> {
    if let Some(p) = attributes.get("private")
        && *p != Value::Bool(false)
        && *p != Value::Null
    {
        return Some(
            "a private diary entry's summary is its owner's words (attributes.private is set)"
                .into(),
        );
    }
    if provenance
        .get("source")
        .and_then(Value::as_str)
        .map(str::trim)
        == Some("owner-direct")
    {
        return Some(
            "an owner-direct diary entry has no book: its digest is the owner's words".into(),
        );
    }
    if attributes.contains_key("prev_entry_hash") || attributes.contains_key("entry_hash") {
        return Some("a chained diary entry's hash covers its title and digest (prev_entry_hash / entry_hash)".into());
    }
    None
}

fn check_diary(
    attributes: &mut JsonMap,
    provenance: &mut JsonMap,
    pending: &[String],
) -> Result<()> {
    let source = provenance
        .get("source")
        .and_then(Value::as_str)
        .map(str::trim)
        .unwrap_or("")
        .to_owned();
    if !DIARY_SOURCES.contains(&source.as_str()) {
        return Err(Error::invalid(format!(
            "kind='diary' requires provenance.source to be 'diary-projection' (the book's projection) \
             or 'owner-direct' (the scope owner's direct write), got {}; the diary has one writer per plane",
            am_triples::text::shown(&provenance.get("source"))
        )));
    }
    provenance.insert("source".into(), Value::String(source.clone()));
    let diary_type = match attributes.get("diary_type") {
        None => "note".to_owned(),
        Some(Value::String(s)) => s.trim().to_lowercase(),
        Some(other) => other.to_string(),
    };
    if !DIARY_TYPES.contains(&diary_type.as_str()) {
        return Err(Error::invalid(format!(
            "kind='diary' attributes.diary_type must be one of {DIARY_TYPES:?}, got {}; omit the key for the default 'note'",
            am_triples::text::shown(&attributes.get("diary_type"))
        )));
    }
    attributes.insert("diary_type".into(), Value::String(diary_type));
    for key in [
        "entry_id",
        "answers",
        "resolves",
        "fulfills",
        "resolves_status",
        "resolved_record_id",
        "resolved_title",
    ] {
        if let Some(v) = attributes.get(key)
            && !nonempty_str(v)
        {
            return Err(Error::invalid(format!(
                "kind='diary' attributes.{key} must be a non-empty string when present, got {v}"
            )));
        }
    }
    let projection = source == "diary-projection";
    if projection && !attributes.contains_key("entry_id") {
        return Err(Error::invalid(
            "diary projections (provenance.source='diary-projection') must carry attributes.entry_id, got none: \
             the graph record must be verifiable against the book",
        ));
    }
    let refusal = diary_summary_refusal(attributes, provenance);
    let summary_pending = pending.iter().any(|f| f == "summary");
    if let Some(why) = &refusal
        && summary_pending
    {
        return Err(Error::invalid(format!(
            "pending=[\"summary\"] is refused on this diary entry: {why}"
        )));
    }
    if projection && refusal.is_none() && !summary_pending {
        check_authored_summary(attributes.get("understanding"))?;
    }
    Ok(())
}

/// A PUBLIC diary projection forms with an authored summary: an
/// `attributes.understanding` object naming a non-mechanical author; a model
/// author also names its reader and at least one ledger source.
fn check_authored_summary(understanding: Option<&Value>) -> Result<()> {
    let refuse = |what: String| {
        Err(Error::invalid(format!(
            "a public diary projection's summary must be authored: {what} \
             (or form it with pending=[\"summary\"] on a home with a task queue)"
        )))
    };
    let Some(Value::Object(u)) = understanding else {
        return refuse(format!(
            "expected attributes.understanding = {{field: \"digest\", author, reader, sources}}, got {}",
            understanding.map_or("nothing".to_owned(), Value::to_string)
        ));
    };
    let author = u.get("author").and_then(Value::as_object);
    let kind = author
        .and_then(|a| a.get("kind"))
        .and_then(Value::as_str)
        .unwrap_or("");
    let id_ok = author.and_then(|a| a.get("id")).is_some_and(nonempty_str);
    if !AUTHOR_KINDS.contains(&kind) || !id_ok {
        return refuse(format!(
            "understanding.author must be {{kind, id}} with kind in {AUTHOR_KINDS:?}, got {}",
            u.get("author")
                .map_or("nothing".to_owned(), Value::to_string)
        ));
    }
    if kind == "mechanical" {
        return refuse("a mechanical author never writes a projection's summary".to_owned());
    }
    if kind == "entity-mind" || kind == "capability-model" {
        let reader_ok = u.get("reader").is_some_and(Value::is_object);
        let sources_ok =
            matches!(u.get("sources"), Some(Value::Array(s)) if s.iter().any(Value::is_object));
        if !reader_ok || !sources_ok {
            return refuse(format!(
                "a model author ({kind}) must name its reader {{provider, model, thinking}} and at least one ledger source, got reader={} sources={}",
                u.get("reader")
                    .map_or("nothing".to_owned(), Value::to_string),
                u.get("sources")
                    .map_or("nothing".to_owned(), Value::to_string)
            ));
        }
    }
    Ok(())
}

fn lower_in(
    attributes: &mut JsonMap,
    key: &str,
    allowed: &[&str],
    what: &str,
    hint: &str,
) -> Result<()> {
    let Some(raw) = attributes.get(key) else {
        return Ok(());
    };
    let norm = match raw {
        Value::String(s) => s.trim().to_lowercase(),
        other => other.to_string(),
    };
    if !allowed.contains(&norm.as_str()) {
        return Err(Error::invalid(format!(
            "{what} must be one of {allowed:?}, got {raw}; {hint}"
        )));
    }
    attributes.insert(key.to_owned(), Value::String(norm));
    Ok(())
}

fn check_lesson(
    kind: RecordKind,
    attributes: &mut JsonMap,
    keywords: &mut Vec<String>,
    warnings: &mut Vec<String>,
) -> Result<()> {
    for field in ["applies_when", "caveats"] {
        let Some(raw) = attributes.get(field) else {
            continue;
        };
        if raw.is_null() {
            continue;
        }
        let values: Option<Vec<String>> = match raw {
            Value::String(s) if !s.trim().is_empty() => Some(vec![s.trim().to_owned()]),
            Value::Array(items) if items.iter().all(nonempty_str) => Some(
                items
                    .iter()
                    .filter_map(Value::as_str)
                    .map(|s| s.trim().to_owned())
                    .collect(),
            ),
            _ => None,
        };
        let Some(values) = values else {
            return Err(Error::invalid(format!(
                "kind={:?} attributes.{field} must be a non-empty string or a list of non-empty strings, got {raw}",
                kind.as_str()
            )));
        };
        attributes.insert(
            field.to_owned(),
            Value::Array(values.into_iter().map(Value::String).collect()),
        );
    }
    if let Some(Value::Array(applies)) = attributes.get("applies_when")
        && !applies.is_empty()
    {
        let joined = applies
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join(" ");
        let mut tokens = tokenize(&joined, RECALL_MIN_TOKEN_LEN);
        if tokens.is_empty() {
            warnings.push(format!(
                "#FALLBACK: applies_when yielded no recall tokens (non-Latin or too short: {applies:?}) \
                 — the lesson gains no applicability findability"
            ));
        }
        tokens.sort();
        for t in tokens {
            if !keywords.contains(&t) {
                keywords.push(t);
            }
        }
    }
    lower_in(
        attributes,
        "evidence_class",
        LESSON_EVIDENCE_CLASSES,
        "attributes.evidence_class",
        "omit the key for an unlabeled lesson",
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ok(r: &MemoryRecordInput) -> MemoryRecordInput {
        r.validated(&mut Vec::new()).unwrap()
    }

    fn refused(r: &MemoryRecordInput) -> String {
        let e = r.validated(&mut Vec::new()).unwrap_err();
        assert_eq!(e.kind(), am_triples::ErrorKind::InvalidInput);
        e.to_string()
    }

    #[test]
    fn an_unknown_kind_is_refused_when_the_record_is_read_naming_the_known_kinds() {
        let e = serde_json::from_value::<MemoryRecordInput>(
            json!({"kind": "musing", "title": "t", "digest": "d"}),
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.starts_with("record kind must be one of [\"answer\", ")
                && e.contains("got \"musing\""),
            "{e}"
        );
        let r: MemoryRecordInput =
            serde_json::from_value(json!({"kind": " Lesson ", "title": "t", "digest": "d"}))
                .unwrap();
        assert_eq!(r.kind, RecordKind::Lesson);
        let e = serde_json::from_value::<MemoryRecordInput>(json!({"title": "t", "digest": "d"}))
            .unwrap_err()
            .to_string();
        assert!(e.contains("missing field `kind`"), "{e}");
    }

    #[test]
    fn title_and_digest_are_mandatory() {
        assert!(refused(&MemoryRecordInput::new(RecordKind::Memory, "  ", "d")).contains("title"));
        assert!(refused(&MemoryRecordInput::new(RecordKind::Memory, "t", " ")).contains("digest"));
        let untitled = MemoryRecordInput {
            title: None,
            ..MemoryRecordInput::new(RecordKind::Memory, "", "d")
        };
        assert!(refused(&untitled).contains("pending"));
        let pending = untitled.with_pending(&["title"]);
        assert_eq!(ok(&pending).title, None);
    }

    #[test]
    fn a_summary_needs_an_edge_and_a_value_needs_a_value_class() {
        assert!(refused(&MemoryRecordInput::new(RecordKind::Summary, "t", "d")).contains("edge"));
        assert!(
            ok(&MemoryRecordInput::new(RecordKind::Summary, "t", "d")
                .with_edge("summarizes", "ex:x"))
            .edges
            .len()
                == 1
        );
        assert!(
            refused(&MemoryRecordInput::new(RecordKind::Value, "t", "d")).contains("value_class")
        );
        assert!(
            refused(
                &MemoryRecordInput::new(RecordKind::Value, "t", "d")
                    .with_attribute("value_class", "soft")
            )
            .contains("soft")
        );
        let v = ok(&MemoryRecordInput::new(RecordKind::Value, "t", "d")
            .with_attribute("value_class", " Core "));
        assert_eq!(v.attributes["value_class"], json!("core"));
    }

    #[test]
    fn diary_rules_are_enforced() {
        let base = MemoryRecordInput::new(RecordKind::Diary, "t", "d");
        assert!(refused(&base).contains("provenance.source"));
        let direct = base.clone().with_provenance("source", "owner-direct");
        assert_eq!(ok(&direct).attributes["diary_type"], json!("note"));
        assert!(refused(&direct.clone().with_attribute("diary_type", "rant")).contains("rant"));
        assert!(refused(&direct.clone().with_attribute("answers", "")).contains("answers"));
        let projection = base.clone().with_provenance("source", "diary-projection");
        assert!(refused(&projection).contains("entry_id"));
        let with_entry = projection.with_attribute("entry_id", "e1");
        assert!(refused(&with_entry).contains("authored"));
        let authored = with_entry.clone().with_attribute(
            "understanding",
            json!({"field": "digest", "author": {"kind": "operator", "id": "op"}}),
        );
        ok(&authored);
        let model_no_reader = with_entry.clone().with_attribute(
            "understanding",
            json!({"field": "digest", "author": {"kind": "entity-mind", "id": "castor"}}),
        );
        assert!(refused(&model_no_reader).contains("reader"));
        let private = with_entry.with_attribute("private", true);
        ok(&private);
        assert!(refused(&private.with_pending(&["summary"])).contains("private"));
        assert!(refused(&direct.with_pending(&["summary"])).contains("owner-direct"));
    }

    #[test]
    fn lesson_applies_when_tokens_join_the_keywords_sorted() {
        let r = MemoryRecordInput::new(RecordKind::Lesson, "t", "d")
            .with_keywords(&["zeta", "sqlite"])
            .with_attribute("applies_when", json!(["SQLite migrations", "large tables"]));
        let v = ok(&r);
        assert_eq!(
            v.keywords,
            ["zeta", "sqlite", "large", "migrations", "tables"]
        );
        let mut warnings = Vec::new();
        MemoryRecordInput::new(RecordKind::Lesson, "t", "d")
            .with_attribute("applies_when", "дом")
            .validated(&mut warnings)
            .unwrap();
        assert!(warnings[0].starts_with("#FALLBACK"));
        assert!(
            refused(
                &MemoryRecordInput::new(RecordKind::Lesson, "t", "d")
                    .with_attribute("applies_when", json!([1]))
            )
            .contains("applies_when")
        );
        assert!(
            refused(
                &MemoryRecordInput::new(RecordKind::Instruction, "t", "d")
                    .with_attribute("category", "tip")
            )
            .contains("category")
        );
    }

    #[test]
    fn pending_summary_is_refused_on_protected_kinds() {
        let r = MemoryRecordInput::new(RecordKind::Trait, "t", "d").with_pending(&["summary"]);
        assert!(refused(&r).contains("protected"));
        assert!(
            refused(&MemoryRecordInput::new(RecordKind::Memory, "t", "d").with_pending(&["body"]))
                .contains("pending")
        );
    }
}
