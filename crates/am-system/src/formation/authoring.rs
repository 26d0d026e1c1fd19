//! The host's `author` callable and the one "form these records authored or
//! pending" step every forming pass goes through.
//!
//! Memory calls no model: a pass that forms records from its own bookkeeping
//! (a card's evidence briefing, a night's composition, an unnamed spark item)
//! takes the host's optional [`Author`], asks it for the record's title and/or
//! summary BEFORE the record forms, and stores what it got with its
//! provenance. A field the author did not deliver forms PENDING, with the
//! recorded failure, beside its authoring task ([`author_or_pend`] decides
//! per record; `remember_many` stores the marker and queues the task).
//!
//! Spec: api.md "Authored with the record: the `author` callable"; "Identity"
//! (`engram`'s birth titles); memory-system.md "Understanding".

use crate::formation::records::MemoryRecordInput;
use crate::kinds::RecordKind;
use am_journal::AuthorKind;
use am_triples::JsonMap;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

am_triples::vocabulary! {
    /// A field an author is asked for (`PENDING_FIELDS`, the spec's
    /// `fields` of the author's context).
    pub enum AuthorField("authored field") {
        /// The record's summary (its digest).
        Summary = "summary",
        /// The record's title.
        Title = "title",
    }
}

am_triples::vocabulary! {
    /// Why a record formed pending instead of authored
    /// (`attributes.pending.failure.reason`).
    pub enum AuthoringFailureReason("authoring failure reason") {
        /// The pass got no `author` callable.
        NoAuthorSupplied = "no_author_supplied",
        /// The author raised (`error_class` and `message` are its error's).
        AuthorRaised = "author_raised",
        /// Not a usable result: a wanted field missing or empty, or its
        /// provenance refused.
        InvalidResult = "invalid_result",
    }
}

/// What the author is told about the record about to form (the spec's
/// `context`): `{pass, record_kind, scope, owner_id, fields, title,
/// source_ids, attributes}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AuthorContext {
    /// The pass forming the record (`engram`, `dream_pass`, ...).
    pub pass: String,
    /// The record kind about to form.
    pub record_kind: String,
    /// The record's scope.
    pub scope: String,
    /// The record's owner.
    pub owner_id: String,
    /// What is wanted: `title` and/or `summary`.
    pub fields: Vec<AuthorField>,
    /// The title the record already carries (a card's next revision), or
    /// `None`.
    pub title: Option<String>,
    /// The records the body was composed from.
    pub source_ids: Vec<String>,
    /// The record's attributes as the pass composed them.
    pub attributes: JsonMap,
}

/// What an author returns (the spec's `{title, summary, author, reader,
/// sources}`): the wanted fields and who wrote them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Authored {
    /// The authored title, when asked for.
    #[serde(default)]
    pub title: Option<String>,
    /// The authored summary, when asked for.
    #[serde(default)]
    pub summary: Option<String>,
    /// `{kind, id}`: `kind` in `AUTHOR_KINDS`, never `mechanical`.
    #[serde(default)]
    pub author: JsonMap,
    /// `{provider, model, thinking}`; required of a model author.
    #[serde(default)]
    pub reader: Option<JsonMap>,
    /// Ledger `SourceRef` dicts (the step of the call); at least one for a
    /// model author.
    #[serde(default)]
    pub sources: Vec<Value>,
}

/// An author's failure: its error's class and message (the spec's
/// `error_class` / `message` of an `author_raised` failure).
///
/// Any `std::error::Error` converts into it (`?` in an author works), the
/// class being the error type's name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthorError {
    /// The error's class (a type name, or the host's own label).
    pub error_class: String,
    /// The error's message.
    pub message: String,
}

impl AuthorError {
    /// An error of class `error_class` saying `message`.
    pub fn new(error_class: impl Into<String>, message: impl Into<String>) -> Self {
        AuthorError {
            error_class: error_class.into(),
            message: message.into(),
        }
    }
}

