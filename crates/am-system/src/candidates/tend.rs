//! `parse_tend_block`: one ` ```tend ` block body parsed into elections and
//! refusals, both data. A pure function.
//!
//! Spec: api.md "Tending elections" (`parse_tend_block(text, *,
//! max_elections=5)`). The spec names no grammar; 0.3.2's `tend.py` settles
//! it: one verb per line, `verb: <target> — reason: <text>` (an em dash, an
//! en dash or `--` before `reason:`), verbs `pin`, `silence`, `refocus` (no
//! target), `heal_scar`, `break_bond`, `revisit`, `dispose` (`<dream>
//! confirm|reject [relation=… source=… target=… evidence=a,b]`). The reason
//! is mandatory; blank lines and fence lines are skipped; lines past the cap
//! are refused. Refusal sentences are ours.
//!
//! 0.5.2 adds one verb 0.3.2 lacks: `revise: <record> [change=revised|overturned]
//! [evidence=a,b] — reason: <what changed>`, the entity's election to revise
//! what it held, which `apply_tend_elections` turns into a ripple seed
//! (api.md "The ripple": "the entity elects to revise what it held about
//! something"). Its extras land in `args` (`change`, `evidence_ids`).

use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

/// The grammar's verbs: 0.3.2's seven in its order, then `revise` (0.5.2:
/// a revise election seeds a ripple).
pub const TEND_VERBS: [&str; 8] = [
    "pin",
    "silence",
    "refocus",
    "heal_scar",
    "break_bond",
    "revisit",
    "dispose",
    "revise",
];

/// `parse_tend_block`'s default cap of elections per block.
pub const DEFAULT_MAX_ELECTIONS: i64 = 5;

/// The refusal message for identity-scope tending: one stable line drivers
/// surface. Our sentence (ruling of issue 43: 0.3.2's sentences are never
/// copied; each side's refusal carries its own constant).
pub const IDENTITY_SCOPE_PENDING_RULING: &str = "tending a record of the identity scope is refused: \
     whether an entity may tend its own identity records awaits a ruling";

fn default_cap() -> i64 {
    DEFAULT_MAX_ELECTIONS
}

/// `parse_tend_block(text, *, max_elections=5)`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ParseTendBlock {
    /// The block's body (the fence is the driver's).
    pub text: String,
    /// Elections kept per block (at least 1).
    #[serde(default = "default_cap")]
    pub max_elections: i64,
}

impl ParseTendBlock {
    /// Parse `text` with the default cap.
    pub fn new(text: &str) -> Self {
        ParseTendBlock {
            text: text.to_owned(),
            max_elections: DEFAULT_MAX_ELECTIONS,
        }
    }
}

/// One parsed election (0.3.2's keys, in its order).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TendElection {
    /// One of `TEND_VERBS`.
    pub verb: String,
    /// The mandatory reason, trimmed.
    #[serde(default)]
    pub reason: String,
    /// The line as written (trimmed).
    #[serde(default)]
    pub line: String,
    /// The target; `null` for `refocus`.
    #[serde(default)]
    pub target: Option<String>,
    /// `dispose`: `confirm` | `reject`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disposition: Option<String>,
    /// `dispose`: `dispose_dream`'s extra keywords (`relation`, `source_id`,
    /// `target_id`, `evidence_ids`); `revise`: `change`, `evidence_ids`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub args: Option<Map<String, Value>>,
}

/// One refused line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TendRefusal {
    /// The line as written (trimmed).
    pub line: String,
    /// The rule it broke (our sentence).
    pub reason: String,
}

/// `parse_tend_block`'s answer.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TendBlock {
    /// The elections, in line order, at most the cap.
    pub elections: Vec<TendElection>,
    /// The refused lines, in line order.
    pub refusals: Vec<TendRefusal>,
}

/// Python's `str.splitlines` line boundaries.
fn lines(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let boundary = matches!(
            c,
            '\n' | '\r'
                | '\u{0b}'
                | '\u{0c}'
                | '\u{1c}'
                | '\u{1d}'
                | '\u{1e}'
                | '\u{85}'
                | '\u{2028}'
                | '\u{2029}'
        );
        if boundary {
            out.push(&text[start..i]);
            let mut end = i + c.len_utf8();
            if c == '\r'
                && let Some(&(j, '\n')) = chars.peek()
            {
                chars.next();
                end = j + 1;
            }
            start = end;
        }
    }
    if start < text.len() {
        out.push(&text[start..]);
    }
    out
}

