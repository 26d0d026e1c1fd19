//! `declare_pending` and `rearm_pending`: a stored record's title and/or
//! summary declared still being written, and a pending record whose
//! authoring ran out queued again. Both write through the understanding
//! write ([`MemorySystem::write_understanding`]): the row, a version row of
//! field `pending` and the queue's tasks in ONE home transaction.
//!
//! Choices the spec leaves open (ours): the version row's `text` is the
//! fields joined with `", "`; a declaration's method is
//! `declare-pending-v1`; the `@<k>` of a next free basis counts from 1; a
//! marker already there keeps its `since` and `attempts`; an interest's
//! card move (`card_rekey`) is planned by the installed hook
//! (`crate::hooks::CardRekey`, world_models') and written in the
//! declaration's own transaction.
//!
//! Spec: api.md "Understanding: in-place rewrites and versions"
//! (`declare_pending`, `rearm_pending`).

use super::{
    Begun, MemorySystem, QueueOp, ReadingIn, Settle, Target, Write, original, own_field, stamp,
    version_key, version_of,
};
use crate::error::{Error, Result};
use crate::kinds::{PENDING_FIELDS, RecordKind};
use crate::outcome::{Outcome, Reason, UnderstandingResult};
use crate::tasks::{ListTasks, PlannedEnqueue, task_id};
use crate::understanding::args::{DeclarePending, RearmPending};
use crate::understanding::reading::ValidProvenance;
use am_journal::version::REWRITE_CAUSES;
use am_journal::{TaskKind, TaskRow};
use am_triples::{CommitPoint, JsonMap};
use serde_json::{Value, json};
use std::collections::BTreeMap;

/// The authoring task kind of a pending field.
fn authoring_kind(field: &str) -> TaskKind {
    if field == "title" {
        TaskKind::TitleAuthor
    } else {
        TaskKind::DigestAuthor
    }
}

/// The mechanical author of a pending write (`declare_pending` /
/// `rearm_pending`).
fn mechanical(id: &str) -> JsonMap {
    let mut m = JsonMap::new();
    m.insert("kind".into(), json!("mechanical"));
    m.insert("id".into(), json!(id));
    m
}

fn check_cause(verb: &str, cause: &str) -> Result<String> {
    let c = cause.trim().to_lowercase();
    if REWRITE_CAUSES.contains(&c.as_str()) {
        Ok(c)
    } else {
        Err(Error::invalid(format!(
            "{verb} cause must be one of {REWRITE_CAUSES:?}, got {cause:?}"
        )))
    }
}

/// The marker's pending fields, in `PENDING_FIELDS` order of the spec's
/// marker (`title`, then `summary`).
fn marker_fields(marker: &JsonMap) -> Vec<&'static str> {
    ["title", "summary"]
        .into_iter()
        .filter(|f| marker.get(*f).and_then(Value::as_bool).unwrap_or(false))
        .collect()
}

/// The record's authoring tasks of each pending field (every status, as of
/// now), on either id namespace.
struct Authoring {
    by_field: BTreeMap<&'static str, Vec<TaskRow>>,
}

impl Authoring {
    /// The field's live task (the first in queue order).
    fn live(&self, field: &str) -> Option<&TaskRow> {
        self.by_field
            .get(field)
            .and_then(|v| v.iter().find(|t| t.status.is_live()))
    }