impl std::fmt::Display for AuthorError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.error_class, self.message)
    }
}

impl<E: std::error::Error> From<E> for AuthorError {
    fn from(e: E) -> Self {
        let full = std::any::type_name::<E>();
        let class = full.rsplit("::").next().unwrap_or(full);
        AuthorError::new(class, e.to_string())
    }
}

/// The host's `author(kind, body, context)` callable: it writes a record's
/// title and/or summary from the pass's provisional `body`, or fails.
///
/// `kind` is the record kind about to form, `body` the text the metadata is
/// authored from, `context` what is wanted and where the record forms. A
/// closure `Fn(&str, &str, &AuthorContext) -> Result<Authored, AuthorError>`
/// is an `Author`.
///
/// # Examples
/// ```
/// use am_system::formation::authoring::{Author, AuthorContext, Authored, AuthorError};
/// let author = |_kind: &str, body: &str, _ctx: &AuthorContext| -> Result<Authored, AuthorError> {
///     let mut who = am_triples::JsonMap::new();
///     who.insert("kind".into(), "operator".into());
///     who.insert("id".into(), "op".into());
///     Ok(Authored { title: Some(format!("About {}", body.len())), author: who, ..Authored::default() })
/// };
/// let _as_dyn: &dyn Author = &author;
/// ```
pub trait Author: Send + Sync {
    /// Author the wanted fields of a record of `kind` from `body`.
    ///
    /// # Errors
    /// The host's failure; the record then forms pending (`author_raised`).
    fn author(
        &self,
        kind: &str,
        body: &str,
        context: &AuthorContext,
    ) -> Result<Authored, AuthorError>;
}

impl<F> Author for F
where
    F: Fn(&str, &str, &AuthorContext) -> Result<Authored, AuthorError> + Send + Sync,
{
    fn author(
        &self,
        kind: &str,
        body: &str,
        context: &AuthorContext,
    ) -> Result<Authored, AuthorError> {
        self(kind, body, context)
    }
}

/// A recorded authoring failure (`attributes.pending.failure`, and a
/// receipt's failure without the record's identity): `{reason, error_class,
/// message, at, fields}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AuthoringFailure {
    /// Why the fields were not authored.
    pub reason: AuthoringFailureReason,
    /// The error's class (`author_raised`), else `None`.
    pub error_class: Option<String>,
    /// What went wrong, in words.
    pub message: String,
    /// When (the engine clock, canonical UTC).
    pub at: String,
    /// The fields left pending.
    pub fields: Vec<AuthorField>,
}

impl AuthoringFailure {
    /// The failure as the JSON map `MemoryRecordInput::pending_failure`
    /// carries.
    pub fn to_map(&self) -> JsonMap {
        match serde_json::to_value(self) {
            Ok(Value::Object(m)) => m,
            _ => JsonMap::new(),
        }
    }
}

/// One record a pass asked to be authored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct AuthoredEntry {
    /// The formed record's graph id.
    pub record_id: String,
    /// Its kind.
    pub record_kind: String,
    /// The pass that formed it.
    pub pass: String,
    /// The fields authored.
    pub fields: Vec<AuthorField>,
}

/// One record that formed pending after a recorded failure.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FailureEntry {
    /// The formed record's graph id.
    pub record_id: String,
    /// Its kind.
    pub record_kind: String,
    /// The pass that formed it.
    pub pass: String,
    /// The fields left pending.
    pub fields: Vec<AuthorField>,
    /// Why.
    pub reason: AuthoringFailureReason,
    /// The error's class (`author_raised`), else `None`.
    pub error_class: Option<String>,
    /// What went wrong.
    pub message: String,
    /// When.
    pub at: String,
}

