//! The end of a ripple: `form_consolidation` (the first-person "what this
//! changes" record a `ripple.consolidate` task asks for), `revert_ripple`
//! (what the ripple changed, restored as new versions) and the `ripple` key
//! of a ripple task's packet (installed as the core's
//! [`crate::hooks::RipplePacket`], since `tasks` comes before `ripple` in
//! the faculty order).
//!
//! Spec: api.md "Ripple: a change reconsidered through connected memories"
//! (`form_consolidation`, `revert_ripple`, the packets).

use super::{ChangedMemory, RippleStatus};
use crate::error::{Error, Result};
use crate::formation::authoring::{AuthorField, Authored, AuthoredRecord, FormAuthored};
use crate::formation::records::MemoryRecordInput;
use crate::kinds::RecordKind;
use crate::outcome::UnderstandingResult;
use crate::system::MemorySystem;
use crate::understanding::args::RevertDigest;
use crate::understanding::reading::Reading;
use am_journal::{AuthorRef, ReaderRef, SourceRef, TaskKind, TaskRow, TaskStatus, put_row};
use am_triples::Timestamp;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// `form_consolidation(task_id, *, holder, text, title, author,
/// reader=None, sources=(), keywords=(), now=None)`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FormConsolidation {
    /// The `ripple.consolidate` task.
    pub task_id: String,
    /// The lease holder.
    pub holder: String,
    /// The first-person "what this changes" summary, stored as given.
    pub text: String,
    /// Its title, stored as given.
    pub title: String,
    /// `{kind, id}`: who wrote it.
    pub author: AuthorRef,
    /// `{provider, model, thinking}`: required for a model author.
    #[serde(default)]
    pub reader: Option<ReaderRef>,
    /// Ledger `SourceRef`s (a model author needs at least one).
    #[serde(default)]
    pub sources: Vec<SourceRef>,
    /// Keywords of the record.
    #[serde(default)]
    pub keywords: Vec<String>,
    /// The instant to use instead of the engine clock.
    #[serde(default)]
    pub now: Option<Timestamp>,
}

impl FormConsolidation {
    /// A consolidation of `task_id`'s ripple in `text` under `title`, by
    /// `author`, with every default.
    pub fn new(task_id: &str, holder: &str, text: &str, title: &str, author: AuthorRef) -> Self {
        FormConsolidation {
            task_id: task_id.to_owned(),
            holder: holder.to_owned(),
            text: text.to_owned(),
            title: title.to_owned(),
            author,
            reader: None,
            sources: Vec::new(),
            keywords: Vec::new(),
            now: None,
        }
    }
}

/// What `form_consolidation` returns: `{ripple_id, outcome, record_id,
/// summarizes, derived_from, status}` (`reason` on a refusal).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ConsolidationResult {
    /// The ripple.
    pub ripple_id: String,
    /// `formed` or `refused`.
    pub outcome: String,
    /// The consolidation record's graph id (`None` on a refusal).
    pub record_id: Option<String>,
    /// The changed memories it summarizes.
    pub summarizes: Vec<String>,
    /// The seed it derives from.
    pub derived_from: String,
    /// The ripple's status after the call.
    pub status: RippleStatus,
    /// Why nothing formed: `not_holder`, `not_live`, `empty_text`,
    /// `empty_title`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// `revert_ripple(ripple_id, *, by=None, reason=None)`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RevertRipple {
    /// The ripple.
    pub ripple_id: String,
    /// Who restores (default the operator).
    #[serde(default)]
    pub by: Option<AuthorRef>,
    /// Why, recorded in each restored version's cause (default
    /// `revert_ripple <ripple id>`).
    #[serde(default)]
    pub reason: Option<String>,
}

impl RevertRipple {
    /// Revert `ripple_id` with every default.
    pub fn new(ripple_id: &str) -> Self {
        RevertRipple {
            ripple_id: ripple_id.to_owned(),
            by: None,
            reason: None,
        }
    }
}

