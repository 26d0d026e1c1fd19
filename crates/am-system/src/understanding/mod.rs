//! The understanding verbs of `MemorySystem`: a record's reading rewritten in
//! place while its ids, edges, usage and journal stay (`rewrite_digest`,
//! `retitle`, `narrate_dream`, `revert_digest`), and the reads of its history
//! (`versions`, `current_of`, `record_understanding`).
//!
//! Every write follows the verb pattern: validate the arguments (a bad value
//! is `Err(InvalidInput)`), read the record and decide the spec's refusals
//! (an `Ok` result naming its reason, nothing written), prepare the row's new
//! canonical text and vector outside any transaction
//! (`MemoryHome::prepare_rewrite`), then ONE `MemoryHome::transaction`
//! appending the version rows and rewriting the row. No verb here writes an
//! attention event.
//!
//! Spec: api.md "Understanding: in-place rewrites and versions";
//! memory-system.md "Understanding: a reading can change, its history stays".

use crate::error::{Error, Result};
use crate::formation::reading::{
    ReadingProvenance, UnderstandingFields, reading_provenance, understanding_fields,
};
use crate::kinds::RecordKind;
use crate::outcome::{Outcome, Reason, UnderstandingResult};
use crate::record::DigestRow;
use crate::system::{MemorySystem, unknown_id};
use crate::understanding::args::{NarrateDream, Retitle, RevertDigest, RewriteDigest};
use crate::understanding::reading::{Reading, ValidProvenance, validate_author};
use am_journal::{ClosureFilter, ClosureKind, UnderstandingVersion, VersionFilter};
use am_triples::text::{is_record_digest, py_str};
use am_triples::{CommitPoint, DigestRewrite, ErrorKind, JsonMap, Timestamp, TripleAssertion};
use serde::Serialize;
use serde_json::{Value, json};

pub mod args;
mod pending;
pub mod reading;
pub(crate) mod target;

/// How many closures `current_of` follows before it stops (a longer chain is
/// reported as it stands, never looped).
pub const CURRENT_OF_MAX_HOPS: usize = 256;

/// A record the verbs act on: its digest row and ids.
struct Target {
    row: TripleAssertion,
    assertion_id: String,
    graph_id: String,
    /// The row's `record_kind`, `None` when it names no kind of the vocabulary.
    kind: Option<RecordKind>,
    /// The row's `record_kind` as stored (a non-empty string, else empty).
    kind_name: String,
}

impl Target {
    /// The typed view of its digest row.
    fn view(&self) -> DigestRow<'_> {
        DigestRow::of(&self.row)
    }

    fn of(row: TripleAssertion, assertion_id: String) -> Target {
        let view = DigestRow::of(&row);
        let (kind, kind_name) = (
            view.kind(),
            view.nonempty("record_kind").unwrap_or_default().to_owned(),
        );
        Target {
            assertion_id,
            graph_id: row.subject.clone(),
            kind,
            kind_name,
            row,
        }
    }
}

/// The closure standing on a record: its kind and its first replacement, as
/// the closure names it (either id namespace).
pub(crate) struct Closed {
    kind: ClosureKind,
    replacement: Option<String>,
}

/// One version as `versions` reads it: the `UnderstandingVersion` and whether
/// it is the record's current reading of its field.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct VersionView {
    /// The version row.
    #[serde(flatten)]
    pub version: UnderstandingVersion,
    /// Whether it is the current reading.
    pub current: bool,
}

/// `current_of`'s answer: `{record_id, graph_id, current_id,
/// current_assertion_id, hops, chain, closed}`.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct CurrentOf {
    /// The id as passed.
    pub record_id: String,
    /// The record's graph id.
    pub graph_id: String,
    /// The live record's graph id (the end of the chain).
    pub current_id: String,
    /// The live record's digest assertion id.
    pub current_assertion_id: String,
    /// Closures followed.
    pub hops: usize,
    /// The graph ids from the record to the end, both included.
    pub chain: Vec<String>,
    /// The end's closure kind when it is retracted or reinterpreted (no
    /// replacement), else `None`.
    pub closed: Option<ClosureKind>,
}

/// `record_understanding`'s answer: the record read a host serves, with the
/// current reading's provenance (`understanding_fields`) and, for a dream,
/// its narration and signals.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct RecordUnderstanding {
    /// The id as passed.
    pub record_id: String,
    /// The graph id.
    pub graph_id: String,
    /// The digest assertion id.
    pub assertion_id: String,
    /// The record kind.
    pub kind: String,
    /// The title (`None` while pending).
    pub title: Option<String>,
    /// The fields still being written (`title`, `summary`: the
    /// `attributes.pending` marker's), absent when none, so an app shows
    /// "being written…".
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub pending: Vec<String>,
    /// The digest.
    pub digest: String,
    /// The keywords.
    pub keywords: Vec<String>,
    /// The host artifact of the verbatim, if any.
    pub payload_ref: Option<String>,
    /// When it was observed.
    pub observed_at: String,
    /// The standing closure's kind, if any.
    pub closed: Option<ClosureKind>,
    /// The live record (`current_of`).
    pub current_id: String,
    /// The current reading's provenance.
    #[serde(flatten)]
    pub understanding: UnderstandingFields,
    /// A dream's narration and signals (absent for other kinds).
    #[serde(flatten)]
    pub dream: Option<DreamReading>,
}

/// A dream's narration beside its summary.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct DreamReading {
    /// The narration, if any.
    pub narration: Option<String>,
    /// Who narrated (`{kind, id}`).
    pub narration_by: Option<Value>,
    /// The model that narrated.
    pub narration_reader: Option<Value>,
    /// When.
    pub narrated_at: Option<String>,
    /// The night's signals (as stored).
    pub signals: Value,
}

fn keywords_of(a: &TripleAssertion) -> Vec<String> {
    match DigestRow::of(a).get("keywords") {
        Some(Value::Array(v)) => v.iter().map(py_str).collect(),
        _ => Vec::new(),
    }
}

/// The attribute holding a field's current version.
fn version_key(field: &str) -> &'static str {
    match field {
        "title" => "title_version",
        "narration" => "narration_version",
        "target" => "target_version",
        "pending" => "pending_version",
        _ => "digest_version",
    }
}

/// A record's own versioned field: `card` for a world-model card, else `digest`.
fn own_field(kind: Option<RecordKind>) -> &'static str {
    if kind == Some(RecordKind::WorldModel) {
        "card"
    } else {
        "digest"
    }
}