/// The `authoring` receipt every forming pass returns: `{authored: [{record_id,
/// record_kind, pass, fields}], failures: [{record_id, record_kind, pass,
/// fields, reason, error_class, message, at}]}` (empty on a replay).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct AuthoringReceipt {
    /// The records formed with authored fields.
    pub authored: Vec<AuthoredEntry>,
    /// The records formed pending, and why.
    pub failures: Vec<FailureEntry>,
}

impl AuthoringReceipt {
    /// Add `other`'s entries after this one's (`sleep_pass` sums its phases'
    /// receipts).
    pub fn absorb(&mut self, other: AuthoringReceipt) {
        self.authored.extend(other.authored);
        self.failures.extend(other.failures);
    }

    /// Whether nothing was authored and nothing failed.
    pub fn is_empty(&self) -> bool {
        self.authored.is_empty() && self.failures.is_empty()
    }
}

/// What [`author_or_pend`] decided for one record.
#[derive(Debug, Clone, PartialEq)]
pub struct AuthoringDecision {
    /// The fields stored authored.
    pub authored: Vec<AuthorField>,
    /// The failure, when some wanted field forms pending.
    pub failure: Option<AuthoringFailure>,
}

impl AuthoringDecision {
    /// This decision's receipt entries, once the record's graph id is known.
    pub fn receipt(&self, record_id: &str, record_kind: &str, pass: &str) -> AuthoringReceipt {
        let mut r = AuthoringReceipt::default();
        if !self.authored.is_empty() {
            r.authored.push(AuthoredEntry {
                record_id: record_id.to_owned(),
                record_kind: record_kind.to_owned(),
                pass: pass.to_owned(),
                fields: self.authored.clone(),
            });
        }
        if let Some(f) = &self.failure {
            r.failures.push(FailureEntry {
                record_id: record_id.to_owned(),
                record_kind: record_kind.to_owned(),
                pass: pass.to_owned(),
                fields: f.fields.clone(),
                reason: f.reason,
                error_class: f.error_class.clone(),
                message: f.message.clone(),
                at: f.at.clone(),
            });
        }
        r
    }
}

/// The digest method of a summary authored at formation.
pub const AUTHORED_DIGEST_METHOD: &str = "authored-v1";

/// The digest method of a world-model card whose summary was authored.
pub const AUTHORED_CARD_METHOD: &str = "authored-card-v1";

