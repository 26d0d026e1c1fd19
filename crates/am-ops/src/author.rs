//! The protocol-level `author` of a JSON call (an `am exec` line, a server request): the host's `author`
//! callable, scripted. A callable cannot travel in a JSON line, so a line
//! that forms records the engine would ask an author about (`engram`'s
//! unnamed spark items) carries the author's answers instead, one per call
//! in the order the engine asks (for `engram`: the unnamed items in spark
//! order, values, purposes, traits, then honesty; a replay asks nothing).
//!
//! Each answer is either what the callable returns, `{title, summary,
//! author: {kind, id}, reader, sources}` (validated by the engine exactly as
//! a callable's result: an unusable one forms pending `invalid_result`), or
//! `{"raises": {"error_class": ..., "message": ...}}`, the callable failing
//! (`author_raised`). A call beyond the last answer fails as the callable
//! would (`author_raised`, class `ExecAuthorExhausted`).
//!
//! Spec: api.md "Authored with the record: the `author` callable"; docs/exec.md.

use crate::error::{OpError, OpResult};
use am_system::{Author, AuthorContext, AuthorError, Authored};
use serde::Deserialize;
use serde_json::Value;
use std::collections::VecDeque;
use std::sync::Mutex;

/// A scripted failure: the callable raising `error_class` with `message`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Raises {
    error_class: String,
    #[serde(default)]
    message: String,
}

#[derive(Debug, Clone)]
enum Answer {
    Returns(Authored),
    Raises(Raises),
}

/// The error class of a call the script had no answer for.
pub const EXHAUSTED_CLASS: &str = "ExecAuthorExhausted";

/// The line's scripted author: its answers, consumed one per call.
#[derive(Debug)]
pub struct ScriptedAuthor {
    answers: Mutex<VecDeque<Answer>>,
    calls: Mutex<usize>,
}

impl ScriptedAuthor {
    /// Read the line's `author` argument: an array of answers.
    ///
    /// # Errors
    /// `InvalidInput` naming the answer that is neither a result nor a
    /// `raises`, or an `author` that is not an array.
    pub fn from_value(op: &str, v: Value) -> OpResult<Self> {
        let Value::Array(items) = v else {
            return Err(OpError::invalid(format!(
                "{op}: argument author is the scripted author, an array of answers \
                 ({{title, author: {{kind, id}}, ...}} or {{\"raises\": {{error_class, message}}}}), got {v}"
            )));
        };
        let mut answers = VecDeque::new();
        for (i, item) in items.into_iter().enumerate() {
            let bad = |e: serde_json::Error| {
                OpError::invalid(format!(
                    "{op}: argument author[{i}]: {e} (an answer is the author's result or {{\"raises\": {{error_class, message}}}})"
                ))
            };
            let answer = match item {
                Value::Object(mut m) if m.contains_key("raises") => {
                    if m.len() > 1 {
                        m.remove("raises");
                        let extra: Vec<&String> = m.keys().collect();
                        return Err(OpError::invalid(format!(
                            "{op}: argument author[{i}]: a raising answer holds only \"raises\", got also {extra:?}"
                        )));
                    }
                    let r = m.remove("raises").unwrap_or(Value::Null);
                    Answer::Raises(serde_json::from_value(r).map_err(bad)?)
                }
                other => Answer::Returns(serde_json::from_value(other).map_err(bad)?),
            };
            answers.push_back(answer);
        }
        Ok(ScriptedAuthor {
            answers: Mutex::new(answers),
            calls: Mutex::new(0),
        })
    }

    /// How many answers no call used.
    pub fn unused(&self) -> usize {
        self.answers
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .len()
    }
}

impl Author for ScriptedAuthor {
    fn author(
        &self,
        _kind: &str,
        _body: &str,
        _context: &AuthorContext,
    ) -> Result<Authored, AuthorError> {
        let call = {
            let mut c = self
                .calls
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            *c += 1;
            *c
        };
        let next = self
            .answers
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .pop_front();
        match next {
            Some(Answer::Returns(a)) => Ok(a),
            Some(Answer::Raises(r)) => Err(AuthorError::new(r.error_class, r.message)),
            None => Err(AuthorError::new(
                EXHAUSTED_CLASS,
                format!(
                    "the line's author script has no answer for call {call} ({} answered)",
                    call - 1
                ),
            )),
        }
    }
}