/// The consolidation record's batch key: one record per ripple.
fn consolidation_key(ripple_id: &str) -> String {
    format!("ripple-consolidation|{ripple_id}")
}

/// The changed memories' graph ids, once each, in settlement order.
fn changed_ids(changed: &[ChangedMemory]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for c in changed {
        if !out.contains(&c.record_id) {
            out.push(c.record_id.clone());
        }
    }
    out
}

impl MemorySystem {
    /// `form_consolidation`: form a settled ripple's first-person "what
    /// this changes" record (kind `summary`, `summary_role:
    /// re-understanding`, `summarizes` every changed memory, `derived_from`
    /// the seed), authored by the caller, and complete its
    /// `ripple.consolidate` task; the ripple becomes `consolidated`. One
    /// transaction: the record, the task, the ripple. `rewrite_digest`
    /// refuses the record afterwards (`consolidation_record`) unless the
    /// cause is `operator`.
    ///
    /// A refusal (`not_holder`: leased by another holder; `not_live`: the
    /// task is no longer live or the ripple already consolidated;
    /// `empty_text`, `empty_title`) is an `Ok` result, nothing written.
    ///
    /// # Errors
    /// `InvalidInput` for a home without a task queue, an unknown task, a
    /// task of another kind or of no stored ripple, bad provenance
    /// (`author` / `reader` / `sources`); the guard's refusal; the home's
    /// failure.
    pub fn form_consolidation(&self, args: &FormConsolidation) -> Result<ConsolidationResult> {
        let queue = self.tasks()?;
        let Some(task) = queue.task(args.task_id.trim())? else {
            return Err(Error::invalid(format!(
                "no task {:?} in this home's queue",
                args.task_id
            )));
        };
        if task.kind != TaskKind::RippleConsolidate {
            return Err(Error::invalid(format!(
                "form_consolidation completes a ripple.consolidate task, {} is a {}",
                task.task_id,
                task.kind.as_str()
            )));
        }
        let ripple_id = task.ripple_id.clone().unwrap_or_default();
        let (Some(mut ripple), _) = self.ripple_reads(&ripple_id)? else {
            return Err(Error::invalid(format!(
                "task {} names no stored ripple ({ripple_id:?})",
                task.task_id
            )));
        };
        let reading = Reading {
            author: &args.author,
            reader: args.reader.as_ref(),
            sources: &args.sources,
            cause: &json!("formation"),
            understood_at: None,
            task_id: None,
        }
        .validate()?;
        let now = self.ripple_now(args.now);
        let summarizes = changed_ids(&ripple.changed);
        let refused = |reason: &str, status: RippleStatus| {
            Ok(ConsolidationResult {
                ripple_id: ripple_id.clone(),
                outcome: "refused".to_owned(),
                record_id: None,
                summarizes: summarizes.clone(),
                derived_from: ripple.seed_id.clone(),
                status,
                reason: Some(reason.to_owned()),
            })
        };
        let status = crate::tasks::effective(&task, &now);
        if status == TaskStatus::Leased && task.holder.as_deref() != Some(args.holder.as_str()) {
            return refused("not_holder", ripple.status);
        }
        if !status.is_live() || ripple.status == RippleStatus::Consolidated {
            return refused("not_live", ripple.status);
        }
        if args.text.trim().is_empty() {
            return refused("empty_text", ripple.status);
        }
        if args.title.trim().is_empty() {
            return refused("empty_title", ripple.status);
        }
        let mut record = MemoryRecordInput::new(RecordKind::Summary, &args.title, &args.text);
        record.edges = summarizes
            .iter()
            .map(|id| ("summarizes".to_owned(), id.clone()))
            .collect();
        record
            .edges
            .push(("derived_from".to_owned(), ripple.seed_id.clone()));
        record.keywords.clone_from(&args.keywords);
        for (k, v) in [
            ("summary_role", json!("re-understanding")),
            ("ripple_id", json!(ripple.ripple_id)),
            ("source_ids", json!(summarizes)),
        ] {
            record.attributes.insert(k.into(), v);
        }
        // The caller wrote both fields: the authored-or-pending step stores
        // them with its provenance, like every formation.
        let authored = Authored {
            title: Some(args.title.clone()),
            summary: Some(args.text.clone()),
            author: reading.author.clone(),
            reader: reading.reader.clone(),
            sources: reading.sources.clone(),
        };
        let author = move |_: &str,
                           _: &str,
                           _: &crate::formation::authoring::AuthorContext|
              -> std::result::Result<
            Authored,
            crate::formation::authoring::AuthorError,
        > { Ok(authored.clone()) };
        let prepared = self.prepare_authored(
            &FormAuthored {
                pass: "form_consolidation".to_owned(),
                records: vec![AuthoredRecord {
                    record,
                    fields: vec![AuthorField::Title, AuthorField::Summary],
                    source_ids: summarizes.clone(),
                }],
                scope: ripple.scope.clone(),
                owner_id: ripple.owner_id.clone(),
                idempotency_key: consolidation_key(&ripple.ripple_id),
                turn_id: None,
            },
            Some(&author),
        )?;
        if prepared.pends() {
            let why = prepared.first_failure().map_or_else(String::new, |f| {
                format!("{}: {}", f.reason.as_str(), f.message)
            });
            return Err(Error::invalid(format!(
                "form_consolidation: the record's title and summary were not accepted ({why})"
            )));
        }
        let record_id = crate::ids::record_id_for(
            RecordKind::Summary,
            &consolidation_key(&ripple.ripple_id),
            0,
        );
        ripple.status = RippleStatus::Consolidated;
        let result = json!({"outcome": "formed", "ripple_id": ripple.ripple_id,
                            "record_id": record_id});
        let task_id = task.task_id.clone();
        let row = ripple.clone();
        let mut hook = |tx: &mut dyn am_journal::HomeTx| -> Result<()> {
            put_row(tx.tables()?, &row)?;
            crate::tasks::complete_in(tx.tasks()?, std::slice::from_ref(&task_id), &now, &result)?;
            Ok(())
        };
        let written = self.form_batches_in(
            std::slice::from_ref(&prepared.batch),
            &[],
            &[],
            Some(&mut hook),
        )?;
        let formed = written
            .value
            .first()
            .and_then(|ids| ids.first())
            .cloned()
            .unwrap_or(record_id);
        Ok(ConsolidationResult {
            ripple_id: ripple.ripple_id.clone(),
            outcome: "formed".to_owned(),
            record_id: Some(formed),
            summarizes,
            derived_from: ripple.seed_id.clone(),
            status: RippleStatus::Consolidated,
            reason: None,
        })
    }