/// Ask `author` for `context.fields` of `record` (whose `digest` is the
/// pass's provisional body) and shape the record accordingly: the one place
/// a pass's records become authored or pending.
///
/// - An authored title is stored as the record's title with
///   `attributes.title_provenance` (`{author, reader?, sources, cause:
///   "formation", version: 0, understood_at}`); an authored summary becomes the
///   record's digest with its `attributes.understanding` stamp (`{field:
///   "digest", author, reader?, sources, cause: "formation", version: 0,
///   understood_at}`) and `digest_method = "authored-v1"` (a world-model
///   card's: field `card`, `authored-card-v1`, with `authored_lead`,
///   `authored_known_ids` (its `known_source_ids`) and `authored_by`). No
///   task is owed for an authored field.
/// - A wanted field not delivered is added to `record.pending` with
///   `record.pending_failure` (`no_author_supplied` without an author,
///   `author_raised` when it failed, `invalid_result` for an unusable answer);
///   a pending title is `None`. `remember_many` then stores
///   `attributes.pending` and queues the field's task in the same transaction.
/// - A partial result stores what was authored.
///
/// Call it only for a record that does not stand yet: a pass never asks
/// the author about a record already formed (a replay).
pub fn author_or_pend(
    author: Option<&dyn Author>,
    record: &mut MemoryRecordInput,
    context: &AuthorContext,
    now: &str,
) -> AuthoringDecision {
    let wanted = dedup_fields(&context.fields);
    if wanted.is_empty() {
        return AuthoringDecision {
            authored: Vec::new(),
            failure: None,
        };
    }
    let fail = |reason, error_class: Option<String>, message: String, fields: Vec<AuthorField>| {
        AuthoringFailure {
            reason,
            error_class,
            message,
            at: now.to_owned(),
            fields,
        }
    };
    let answer = match author {
        None => Err(fail(
            AuthoringFailureReason::NoAuthorSupplied,
            None,
            "the pass got no author callable".to_owned(),
            wanted.clone(),
        )),
        Some(a) => match a.author(record.kind.as_str(), &record.digest, context) {
            Err(e) => Err(fail(
                AuthoringFailureReason::AuthorRaised,
                Some(e.error_class),
                e.message,
                wanted.clone(),
            )),
            Ok(authored) => match check_provenance(&authored) {
                Err(why) => Err(fail(
                    AuthoringFailureReason::InvalidResult,
                    None,
                    why,
                    wanted.clone(),
                )),
                Ok(()) => Ok(authored),
            },
        },
    };
    let authored = match answer {
        Err(failure) => {
            pend(record, &failure);
            return AuthoringDecision {
                authored: Vec::new(),
                failure: Some(failure),
            };
        }
        Ok(a) => a,
    };
    let stamp = |field: Option<&str>| {
        let mut m = JsonMap::new();
        if let Some(f) = field {
            m.insert("field".into(), json!(f));
        }
        m.insert("author".into(), Value::Object(authored.author.clone()));
        if let Some(r) = &authored.reader {
            m.insert("reader".into(), Value::Object(r.clone()));
        }
        m.insert("sources".into(), Value::Array(authored.sources.clone()));
        m.insert("cause".into(), json!("formation"));
        m.insert("version".into(), json!(0));
        m.insert("understood_at".into(), json!(now));
        Value::Object(m)
    };
    let mut done = Vec::new();
    let mut missing = Vec::new();
    for field in &wanted {
        let text = match field {
            AuthorField::Title => authored.title.as_deref(),
            AuthorField::Summary => authored.summary.as_deref(),
        }
        .map(str::trim)
        .filter(|t| !t.is_empty());
        match (field, text) {
            (AuthorField::Title, Some(t)) => {
                record.title = Some(t.to_owned());
                record
                    .attributes
                    .insert("title_provenance".into(), stamp(None));
                done.push(*field);
            }
            (AuthorField::Summary, Some(t)) if record.kind == RecordKind::WorldModel => {
                // A card's summary is its own field (`card`), labelled as an
                // authored card whose lead and evidence baseline its next
                // revisions carry.
                record.digest = t.to_owned();
                let known = match record.attributes.get("known_source_ids") {
                    Some(Value::Array(ids)) => Value::Array(ids.clone()),
                    _ => json!(context.source_ids),
                };
                let by = authored
                    .author
                    .get("id")
                    .and_then(Value::as_str)
                    .unwrap_or("unknown")
                    .to_owned();
                let attrs = &mut record.attributes;
                attrs.insert("understanding".into(), stamp(Some("card")));
                attrs.insert("digest_method".into(), json!(AUTHORED_CARD_METHOD));
                attrs.insert("authored_lead".into(), json!(t));
                attrs.insert("authored_known_ids".into(), known);
                attrs.insert("authored_by".into(), json!(by));
                done.push(*field);
            }
            (AuthorField::Summary, Some(t)) => {
                record.digest = t.to_owned();
                record
                    .attributes
                    .insert("understanding".into(), stamp(Some("digest")));
                record
                    .attributes
                    .insert("digest_method".into(), json!(AUTHORED_DIGEST_METHOD));
                done.push(*field);
            }
            _ => missing.push(*field),
        }
    }
    let failure = (!missing.is_empty()).then(|| {
        let names: Vec<&str> = missing.iter().map(|f| f.as_str()).collect();
        fail(
            AuthoringFailureReason::InvalidResult,
            None,
            format!("the author's result has no usable {}", names.join(" or ")),
            missing,
        )
    });
    if let Some(f) = &failure {
        pend(record, f);
    }
    AuthoringDecision {
        authored: done,
        failure,
    }
}

