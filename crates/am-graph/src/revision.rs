//! `Revision`, `RevisionOp` (`assert`, `close`, `narrow`) and `RevisionResult`:
//! one change to a mind, validated and normalized when it is built, and the
//! outcome of applying it.
//!
//! Spec: api.md "The memory graph: revisions and provenance" / `Revision`,
//! `RevisionOp`, `RevisionResult`, and `MemoryGraph.apply_revision` step 1 (the
//! pure provenance check); memory-system.md "Time axes".

use crate::error::{Error, Result};
use crate::provenance::Provenance;
use am_triples::assertion::{canonical_scope, py_strip, strip_optional};
use am_triples::{JsonMap, TripleAssertion, timestamp};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

am_triples::vocabulary! {
    /// Why a revision was made (`REVISION_CAUSES`, in the spec's order).
    pub enum RevisionCause("cause") {
        /// New memories from a source.
        Ingest = "ingest",
        /// A source read again.
        Reinterpret = "reinterpret",
        /// Memories merged.
        Merge = "merge",
        /// A merge undone.
        Unmerge = "unmerge",
        /// A ripple through connected memories.
        Ripple = "ripple",
        /// A person's correction.
        Person = "person",
        /// Maintenance.
        Maintenance = "maintenance",
        /// An import (may adopt store rows).
        Import = "import",
        /// A migration (may adopt store rows).
        Migration = "migration",
    }
}

impl RevisionCause {
    /// Whether a revision of this cause may adopt a store row never asserted
    /// through the graph ([`ADOPTING_CAUSES`]).
    pub fn is_adopting(self) -> bool {
        matches!(self, RevisionCause::Import | RevisionCause::Migration)
    }
}

/// Why a revision was made: the wire names of [`RevisionCause`].
pub const REVISION_CAUSES: [&str; 9] = RevisionCause::NAMES;

/// The op names a revision may carry.
pub const REVISION_OPS: [&str; 3] = ["assert", "close", "narrow"];

/// The kinds of a `close` op (the journal's closure kinds).
pub const CLOSE_KINDS: [&str; 4] = CloseKind::NAMES;

/// The causes that may adopt a store row never asserted through the graph.
pub const ADOPTING_CAUSES: [&str; 2] = ["import", "migration"];

/// The predicate of a record's digest assertion: how a record's graph id
/// resolves to an assertion id.
pub const DIGEST_PREDICATE: &str = "dcterms:abstract";

/// The id an `assert` op without an `assertion_id` gets: the first 32 hex digits
/// of sha256(`"{revision_id}|{index}"`) (UTF-8; `index` the op's 0-based position
/// in the revision, in decimal), written in the 8-4-4-4-12 shape of the store's
/// own ids (`str(uuid4())`). Deterministic, so a logged revision replays
/// identically.
///
/// # Examples
/// ```
/// let id = am_graph::derive_assertion_id("note-1-extract", 0);
/// assert_eq!(id.len(), 36);
/// assert_eq!(id, am_graph::derive_assertion_id("note-1-extract", 0));
/// ```
pub fn derive_assertion_id(revision_id: &str, index: usize) -> String {
    let h = hex::encode(Sha256::digest(format!("{revision_id}|{index}").as_bytes()));
    format!(
        "{}-{}-{}-{}-{}",
        &h[0..8],
        &h[8..12],
        &h[12..16],
        &h[16..20],
        &h[20..32]
    )
}

/// The kind of a `close` op: the journal's [`ClosureKind`](am_journal::ClosureKind)
/// (one vocabulary for the op and the closure record it writes); its wire name
/// is one of [`CLOSE_KINDS`].
pub use am_journal::ClosureKind as CloseKind;

/// The payload of an `assert` op: one claim, and its own provenance if it has one.
///
/// Before the revision is built, a blank `assertion.scope`, a `None`
/// `assertion.owner_id`, a blank `assertion.observed_at` and a `None`
/// `assertion.assertion_id` mean "missing" and are filled from the revision (see
/// [`Revision::new`]); a non-empty `assertion.provenance` is parsed strictly as the
/// memory's own provenance when `provenance` is `None`.
///
/// After it is built: `assertion` is canonical and complete, and
/// `assertion.provenance` holds the effective provenance's dict (the memory's own,
/// else the revision's), which is what the row stores.
#[derive(Debug, Clone, PartialEq)]
pub struct AssertOp {
    /// The claim (`TripleAssertion`).
    pub assertion: TripleAssertion,
    /// The memory's own provenance; `None`: it carries the revision's.
    pub provenance: Option<Provenance>,
}

impl AssertOp {
    /// A claim with every revision-filled field missing (scope, owner,
    /// `observed_at`, id): the revision fills them.
    pub fn claim(subject: &str, predicate: &str, object: &str) -> AssertOp {
        let mut a = TripleAssertion::new(subject, predicate, object);
        a.scope = String::new();
        a.observed_at = String::new();
        AssertOp {
            assertion: a,
            provenance: None,
        }
    }

    /// An assert of `assertion` as given. Note that `TripleAssertion::new` sets
    /// scope `run` and `observed_at` = now, which then count as given; use
    /// [`AssertOp::claim`] (or blank them) to take the revision's.
    pub fn from_assertion(assertion: TripleAssertion) -> AssertOp {
        AssertOp {
            assertion,
            provenance: None,
        }
    }