    /// `revert_ripple`: restore, as new versions, what the ripple changed:
    /// each changed memory, latest settlement first, goes back to the
    /// reading its reconsideration read (`revert_digest` to its
    /// `before_version`, compare-and-set on the version the ripple's
    /// rewrite made), cause `{cause: "revert", reverted_to, by, reason}`.
    /// A memory rewritten again since (or already restored) is refused
    /// `stale` and left as it is. Returns one `revert_digest` result per
    /// changed memory. The ripple's own rows stay as the record of what
    /// happened.
    ///
    /// # Errors
    /// `InvalidInput` for an unknown ripple or a bad `by`; as
    /// `revert_digest` otherwise.
    pub fn revert_ripple(&self, args: &RevertRipple) -> Result<Vec<UnderstandingResult>> {
        let (Some(ripple), _) = self.ripple_reads(args.ripple_id.trim())? else {
            return Err(Error::invalid(format!(
                "no ripple {:?} in this home",
                args.ripple_id
            )));
        };
        let reason = args
            .reason
            .clone()
            .unwrap_or_else(|| format!("revert_ripple {}", ripple.ripple_id));
        let mut out = Vec::with_capacity(ripple.changed.len());
        for c in ripple.changed.iter().rev() {
            let mut r = RevertDigest::new(&c.record_id, c.before_version, c.after_version);
            r.by.clone_from(&args.by);
            r.reason = Some(reason.clone());
            out.push(self.revert_digest(&r)?);
        }
        Ok(out)
    }