/// `verb: rest` (the verb ASCII letters and `_`), or `None`.
fn verb_line(line: &str) -> Option<(&str, &str)> {
    let end = line
        .find(|c: char| !(c.is_ascii_alphabetic() || c == '_'))
        .unwrap_or(line.len());
    if end == 0 {
        return None;
    }
    let after = line[end..].trim_start();
    let rest = after.strip_prefix(':')?;
    Some((&line[..end], rest.trim_start()))
}

/// Split `rest` at its first `— reason:` (em dash, en dash or `--`, any
/// white space, `reason` in any case): `(before, after)`.
fn reason_split(rest: &str) -> Option<(&str, &str)> {
    for (i, _) in rest.char_indices() {
        let tail = &rest[i..];
        let Some(after_dash) = tail
            .strip_prefix('\u{2014}')
            .or_else(|| tail.strip_prefix('\u{2013}'))
            .or_else(|| tail.strip_prefix("--"))
        else {
            continue;
        };
        let t = after_dash.trim_start();
        if t.len() < 6 || !t.is_char_boundary(6) || !t[..6].eq_ignore_ascii_case("reason") {
            continue;
        }
        let t = t[6..].trim_start();
        if let Some(after) = t.strip_prefix(':') {
            return Some((&rest[..i], after.trim_start()));
        }
    }
    None
}

const DISPOSE_KEYS: [(&str, &str); 4] = [
    ("evidence", "evidence_ids"),
    ("relation", "relation"),
    ("source", "source_id"),
    ("target", "target_id"),
];

fn dispose_fields(
    middle: &str,
) -> std::result::Result<(String, String, Map<String, Value>), String> {
    let tokens: Vec<&str> = middle.split_whitespace().collect();
    if tokens.len() < 2 {
        return Err("dispose needs a dream record id and a disposition: \
                    `dispose: <dream_id> confirm|reject — reason: …`"
            .to_owned());
    }
    let disposition = tokens[1].to_lowercase();
    if disposition != "confirm" && disposition != "reject" {
        return Err(format!(
            "{:?} is not a disposition: confirm (the association holds) or reject (it does not)",
            tokens[1]
        ));
    }
    let known = "evidence, relation, source, target";
    let mut args = Map::new();
    for extra in &tokens[2..] {
        let (key, value) = match extra.split_once('=') {
            Some((k, v)) if !v.is_empty() => (k, v),
            _ => {
                return Err(format!(
                    "dispose extra {extra:?} is not key=value (keys: {known})"
                ));
            }
        };
        let Some((_, kw)) = DISPOSE_KEYS.iter().find(|(k, _)| *k == key) else {
            return Err(format!(
                "dispose extra {key:?} is not known (keys: {known}); nothing is dropped silently"
            ));
        };
        let v = if *kw == "evidence_ids" {
            json!(
                value
                    .split(',')
                    .filter(|v| !v.is_empty())
                    .collect::<Vec<_>>()
            )
        } else {
            json!(value)
        };
        args.insert((*kw).to_owned(), v);
    }
    Ok((tokens[0].to_owned(), disposition, args))
}

/// `<record> [change=revised|overturned] [evidence=a,b]`: the target and
/// the extras (`change`, `evidence_ids`), or the refusal sentence.
fn revise_fields(middle: &str) -> std::result::Result<(String, Map<String, Value>), String> {
    let tokens: Vec<&str> = middle.split_whitespace().collect();
    let Some((target, extras)) = tokens.split_first() else {
        return Err(
            "revise needs the record whose reading changed: `revise: <record> — reason: <what changed>`"
                .to_owned(),
        );
    };
    let mut args = Map::new();
    for extra in extras {
        let (key, value) = match extra.split_once('=') {
            Some((k, v)) if !v.is_empty() => (k, v),
            _ => {
                return Err(format!(
                    "revise takes one record; an extra {extra:?} is not key=value (keys: change, evidence)"
                ));
            }
        };
        match key {
            "change" => {
                let change = value.to_ascii_lowercase();
                if change != "revised" && change != "overturned" {
                    return Err(format!(
                        "{value:?} is not a change: revised (the reading moved) or overturned (it no longer holds)"
                    ));
                }
                args.insert("change".into(), json!(change));
            }
            "evidence" => {
                args.insert(
                    "evidence_ids".into(),
                    json!(
                        value
                            .split(',')
                            .filter(|v| !v.is_empty())
                            .collect::<Vec<_>>()
                    ),
                );
            }
            other => {
                return Err(format!(
                    "revise extra {other:?} is not known (keys: change, evidence); nothing is dropped silently"
                ));
            }
        }
    }
    Ok(((*target).to_owned(), args))
}