    /// The same op with the memory's own provenance.
    pub fn with_provenance(mut self, provenance: Provenance) -> AssertOp {
        self.provenance = Some(provenance);
        self
    }

    /// The assertion id (always `Some` once the revision is built).
    pub fn assertion_id(&self) -> Option<&str> {
        self.assertion.assertion_id.as_deref()
    }

    /// The payload dict: `TripleAssertion.to_dict()` (its key order, nulls
    /// omitted), with `provenance` only when the memory has its own.
    pub fn to_dict(&self) -> Value {
        let a = &self.assertion;
        let mut m = JsonMap::new();
        let mut put = |k: &str, v: Option<&String>| {
            if let Some(v) = v {
                m.insert(k.into(), Value::String(v.clone()));
            }
        };
        put("assertion_id", a.assertion_id.as_ref());
        put("subject", Some(&a.subject));
        put("predicate", Some(&a.predicate));
        put("object", Some(&a.object));
        put("scope", Some(&a.scope));
        put("owner_id", a.owner_id.as_ref());
        put("observed_at", Some(&a.observed_at));
        put("valid_from", a.valid_from.as_ref());
        put("valid_until", a.valid_until.as_ref());
        if let Some(c) = a.confidence {
            m.insert("confidence".into(), Value::from(c));
        }
        if let Some(p) = &self.provenance {
            m.insert("provenance".into(), p.to_dict());
        }
        m.insert("attributes".into(), Value::Object(a.attributes.clone()));
        Value::Object(m)
    }

    /// Parse an `assert` payload (`TripleAssertion.to_dict()` shape). Absent,
    /// `null` or blank `scope`/`observed_at` and absent `owner_id`/`assertion_id`
    /// stay missing for the revision to fill; a non-empty `provenance` is the
    /// memory's own, parsed strictly.
    ///
    /// # Errors
    /// `InvalidInput` as `TripleAssertion::from_dict` refuses;
    /// `ProvenanceRequired` / `InvalidSourceRef` as
    /// [`Provenance::from_dict`] refuses.
    pub fn from_dict(payload: &Value) -> Result<AssertOp> {
        let obj = payload.as_object().ok_or_else(|| {
            Error::invalid(format!(
                "an assert payload must be a JSON object, got {payload}"
            ))
        })?;
        let blank = |v: Option<&Value>| match v {
            None | Some(Value::Null) => true,
            Some(Value::String(s)) => py_strip(s).is_empty(),
            _ => false,
        };
        let scope_missing = blank(obj.get("scope"));
        let observed_missing = blank(obj.get("observed_at"));
        let provenance = match obj.get("provenance") {
            None | Some(Value::Null) => None,
            Some(Value::Object(m)) if m.is_empty() => None,
            Some(p) => Some(Provenance::from_dict(p).map_err(|e| e.with_prefix("provenance"))?),
        };
        let mut assertion = if scope_missing || observed_missing {
            // A copy without the fields the revision fills (and without the
            // provenance, parsed above).
            let mut body: JsonMap = obj
                .iter()
                .filter(|(k, _)| !matches!(k.as_str(), "provenance" | "scope"))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            if !scope_missing && let Some(v) = obj.get("scope") {
                body.insert("scope".into(), v.clone());
            }
            if observed_missing {
                // A placeholder keeps `from_dict` from stamping now; blanked below.
                body.insert(
                    "observed_at".into(),
                    Value::String("1970-01-01T00:00:00+00:00".into()),
                );
            }
            TripleAssertion::from_dict(&Value::Object(body))?
        } else {
            // A complete payload (every logged one): parsed in place.
            TripleAssertion::from_dict(payload)?
        };
        if scope_missing {
            assertion.scope = String::new();
        }
        if observed_missing {
            assertion.observed_at = String::new();
        }
        // The row's provenance is set when the revision is built.
        assertion.provenance = JsonMap::new();
        Ok(AssertOp {
            assertion,
            provenance,
        })
    }
}

/// The payload of a `close` op: end a memory's validity window and record why.
///
/// Wire shape: `{assertion_id, valid_until, kind, replacement_ids, reason,
/// ripple_source, ripple_hops}` (every key written; `null` for absent ripple fields).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CloseOp {
    /// The memory closed (required, non-blank).
    pub assertion_id: String,
    /// The end instant (required; canonical UTC once built). The row's end
    /// becomes the earlier of its current end and this.
    pub valid_until: String,
    /// One of [`CLOSE_KINDS`].
    pub kind: CloseKind,
    /// Successors: required (non-empty) for `supersede` and `merged`.
    pub replacement_ids: Vec<String>,
    /// Why (required, non-blank: the journal's `ClosureRecord` requires a reason).
    pub reason: String,
    /// The memory a ripple started from, when the close is a ripple's.
    pub ripple_source: Option<String>,
    /// How many hops from the ripple's source (≥ 0), when the close is a ripple's.
    pub ripple_hops: Option<i64>,
}

impl CloseOp {
    /// A close of `assertion_id` at `valid_until`, of `kind`, for `reason`.
    pub fn new(assertion_id: &str, valid_until: &str, kind: CloseKind, reason: &str) -> CloseOp {
        CloseOp {
            assertion_id: assertion_id.into(),
            valid_until: valid_until.into(),
            kind,
            replacement_ids: Vec::new(),
            reason: reason.into(),
            ripple_source: None,
            ripple_hops: None,
        }
    }