    /// The text of `record_id`'s own-field reading at `version` (`None`
    /// when no such version is stored).
    fn reading_at(&self, record_id: &str, version: i64) -> Result<Option<String>> {
        Ok(self
            .versions(record_id, None)?
            .into_iter()
            .find(|v| v.version.version == version)
            .and_then(|v| v.version.text))
    }

    /// `{version, text}` of `record_id`'s reading at `version`, or the
    /// current row's words when no version row stands (a record never
    /// rewritten).
    fn reading_value(&self, record_id: &str, version: i64) -> Result<Value> {
        let text = match self.reading_at(record_id, version)? {
            Some(t) => Some(t),
            None if version == 0 => self.resolve_digest_assertion(record_id)?.map(|r| r.object),
            None => None,
        };
        Ok(json!({"version": version, "text": text}))
    }

    /// The `ripple` key of a ripple task's packet (see
    /// [`crate::hooks::RipplePacket`]).
    pub(crate) fn ripple_packet_of(&self, task: &TaskRow) -> Result<Option<Value>> {
        let Some(ripple_id) = task.ripple_id.as_deref() else {
            return Ok(None);
        };
        let (Some(ripple), decisions) = self.ripple_reads(ripple_id)? else {
            return Ok(None);
        };
        let seed_row = self.resolve_digest_assertion(&ripple.seed_id)?;
        let current = seed_row.as_ref().map(|r| {
            json!({"version": crate::record::DigestRow::of(r).version("digest_version"),
                   "text": r.object})
        });
        let replaced = if ripple.seed_version > 0 {
            Some(self.reading_value(&ripple.seed_id, ripple.seed_version - 1)?)
        } else {
            None
        };
        let cause_words = match &ripple.cause {
            Value::Object(m) => m.get("cause").cloned().unwrap_or(Value::Null),
            other => other.clone(),
        };
        let mut out = json!({
            "ripple_id": ripple.ripple_id,
            "cause": cause_words,
            "cause_detail": ripple.cause,
            "change": ripple.change,
            "magnitude": ripple.magnitude,
            "surprise": ripple.surprise,
            "seed": {"record_id": ripple.seed_id, "current": current, "replaced": replaced},
        });
        match task.kind {
            TaskKind::RippleReconsider => {
                let d = decisions
                    .iter()
                    .rfind(|d| d.task_id.as_deref() == Some(task.task_id.as_str()));
                out["from"] = json!(d.and_then(|d| d.from_id.clone()));
                out["via"] = json!(d.map(|d| d.via.clone()));
                out["hops"] = json!(task.hop.or(d.map(|d| d.hop)));
                out["received"] = json!(d.map(|d| d.potential));
            }
            TaskKind::RippleConsolidate => {
                let mut changes = Vec::with_capacity(ripple.changed.len());
                for c in &ripple.changed {
                    changes.push(json!({
                        "record_id": c.record_id,
                        "hop": c.hop,
                        "received": c.received,
                        "onward": c.onward,
                        "before": self.reading_value(&c.record_id, c.before_version)?,
                        "after": self.reading_value(&c.record_id, c.after_version)?,
                    }));
                }
                out["changes"] = Value::Array(changes);
                out["status"] = json!(ripple.status);
            }
            _ => return Ok(None),
        }
        Ok(Some(out))
    }
}

/// The installed [`crate::hooks::RipplePacket`].
pub(crate) struct Packets;

impl crate::hooks::RipplePacket for Packets {
    fn packet(&self, system: &MemorySystem, task: &TaskRow) -> Result<Option<Value>> {
        system.ripple_packet_of(task)
    }
}