/// The provenance stamp a row carries for its current reading of a field.
fn stamp(field: &str, version: i64, r: &ValidProvenance, understood_at: &str) -> Value {
    let mut m = JsonMap::new();
    m.insert("field".into(), json!(field));
    m.insert("version".into(), json!(version));
    m.insert("author".into(), Value::Object(r.author.clone()));
    if let Some(reader) = &r.reader {
        m.insert("reader".into(), Value::Object(reader.clone()));
    }
    m.insert("sources".into(), Value::Array(r.sources.clone()));
    m.insert("cause".into(), r.cause.clone());
    m.insert("understood_at".into(), json!(understood_at));
    Value::Object(m)
}

/// The provenance of the title a row holds: its `title_provenance` stamp, else
/// the row's reading.
fn title_provenance(a: &TripleAssertion) -> ReadingProvenance {
    match DigestRow::of(a).get("title_provenance") {
        Some(stamp @ Value::Object(_)) => {
            let mut probe = a.clone();
            probe
                .attributes
                .insert("understanding".into(), stamp.clone());
            reading_provenance(&probe)
        }
        _ => reading_provenance(a),
    }
}

/// A version row of `t`.
fn version_of(
    t: &Target,
    field: &str,
    version: i64,
    text: Option<String>,
    reading: (&ValidProvenance, &str),
) -> UnderstandingVersion {
    let (r, understood_at) = reading;
    UnderstandingVersion {
        record_id: t.graph_id.clone(),
        assertion_id: t.assertion_id.clone(),
        version,
        field: field.to_owned(),
        text,
        title: t.view().nonempty("title").map(str::to_owned),
        keywords: keywords_of(&t.row),
        author: r.author.clone(),
        reader: r.reader.clone(),
        sources: r.sources.clone(),
        cause: r.cause.clone(),
        understood_at: understood_at.to_owned(),
        ..UnderstandingVersion::default()
    }
}

/// A reading's provenance as a version or stamp carries it.
fn as_valid(p: ReadingProvenance) -> (ValidProvenance, Option<String>) {
    (
        ValidProvenance {
            author: p.author,
            reader: p.reader,
            sources: p.sources,
            cause: p.cause,
        },
        p.understood_at,
    )
}

/// Version 0 of `field` (`digest` / `card` or `title`): the reading the row
/// holds now, with the provenance of whoever wrote it.
fn original(t: &Target, field: &str) -> UnderstandingVersion {
    let title = field == "title";
    let (r, at) = as_valid(if title {
        title_provenance(&t.row)
    } else {
        reading_provenance(&t.row)
    });
    let at = at.unwrap_or_else(|| t.row.observed_at.clone());
    let text = if title {
        t.view().nonempty("title").map(str::to_owned)
    } else {
        Some(t.row.object.clone())
    };
    let mut v = version_of(t, field, 0, text, (&r, &at));
    if !title {
        v.digest_method = t.view().nonempty("digest_method").map(str::to_owned);
    }
    v
}

/// What one understanding write changes, planned before anything is written.
struct Write {
    versions: Vec<UnderstandingVersion>,
    object: String,
    attributes: JsonMap,
    point: CommitPoint,
    /// The main version's id (its seq is read back into the result).
    version_id: String,
    field: String,
    /// The tasks this write settles (`task_id=`, a pending field's live
    /// authoring tasks), completed in the same transaction.
    settle: Settle,
    /// What the write queues or supersedes (`declare_pending`,
    /// `rearm_pending`), in the same transaction.
    queue: Vec<QueueOp>,
    /// Other rows rewritten in the same transaction with their version
    /// rows (an interest's card moved by `card_rekey`).
    also: Vec<crate::hooks::CardMove>,
}

/// One queue write an understanding write carries.
enum QueueOp {
    /// Queue a task (the enqueue rules: idempotent by id).
    Enqueue(Box<crate::tasks::PlannedEnqueue>),
    /// Supersede these live tasks, with this reason.
    Supersede(Vec<String>, &'static str),
}

/// What a write settles on the task queue.
#[derive(Default)]
struct Settle {
    /// The task the caller names.
    task_id: Option<String>,
    /// The pending fields this write authors (`summary`, `title`, in that
    /// order), whose live `digest.author` / `title.author` tasks it completes.
    pending: Vec<&'static str>,
    /// A dream's narration, which completes the dream's live `dream.narrate`
    /// tasks, named or not, as an authored pending field completes its own.
    narration: bool,
}

/// What every understanding write starts from: the validated reading (when
/// the verb takes one), the record and the ids the result names.
struct Begun<'a> {
    t: Target,
    rid: &'a str,
    field: &'static str,
    reading: ValidProvenance,
    given_at: Option<String>,
}

/// The reading a write records: the verb's arguments' reading (validated
/// by [`MemorySystem::begin_rewrite`]) or one the engine composed itself
/// (a mechanical declaration).
enum ReadingIn<'a> {
    Args(Reading<'a>),
    Ready(ValidProvenance),
}

impl Begun<'_> {
    /// The result refusing this write with `reason` (nothing written).
    fn refused(&self, reason: Reason) -> UnderstandingResult {
        MemorySystem::result_for(
            Some(&self.t),
            self.rid,
            self.field,
            Outcome::Refused(reason),
        )
    }

    /// The result of a write that changes nothing.
    fn unchanged(&self) -> UnderstandingResult {
        MemorySystem::result_for(
            Some(&self.t),
            self.rid,
            self.field,
            Outcome::Unchanged(None),
        )
    }

    /// When the reading was written: the call's `understood_at`, else the
    /// system's clock now.
    fn reading_at(&self, system: &MemorySystem) -> Result<String> {
        match &self.given_at {
            Some(s) => Ok(s.clone()),
            None => system.now(),
        }
    }

    /// The result of a write that changes nothing, for the spec's `reason`.
    fn unchanged_because(&self, reason: Reason) -> UnderstandingResult {
        MemorySystem::result_for(
            Some(&self.t),
            self.rid,
            self.field,
            Outcome::Unchanged(Some(reason)),
        )
    }

    /// The result of a write applied as version `next` over `current`.
    fn applied(&self, next: i64, current: i64) -> UnderstandingResult {
        let mut r = MemorySystem::result_for(Some(&self.t), self.rid, self.field, Outcome::Applied);
        r.version = Some(next);
        r.previous_version = Some(current);
        r
    }
}

/// Whether the row's pending marker names `field` (`title` / `summary`).
/// Clear `field` from the marker in `attributes` (the whole marker once no
/// field is pending).
fn clear_pending(attributes: &mut JsonMap, field: &str) {
    let empty = match attributes.get_mut("pending") {
        Some(Value::Object(m)) => {
            m.insert(field.to_owned(), Value::Bool(false));
            !["title", "summary"]
                .iter()
                .any(|f| m.get(*f).and_then(Value::as_bool).unwrap_or(false))
        }
        _ => false,
    };
    if empty {
        attributes.remove("pending");
    }
}