    /// The same close naming its successors.
    pub fn with_replacements(mut self, ids: Vec<String>) -> CloseOp {
        self.replacement_ids = ids;
        self
    }

    /// The same close marked as a ripple's, `hops` from `source`.
    pub fn with_ripple(mut self, source: &str, hops: i64) -> CloseOp {
        self.ripple_source = Some(source.into());
        self.ripple_hops = Some(hops);
        self
    }

    fn normalized(&self) -> Result<CloseOp> {
        let assertion_id = required_id(&self.assertion_id, "assertion_id")?;
        let valid_until = required_time(&self.valid_until, "valid_until")?;
        if self.kind.requires_replacements() && self.replacement_ids.is_empty() {
            return Err(Error::invalid(format!(
                "a {} close requires replacement_ids, got none",
                self.kind
            )));
        }
        let replacement_ids = self
            .replacement_ids
            .iter()
            .enumerate()
            .map(|(i, id)| required_id(id, &format!("replacement_ids[{i}]")))
            .collect::<Result<Vec<_>>>()?;
        if py_strip(&self.reason).is_empty() {
            return Err(Error::invalid(format!(
                "a close requires a non-blank reason, got {:?}",
                self.reason
            )));
        }
        if let Some(h) = self.ripple_hops
            && h < 0
        {
            return Err(Error::invalid(format!(
                "ripple_hops must be an int >= 0, got {h}"
            )));
        }
        Ok(CloseOp {
            assertion_id,
            valid_until,
            kind: self.kind,
            replacement_ids,
            reason: self.reason.clone(),
            ripple_source: strip_optional(self.ripple_source.as_deref()),
            ripple_hops: self.ripple_hops,
        })
    }

    /// The payload dict.
    pub fn to_dict(&self) -> Value {
        serde_json::json!({
            "assertion_id": self.assertion_id,
            "valid_until": self.valid_until,
            "kind": self.kind.as_str(),
            "replacement_ids": self.replacement_ids,
            "reason": self.reason,
            "ripple_source": self.ripple_source,
            "ripple_hops": self.ripple_hops,
        })
    }

    /// Parse a `close` payload (`null` is absent; `replacement_ids` defaults to `[]`).
    ///
    /// # Errors
    /// `InvalidInput` for a non-object, an unknown key, a missing or
    /// mistyped field, or a `kind` outside [`CLOSE_KINDS`].
    pub fn from_dict(payload: &Value) -> Result<CloseOp> {
        let obj = payload_object(payload, "close", &CLOSE_PAYLOAD_KEYS)?;
        let kind = CloseKind::parse(&req_str(obj, "kind", "close")?)?;
        let replacement_ids = match obj.get("replacement_ids") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(items)) => items
                .iter()
                .map(|v| match v {
                    Value::String(s) => Ok(s.clone()),
                    other => Err(Error::invalid(format!(
                        "replacement_ids must be a list of assertion ids, got the item {other}"
                    ))),
                })
                .collect::<Result<_>>()?,
            Some(other) => {
                return Err(Error::invalid(format!(
                    "replacement_ids must be a list of assertion ids, got {other}"
                )));
            }
        };
        let ripple_hops = match obj.get("ripple_hops") {
            None | Some(Value::Null) => None,
            Some(Value::Number(n)) if n.is_i64() => n.as_i64(),
            Some(other) => {
                return Err(Error::invalid(format!(
                    "ripple_hops must be an int >= 0, got {other}"
                )));
            }
        };
        Ok(CloseOp {
            assertion_id: req_str(obj, "assertion_id", "close")?,
            valid_until: req_str(obj, "valid_until", "close")?,
            kind,
            replacement_ids,
            reason: opt_str(obj, "reason")?.unwrap_or_default(),
            ripple_source: opt_str(obj, "ripple_source")?,
            ripple_hops,
        })
    }
}

/// The payload of a `narrow` op: move an already-closed window earlier.
///
/// Wire shape: `{assertion_id, valid_until, reason}` (`reason` `null` when absent).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NarrowOp {
    /// The memory narrowed (required, non-blank).
    pub assertion_id: String,
    /// The new end (required; canonical UTC once built).
    pub valid_until: String,
    /// Why (optional).
    pub reason: Option<String>,
}

impl NarrowOp {
    /// A narrow of `assertion_id` to `valid_until`.
    pub fn new(assertion_id: &str, valid_until: &str) -> NarrowOp {
        NarrowOp {
            assertion_id: assertion_id.into(),
            valid_until: valid_until.into(),
            reason: None,
        }
    }

    /// The same narrow with a reason.
    pub fn with_reason(mut self, reason: &str) -> NarrowOp {
        self.reason = Some(reason.into());
        self
    }

    fn normalized(&self) -> Result<NarrowOp> {
        Ok(NarrowOp {
            assertion_id: required_id(&self.assertion_id, "assertion_id")?,
            valid_until: required_time(&self.valid_until, "valid_until")?,
            reason: self.reason.clone(),
        })
    }

    /// The payload dict.
    pub fn to_dict(&self) -> Value {
        serde_json::json!({
            "assertion_id": self.assertion_id,
            "valid_until": self.valid_until,
            "reason": self.reason,
        })
    }

