//! A world-model card's key (field `target`) rewritten in place: the door
//! `rekey_world_model` writes through, and the plan `card_rekey` hands
//! `retitle` / `declare_pending`.
//!
//! The move is an understanding write like any other: version rows (version
//! 0 the old key, author mechanical, cause formation, captured at the first
//! move; then the new key with the caller's reading) and the row's
//! attributes (`target`, `target_version`, `target_provenance`, and what the
//! caller sets beside them: `aliases`, `participants`). The key is not in
//! the canonical text, so no embedder is called and the vector stands.
//!
//! Spec: api.md "World models" (`rekey_world_model`), "Understanding"
//! (`versions(..., field="target")`).

use super::{MemorySystem, Settle, Target, Write, stamp, version_of};
use crate::error::{Error, Result};
use crate::hooks::{CardMove, HookReading};
use crate::outcome::UnderstandingResult;
use crate::record::DigestRow;
use crate::understanding::reading::ValidProvenance;
use am_triples::{CommitPoint, JsonMap, TripleAssertion};
use serde_json::{Value, json};

/// The author of a card's first key: the pass that computed it.
fn mechanical_key_author() -> JsonMap {
    let mut m = JsonMap::new();
    m.insert("kind".into(), json!("mechanical"));
    m.insert("id".into(), json!("world_model_pass"));
    m
}

/// A planned key move and the numbers its result names.
pub(crate) struct TargetMove {
    /// The write.
    pub(crate) card: CardMove,
    /// The new `target_version`.
    pub(crate) version: i64,
    /// The one it replaces.
    pub(crate) previous: i64,
    /// Whether version 0 (the original key) is captured by this move.
    pub(crate) captured: bool,
    /// The new version row's id.
    pub(crate) version_id: String,
}

impl From<&HookReading> for ValidProvenance {
    fn from(r: &HookReading) -> Self {
        ValidProvenance {
            author: r.author.clone(),
            reader: r.reader.clone(),
            sources: r.sources.clone(),
            cause: json!(r.cause),
        }
    }
}

impl HookReading {
    /// A validated reading as the hook receives it (its cause's name only).
    pub(crate) fn of(r: &ValidProvenance, at: &str) -> HookReading {
        HookReading {
            author: r.author.clone(),
            reader: r.reader.clone(),
            sources: r.sources.clone(),
            cause: r.cause_name().to_owned(),
            at: at.to_owned(),
        }
    }
}

/// Plan the move of `card`'s key to `new_key`: `reading` is the move's
/// (its cause already carrying `reason` and `rekey: {from, to}`), `set` the
/// attributes the move changes beside the key. Pure.
///
/// # Errors
/// `InvalidInput` for a row without an assertion id or with no key.
pub(crate) fn plan_target_move(
    card: &TripleAssertion,
    new_key: &str,
    set: JsonMap,
    reading: &ValidProvenance,
    at: &str,
) -> Result<TargetMove> {
    let Some(assertion_id) = card.assertion_id.clone() else {
        return Err(Error::invalid(format!(
            "world-model card {} has no assertion id",
            card.subject
        )));
    };
    let Some(old_key) = DigestRow::of(card).card_target().map(str::to_owned) else {
        return Err(Error::invalid(format!(
            "world-model card {} has no key (attributes.target)",
            card.subject
        )));
    };
    let t = Target::of(card.clone(), assertion_id);
    let current = t.view().version("target_version");
    let mut versions = Vec::new();
    if current == 0 {
        let formed = ValidProvenance {
            author: mechanical_key_author(),
            reader: None,
            sources: Vec::new(),
            cause: json!("formation"),
        };
        let v0 = version_of(&t, "target", 0, Some(old_key), (&formed, &card.observed_at));
        versions.push(v0.normalized()?);
    }
    let next = current + 1;
    let v = version_of(&t, "target", next, Some(new_key.to_owned()), (reading, at)).normalized()?;
    let version_id = v.version_id.clone();
    versions.push(v);
    let mut attributes = card.attributes.clone();
    for (k, v) in set {
        if v == Value::Null {
            attributes.remove(&k);
        } else {
            attributes.insert(k, v);
        }
    }
    attributes.insert("target".into(), json!(new_key));
    attributes.insert("target_version".into(), json!(next));
    attributes.insert(
        "target_provenance".into(),
        stamp("target", next, reading, at),
    );
    Ok(TargetMove {
        card: CardMove {
            row: card.clone(),
            attributes,
            versions,
        },
        version: next,
        previous: current,
        captured: current == 0,
        version_id,
    })
}

impl MemorySystem {
    /// Write a planned key move in ONE home transaction at
    /// `understanding.target` (version rows, then the row), completing
    /// `result` (its `seq`, `version_id`, `vector_rewritten`). A row that
    /// moved since it was read is refused `stale`.
    ///
    /// # Errors
    /// `Unsupported` for a store that cannot rewrite in place; the home's
    /// failure.
    pub(crate) fn apply_target_move(
        &self,
        mv: TargetMove,
        mut result: UnderstandingResult,
    ) -> Result<UnderstandingResult> {
        self.home.check_rewrite()?;
        let assertion_id = mv.card.row.assertion_id.clone().unwrap_or_default();
        let t = Target::of(mv.card.row, assertion_id);
        result.version = Some(mv.version);
        result.previous_version = Some(mv.previous);
        result.captured_original = Some(mv.captured);
        self.write_understanding(
            &t,
            Write {
                versions: mv.card.versions,
                object: t.row.object.clone(),
                attributes: mv.card.attributes,
                point: CommitPoint::UnderstandingTarget,
                version_id: mv.version_id,
                field: "target".to_owned(),
                settle: Settle::default(),
                queue: Vec::new(),
                also: Vec::new(),
            },
            result,
        )
    }
}