impl MemorySystem {
    /// The record `record_id` names (graph id or digest assertion id), when
    /// it is a formed record.
    fn understanding_target(&self, record_id: &str) -> Result<Option<Target>> {
        let Some(row) = self.resolve_digest_assertion(record_id)? else {
            return Ok(None);
        };
        if !is_record_digest(&row) {
            return Ok(None);
        }
        let Some(assertion_id) = row.assertion_id.clone() else {
            return Ok(None);
        };
        Ok(Some(Target::of(row, assertion_id)))
    }

    /// The newest closure of an assertion.
    pub(crate) fn standing_closure(&self, assertion_id: &str) -> Result<Option<Closed>> {
        let newest = self
            .journal
            .closures(&ClosureFilter {
                assertion_id: Some(assertion_id.to_owned()),
                limit: 1,
                ..ClosureFilter::default()
            })?
            .into_iter()
            .next();
        let Some(c) = newest else {
            return Ok(None);
        };
        Ok(Some(Closed {
            replacement: c.replacement_ids.first().cloned(),
            kind: c.kind,
        }))
    }

    /// The graph id of a closure's replacement (as named when it resolves to
    /// no record).
    fn replaced_by(&self, c: &Closed) -> Result<Option<String>> {
        match &c.replacement {
            Some(r) => Ok(Some(match self.replacement_target(r)? {
                Some(t) => t.graph_id,
                None => r.clone(),
            })),
            None => Ok(None),
        }
    }

    /// A closure's replacement record: replacements are usually graph ids, so
    /// the subject is probed first (one read), then either namespace.
    fn replacement_target(&self, id: &str) -> Result<Option<Target>> {
        let by_subject = self.store.query(&am_triples::TripleQuery {
            subject: Some(id.trim().to_owned()),
            predicate: Some(crate::kinds::DIGEST_PREDICATE.to_owned()),
            limit: 1,
            ..am_triples::TripleQuery::default()
        })?;
        if let Some(row) = by_subject.into_iter().next()
            && is_record_digest(&row)
            && let Some(assertion_id) = row.assertion_id.clone()
        {
            return Ok(Some(Target::of(row, assertion_id)));
        }
        self.understanding_target(id)
    }

    fn result_for(
        t: Option<&Target>,
        record_id: &str,
        field: &str,
        outcome: Outcome,
    ) -> UnderstandingResult {
        let mut r = UnderstandingResult::new(outcome, record_id.trim(), field);
        if let Some(t) = t {
            r.assertion_id = Some(t.assertion_id.clone());
            r.version = Some(t.view().version(version_key(field)));
        }
        r
    }