    /// Parse a `narrow` payload.
    ///
    /// # Errors
    /// `InvalidInput` for a non-object, an unknown key, or a missing or
    /// mistyped field.
    pub fn from_dict(payload: &Value) -> Result<NarrowOp> {
        let obj = payload_object(payload, "narrow", &NARROW_PAYLOAD_KEYS)?;
        Ok(NarrowOp {
            assertion_id: req_str(obj, "assertion_id", "narrow")?,
            valid_until: req_str(obj, "valid_until", "narrow")?,
            reason: opt_str(obj, "reason")?,
        })
    }
}

const CLOSE_PAYLOAD_KEYS: [&str; 7] = [
    "assertion_id",
    "valid_until",
    "kind",
    "replacement_ids",
    "reason",
    "ripple_source",
    "ripple_hops",
];
const NARROW_PAYLOAD_KEYS: [&str; 3] = ["assertion_id", "valid_until", "reason"];

/// One operation of a revision: Python's `RevisionOp(op, payload)` with a typed
/// payload. Wire shape: `{"op": "assert" | "close" | "narrow", "payload": {...}}`.
#[allow(
    clippy::large_enum_variant,
    reason = "a revision holds a handful of ops; boxing the assert would only complicate matching"
)]
#[derive(Debug, Clone, PartialEq)]
pub enum RevisionOp {
    /// Assert a claim.
    Assert(AssertOp),
    /// Close a memory's window (and write its `ClosureRecord`).
    Close(CloseOp),
    /// Narrow an already-closed window.
    Narrow(NarrowOp),
}

impl RevisionOp {
    /// The op's name (one of [`REVISION_OPS`]).
    pub fn op(&self) -> &'static str {
        match self {
            RevisionOp::Assert(_) => "assert",
            RevisionOp::Close(_) => "close",
            RevisionOp::Narrow(_) => "narrow",
        }
    }

    /// The memory the op asserts or changes (`None` only for an assert not yet
    /// normalized that carries no id).
    pub fn assertion_id(&self) -> Option<&str> {
        match self {
            RevisionOp::Assert(a) => a.assertion_id(),
            RevisionOp::Close(c) => Some(&c.assertion_id),
            RevisionOp::Narrow(n) => Some(&n.assertion_id),
        }
    }

    /// Python's `RevisionOp(op, payload)`: an op named `op` (one of
    /// [`REVISION_OPS`]) with its payload dict.
    ///
    /// # Errors
    /// As [`RevisionOp::from_dict`].
    pub fn new(op: &str, payload: Value) -> Result<RevisionOp> {
        RevisionOp::from_dict(&serde_json::json!({"op": op, "payload": payload}))
    }

    /// `{"op", "payload"}`.
    pub fn to_dict(&self) -> Value {
        let payload = match self {
            RevisionOp::Assert(a) => a.to_dict(),
            RevisionOp::Close(c) => c.to_dict(),
            RevisionOp::Narrow(n) => n.to_dict(),
        };
        serde_json::json!({"op": self.op(), "payload": payload})
    }

    /// Parse `{"op", "payload"}`.
    ///
    /// # Errors
    /// `InvalidInput` for a non-object, an unknown key, an op outside
    /// [`REVISION_OPS`], or a malformed payload (see each payload's `from_dict`).
    pub fn from_dict(value: &Value) -> Result<RevisionOp> {
        let obj = value.as_object().ok_or_else(|| {
            Error::invalid(format!(
                "an op must be a JSON object {{op, payload}}, got {value}"
            ))
        })?;
        if let Some(k) = obj
            .keys()
            .find(|k| !["op", "payload"].contains(&k.as_str()))
        {
            return Err(Error::invalid(format!(
                "an op takes the keys [\"op\", \"payload\"], got the unknown key {k:?}"
            )));
        }
        let payload = obj.get("payload").cloned().unwrap_or(Value::Null);
        match obj.get("op") {
            Some(Value::String(op)) if op == "assert" => {
                AssertOp::from_dict(&payload).map(RevisionOp::Assert)
            }
            Some(Value::String(op)) if op == "close" => {
                CloseOp::from_dict(&payload).map(RevisionOp::Close)
            }
            Some(Value::String(op)) if op == "narrow" => {
                NarrowOp::from_dict(&payload).map(RevisionOp::Narrow)
            }
            other => Err(Error::invalid(format!(
                "op must be one of {REVISION_OPS:?}, got {}",
                other.map_or_else(|| "none".to_owned(), Value::to_string)
            ))),
        }
    }

    /// Parse a list of ops (the log's `ops_json`).
    ///
    /// # Errors
    /// As [`RevisionOp::from_dict`], prefixed with `ops[i]`; `InvalidInput`
    /// when `value` is not a list.
    pub fn list_from_json(value: &Value) -> Result<Vec<RevisionOp>> {
        let items = value.as_array().ok_or_else(|| {
            Error::invalid(format!(
                "ops must be a list of {{op, payload}}, got {value}"
            ))
        })?;
        items
            .iter()
            .enumerate()
            .map(|(i, v)| RevisionOp::from_dict(v).map_err(|e| e.with_prefix(&format!("ops[{i}]"))))
            .collect()
    }
}