/// One record a pass asks to form authored or pending: the record (its
/// `digest` the pass's provisional body, its `title` the one it already
/// carries, if any), the fields wanted from the author, and the records the
/// body was composed from.
#[derive(Debug, Clone, PartialEq)]
pub struct AuthoredRecord {
    /// The record as the pass composed it.
    pub record: MemoryRecordInput,
    /// What the author is asked for.
    pub fields: Vec<AuthorField>,
    /// The records the body was composed from (`context.source_ids`).
    pub source_ids: Vec<String>,
}

/// `form_authored_or_pending`'s arguments: a pass's records and where they
/// form (`remember_many`'s scope, owner, key and turn).
#[derive(Debug, Clone, PartialEq)]
pub struct FormAuthored {
    /// The pass forming them (`context.pass` and the receipt's `pass`).
    pub pass: String,
    /// The records.
    pub records: Vec<AuthoredRecord>,
    /// Their scope.
    pub scope: String,
    /// Their owner.
    pub owner_id: String,
    /// The batch key their ids derive from.
    pub idempotency_key: String,
    /// The host's turn.
    pub turn_id: Option<String>,
}

/// What `form_authored_or_pending` formed: the graph ids, the `authoring`
/// receipt (empty for records that already stood) and the formation's
/// warnings.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct FormedAuthored {
    /// The graph ids, in order.
    pub record_ids: Vec<String>,
    /// The receipt.
    pub authoring: AuthoringReceipt,
    /// What the formation raised.
    pub warnings: Vec<String>,
}

impl crate::MemorySystem {
    /// Form a pass's records authored or pending: the one step every forming
    /// pass calls, so no pass drifts. For each record that does not stand yet
    /// the host's `author` is asked for its wanted fields
    /// ([`author_or_pend`]); what it delivered is stored with its provenance,
    /// the rest forms pending with the recorded failure and its task, all in
    /// one `remember_many` (one transaction with the tasks). A record that
    /// already stands (a re-run or a replay) is never authored again: it is
    /// formed as stored (a no-op) and is absent from the receipt.
    ///
    /// # Errors
    /// As [`crate::MemorySystem::remember_many`]: a field left pending on a
    /// home without a task queue refuses the whole batch before anything is
    /// written.
    pub fn form_authored_or_pending(
        &self,
        args: &FormAuthored,
        author: Option<&dyn Author>,
    ) -> crate::Result<FormedAuthored> {
        let prepared = self.prepare_authored(args, author)?;
        let formed = self.remember_many(&prepared.batch)?;
        Ok(FormedAuthored {
            authoring: prepared.receipt(&formed.value),
            record_ids: formed.value,
            warnings: formed.warnings,
        })
    }