    /// The field's tasks that ran out (every one not live).
    fn exhausted(&self, field: &str) -> Vec<Value> {
        self.by_field
            .get(field)
            .map(|v| {
                v.iter()
                    .filter(|t| !t.status.is_live())
                    .map(|t| {
                        json!({"task_id": t.task_id, "status": t.status.as_str(),
                               "attempts": t.attempts, "max_attempts": t.max_attempts,
                               "error": t.error})
                    })
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Whether a task with this id exists.
    fn has(&self, id: &str) -> bool {
        self.by_field.values().flatten().any(|t| t.task_id == id)
    }
}

/// A pending write planned: what is queued and what the result names.
#[derive(Default)]
struct Queued {
    ops: Vec<QueueOp>,
    tasks: BTreeMap<String, String>,
    enqueued: Vec<String>,
    adopted: Vec<String>,
    superseded: Vec<String>,
}

impl MemorySystem {
    fn authoring_of(&self, t: &Target) -> Result<Authoring> {
        let q = self.tasks()?;
        let mut by_field: BTreeMap<&'static str, Vec<TaskRow>> = BTreeMap::new();
        for field in ["title", "summary"] {
            let mut rows: Vec<TaskRow> = Vec::new();
            for target in [&t.graph_id, &t.assertion_id] {
                for task in q.tasks(&ListTasks {
                    kind: Some(authoring_kind(field)),
                    target_id: Some(target.clone()),
                    ..ListTasks::default()
                })? {
                    if !rows.iter().any(|r| r.task_id == task.task_id) {
                        rows.push(task);
                    }
                }
            }
            by_field.insert(field, rows);
        }
        Ok(Authoring { by_field })
    }

    /// The live body tasks a declared summary supersedes (`digest.rewrite`,
    /// a card's `card.author`).
    fn live_body_tasks(&self, t: &Target) -> Result<Vec<String>> {
        let q = self.tasks()?;
        let mut ids = Vec::new();
        for kind in [TaskKind::DigestRewrite, TaskKind::CardAuthor] {
            for target in [&t.graph_id, &t.assertion_id] {
                for task in q.tasks(&ListTasks {
                    kind: Some(kind),
                    target_id: Some(target.clone()),
                    ..ListTasks::default()
                })? {
                    if task.status.is_live() && !ids.contains(&task.task_id) {
                        ids.push(task.task_id);
                    }
                }
            }
        }
        Ok(ids)
    }

    /// Formation's authoring task of `field` on `t` with `basis`, `cause`.
    fn authoring_plan(
        t: &Target,
        field: &str,
        basis: String,
        cause: Value,
        now: &str,
    ) -> PlannedEnqueue {
        let kind = authoring_kind(field);
        let mut row = crate::tasks::formation::row(
            &t.row,
            &t.assertion_id,
            kind,
            basis,
            crate::tasks::pending_priority(&t.kind_name),
            now,
        );
        row.cause = cause;
        PlannedEnqueue {
            row,
            current_version: None,
        }
    }

    /// The next free `<assertion id>@pending-<field>@<k>` (k from 1).
    fn next_free_basis(t: &Target, field: &str, have: &Authoring) -> String {
        let kind = authoring_kind(field);
        (1..)
            .map(|k| format!("{}@pending-{field}@{k}", t.assertion_id))
            .find(|b| !have.has(&task_id(kind, &t.graph_id, b)))
            .unwrap_or_default()
    }

    /// The cause a pending write's task or version row carries.
    fn pending_cause(cause: &str, reason: Option<&str>) -> JsonMap {
        let mut m = JsonMap::new();
        m.insert("cause".into(), json!(cause));
        if let Some(r) = reason.map(str::trim).filter(|r| !r.is_empty()) {
            m.insert("reason".into(), json!(r));
        }
        m
    }

    /// The preamble of the two mechanical pending writes (`verb` is
    /// `declare_pending` or `rearm_pending`): the cause checked (returned, as
    /// the rows name it), the reading `verb` authors mechanically, then
    /// [`Self::begin_rewrite`] on field `pending` (which needs the queue).
    fn begin_pending<'a>(
        &self,
        verb: &str,
        record_id: &'a str,
        cause: &str,
    ) -> Result<(String, std::result::Result<Begun<'a>, UnderstandingResult>)> {
        let cause = check_cause(verb, cause)?;
        let reading = ValidProvenance {
            author: mechanical(verb),
            reader: None,
            sources: Vec::new(),
            cause: json!(cause),
        };
        let begun = self.begin_rewrite(record_id, "pending", true, ReadingIn::Ready(reading))?;
        Ok((cause, begun))
    }

    /// Declare that a stored record's title and/or summary is still being
    /// written (api.md `declare_pending`): the record gets the marker and,
    /// per newly declared field, formation's `title.author` /
    /// `digest.author` task (a live task with that identity is adopted; a
    /// field authored once gets the next free `@pending-<field>@<k>`). A
    /// declared title is stored `None` (its previous title kept as a title
    /// version; canonical text, keyword entry and vector replaced); a
    /// declared summary keeps the body as its provisional digest (no
    /// embedder call) and supersedes the record's live `digest.rewrite` /
    /// `card.author`. One transaction: the row, the version row of field
    /// `pending` (and the title's), the tasks.
    ///
    /// Every asked field already pending with its live task: `unchanged`,
    /// `already_pending`. A pending field no live task owns is repaired
    /// (`repaired`): alone through `rearm_pending` (`rearmed`), or beside a
    /// newly declared field in the same transaction.
    ///
    /// Refusals: `unknown_record`, `no_task_queue`, `closed`,
    /// `protected_kind` (a summary of the entity's own act; a PUBLIC diary
    /// projection's is declared), `consolidation_record`, `hash_chained` (a
    /// declared title), `stale`, `embedder_unavailable` (a declared title).
    ///
    /// # Errors
    /// `InvalidInput` for fields outside `PENDING_FIELDS`, none, or a cause
    /// outside `REWRITE_CAUSES`; the home's failure.
    pub fn declare_pending(&self, args: &DeclarePending) -> Result<UnderstandingResult> {
        let mut fields: Vec<&'static str> = Vec::new();
        for f in &args.fields {
            let f = f.trim().to_lowercase();
            let Some(known) = PENDING_FIELDS.iter().copied().find(|p| *p == f) else {
                return Err(Error::invalid(format!(
                    "declare_pending fields must be within {PENDING_FIELDS:?}, got {f:?}"
                )));
            };
            if !fields.contains(&known) {
                fields.push(known);
            }
        }
        if fields.is_empty() {
            return Err(Error::invalid(
                "declare_pending needs at least one field (title, summary), got none",
            ));
        }
        // The spec's marker order: title, then summary.
        fields.sort_by_key(|f| *f != "title");
        let (cause, begun) = self.begin_pending("declare_pending", &args.record_id, &args.cause)?;
        let b = match begun {
            Ok(b) => b,
            Err(refusal) => return Ok(refusal),
        };
        let t = &b.t;
        let summary = fields.contains(&"summary");
        let title = fields.contains(&"title");
        if summary && t.kind.is_some_and(RecordKind::is_understanding_protected) {
            let why = if t.kind == Some(RecordKind::Diary) {
                crate::formation::records::diary_summary_refusal(
                    &t.row.attributes,
                    &t.row.provenance,
                )
            } else {
                Some(format!(
                    "a {}'s summary is the entity's own act (UNDERSTANDING_PROTECTED_KINDS)",
                    t.kind_name
                ))
            };
            if let Some(why) = why {
                let mut r = b.refused(Reason::ProtectedKind);
                r.detail = Some(why);
                return Ok(r);
            }
        }
        if t.view().nonempty("summary_role") == Some("re-understanding") && cause != "operator" {
            return Ok(b.refused(Reason::ConsolidationRecord));
        }
        let owner_direct =
            t.row.provenance.get("source").and_then(Value::as_str) == Some("owner-direct");
        if title
            && t.kind == Some(RecordKind::Diary)
            && owner_direct
            && t.view().nonempty("entry_hash").is_some()
        {
            return Ok(b.refused(Reason::HashChained));
        }
        let marker = match t.view().get("pending") {
            Some(Value::Object(m)) => m.clone(),
            _ => JsonMap::new(),
        };
        let have = self.authoring_of(t)?;
        let pending_now = marker_fields(&marker);
        let mut owned: BTreeMap<String, String> = BTreeMap::new();
        let mut unowned: Vec<&'static str> = Vec::new();
        let mut new: Vec<&'static str> = Vec::new();
        for f in &fields {
            if pending_now.contains(f) {
                match have.live(f) {
                    Some(task) => {
                        owned.insert((*f).to_owned(), task.task_id.clone());
                    }
                    None => unowned.push(f),
                }
            } else {
                new.push(f);
            }
        }
        if new.is_empty() && unowned.is_empty() {
            let mut r = b.unchanged_because(Reason::AlreadyPending);
            r.extra.insert("tasks".into(), json!(owned));
            return Ok(r);
        }
        if new.is_empty() {
            return self.rearm(&b, &cause, args.reason.as_deref(), true);
        }
        let now = self.now()?;
        let mut q = Queued::default();
        let base = Self::pending_cause(&cause, args.reason.as_deref());
        for f in &new {
            let kind = authoring_kind(f);
            let first = format!("{}@pending-{f}", t.assertion_id);
            let first_id = task_id(kind, &t.graph_id, &first);
            let existing = have
                .by_field
                .get(f)
                .and_then(|v| v.iter().find(|x| x.task_id == first_id));
            let basis = match existing {
                Some(task) if task.status.is_live() => {
                    q.adopted.push(task.task_id.clone());
                    q.tasks.insert((*f).to_owned(), task.task_id.clone());
                    continue;
                }
                Some(_) => Self::next_free_basis(t, f, &have),
                None => first,
            };
            let mut c = base.clone();
            c.insert("pending".into(), json!(f));
            let plan = Self::authoring_plan(t, f, basis, Value::Object(c), &now);
            q.tasks.insert((*f).to_owned(), plan.row.task_id.clone());
            q.enqueued.push(plan.row.task_id.clone());
            q.ops.push(QueueOp::Enqueue(Box::new(plan)));
        }
        let rearmed = marker.get("rearmed").and_then(Value::as_i64).unwrap_or(0);
        for f in &unowned {
            let basis = Self::next_free_basis(t, f, &have);
            let mut c = base.clone();
            c.insert("pending".into(), json!(f));
            c.insert("rearmed".into(), json!(rearmed));
            let plan = Self::authoring_plan(t, f, basis, Value::Object(c), &now);
            q.tasks.insert((*f).to_owned(), plan.row.task_id.clone());
            q.enqueued.push(plan.row.task_id.clone());
            q.ops.push(QueueOp::Enqueue(Box::new(plan)));
        }
        for (f, id) in &owned {
            q.tasks.insert(f.clone(), id.clone());
        }
        let mut provisional = None;
        if new.contains(&"summary") {
            let field = own_field(t.kind);
            provisional = Some(json!({"field": field,
                "version": t.view().version(version_key(field))}));
            let body = self.live_body_tasks(t)?;
            if !body.is_empty() {
                q.superseded.clone_from(&body);
                q.ops.push(QueueOp::Supersede(body, "declared_pending"));
            }
        }
        // The marker: the newly declared fields merged into one already there.
        let mut m = marker.clone();
        for f in ["title", "summary"] {
            let on = pending_now.contains(&f) || new.contains(&f);
            m.insert(f.into(), json!(on));
        }
        m.entry("since").or_insert_with(|| json!(now));
        m.entry("attempts").or_insert_with(|| json!(0));
        let already: Vec<&str> = fields
            .iter()
            .copied()
            .filter(|f| pending_now.contains(f))
            .collect();
        let mut cause_map = base.clone();
        cause_map.insert("pending".into(), json!(new));
        cause_map.insert("tasks".into(), json!(q.tasks));
        if let Some(p) = &provisional {
            cause_map.insert("provisional".into(), p.clone());
        }
        if !already.is_empty() {
            cause_map.insert("already_pending".into(), json!(already));
        }
        if !unowned.is_empty() {
            cause_map.insert("repaired".into(), json!(unowned));
        }
        let reading = ValidProvenance {
            cause: Value::Object(cause_map),
            ..b.reading.clone()
        };
        let mut attributes = t.row.attributes.clone();
        let mut versions = Vec::new();
        let mut extra = JsonMap::new();
        let mut captured = false;
        if new.contains(&"title") {
            let current = t.view().version("title_version");
            if current == 0 {
                versions.push(original(t, "title"));
                captured = true;
            }
            let next = current + 1;
            let mut v = version_of(t, "title", next, None, (&reading, &now));
            v.title = None;
            versions.push(v);
            attributes.insert("title".into(), Value::Null);
            attributes.insert("title_version".into(), json!(next));
            attributes.insert(
                "title_provenance".into(),
                stamp("title", next, &reading, &now),
            );
            extra.insert("title_version".into(), json!(next));
        }
        attributes.insert("pending".into(), Value::Object(m.clone()));
        let current = t.view().version("pending_version");
        let next = current + 1;
        let mut v = version_of(t, "pending", next, Some(new.join(", ")), (&reading, &now));
        v.title = super::attr_text_of(&attributes, "title");
        v.digest_method = Some("declare-pending-v1".to_owned());
        let v = v.normalized()?;
        let version_id = v.version_id.clone();
        versions.push(v);
        attributes.insert("pending_version".into(), json!(next));
        extra.insert("declared".into(), json!(new));
        extra.insert("already_pending".into(), json!(already));
        extra.insert("pending".into(), Value::Object(m));
        extra.insert("tasks".into(), json!(q.tasks));
        extra.insert("enqueued".into(), json!(q.enqueued));
        extra.insert("adopted".into(), json!(q.adopted));
        extra.insert("superseded".into(), json!(q.superseded));
        if let Some(p) = provisional {
            extra.insert("provisional".into(), p);
        }
        if !unowned.is_empty() {
            extra.insert("repaired".into(), json!(unowned));
        }
        // An interest's standing card moves to `topic:<its graph id>`, in
        // this transaction (`card_rekey`; a card other active interests
        // still elect stays, reason `shared_card`).
        let mut also = Vec::new();
        if new.contains(&"title")
            && t.kind == Some(RecordKind::Interest)
            && let Some(plan) = crate::hooks::card_rekey().plan(
                self,
                &t.row,
                crate::hooks::InterestTitle::DeclaredPending,
                &crate::hooks::HookReading::of(&reading, &now),
            )?
        {
            extra.insert("card_rekey".into(), Value::Object(plan.report));
            also.extend(plan.write);
        }
        let mut result = b.applied(next, current);
        result.captured_original = Some(captured);
        result.extra = extra;
        self.write_understanding(
            t,
            Write {
                versions,
                object: t.row.object.clone(),
                attributes,
                point: CommitPoint::UnderstandingPending,
                version_id,
                field: "pending".to_owned(),
                settle: Settle::default(),
                queue: q.ops,
                also,
            },
            result,
        )
    }

    /// Re-arm a pending record whose authoring ran out (api.md
    /// `rearm_pending`): each pending field no live `title.author` /
    /// `digest.author` task owns gets formation's task again with the next
    /// free `@pending-<field>@<k>` basis; a field that still has a live task
    /// keeps it. The marker stays (`attempts` restarts at the highest claim
    /// count of its live tasks, `rearmed` counts the re-arms,
    /// `last_rearmed_at` is now); the journal keeps a version row of field
    /// `pending`. One transaction; no embedder call.
    ///
    /// Unchanged, nothing written: `not_pending` (no marker), `live_task`
    /// (every pending field has a live task). Refusals: `unknown_record`,
    /// `no_task_queue`, `closed`, `stale`.
    ///
    /// # Errors
    /// `InvalidInput` for a cause outside `REWRITE_CAUSES`; the home's failure.
    pub fn rearm_pending(&self, args: &RearmPending) -> Result<UnderstandingResult> {
        let (cause, begun) = self.begin_pending("rearm_pending", &args.record_id, &args.cause)?;
        let b = match begun {
            Ok(b) => b,
            Err(refusal) => return Ok(refusal),
        };
        self.rearm(&b, &cause, args.reason.as_deref(), false)
    }

    /// `rearm_pending`'s write (also `declare_pending`'s repair with nothing
    /// new to declare: `repaired` names the fields).
    fn rearm(
        &self,
        b: &Begun<'_>,
        cause: &str,
        reason: Option<&str>,
        repair: bool,
    ) -> Result<UnderstandingResult> {
        let t = &b.t;
        let marker = match t.view().get("pending") {
            Some(Value::Object(m)) => m.clone(),
            _ => JsonMap::new(),
        };
        let pending = marker_fields(&marker);
        if pending.is_empty() {
            return Ok(b.unchanged_because(Reason::NotPending));
        }
        let have = self.authoring_of(t)?;
        let mut live: BTreeMap<String, String> = BTreeMap::new();
        let mut unowned: Vec<&'static str> = Vec::new();
        for f in &pending {
            match have.live(f) {
                Some(task) => {
                    live.insert((*f).to_owned(), task.task_id.clone());
                }
                None => unowned.push(f),
            }
        }
        if unowned.is_empty() {
            let mut r = b.unchanged_because(Reason::LiveTask);
            r.extra.insert("tasks".into(), json!(live));
            return Ok(r);
        }
        let now = self.now()?;
        let rearmed = marker.get("rearmed").and_then(Value::as_i64).unwrap_or(0) + 1;
        let base = Self::pending_cause(cause, reason);
        let mut q = Queued::default();
        let mut exhausted = JsonMap::new();
        for f in &unowned {
            exhausted.insert((*f).to_owned(), Value::Array(have.exhausted(f)));
            let basis = Self::next_free_basis(t, f, &have);
            let mut c = base.clone();
            c.insert("pending".into(), json!(f));
            c.insert("rearmed".into(), json!(rearmed));
            let plan = Self::authoring_plan(t, f, basis, Value::Object(c), &now);
            q.tasks.insert((*f).to_owned(), plan.row.task_id.clone());
            q.enqueued.push(plan.row.task_id.clone());
            q.ops.push(QueueOp::Enqueue(Box::new(plan)));
        }
        for (f, id) in &live {
            q.tasks.insert(f.clone(), id.clone());
        }
        let attempts_before = marker.get("attempts").cloned().unwrap_or(json!(0));
        let attempts = pending
            .iter()
            .filter_map(|f| have.live(f))
            .map(|task| task.attempts)
            .max()
            .unwrap_or(0);
        let mut m = marker.clone();
        m.insert("attempts".into(), json!(attempts));
        m.insert("rearmed".into(), json!(rearmed));
        m.insert("last_rearmed_at".into(), json!(now));
        let mut cause_map = base.clone();
        cause_map.insert("rearmed".into(), json!(rearmed));
        cause_map.insert("pending".into(), json!(unowned));
        cause_map.insert("tasks".into(), json!(q.tasks));
        cause_map.insert("attempts_before".into(), attempts_before);
        cause_map.insert("exhausted".into(), Value::Object(exhausted.clone()));
        if !live.is_empty() {
            cause_map.insert("live".into(), json!(live));
        }
        let reading = ValidProvenance {
            author: mechanical("rearm_pending"),
            cause: Value::Object(cause_map),
            ..b.reading.clone()
        };
        let mut attributes = t.row.attributes.clone();
        attributes.insert("pending".into(), Value::Object(m.clone()));
        let current = t.view().version("pending_version");
        let next = current + 1;
        let mut v = version_of(
            t,
            "pending",
            next,
            Some(unowned.join(", ")),
            (&reading, &now),
        );
        v.digest_method = Some("rearm-pending-v1".to_owned());
        let v = v.normalized()?;
        let version_id = v.version_id.clone();
        attributes.insert("pending_version".into(), json!(next));
        let mut result = b.applied(next, current);
        result.outcome = Outcome::Rearmed;
        result.captured_original = Some(false);
        let extra = &mut result.extra;
        extra.insert("tasks".into(), json!(q.tasks));
        extra.insert("rearmed".into(), json!(rearmed));
        extra.insert("pending".into(), Value::Object(m));
        extra.insert("live".into(), json!(live));
        extra.insert("enqueued".into(), json!(q.enqueued));
        extra.insert("superseded".into(), json!(q.superseded));
        extra.insert("exhausted".into(), Value::Object(exhausted));
        if repair {
            extra.insert("repaired".into(), json!(unowned));
        }
        self.write_understanding(
            t,
            Write {
                versions: vec![v],
                object: t.row.object.clone(),
                attributes,
                point: CommitPoint::UnderstandingPending,
                version_id,
                field: "pending".to_owned(),
                settle: Settle::default(),
                queue: q.ops,
                also: Vec::new(),
            },
            result,
        )
    }
}