/// The fields of a revision before validation (Python's keyword arguments).
#[derive(Debug, Clone, PartialEq)]
pub struct RevisionDraft {
    /// The idempotency key (required, non-blank; trimmed).
    pub revision_id: String,
    /// The partition (lowercased, trimmed; blank is `run`, as for assertions).
    pub scope: String,
    /// The owner (blank is none).
    pub owner_id: Option<String>,
    /// One of [`REVISION_CAUSES`] (parsed exactly when the revision is built;
    /// [`Revision::cause`] answers it typed).
    pub cause: String,
    /// Observation time: when the source said it (required timestamp).
    pub occurred_at: String,
    /// The operations, applied together.
    pub ops: Vec<RevisionOp>,
    /// The revision's own provenance.
    pub provenance: Provenance,
    /// Record time; `None` is now. `apply_revision` re-stamps it unless replaying.
    pub recorded_at: Option<String>,
    /// A one-line summary.
    pub summary: Option<String>,
}

/// One change to a mind: a cause, its provenance, and the ops applied together.
///
/// Built only through [`Revision::new`] (or `from_dict`), so every `Revision`
/// is validated and normalized: every time in canonical UTC text, every op's
/// payload complete (see [`Revision::new`]). Fields are read through accessors.
///
/// JSON (`to_dict`): `{"revision_id", "scope", "owner_id", "cause",
/// "occurred_at", "ops": [{op, payload}], "provenance", "recorded_at",
/// "summary"}` in that order (`owner_id` / `summary` `null` when absent): the
/// revision in `am exec`, and, split, the log's `ops_json`
/// ([`Revision::ops_json`]) and `provenance_json`.
///
/// Spec: api.md `Revision`, `RevisionOp`.
#[derive(Debug, Clone, PartialEq)]
pub struct Revision {
    revision_id: String,
    scope: String,
    owner_id: Option<String>,
    cause: RevisionCause,
    occurred_at: String,
    ops: Vec<RevisionOp>,
    provenance: Provenance,
    recorded_at: String,
    summary: Option<String>,
}

impl Revision {
    /// Validate and normalize a revision.
    ///
    /// - `revision_id` non-blank; `cause` in [`REVISION_CAUSES`]; `scope`
    ///   canonical (lowercase, blank → `run`); a blank `owner_id` is none.
    /// - Every time (`occurred_at`, `recorded_at`, an assert's `observed_at`,
    ///   `valid_from`, `valid_until`, a close's or narrow's `valid_until`) parsed
    ///   by `am_triples::timestamp` and written in canonical UTC
    ///   (`YYYY-MM-DDTHH:MM:SS.ffffff+00:00`; naive = UTC; `Z` accepted).
    /// - `assert`: missing `scope` / `owner_id` come from the revision, a missing
    ///   `observed_at` is `occurred_at`, a missing `assertion_id` is
    ///   [`derive_assertion_id`]`(revision_id, index)`; terms canonical; the
    ///   row's `provenance` is the memory's own provenance, else the revision's.
    /// - `close`: `assertion_id` and `reason` non-blank, `valid_until` a time,
    ///   `replacement_ids` non-empty for `supersede`/`merged`, `ripple_hops` ≥ 0.
    /// - `narrow`: `assertion_id` non-blank, `valid_until` a time.
    ///
    /// Normalizing a built revision again yields the same revision (a logged
    /// revision replays identically).
    ///
    /// # Errors
    /// `InvalidInput` naming the field (`ops[2].valid_until: ...`);
    /// `ProvenanceRequired` / `InvalidSourceRef` for an
    /// assert's malformed own provenance. Groundedness is NOT checked here: see
    /// [`Revision::check_provenance`].
    ///
    /// # Examples
    /// ```
    /// use am_graph::{AssertOp, Provenance, Revision, RevisionDraft, RevisionOp, SourceRef};
    /// let rev = Revision::new(RevisionDraft {
    ///     revision_id: "note-1-extract".into(),
    ///     scope: "global".into(),
    ///     owner_id: Some("person:ada".into()),
    ///     cause: "ingest".into(),
    ///     occurred_at: "2026-01-05T09:00:00Z".into(),
    ///     ops: vec![RevisionOp::Assert(AssertOp::claim("ex:dana", "schema:worksFor", "ex:acme"))],
    ///     provenance: Provenance::new(vec![SourceRef::step("run-42", 3)?], vec![], "abstractnote")?,
    ///     recorded_at: None,
    ///     summary: None,
    /// })?;
    /// let RevisionOp::Assert(a) = &rev.ops()[0] else { unreachable!() };
    /// assert_eq!(a.assertion.observed_at, "2026-01-05T09:00:00.000000+00:00");
    /// assert_eq!(a.assertion.scope, "global");
    /// rev.check_provenance()?;
    /// # Ok::<(), am_graph::Error>(())
    /// ```
    pub fn new(draft: RevisionDraft) -> Result<Revision> {
        Revision::build(draft, false)
    }