/// Parse one ` ```tend ` block body into elections and refusals. Every
/// unusable line (no `verb:`, an unknown verb, no or a blank reason, a
/// missing, extra or several targets, malformed dispose extras, past the
/// cap) is a refusal carrying the line as written; blank and fence lines
/// are skipped.
///
/// # Errors
/// `InvalidInput` for `max_elections < 1`.
pub fn parse_tend_block(args: &ParseTendBlock) -> Result<TendBlock> {
    let cap = args.max_elections;
    if cap < 1 {
        return Err(Error::invalid(format!(
            "max_elections must be at least 1, got {cap}"
        )));
    }
    let cap = usize::try_from(cap).unwrap_or(usize::MAX);
    let mut out = TendBlock::default();
    let refuse = |out: &mut TendBlock, line: &str, reason: String| {
        out.refusals.push(TendRefusal {
            line: line.to_owned(),
            reason,
        });
    };
    for raw in lines(&args.text) {
        let line = raw.trim();
        if line.is_empty() || line.starts_with("```") {
            continue;
        }
        let Some((verb_written, rest)) = verb_line(line) else {
            refuse(
                &mut out,
                line,
                format!(
                    "not a tending line: write `verb: <target> — reason: <text>`, the verb one of {}",
                    TEND_VERBS.join(", ")
                ),
            );
            continue;
        };
        let verb = verb_written.to_ascii_lowercase();
        if !TEND_VERBS.contains(&verb.as_str()) {
            refuse(
                &mut out,
                line,
                format!(
                    "{verb_written:?} is not a tending verb (the verbs: {})",
                    TEND_VERBS.join(", ")
                ),
            );
            continue;
        }
        let Some((middle, reason)) = reason_split(rest) else {
            refuse(
                &mut out,
                line,
                "every tending line needs its reason (`… — reason: <text>`): tending is an audited act"
                    .to_owned(),
            );
            continue;
        };
        let (middle, reason) = (middle.trim(), reason.trim());
        if reason.is_empty() {
            refuse(&mut out, line, "the reason may not be blank".to_owned());
            continue;
        }
        let mut election = TendElection {
            verb: verb.clone(),
            reason: reason.to_owned(),
            line: line.to_owned(),
            target: None,
            disposition: None,
            args: None,
        };
        if verb == "refocus" {
            if !middle.is_empty() {
                refuse(
                    &mut out,
                    line,
                    "refocus covers the whole scope and takes no target: `refocus: — reason: <text>`"
                        .to_owned(),
                );
                continue;
            }
        } else if verb == "dispose" {
            match dispose_fields(middle) {
                Ok((target, disposition, extras)) => {
                    election.target = Some(target);
                    election.disposition = Some(disposition);
                    election.args = Some(extras);
                }
                Err(reason) => {
                    refuse(&mut out, line, reason);
                    continue;
                }
            }
        } else if verb == "revise" {
            match revise_fields(middle) {
                Ok((target, extras)) => {
                    election.target = Some(target);
                    if !extras.is_empty() {
                        election.args = Some(extras);
                    }
                }
                Err(reason) => {
                    refuse(&mut out, line, reason);
                    continue;
                }
            }
        } else {
            let tokens: Vec<&str> = middle.split_whitespace().collect();
            match tokens.as_slice() {
                [] => {
                    refuse(
                        &mut out,
                        line,
                        format!("{verb} needs a target: `{verb}: <target> — reason: <text>`"),
                    );
                    continue;
                }
                [one] => election.target = Some((*one).to_owned()),
                many => {
                    refuse(
                        &mut out,
                        line,
                        format!(
                            "{verb} takes one target per line, got {}: {}",
                            many.len(),
                            many.join(", ")
                        ),
                    );
                    continue;
                }
            }
        }
        if out.elections.len() >= cap {
            refuse(
                &mut out,
                line,
                format!("past this block's cap of {cap} elections: tend in smaller batches"),
            );
            continue;
        }
        out.elections.push(election);
    }
    Ok(out)
}
