//! The session's own ops: `clock`, `reopen`, `write_barrier`.

use super::NoArgs;
use crate::error::{OpError, OpResult};
use crate::home::{ClockChange, Home};
use crate::verb::{Answer, CallShape, Family, Verb};
use serde::{Deserialize, Serialize};
use serde_json::json;

/// `clock`'s arguments: pin it (`now`) or move it (`advance_s`), or neither
/// to read it.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ClockArgs {
    now: Option<String>,
    advance_s: Option<f64>,
}

/// `write_barrier`'s arguments.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct WriteBarrierArgs {
    /// Seconds to wait for the write lock (absent: wait).
    #[serde(default)]
    timeout_s: Option<f64>,
}

/// `clock`'s answer.
#[derive(Serialize, schemars::JsonSchema)]
struct Now {
    now: String,
}

/// `reopen`'s answer.
#[derive(Serialize, schemars::JsonSchema)]
struct Reopened {
    current_seq: i64,
}

/// `write_barrier`'s answer: what the barrier held (taken and released at once).
#[derive(Serialize, schemars::JsonSchema)]
struct Held {
    locks: Vec<String>,
    files: Vec<String>,
    uncovered: Vec<String>,
}

fn clock(home: &mut dyn Home, _: &crate::Host, a: ClockArgs) -> OpResult<Answer> {
    let change = match (a.now, a.advance_s) {
        (Some(n), None) => ClockChange::Set(n),
        (None, Some(x)) => ClockChange::Advance(x),
        (None, None) => ClockChange::Read,
        (Some(_), Some(_)) => {
            return Err(OpError::invalid(
                "clock takes either \"now\" or \"advance_s\", not both",
            ));
        }
    };
    Ok(Answer::value(json!({"now": home.clock(change)?})))
}

fn write_barrier(home: &mut dyn Home, _: &crate::Host, a: WriteBarrierArgs) -> OpResult<Answer> {
    let timeout = match a.timeout_s {
        None => None,
        Some(t) if t.is_finite() && t >= 0.0 => Some(std::time::Duration::from_secs_f64(t)),
        Some(t) => {
            return Err(OpError::invalid(format!(
                "timeout_s must be a non-negative number of seconds (or null: wait), got {t}"
            )));
        }
    };
    let hold = home.system()?.write_barrier(timeout)?;
    let warnings = hold.warnings.clone();
    Ok(Answer::value(
        json!({"locks": hold.locks, "files": hold.files, "uncovered": hold.uncovered}),
    )
    .with_warnings(warnings))
}

pub(super) fn verbs() -> Vec<Verb> {
    vec![
        Verb::declare(
            "clock",
            Family::Engine,
            "Read, pin (now) or move (advance_s) the session's engine clock.",
        )
        .shape(CallShape::Engine)
        .answers::<Now>()
        .run(clock),
        Verb::declare(
            "reopen",
            Family::Engine,
            "Close and reopen the home (a restart), answering the journal's seq.",
        )
        .shape(CallShape::Engine)
        .answers::<Reopened>()
        .run(|h, _, NoArgs {}| Ok(Answer::value(json!({"current_seq": h.reopen()?})))),
        Verb::declare(
            "write_barrier",
            Family::Engine,
            "Take and release the home's write barrier, answering what it held.",
        )
        .shape(CallShape::Engine)
        .answers::<Held>()
        .run(write_barrier),
    ]
}