    /// [`Revision::new`]; `canonical_asserts` says every assert's claim is
    /// already canonical (parsed by `TripleAssertion::from_dict`, which
    /// canonicalizes), so filling in the revision's canonical defaults keeps it
    /// canonical and it is not canonicalized a second time.
    fn build(draft: RevisionDraft, canonical_asserts: bool) -> Result<Revision> {
        let revision_id = required_id(&draft.revision_id, "revision_id")?;
        let cause = RevisionCause::parse(&draft.cause)?;
        let scope = canonical_scope(&draft.scope);
        let owner_id = strip_optional(draft.owner_id.as_deref());
        let occurred_at = required_time(&draft.occurred_at, "occurred_at")?;
        let recorded_at = match draft.recorded_at.as_deref() {
            None => timestamp::now_utc(),
            Some(t) => required_time(t, "recorded_at")?,
        };
        let defaults = OpDefaults {
            revision_id: &revision_id,
            scope: &scope,
            owner_id: owner_id.as_deref(),
            occurred_at: &occurred_at,
            provenance_map: draft.provenance.to_map(),
            canonical_asserts,
        };
        let ops = draft
            .ops
            .into_iter()
            .enumerate()
            .map(|(i, op)| {
                normalize_op(op, i, &defaults).map_err(|e| e.with_prefix(&format!("ops[{i}]")))
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Revision {
            revision_id,
            scope,
            owner_id,
            cause,
            occurred_at,
            ops,
            provenance: draft.provenance,
            recorded_at,
            summary: draft.summary,
        })
    }

    /// The idempotency key.
    pub fn revision_id(&self) -> &str {
        &self.revision_id
    }

    /// The partition (canonical).
    pub fn scope(&self) -> &str {
        &self.scope
    }

    /// The owner.
    pub fn owner_id(&self) -> Option<&str> {
        self.owner_id.as_deref()
    }

    /// The cause.
    pub fn cause(&self) -> RevisionCause {
        self.cause
    }

    /// Whether the cause may adopt rows ([`ADOPTING_CAUSES`]).
    pub fn is_adopting(&self) -> bool {
        self.cause.is_adopting()
    }

    /// Observation time (canonical UTC).
    pub fn occurred_at(&self) -> &str {
        &self.occurred_at
    }

    /// Record time (canonical UTC).
    pub fn recorded_at(&self) -> &str {
        &self.recorded_at
    }

    /// The summary.
    pub fn summary(&self) -> Option<&str> {
        self.summary.as_deref()
    }

    /// The normalized ops.
    pub fn ops(&self) -> &[RevisionOp] {
        &self.ops
    }

    /// The revision's provenance.
    pub fn provenance(&self) -> &Provenance {
        &self.provenance
    }

    /// Whether every op is a `close` or `narrow` (such a revision must cite a
    /// cause other than the memories it changes).
    pub fn is_close_only(&self) -> bool {
        !self.ops.is_empty()
            && self
                .ops
                .iter()
                .all(|op| !matches!(op, RevisionOp::Assert(_)))
    }

    /// The same revision stamped with record time `recorded_at` (what
    /// `apply_revision` does with the store's clock).
    ///
    /// # Errors
    /// `InvalidInput` when `recorded_at` is not a timestamp.
    pub fn with_recorded_at(&self, recorded_at: &str) -> Result<Revision> {
        let mut r = self.clone();
        r.recorded_at = required_time(recorded_at, "recorded_at")?;
        Ok(r)
    }

    /// The effective provenance of the assert at `index`: its own, else the
    /// revision's. `None` when `index` is not an assert.
    pub fn assert_provenance(&self, index: usize) -> Option<&Provenance> {
        match self.ops.get(index) {
            Some(RevisionOp::Assert(a)) => Some(a.provenance.as_ref().unwrap_or(&self.provenance)),
            _ => None,
        }
    }

    /// `apply_revision` step 1, the pure check run before anything is read or
    /// embedded: the revision itself and every asserted memory (its own
    /// provenance, else the revision's) must name a source or a `derived_from`.
    ///
    /// # Errors
    /// `ProvenanceRequired` naming the revision or the op.
    pub fn check_provenance(&self) -> Result<()> {
        if !self.provenance.is_grounded() {
            return Err(Error::provenance_required(format!(
                "revision {:?} names no ledger source and no derived_from: every revision must \
                 name a SourceRef or a memory it was derived from",
                self.revision_id
            )));
        }
        for (i, op) in self.ops.iter().enumerate() {
            if let RevisionOp::Assert(a) = op
                && let Some(p) = &a.provenance
                && !p.is_grounded()
            {
                return Err(Error::provenance_required(format!(
                    "ops[{i}]: memory {:?} names no ledger source and no derived_from: every \
                     asserted memory must name a SourceRef or a memory it was derived from",
                    a.assertion_id().unwrap_or_default()
                )));
            }
        }
        Ok(())
    }

    /// The ops as the log's `ops_json` value: `[{op, payload}, ...]`.
    pub fn ops_json(&self) -> Value {
        Value::Array(self.ops.iter().map(RevisionOp::to_dict).collect())
    }

    /// The JSON object form (see the type's doc).
    pub fn to_dict(&self) -> Value {
        serde_json::json!({
            "revision_id": self.revision_id,
            "scope": self.scope,
            "owner_id": self.owner_id,
            "cause": self.cause.as_str(),
            "occurred_at": self.occurred_at,
            "ops": self.ops_json(),
            "provenance": self.provenance.to_dict(),
            "recorded_at": self.recorded_at,
            "summary": self.summary,
        })
    }

    /// Build from the JSON object form and normalize ([`Revision::new`]). `null`
    /// is absent; `recorded_at` absent is now; `ops` absent is `[]`.
    ///
    /// # Errors
    /// `InvalidInput` for a non-object, an unknown key, a missing or
    /// mistyped field; the provenance as [`Provenance::from_dict`]; then every
    /// rule of [`Revision::new`].
    pub fn from_dict(value: &Value) -> Result<Revision> {
        let obj = payload_object(value, "revision", &REVISION_KEYS)?;
        let provenance = match obj.get("provenance") {
            None | Some(Value::Null) => {
                return Err(Error::provenance_required(
                    "a revision requires provenance (sources or derived_from, and an actor), got none",
                ));
            }
            Some(p) => Provenance::from_dict(p).map_err(|e| e.with_prefix("provenance"))?,
        };
        let ops = match obj.get("ops") {
            None | Some(Value::Null) => Vec::new(),
            Some(v) => RevisionOp::list_from_json(v)?,
        };
        Revision::build(
            RevisionDraft {
                revision_id: req_str(obj, "revision_id", "revision")?,
                scope: opt_str(obj, "scope")?.unwrap_or_default(),
                owner_id: opt_str(obj, "owner_id")?,
                cause: req_str(obj, "cause", "revision")?,
                occurred_at: req_str(obj, "occurred_at", "revision")?,
                ops,
                provenance,
                recorded_at: opt_str(obj, "recorded_at")?,
                summary: opt_str(obj, "summary")?,
            },
            true,
        )
    }
}

const REVISION_KEYS: [&str; 9] = [
    "revision_id",
    "scope",
    "owner_id",
    "cause",
    "occurred_at",
    "ops",
    "provenance",
    "recorded_at",
    "summary",
];

impl Serialize for Revision {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        self.to_dict().serialize(s)
    }
}