    /// The authoring half of [`MemorySystem::form_authored_or_pending`]: the
    /// author asked about each record that does not stand yet, the records
    /// shaped authored or pending, as one `remember_many` batch not yet
    /// written (a pass that writes more in the same transaction forms it
    /// with `form_batches`).
    ///
    /// # Errors
    /// The store's failure reading which records already stand.
    pub(crate) fn prepare_authored(
        &self,
        args: &FormAuthored,
        author: Option<&dyn Author>,
    ) -> crate::Result<PreparedAuthored> {
        let key = args.idempotency_key.trim();
        let aids: Vec<String> = (0..args.records.len())
            .map(|i| crate::ids::digest_assertion_id(key, i))
            .collect();
        let standing: std::collections::HashMap<String, am_triples::TripleAssertion> = self
            .store
            .query(&am_triples::TripleQuery {
                assertion_ids: Some(aids.clone()),
                limit: 0,
                ..am_triples::TripleQuery::default()
            })?
            .into_iter()
            .filter_map(|a| a.assertion_id.clone().map(|id| (id, a)))
            .collect();
        let now = (self.clock)().canonical();
        let mut records = Vec::with_capacity(args.records.len());
        let mut decisions = Vec::with_capacity(args.records.len());
        for (item, aid) in args.records.iter().zip(&aids) {
            let mut record = item.record.clone();
            if let Some(row) = standing.get(aid) {
                // Formed as stored, so the replay writes nothing.
                record.title = row
                    .attributes
                    .get("title")
                    .and_then(Value::as_str)
                    .map(str::to_owned);
                record.digest.clone_from(&row.object);
                record.pending = ["title", "summary"]
                    .iter()
                    .filter(|f| {
                        row.attributes
                            .get("pending")
                            .and_then(|p| p.get(**f))
                            .and_then(Value::as_bool)
                            .unwrap_or(false)
                    })
                    .map(|f| (*f).to_owned())
                    .collect();
                decisions.push(None);
            } else {
                let context = AuthorContext {
                    pass: args.pass.clone(),
                    record_kind: record.kind.as_str().to_owned(),
                    scope: args.scope.clone(),
                    owner_id: args.owner_id.clone(),
                    fields: item.fields.clone(),
                    title: record.title.clone().filter(|t| !t.trim().is_empty()),
                    source_ids: item.source_ids.clone(),
                    attributes: record.attributes.clone(),
                };
                decisions.push(Some(author_or_pend(author, &mut record, &context, &now)));
            }
            records.push(record);
        }
        Ok(PreparedAuthored {
            batch: crate::RememberMany {
                turn_id: args.turn_id.clone(),
                ..crate::RememberMany::new(records, &args.scope, &args.owner_id, key)
            },
            kinds: args
                .records
                .iter()
                .map(|r| r.record.kind.as_str().to_owned())
                .collect(),
            decisions,
            pass: args.pass.clone(),
        })
    }
}

/// A pass's records shaped authored or pending, not yet formed
/// ([`MemorySystem::prepare_authored`]).
#[derive(Debug, Clone)]
pub(crate) struct PreparedAuthored {
    /// The batch to form.
    pub(crate) batch: crate::RememberMany,
    kinds: Vec<String>,
    decisions: Vec<Option<AuthoringDecision>>,
    pass: String,
}

impl PreparedAuthored {
    /// Whether any record forms with a field pending.
    pub(crate) fn pends(&self) -> bool {
        self.batch.records.iter().any(|r| !r.pending.is_empty())
    }

    /// The first recorded failure (for a refusal's words).
    pub(crate) fn first_failure(&self) -> Option<&AuthoringFailure> {
        self.decisions
            .iter()
            .flatten()
            .find_map(|d| d.failure.as_ref())
    }

    /// The receipt once the batch formed as `record_ids` (records that
    /// already stood are absent).
    pub(crate) fn receipt(&self, record_ids: &[String]) -> AuthoringReceipt {
        let mut authoring = AuthoringReceipt::default();
        for ((d, id), kind) in self.decisions.iter().zip(record_ids).zip(&self.kinds) {
            if let Some(d) = d {
                authoring.absorb(d.receipt(id, kind, &self.pass));
            }
        }
        authoring
    }
}

/// Mark `failure.fields` of `record` pending, with the failure.
fn pend(record: &mut MemoryRecordInput, failure: &AuthoringFailure) {
    for f in &failure.fields {
        let name = f.as_str().to_owned();
        if !record.pending.contains(&name) {
            record.pending.push(name);
        }
        if *f == AuthorField::Title {
            record.title = None;
        }
    }
    record.pending_failure = Some(failure.to_map());
}

fn dedup_fields(fields: &[AuthorField]) -> Vec<AuthorField> {
    let mut out: Vec<AuthorField> = Vec::new();
    for f in fields {
        if !out.contains(f) {
            out.push(*f);
        }
    }
    out
}