    /// The preamble every understanding write shares, in order: the reading's
    /// provenance and `understood_at` validated (a bad value is `Err`), the
    /// home's rewrite check, the record (`unknown_record`), then the shared
    /// refusals (`no_task_queue` when `needs_queue`, `closed`). `Err(result)`
    /// is a refusal to return as it stands.
    fn begin_rewrite<'a>(
        &self,
        rid: &'a str,
        field: &'static str,
        needs_queue: bool,
        reading: ReadingIn<'_>,
    ) -> Result<std::result::Result<Begun<'a>, UnderstandingResult>> {
        let (reading, given_at) = match reading {
            ReadingIn::Args(a) => (a.validate()?, a.understood_at.map(Timestamp::canonical)),
            ReadingIn::Ready(r) => (r, None),
        };
        self.home.check_rewrite()?;
        let Some(t) = self.understanding_target(rid)? else {
            return Ok(Err(Self::result_for(
                None,
                rid,
                field,
                Outcome::Refused(Reason::UnknownRecord),
            )));
        };
        if let Some(r) = self.shared_refusals(&t, rid, field, needs_queue)? {
            return Ok(Err(r));
        }
        Ok(Ok(Begun {
            t,
            rid,
            field,
            reading,
            given_at,
        }))
    }

    /// The refusals every write shares, in the spec's order: the task queue
    /// (`needs_queue`: a `task_id`, or a verb that queues), a standing closure.
    fn shared_refusals(
        &self,
        t: &Target,
        record_id: &str,
        field: &str,
        needs_queue: bool,
    ) -> Result<Option<UnderstandingResult>> {
        if needs_queue && !self.home.has_task_queue() {
            return Ok(Some(Self::result_for(
                Some(t),
                record_id,
                field,
                Outcome::Refused(Reason::NoTaskQueue),
            )));
        }
        if let Some(c) = self.standing_closure(&t.assertion_id)? {
            let mut r =
                Self::result_for(Some(t), record_id, field, Outcome::Refused(Reason::Closed));
            r.replaced_by = self.replaced_by(&c)?;
            return Ok(Some(r));
        }
        Ok(None)
    }

    /// Apply a planned write in ONE home transaction (version rows, then the
    /// row with its keyword entry and vector) and complete the result.
    fn write_understanding(
        &self,
        t: &Target,
        w: Write,
        mut result: UnderstandingResult,
    ) -> Result<UnderstandingResult> {
        let rewrite = DigestRewrite {
            assertion_id: t.assertion_id.clone(),
            expected_object: t.row.object.clone(),
            expected_attributes: t.row.attributes.clone(),
            object: w.object,
            attributes: w.attributes,
        };
        let refuse = |mut r: UnderstandingResult, reason: Reason| {
            r.outcome = Outcome::Refused(reason);
            r.version = Some(t.view().version(version_key(&w.field)));
            r.previous_version = None;
            r.captured_original = None;
            Ok(r)
        };
        let prepared = match self.home.prepare_rewrite(&rewrite) {
            Ok(p) => p,
            Err(e) if e.kind() == ErrorKind::Embedder => {
                return refuse(result, Reason::EmbedderUnavailable);
            }
            Err(e) if e.kind() == ErrorKind::Conflict => return refuse(result, Reason::Stale),
            Err(e) => return Err(e),
        };
        let mut also = Vec::with_capacity(w.also.len());
        for m in &w.also {
            let r = DigestRewrite {
                assertion_id: m.row.assertion_id.clone().unwrap_or_default(),
                expected_object: m.row.object.clone(),
                expected_attributes: m.row.attributes.clone(),
                object: m.row.object.clone(),
                attributes: m.attributes.clone(),
            };
            match self.home.prepare_rewrite(&r) {
                Ok(p) => also.push(p),
                Err(e) if e.kind() == ErrorKind::Embedder => {
                    return refuse(result, Reason::EmbedderUnavailable);
                }
                Err(e) if e.kind() == ErrorKind::Conflict => return refuse(result, Reason::Stale),
                Err(e) => return Err(e),
            }
        }
        let mut versions = w.versions;
        if let Some(id) = w
            .settle
            .task_id
            .as_deref()
            .map(str::trim)
            .filter(|s| !s.is_empty())
        {
            for v in &mut versions {
                if v.task_id.is_none() {
                    v.task_id = Some(id.to_owned());
                }
            }
        }
        let settle = self.settling(t, &w.settle)?;
        let now = self.now()?;
        let done = json!({"outcome": "applied", "field": w.field, "version_id": w.version_id});
        let mut completed: Vec<String> = Vec::new();
        match self.home.transaction(w.point, &mut |tx| {
            tx.journal().append_versions(&versions)?;
            for m in &w.also {
                tx.journal().append_versions(&m.versions)?;
            }
            tx.store().rewrite_digest(&prepared)?;
            for p in &also {
                tx.store().rewrite_digest(p)?;
            }
            if !settle.is_empty() {
                completed = crate::tasks::complete_in(tx.tasks()?, &settle, &now, &done)?;
            }
            for op in &w.queue {
                match op {
                    QueueOp::Enqueue(plan) => {
                        crate::tasks::enqueue_in(tx.tasks()?, plan)?;
                    }
                    QueueOp::Supersede(ids, reason) => {
                        crate::tasks::supersede_in(tx.tasks()?, ids, reason, &now)?;
                    }
                }
            }
            Ok(())
        }) {
            // A rewrite adds no rows: its transaction raises no warnings.
            Ok(_) => {}
            Err(e) if e.kind() == ErrorKind::Conflict => return refuse(result, Reason::Stale),
            Err(e) => return Err(e),
        }
        let stored = self.journal.versions(&VersionFilter {
            assertion_id: Some(t.assertion_id.clone()),
            field: Some(w.field.clone()),
            ..VersionFilter::default()
        })?;
        result.seq = stored
            .iter()
            .find(|v| v.version_id == w.version_id)
            .map(|v| v.seq);
        result.version_id = Some(w.version_id);
        result.vector_rewritten = Some(prepared.vector_rewritten());
        if !w.settle.pending.is_empty() {
            result
                .extra
                .insert("pending_cleared".into(), json!(w.settle.pending));
        }
        if !completed.is_empty() {
            result
                .extra
                .insert("tasks_completed".into(), json!(completed));
        }
        Ok(result)
    }

    /// Whether `v` (a `field` version of `t`) is a provisional digest: the
    /// body a pending summary was formed with, or a reading a
    /// `declare_pending` made provisional (its version row names it).
    fn is_provisional(&self, t: &Target, field: &str, v: &UnderstandingVersion) -> Result<bool> {
        if v.cause.get("provisional") == Some(&Value::Bool(true)) {
            return Ok(true);
        }
        let marked = json!({"field": field, "version": v.version});
        Ok(self
            .journal
            .versions(&VersionFilter {
                assertion_id: Some(t.assertion_id.clone()),
                field: Some("pending".to_owned()),
                ..VersionFilter::default()
            })?
            .iter()
            .any(|p| p.cause.get("provisional") == Some(&marked)))
    }

    /// The live tasks a write settles: the named task; for a pending field,
    /// the record's live authoring tasks of that field; for a narration, the
    /// dream's live `dream.narrate` tasks (so a reader that narrates without
    /// naming the task still settles it, and the night-only work stops
    /// keeping `maintenance_due` due).
    fn settling(&self, t: &Target, s: &Settle) -> Result<Vec<String>> {
        let mut ids: Vec<String> = s
            .task_id
            .iter()
            .map(|i| i.trim().to_owned())
            .filter(|i| !i.is_empty())
            .collect();
        if !self.home.has_task_queue() {
            return Ok(ids);
        }
        let mut kinds: Vec<am_journal::TaskKind> = s
            .pending
            .iter()
            .map(|field| {
                if *field == "title" {
                    am_journal::TaskKind::TitleAuthor
                } else {
                    am_journal::TaskKind::DigestAuthor
                }
            })
            .collect();
        if s.narration {
            kinds.push(am_journal::TaskKind::DreamNarrate);
        }
        for kind in kinds {
            let q = self.tasks()?;
            for target in [&t.graph_id, &t.assertion_id] {
                for task in q.tasks(&crate::tasks::ListTasks {
                    kind: Some(kind),
                    target_id: Some(target.clone()),
                    ..crate::tasks::ListTasks::default()
                })? {
                    if task.status.is_live() && !ids.contains(&task.task_id) {
                        ids.push(task.task_id);
                    }
                }
            }
        }
        Ok(ids)
    }

    /// The new title's version rows and attributes (`retitle`, and a rewrite
    /// or revert that changes the title): version 0 captured at the first
    /// retitle, then the next version with `reading`.
    fn title_change(
        t: &Target,
        title: &str,
        reading: (&ValidProvenance, &str),
        attributes: &mut JsonMap,
        versions: &mut Vec<UnderstandingVersion>,
    ) -> i64 {
        let current = t.view().version("title_version");
        if current == 0 {
            versions.push(original(t, "title"));
        }
        let next = current + 1;
        let mut v = version_of(t, "title", next, Some(title.to_owned()), reading);
        v.title = Some(title.to_owned());
        versions.push(v);
        attributes.insert("title".into(), json!(title));
        attributes.insert("title_version".into(), json!(next));
        attributes.insert(
            "title_provenance".into(),
            stamp("title", next, reading.0, reading.1),
        );
        next
    }

    /// Replace a record's digest in place (api.md `rewrite_digest`): the new
    /// text (and optionally title and keywords) become the row's reading, the
    /// previous one stays as a version (version 0, the original, captured at
    /// the first rewrite with the provenance of whoever wrote it), and recall
    /// finds the new words (keyword index, vector) and no longer the old.
    /// One home transaction: version rows, row, keyword entry, vector.
    ///
    /// Refusals (nothing written): `unknown_record`, `no_task_queue` (a
    /// `task_id` on a home without a task queue), `closed` (with
    /// `replaced_by`), `protected_kind`, `use_narrate_dream`,
    /// `use_author_world_model`, `card_keywords` (`keywords=` on a pending
    /// card), `consolidation_record`, `empty_text`, `empty_title`, `stale`,
    /// `embedder_unavailable`. Byte-identical text, title and keywords:
    /// `unchanged`, nothing written. A PENDING summary is taken here for
    /// every kind that forms one: a dream's in place, a card's as its own
    /// field (`card`), a PUBLIC diary projection's (the diary summary rule).
    ///
    /// # Errors
    /// `InvalidInput` for bad provenance arguments (see
    /// [`Reading::validate`]) or a non-finite magnitude, and for a durable
    /// store whose journal lives elsewhere; `Unsupported` for a store that
    /// cannot rewrite in place (LanceDB); the store's or journal's failure.
    pub fn rewrite_digest(&self, args: &RewriteDigest) -> Result<UnderstandingResult> {
        if let Some(m) = args.magnitude
            && !m.is_finite()
        {
            return Err(Error::invalid(format!("magnitude must be finite, got {m}")));
        }
        if args.digest_method.trim().is_empty() {
            return Err(Error::invalid(
                "digest_method must be a non-empty label, got an empty one",
            ));
        }
        self.rewrite_through(args, ReadingIn::Args(args.reading()), None)
    }

    /// The card door (`author_world_model`'s in-place write): a world-model
    /// card's text rewritten as its own field (`card`) whether or not its
    /// summary is pending, by a reading the caller validated (a label author
    /// is recorded as kind `unrecorded`), with `card_attributes` (the
    /// authored card's `authored_lead`, `authored_known_ids`,
    /// `authored_by`) set on the row. Every other rule of `rewrite_digest`
    /// holds (closed, stale, empty text, the task settled, one transaction
    /// at `understanding.card`). A record that is not a card is refused
    /// `unknown_record`.
    ///
    /// # Errors
    /// As [`Self::rewrite_digest`].
    pub(crate) fn author_card_in_place(
        &self,
        args: &RewriteDigest,
        reading: ValidProvenance,
        card_attributes: JsonMap,
    ) -> Result<UnderstandingResult> {
        self.rewrite_through(args, ReadingIn::Ready(reading), Some(card_attributes))
    }

    fn rewrite_through(
        &self,
        args: &RewriteDigest,
        reading_in: ReadingIn<'_>,
        card_door: Option<JsonMap>,
    ) -> Result<UnderstandingResult> {
        let mut b = match self.begin_rewrite(
            args.record_id.as_str(),
            "digest",
            wants_queue(args.task_id.as_deref()),
            reading_in,
        )? {
            Ok(b) => b,
            Err(refusal) => return Ok(refusal),
        };
        // A pending summary is taken here whatever the kind that forms one:
        // a card's through its own field (`card`), a dream's in place, a
        // PUBLIC diary projection's (the diary summary rule).
        let pending_summary = b.t.view().is_marked_pending("summary");
        let door = card_door.is_some();
        if door && b.t.kind != Some(RecordKind::WorldModel) {
            return Ok(b.refused(Reason::UnknownRecord));
        }
        if b.t.kind == Some(RecordKind::WorldModel) && (pending_summary || door) {
            b.field = "card";
        }
        let (t, rid, field, reading) = (&b.t, b.rid, b.field, &b.reading);
        let refused = |reason| Ok(b.refused(reason));
        if t.kind.is_some_and(RecordKind::is_understanding_protected) {
            let public_projection = t.kind == Some(RecordKind::Diary)
                && pending_summary
                && crate::formation::records::diary_summary_refusal(
                    &t.row.attributes,
                    &t.row.provenance,
                )
                .is_none();
            if !public_projection {
                return refused(Reason::ProtectedKind);
            }
        }
        match t.kind {
            Some(RecordKind::Dream) if !pending_summary => {
                return refused(Reason::UseNarrateDream);
            }
            Some(RecordKind::WorldModel) if !pending_summary && !door => {
                return refused(Reason::UseAuthorWorldModel);
            }
            Some(RecordKind::WorldModel) if args.keywords.is_some() => {
                return refused(Reason::CardKeywords);
            }
            _ => {}
        }
        if t.view().nonempty("summary_role") == Some("re-understanding")
            && reading.cause_name() != "operator"
        {
            return refused(Reason::ConsolidationRecord);
        }
        if args.text.trim().is_empty() {
            return refused(Reason::EmptyText);
        }
        if args.title.as_deref().is_some_and(|s| s.trim().is_empty()) {
            return refused(Reason::EmptyTitle);
        }
        let current = t.view().version("digest_version");
        if args.expected_version != current {
            return refused(Reason::Stale);
        }
        let keywords: Option<Vec<String>> = args.keywords.as_ref().map(|k| {
            k.iter()
                .map(|s| s.trim().to_owned())
                .filter(|s| !s.is_empty())
                .collect()
        });
        let current_title = t.view().nonempty("title").map(str::to_owned);
        let new_title = args
            .title
            .as_deref()
            .filter(|s| current_title.as_deref() != Some(*s));
        let new_keywords = keywords.as_ref().filter(|k| **k != keywords_of(&t.row));
        if args.text == t.row.object
            && new_title.is_none()
            && new_keywords.is_none()
            && !pending_summary
        {
            return Ok(b.unchanged());
        }
        let at = b.reading_at(self)?;
        let mut versions = Vec::new();
        let mut attributes = t.row.attributes.clone();
        if current == 0 {
            let mut v0 = original(t, field);
            if pending_summary {
                // The body a pending summary was formed with is provisional:
                // `revert_digest` never restores it.
                v0.cause = provisional_cause(&v0.cause);
            }
            versions.push(v0);
        }
        let mut extra = JsonMap::new();
        if let Some(title) = new_title {
            let tv = Self::title_change(t, title, (reading, &at), &mut attributes, &mut versions);
            extra.insert("title_version".into(), json!(tv));
        }
        if let Some(k) = &keywords {
            attributes.insert("keywords".into(), json!(k));
        }
        let next = current + 1;
        let mut v = version_of(t, field, next, Some(args.text.clone()), (reading, &at));
        v.title = new_title.map(str::to_owned).or(current_title);
        if let Some(k) = &keywords {
            v.keywords.clone_from(k);
        }
        v.digest_method = Some(args.digest_method.trim().to_owned());
        v.derived_from.clone_from(&args.derived_from);
        v.magnitude = args.magnitude;
        let v = v.normalized()?;
        let version_id = v.version_id.clone();
        versions.push(v);
        // The title keeps the provenance of whoever wrote it: pinned before
        // the row's reading stamp changes to the new digest's.
        if !attributes.contains_key("title_provenance") {
            let (r, at) = as_valid(title_provenance(&t.row));
            let at = at.unwrap_or_else(|| t.row.observed_at.clone());
            attributes.insert("title_provenance".into(), stamp("title", 0, &r, &at));
        }
        attributes.insert("digest_version".into(), json!(next));
        attributes.insert("digest_method".into(), json!(args.digest_method.trim()));
        let mut st = stamp(field, next, reading, &at);
        if let Value::Object(m) = &mut st {
            m.insert("digest_method".into(), json!(args.digest_method.trim()));
            if !args.derived_from.is_empty() {
                m.insert("derived_from".into(), json!(args.derived_from));
            }
        }
        attributes.insert("understanding".into(), st);
        if let Some(card) = card_door {
            attributes.extend(card);
        }
        if pending_summary {
            clear_pending(&mut attributes, "summary");
        }
        // A title given to a record whose title is pending settles it too
        // (api.md `retitle`: "`rewrite_digest` does the same"), so the
        // `title.author` task is never authored a second time.
        let pending_title = new_title.is_some() && t.view().is_marked_pending("title");
        if pending_title {
            clear_pending(&mut attributes, "title");
        }
        let mut settled: Vec<&'static str> = Vec::new();
        if pending_summary {
            settled.push("summary");
        }
        if pending_title {
            settled.push("title");
        }
        let mut result = Self::result_for(Some(t), rid, field, Outcome::Applied);
        result.version = Some(next);
        result.previous_version = Some(current);
        result.captured_original = Some(current == 0);
        result.extra = extra;
        self.write_understanding(
            t,
            Write {
                versions,
                object: args.text.clone(),
                attributes,
                point: if field == "card" {
                    CommitPoint::UnderstandingCard
                } else {
                    CommitPoint::UnderstandingDigest
                },
                version_id,
                field: field.to_owned(),
                settle: Settle {
                    task_id: args.task_id.clone(),
                    pending: settled,
                    narration: false,
                },
                queue: Vec::new(),
                also: Vec::new(),
            },
            result,
        )
    }

    /// Change ONLY a record's title, in place, for every kind (api.md
    /// `retitle`): the body, keywords and digest reading stay byte-identical;
    /// `title`, `title_version` and `title_provenance` change, and so do the
    /// canonical text, the keyword entry and the vector. The first retitle
    /// keeps the title it replaces as version 0 of field `title`.
    ///
    /// Refusals: `unknown_record`, `no_task_queue`, `closed`, `empty_title`,
    /// `hash_chained` (an owner-direct diary entry whose `entry_hash` attests
    /// its title), `stale`, `embedder_unavailable`; the same title:
    /// `unchanged`.
    ///
    /// # Errors
    /// As [`MemorySystem::rewrite_digest`].
    pub fn retitle(&self, args: &Retitle) -> Result<UnderstandingResult> {
        let b = match self.begin_rewrite(
            args.record_id.as_str(),
            "title",
            wants_queue(args.task_id.as_deref()),
            ReadingIn::Args(args.reading()),
        )? {
            Ok(b) => b,
            Err(refusal) => return Ok(refusal),
        };
        let (t, rid, field, reading) = (&b.t, b.rid, b.field, &b.reading);
        let refused = |reason| Ok(b.refused(reason));
        if args.title.trim().is_empty() {
            return refused(Reason::EmptyTitle);
        }
        let owner_direct =
            t.row.provenance.get("source").and_then(Value::as_str) == Some("owner-direct");
        if t.kind == Some(RecordKind::Diary)
            && owner_direct
            && t.view().nonempty("entry_hash").is_some()
        {
            return refused(Reason::HashChained);
        }
        let current = t.view().version("title_version");
        if args.expected_version != current {
            return refused(Reason::Stale);
        }
        if t.view().nonempty("title") == Some(args.title.as_str()) {
            return Ok(b.unchanged());
        }
        let at = b.reading_at(self)?;
        let mut versions = Vec::new();
        let mut attributes = t.row.attributes.clone();
        let next = Self::title_change(
            t,
            &args.title,
            (reading, &at),
            &mut attributes,
            &mut versions,
        );
        let version_id = versions
            .last()
            .map(|v| v.normalized().map(|n| n.version_id))
            .transpose()?
            .unwrap_or_default();
        let pending_title = t.view().is_marked_pending("title");
        if pending_title {
            clear_pending(&mut attributes, "title");
        }
        let mut result = Self::result_for(Some(t), rid, field, Outcome::Applied);
        result.version = Some(next);
        result.previous_version = Some(current);
        result.captured_original = Some(current == 0);
        // An interest's card keyed on its graph id moves to the title's
        // subject head, in this transaction (`card_rekey`).
        let mut also = Vec::new();
        if t.kind == Some(RecordKind::Interest)
            && let Some(plan) = crate::hooks::card_rekey().plan(
                self,
                &t.row,
                crate::hooks::InterestTitle::Landed(&args.title),
                &crate::hooks::HookReading::of(reading, &at),
            )?
        {
            result
                .extra
                .insert("card_rekey".into(), Value::Object(plan.report));
            also.extend(plan.write);
        }
        self.write_understanding(
            t,
            Write {
                versions,
                object: t.row.object.clone(),
                attributes,
                point: CommitPoint::UnderstandingTitle,
                version_id,
                field: field.to_owned(),
                settle: Settle {
                    task_id: args.task_id.clone(),
                    pending: if pending_title {
                        vec!["title"]
                    } else {
                        Vec::new()
                    },
                    narration: false,
                },
                queue: Vec::new(),
                also,
            },
            result,
        )
    }

    /// Store a narration beside a dream's mechanical summary (api.md
    /// `narrate_dream`): `narration`, `narration_version` and
    /// `narration_provenance` on the row; the digest, the signals, the keyword
    /// entry and the vector are untouched. The first narration is version 1
    /// of field `narration`. The write completes the dream's live
    /// `dream.narrate` tasks, named by `task_id` or not (the spec settles a
    /// named task in the write's transaction and is silent on an unnamed
    /// one; ours finds it as `retitle` finds a pending title's task).
    ///
    /// Refusals: `unknown_record`, `no_task_queue`, `closed`, `not_a_dream`,
    /// `empty_text`, `stale`; the same narration: `unchanged`.
    ///
    /// # Errors
    /// As [`MemorySystem::rewrite_digest`].
    pub fn narrate_dream(&self, args: &NarrateDream) -> Result<UnderstandingResult> {
        let b = match self.begin_rewrite(
            args.dream_id.as_str(),
            "narration",
            wants_queue(args.task_id.as_deref()),
            ReadingIn::Args(args.reading()),
        )? {
            Ok(b) => b,
            Err(refusal) => return Ok(refusal),
        };
        let (t, rid, field, reading) = (&b.t, b.rid, b.field, &b.reading);
        let refused = |reason| Ok(b.refused(reason));
        if t.kind != Some(RecordKind::Dream) {
            return refused(Reason::NotADream);
        }
        if args.text.trim().is_empty() {
            return refused(Reason::EmptyText);
        }
        let current = t.view().version("narration_version");
        if args.expected_version != current {
            return refused(Reason::Stale);
        }
        if t.view().nonempty("narration") == Some(args.text.as_str()) {
            return Ok(b.unchanged());
        }
        let at = b.reading_at(self)?;
        let next = current + 1;
        let v = version_of(t, field, next, Some(args.text.clone()), (reading, &at)).normalized()?;
        let version_id = v.version_id.clone();
        let mut attributes = t.row.attributes.clone();
        attributes.insert("narration".into(), json!(args.text));
        attributes.insert("narration_version".into(), json!(next));
        attributes.insert(
            "narration_provenance".into(),
            stamp(field, next, reading, &at),
        );
        let mut result = Self::result_for(Some(t), rid, field, Outcome::Applied);
        result.version = Some(next);
        result.previous_version = Some(current);
        result.captured_original = Some(false);
        self.write_understanding(
            t,
            Write {
                versions: vec![v],
                object: t.row.object.clone(),
                attributes,
                point: CommitPoint::UnderstandingNarration,
                version_id,
                field: field.to_owned(),
                settle: Settle {
                    task_id: args.task_id.clone(),
                    pending: Vec::new(),
                    narration: true,
                },
                queue: Vec::new(),
                also: Vec::new(),
            },
            result,
        )
    }

    /// Restore an earlier reading as a NEW version (api.md `revert_digest`):
    /// cause `{cause: "revert", reverted_to, by, reason?}`, the restored words
    /// keeping the author and reader that wrote them; nothing is erased. A
    /// digest version restores its title too, unless the record was retitled
    /// since its current reading. `field="title"` restores a title.
    ///
    /// Refusals: `unknown_record`, `closed`, `use_rekey_world_model`
    /// (`field="target"`), `not_revertible` (`field="pending"`),
    /// `protected_kind` (a digest of the entity's own act), `stale`,
    /// `unknown_version`, `null_title`, `embedder_unavailable`; restoring the
    /// words the record holds: `unchanged`.
    ///
    /// # Errors
    /// `InvalidInput` for a bad `by` or a field outside the versioned fields;
    /// as [`MemorySystem::rewrite_digest`] otherwise.
    pub fn revert_digest(&self, args: &RevertDigest) -> Result<UnderstandingResult> {
        let by = match &args.by {
            Some(b) => validate_author("by", b)?,
            None => {
                am_journal::AuthorRef::new(am_journal::AuthorKind::Operator, "operator").to_map()
            }
        };
        self.home.check_rewrite()?;
        let rid = args.record_id.as_str();
        let Some(t) = self.understanding_target(rid)? else {
            let field = args.field.as_deref().unwrap_or("digest");
            return Ok(Self::result_for(
                None,
                rid,
                field,
                Outcome::Refused(Reason::UnknownRecord),
            ));
        };
        let field = match args.field.as_deref().map(|f| f.trim().to_lowercase()) {
            None => own_field(t.kind).to_owned(),
            Some(f) if am_journal::version::VERSION_FIELDS.contains(&f.as_str()) => f,
            Some(f) => {
                return Err(Error::invalid(format!(
                    "revert_digest field must be one of {:?}, got {f:?}",
                    am_journal::version::VERSION_FIELDS
                )));
            }
        };
        let field = field.as_str();
        let refused = |reason| {
            Ok(Self::result_for(
                Some(&t),
                rid,
                field,
                Outcome::Refused(reason),
            ))
        };
        match field {
            "target" => return refused(Reason::UseRekeyWorldModel),
            "pending" => return refused(Reason::NotRevertible),
            _ => {}
        }
        if let Some(r) = self.shared_refusals(&t, rid, field, false)? {
            return Ok(r);
        }
        let body = field == "digest" || field == "card";
        if body && t.kind.is_some_and(RecordKind::is_understanding_protected) {
            return refused(Reason::ProtectedKind);
        }
        let current = t.view().version(version_key(field));
        if args.expected_version != current {
            return refused(Reason::Stale);
        }
        let history = self.journal.versions(&VersionFilter {
            assertion_id: Some(t.assertion_id.clone()),
            field: Some(field.to_owned()),
            ..VersionFilter::default()
        })?;
        let Some(target) = history.iter().find(|v| v.version == args.to_version) else {
            return refused(Reason::UnknownVersion);
        };
        if body && self.is_provisional(&t, field, target)? {
            return refused(Reason::ProvisionalSummary);
        }
        let Some(words) = target.text.clone() else {
            return refused(Reason::NullTitle);
        };
        let holds = match field {
            "title" => t.view().nonempty("title").map(str::to_owned),
            "narration" => t.view().nonempty("narration").map(str::to_owned),
            _ => Some(t.row.object.clone()),
        };
        if holds.as_deref() == Some(words.as_str()) {
            return Ok(Self::result_for(
                Some(&t),
                rid,
                field,
                Outcome::Unchanged(None),
            ));
        }
        let mut cause = JsonMap::new();
        cause.insert("cause".into(), json!("revert"));
        cause.insert("reverted_to".into(), json!(args.to_version));
        cause.insert("by".into(), Value::Object(by));
        if let Some(reason) = &args.reason {
            cause.insert("reason".into(), json!(reason));
        }
        let reading = ValidProvenance {
            author: target.author.clone(),
            reader: target.reader.clone(),
            sources: target.sources.clone(),
            cause: Value::Object(cause),
        };
        let at = self.now()?;
        let next = current + 1;
        let mut versions = Vec::new();
        let mut attributes = t.row.attributes.clone();
        let mut object = t.row.object.clone();
        let mut extra = JsonMap::new();
        let point;
        let mut v = version_of(&t, field, next, Some(words.clone()), (&reading, &at));
        match field {
            "title" => {
                point = CommitPoint::UnderstandingTitle;
                v.title = Some(words.clone());
                attributes.insert("title".into(), json!(words));
                attributes.insert("title_version".into(), json!(next));
                attributes.insert("title_provenance".into(), stamp(field, next, &reading, &at));
            }
            "narration" => {
                point = CommitPoint::UnderstandingNarration;
                attributes.insert("narration".into(), json!(words));
                attributes.insert("narration_version".into(), json!(next));
                attributes.insert(
                    "narration_provenance".into(),
                    stamp(field, next, &reading, &at),
                );
            }
            _ => {
                point = CommitPoint::UnderstandingDigest;
                object.clone_from(&words);
                // The title comes back with the words, unless the record was
                // retitled since its current reading (that title stays).
                let reading_title = history
                    .iter()
                    .find(|h| h.version == current)
                    .and_then(|h| h.title.clone());
                let current_title = t.view().nonempty("title").map(str::to_owned);
                if reading_title == current_title
                    && let Some(old_title) = target.title.as_deref()
                    && current_title.as_deref() != Some(old_title)
                {
                    let tv = Self::title_change(
                        &t,
                        old_title,
                        (&reading, &at),
                        &mut attributes,
                        &mut versions,
                    );
                    extra.insert("title_version".into(), json!(tv));
                }
                v.title = attr_text_of(&attributes, "title");
                v.keywords.clone_from(&target.keywords);
                v.digest_method.clone_from(&target.digest_method);
                if target.keywords.is_empty() {
                    attributes.remove("keywords");
                } else {
                    attributes.insert("keywords".into(), json!(target.keywords));
                }
                match &target.digest_method {
                    Some(m) => attributes.insert("digest_method".into(), json!(m)),
                    None => attributes.remove("digest_method"),
                };
                attributes.insert("digest_version".into(), json!(next));
                let mut st = stamp(field, next, &reading, &at);
                if let (Value::Object(m), Some(dm)) = (&mut st, &target.digest_method) {
                    m.insert("digest_method".into(), json!(dm));
                }
                attributes.insert("understanding".into(), st);
            }
        }
        let v = v.normalized()?;
        let version_id = v.version_id.clone();
        versions.push(v);
        let mut result = Self::result_for(Some(&t), rid, field, Outcome::Applied);
        result.version = Some(next);
        result.previous_version = Some(current);
        result.captured_original = Some(false);
        result.extra = extra;
        self.write_understanding(
            &t,
            Write {
                versions,
                object,
                attributes,
                point,
                version_id,
                field: field.to_owned(),
                settle: Settle::default(),
                queue: Vec::new(),
                also: Vec::new(),
            },
            result,
        )
    }

    /// Every reading of a record's `field`, oldest first, each with `current`
    /// (api.md `versions`). `field` defaults to the record's own (`digest`, or
    /// `card` for a world-model card). A record never rewritten returns `[]`.
    ///
    /// # Errors
    /// `NotFound` for an id in neither namespace; `InvalidInput` for a field
    /// outside the versioned fields.
    pub fn versions(&self, record_id: &str, field: Option<&str>) -> Result<Vec<VersionView>> {
        let t = self
            .understanding_target(record_id)?
            .ok_or_else(|| unknown_id(record_id.trim()))?;
        let field = match field.map(|f| f.trim().to_lowercase()) {
            None => own_field(t.kind).to_owned(),
            Some(f) if am_journal::version::VERSION_FIELDS.contains(&f.as_str()) => f,
            Some(f) => {
                return Err(Error::invalid(format!(
                    "versions field must be one of {:?}, got {f:?}",
                    am_journal::version::VERSION_FIELDS
                )));
            }
        };
        let current = t.view().version(version_key(&field));
        Ok(self
            .journal
            .versions(&VersionFilter {
                assertion_id: Some(t.assertion_id.clone()),
                field: Some(field),
                ..VersionFilter::default()
            })?
            .into_iter()
            .map(|v| VersionView {
                current: v.version == current,
                version: v,
            })
            .collect())
    }

    /// Follow supersede and merge closures to the live record (api.md
    /// `current_of`): `closed` names a retract / reinterpreted end. A chain
    /// that loops or runs past [`CURRENT_OF_MAX_HOPS`] stops where it stands.
    ///
    /// # Errors
    /// `NotFound` for an id in neither namespace.
    pub fn current_of(&self, record_id: &str) -> Result<CurrentOf> {
        let t = self
            .understanding_target(record_id)?
            .ok_or_else(|| unknown_id(record_id.trim()))?;
        let mut chain = vec![t.graph_id.clone()];
        let mut at = (t.graph_id.clone(), t.assertion_id.clone());
        let mut closed = None;
        while chain.len() <= CURRENT_OF_MAX_HOPS {
            let Some(c) = self.standing_closure(&at.1)? else {
                break;
            };
            let next = match &c.replacement {
                Some(r) if c.kind.requires_replacements() => self.replacement_target(r)?,
                _ => None,
            };
            let Some(n) = next else {
                closed = Some(c.kind);
                break;
            };
            if chain.contains(&n.graph_id) {
                break;
            }
            chain.push(n.graph_id.clone());
            at = (n.graph_id, n.assertion_id);
        }
        Ok(CurrentOf {
            record_id: record_id.trim().to_owned(),
            graph_id: t.graph_id,
            current_id: at.0,
            current_assertion_id: at.1,
            hops: chain.len() - 1,
            chain,
            closed,
        })
    }

    /// The record read a host serves (api.md `record_understanding`), with the
    /// current reading's provenance; dreams add their narration and signals.
    ///
    /// # Errors
    /// `NotFound` for an id in neither namespace; `InvalidInput` for a diary
    /// record (the book is its door).
    pub fn record_understanding(&self, record_id: &str) -> Result<RecordUnderstanding> {
        let t = self
            .understanding_target(record_id)?
            .ok_or_else(|| unknown_id(record_id.trim()))?;
        if t.kind == Some(RecordKind::Diary) {
            return Err(Error::invalid(format!(
                "record_understanding does not read diary records ({}): the diary book is their door",
                t.graph_id
            )));
        }
        let standing = self.standing_closure(&t.assertion_id)?;
        let current = self.current_of(&t.assertion_id)?;
        let pending = t.view().pending();
        let count = self
            .journal
            .versions(&VersionFilter {
                assertion_id: Some(t.assertion_id.clone()),
                field: Some(own_field(t.kind).to_owned()),
                ..VersionFilter::default()
            })?
            .len();
        let version_count = i64::try_from(count.max(1)).unwrap_or(i64::MAX);
        let replaced_by = match &standing {
            Some(c) => self.replaced_by(c)?,
            None => None,
        };
        let dream = (t.kind == Some(RecordKind::Dream)).then(|| {
            let prov = t.view().get("narration_provenance");
            let pick = |k: &str| prov.and_then(|p| p.get(k)).cloned();
            DreamReading {
                narration: t.view().nonempty("narration").map(str::to_owned),
                narration_by: pick("author"),
                narration_reader: pick("reader"),
                narrated_at: pick("understood_at").and_then(|v| v.as_str().map(str::to_owned)),
                signals: t.view().get("signals").cloned().unwrap_or(Value::Null),
            }
        });
        Ok(RecordUnderstanding {
            record_id: record_id.trim().to_owned(),
            graph_id: t.graph_id.clone(),
            assertion_id: t.assertion_id.clone(),
            kind: t.kind_name.clone(),
            title: if pending.iter().any(|f| f == "title") {
                None
            } else {
                t.view().nonempty("title").map(str::to_owned)
            },
            pending,
            digest: t.row.object.clone(),
            keywords: keywords_of(&t.row),
            payload_ref: t.view().nonempty("payload_ref").map(str::to_owned),
            observed_at: t.row.observed_at.clone(),
            closed: standing.map(|c| c.kind),
            current_id: current.current_id,
            understanding: understanding_fields(
                &t.row,
                Some(version_count),
                replaced_by.as_deref(),
            ),
            dream,
        })
    }
}

/// `cause` marked provisional (`{"cause": ..., "provisional": true}`, its
/// other keys kept).
fn provisional_cause(cause: &Value) -> Value {
    let mut m = match cause {
        Value::Object(m) => m.clone(),
        other => {
            let mut m = JsonMap::new();
            m.insert("cause".into(), other.clone());
            m
        }
    };
    m.insert("provisional".into(), Value::Bool(true));
    Value::Object(m)
}

/// Whether a verb's `task_id` needs the task queue (a blank one names none).
fn wants_queue(task_id: Option<&str>) -> bool {
    task_id.is_some_and(|s| !s.trim().is_empty())
}

fn attr_text_of(attributes: &JsonMap, key: &str) -> Option<String> {
    match attributes.get(key) {
        Some(Value::String(s)) if !s.is_empty() => Some(s.clone()),
        _ => None,
    }
}