impl<'de> Deserialize<'de> for Revision {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        Revision::from_dict(&v).map_err(serde::de::Error::custom)
    }
}

/// The object `to_dict` writes and `from_dict` reads: `revision_id`, `cause`
/// (one of [`REVISION_CAUSES`]), `occurred_at` and `provenance` required;
/// `scope`, `owner_id`, `recorded_at`, `summary` optional (`null` is absent);
/// `ops` a list of `{op, payload}` told apart by `op`; any other key refused.
impl schemars::JsonSchema for Revision {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Revision".into()
    }

    fn schema_id() -> std::borrow::Cow<'static, str> {
        "am_graph::Revision".into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let time = generator.subschema_for::<am_triples::Timestamp>();
        let provenance = generator.subschema_for::<Provenance>();
        // The assert payload is `TripleAssertion.to_dict()` minus what the
        // revision supplies: only subject, predicate and object are always
        // there (`provenance` only when the memory has its own).
        let mut assertion = <TripleAssertion as schemars::JsonSchema>::json_schema(generator);
        if let Some(obj) = assertion.as_object_mut() {
            obj.insert(
                "required".into(),
                serde_json::json!(["subject", "predicate", "object"]),
            );
            obj.insert(
                "description".into(),
                Value::String(
                    "A `TripleAssertion` dict (a missing `scope`, `owner_id`, `observed_at` or \
                     `assertion_id` comes from the revision); its `provenance`, when present, is \
                     the memory's own `Provenance`."
                        .into(),
                ),
            );
        }
        let nullable_string = serde_json::json!({"type": ["string", "null"]});
        let nullable_time = serde_json::json!({"anyOf": [time, {"type": "null"}]});
        let op = |name: &str, payload: Value| {
            serde_json::json!({
                "type": "object",
                "properties": {
                    "op": {"type": "string", "const": name},
                    "payload": payload,
                },
                "required": ["op", "payload"],
                "additionalProperties": false,
            })
        };
        let assert = op("assert", assertion.to_value());
        let close = op(
            "close",
            serde_json::json!({
                "type": "object",
                "properties": {
                    "assertion_id": {"type": "string"},
                    "valid_until": time,
                    "kind": {"type": "string", "enum": CLOSE_KINDS},
                    "replacement_ids": {"type": ["array", "null"], "items": {"type": "string"}},
                    "reason": nullable_string,
                    "ripple_source": nullable_string,
                    "ripple_hops": {"type": ["integer", "null"], "minimum": 0},
                },
                "required": ["assertion_id", "valid_until", "kind"],
                "additionalProperties": false,
            }),
        );
        let narrow = op(
            "narrow",
            serde_json::json!({
                "type": "object",
                "properties": {
                    "assertion_id": {"type": "string"},
                    "valid_until": time,
                    "reason": nullable_string,
                },
                "required": ["assertion_id", "valid_until"],
                "additionalProperties": false,
            }),
        );
        schemars::json_schema!({
            "type": "object",
            "description": "One change to a mind: a cause, its provenance, and the ops applied together.",
            "properties": {
                "revision_id": {"type": "string", "pattern": "\\S"},
                "scope": nullable_string,
                "owner_id": nullable_string,
                "cause": {"type": "string", "enum": REVISION_CAUSES},
                "occurred_at": time,
                "ops": {"type": ["array", "null"], "items": {"oneOf": [assert, close, narrow]}},
                "provenance": provenance,
                "recorded_at": nullable_time,
                "summary": nullable_string,
            },
            "required": ["revision_id", "cause", "occurred_at", "provenance"],
            "additionalProperties": false,
        })
    }
}

/// What an `assert` op takes from its revision when it does not say.
struct OpDefaults<'a> {
    revision_id: &'a str,
    scope: &'a str,
    owner_id: Option<&'a str>,
    occurred_at: &'a str,
    /// The revision's provenance as a map, computed once per revision.
    provenance_map: JsonMap,
    /// Every assert's claim is canonical already (see [`Revision::build`]).
    canonical_asserts: bool,
}