/// The author's provenance: `author = {kind, id}` with `kind` one of
/// `AUTHOR_KINDS` and never `mechanical`; a model author names its reader and
/// at least one ledger source.
fn check_provenance(a: &Authored) -> Result<(), String> {
    let kind = a.author.get("kind").and_then(Value::as_str).unwrap_or("");
    let id_ok = a
        .author
        .get("id")
        .and_then(Value::as_str)
        .is_some_and(|s| !s.trim().is_empty());
    if !AuthorKind::AUTHORS.contains(&kind) || !id_ok {
        return Err(format!(
            "author must be {{kind, id}} with kind in {:?}, got {}",
            AuthorKind::AUTHORS,
            Value::Object(a.author.clone())
        ));
    }
    if kind == "mechanical" {
        return Err("a mechanical author never writes a title or summary".to_owned());
    }
    if (kind == "entity-mind" || kind == "capability-model")
        && (a.reader.is_none() || !a.sources.iter().any(Value::is_object))
    {
        return Err(format!(
            "a model author ({kind}) must name its reader {{provider, model, thinking}} and at least one \
             ledger source"
        ));
    }
    Ok(())
}

/// A maintenance candidate about to form: a `summary` record, untitled,
/// `summarizes` each source, marked for review (`maintenance_candidate`,
/// `review_required`, then `marks` in order, then `source_ids`,
/// `source_count`, `no_source_mutation`). The one shape the night's
/// consolidation and the candidate miner both offer; its title and summary
/// are then authored or pending through [`author_or_pend`].
pub(crate) fn maintenance_candidate_record(
    body: &str,
    sources: &[String],
    marks: Vec<(&str, Value)>,
) -> MemoryRecordInput {
    let mut record = MemoryRecordInput::new(RecordKind::Summary, "", body);
    record.title = None;
    record.edges = sources
        .iter()
        .map(|s| ("summarizes".to_owned(), s.clone()))
        .collect();
    let head = [
        ("maintenance_candidate", json!(true)),
        ("review_required", json!(true)),
    ];
    let tail = [
        ("source_ids", json!(sources)),
        ("source_count", json!(sources.len())),
        ("no_source_mutation", json!(true)),
    ];
    for (k, v) in head.into_iter().chain(marks).chain(tail) {
        record.attributes.insert(k.into(), v);
    }
    record
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx(fields: &[AuthorField]) -> AuthorContext {
        AuthorContext {
            pass: "engram".into(),
            record_kind: "trait".into(),
            scope: "self".into(),
            owner_id: "castor".into(),
            fields: fields.to_vec(),
            title: None,
            source_ids: Vec::new(),
            attributes: JsonMap::new(),
        }
    }

    fn operator() -> JsonMap {
        let mut m = JsonMap::new();
        m.insert("kind".into(), json!("operator"));
        m.insert("id".into(), json!("op"));
        m
    }

    fn record() -> MemoryRecordInput {
        MemoryRecordInput::new(RecordKind::Dream, "", "the night's composition")
    }

    const NOW: &str = "2026-01-01T00:00:00.000000+00:00";

    #[test]
    fn no_author_supplied_forms_every_wanted_field_pending() {
        let mut r = record();
        let d = author_or_pend(
            None,
            &mut r,
            &ctx(&[AuthorField::Title, AuthorField::Summary]),
            NOW,
        );
        let f = d.failure.unwrap();
        assert_eq!(f.reason, AuthoringFailureReason::NoAuthorSupplied);
        assert_eq!(r.pending, ["title", "summary"]);
        assert_eq!(r.title, None);
        assert_eq!(r.pending_failure.unwrap()["reason"], "no_author_supplied");
    }

    #[test]
    fn author_raised_records_the_error_class_and_message() {
        #[derive(Debug)]
        struct Offline;
        impl std::fmt::Display for Offline {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("endpoint unreachable")
            }
        }
        impl std::error::Error for Offline {}
        let a = |_: &str, _: &str, _: &AuthorContext| -> Result<Authored, AuthorError> {
            Err(Offline)?
        };
        let mut r = record();
        let d = author_or_pend(Some(&a), &mut r, &ctx(&[AuthorField::Title]), NOW);
        let f = d.failure.unwrap();
        assert_eq!(f.reason, AuthoringFailureReason::AuthorRaised);
        assert_eq!(f.error_class.as_deref(), Some("Offline"));
        assert_eq!(f.message, "endpoint unreachable");
    }

    #[test]
    fn a_mechanical_author_or_a_model_without_reader_is_an_invalid_result() {
        let mech = |_: &str, _: &str, _: &AuthorContext| -> Result<Authored, AuthorError> {
            let mut m = operator();
            m.insert("kind".into(), json!("mechanical"));
            Ok(Authored {
                title: Some("T".into()),
                author: m,
                ..Authored::default()
            })
        };
        let model = |_: &str, _: &str, _: &AuthorContext| -> Result<Authored, AuthorError> {
            let mut m = operator();
            m.insert("kind".into(), json!("capability-model"));
            Ok(Authored {
                title: Some("T".into()),
                author: m,
                ..Authored::default()
            })
        };
        for a in [&mech as &dyn Author, &model] {
            let mut r = record();
            let d = author_or_pend(Some(a), &mut r, &ctx(&[AuthorField::Title]), NOW);
            assert_eq!(
                d.failure.unwrap().reason,
                AuthoringFailureReason::InvalidResult
            );
            assert_eq!(r.title, None);
        }
    }

    #[test]
    fn a_partial_result_stores_what_was_authored() {
        let a = |_: &str, _: &str, _: &AuthorContext| -> Result<Authored, AuthorError> {
            Ok(Authored {
                title: Some("  A night of rivers ".into()),
                summary: Some("   ".into()),
                author: operator(),
                ..Authored::default()
            })
        };
        let mut r = record();
        let d = author_or_pend(
            Some(&a),
            &mut r,
            &ctx(&[AuthorField::Title, AuthorField::Summary]),
            NOW,
        );
        assert_eq!(d.authored, [AuthorField::Title]);
        assert_eq!(r.title.as_deref(), Some("A night of rivers"));
        assert_eq!(r.attributes["title_provenance"]["cause"], "formation");
        assert_eq!(r.pending, ["summary"]);
        let f = d.failure.clone().unwrap();
        assert_eq!(f.fields, [AuthorField::Summary]);
        assert_eq!(f.reason, AuthoringFailureReason::InvalidResult);
        let receipt = d.receipt("ex:dream-1", "dream", "dream_pass");
        assert_eq!(receipt.authored[0].fields, [AuthorField::Title]);
        assert_eq!(receipt.failures[0].fields, [AuthorField::Summary]);
    }

    #[test]
    fn an_authored_summary_is_stamped_version_0_formation_authored_v1() {
        let a = |_: &str, body: &str, c: &AuthorContext| -> Result<Authored, AuthorError> {
            assert_eq!(c.fields, [AuthorField::Summary]);
            Ok(Authored {
                summary: Some(format!("Summary of: {body}")),
                author: operator(),
                ..Authored::default()
            })
        };
        let mut r = record();
        let d = author_or_pend(Some(&a), &mut r, &ctx(&[AuthorField::Summary]), NOW);
        assert!(d.failure.is_none());
        assert!(r.pending.is_empty());
        assert_eq!(r.digest, "Summary of: the night's composition");
        let u = &r.attributes["understanding"];
        assert_eq!(u["version"], 0);
        assert_eq!(u["cause"], "formation");
        assert_eq!(u["field"], "digest");
        assert_eq!(r.attributes["digest_method"], AUTHORED_DIGEST_METHOD);
    }
}