fn normalize_op(op: RevisionOp, index: usize, rev: &OpDefaults<'_>) -> Result<RevisionOp> {
    match op {
        RevisionOp::Assert(a) => {
            let AssertOp {
                assertion: mut t,
                provenance,
            } = a;
            let own = match provenance {
                Some(p) => Some(p),
                // A built op carries the revision's provenance in its row: inherited.
                None if !t.provenance.is_empty() && t.provenance != rev.provenance_map => Some(
                    Provenance::from_dict(&Value::Object(std::mem::take(&mut t.provenance)))
                        .map_err(|e| e.with_prefix("provenance"))?,
                ),
                None => None,
            };
            if py_strip(&t.scope).is_empty() {
                t.scope = rev.scope.to_owned();
            }
            if strip_optional(t.owner_id.as_deref()).is_none() {
                t.owner_id = rev.owner_id.map(str::to_owned);
            }
            if py_strip(&t.observed_at).is_empty() {
                t.observed_at = rev.occurred_at.to_owned();
            }
            if strip_optional(t.assertion_id.as_deref()).is_none() {
                t.assertion_id = Some(derive_assertion_id(rev.revision_id, index));
            }
            // `canonicalized` copies the provenance map: hand it an empty one and
            // set the row's provenance after.
            t.provenance = JsonMap::new();
            if !rev.canonical_asserts {
                t = t.canonicalized()?;
            }
            t.provenance = match &own {
                Some(p) => p.to_map(),
                None => rev.provenance_map.clone(),
            };
            Ok(RevisionOp::Assert(AssertOp {
                assertion: t,
                provenance: own,
            }))
        }
        RevisionOp::Close(c) => c.normalized().map(RevisionOp::Close),
        RevisionOp::Narrow(n) => n.normalized().map(RevisionOp::Narrow),
    }
}

/// The outcome entry of an op that changed nothing: `{op, index, assertion_id, why}`
/// (`why` = `"re-observed"` names the held memory in `assertion_id`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SkippedOp {
    /// The op's name.
    pub op: String,
    /// The op's 0-based index in the revision.
    pub index: usize,
    /// The memory concerned.
    pub assertion_id: String,
    /// Why nothing changed (`"re-observed"`, `"already closed"`, ...).
    pub why: String,
}

/// What `apply_revision` did.
///
/// JSON (serde): `{"revision_id", "applied", "assertion_ids", "re_observed",
/// "closed", "narrowed", "skipped": [{op, index, assertion_id, why}], "seq",
/// "recorded_at"}` in that order.
///
/// Spec: api.md `RevisionResult`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RevisionResult {
    /// The revision's id.
    pub revision_id: String,
    /// `false` when the id was already in the log (nothing changed; the lists
    /// are then the LOGGED outcome, read back from history).
    pub applied: bool,
    /// The memories the revision asserted.
    pub assertion_ids: Vec<String>,
    /// Held memories the revision re-observed.
    pub re_observed: Vec<String>,
    /// Memories it closed.
    pub closed: Vec<String>,
    /// Memories it narrowed.
    pub narrowed: Vec<String>,
    /// Ops that changed nothing.
    pub skipped: Vec<SkippedOp>,
    /// The revision's position in the log.
    pub seq: i64,
    /// Record time (canonical UTC).
    pub recorded_at: String,
}

impl RevisionResult {
    /// The JSON object form.
    pub fn to_dict(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }

    /// Parse the JSON object form.
    ///
    /// # Errors
    /// `InvalidInput` when a field is missing or mistyped.
    pub fn from_dict(value: &Value) -> Result<RevisionResult> {
        serde_json::from_value(value.clone())
            .map_err(|e| Error::invalid(format!("malformed revision result: {e}")))
    }
}

fn required_id(value: &str, field: &str) -> Result<String> {
    let v = py_strip(value);
    if v.is_empty() {
        return Err(Error::invalid(format!(
            "{field} must be a non-blank string, got {value:?}"
        )));
    }
    Ok(v.to_owned())
}

fn required_time(value: &str, field: &str) -> Result<String> {
    if py_strip(value).is_empty() {
        return Err(Error::invalid(format!(
            "{field} must be an ISO-8601 timestamp, got {value:?}"
        )));
    }
    timestamp::normalize_timestamp(value).map_err(|e| e.with_prefix(field))
}

fn payload_object<'a>(value: &'a Value, what: &str, keys: &[&str]) -> Result<&'a JsonMap> {
    let obj = value.as_object().ok_or_else(|| {
        Error::invalid(format!(
            "a {what} payload must be a JSON object, got {value}"
        ))
    })?;
    if let Some(k) = obj.keys().find(|k| !keys.contains(&k.as_str())) {
        return Err(Error::invalid(format!(
            "a {what} payload takes the keys {keys:?}, got the unknown key {k:?}"
        )));
    }
    Ok(obj)
}

fn req_str(obj: &JsonMap, key: &str, what: &str) -> Result<String> {
    match obj.get(key) {
        Some(Value::String(s)) => Ok(s.clone()),
        None | Some(Value::Null) => Err(Error::invalid(format!(
            "a {what} requires {key:?}, got none"
        ))),
        Some(other) => Err(Error::invalid(format!(
            "{key} must be a string, got {other}"
        ))),
    }
}

fn opt_str(obj: &JsonMap, key: &str) -> Result<Option<String>> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err(Error::invalid(format!(
            "{key} must be a string, got {other}"
        ))),
    }
}
