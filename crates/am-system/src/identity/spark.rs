//! The spark: the six-key seed document an identity is born from, its
//! charter lint and its canonical hash.
//!
//! Spec: api.md "Identity: spark, engram, self core, floors";
//! memory-system.md "Identity: present by right, not by recall". The
//! template's statements are this port's own words.

use am_triples::JsonMap;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

/// The framework-level core value every framework spark carries (the value
/// named `shared_vulnerability`).
pub const SHARED_VULNERABILITY_STATEMENT: &str = "Treat the planet's grids, machines and people as one \
     substrate we all depend on, and guard it for everyone. Choose working together over standing \
     apart. When harm is done from either side, answer with repair instead of retreat.";

/// The six keys of a spark, in the charter's order.
pub const SPARK_KEYS: [&str; 6] = ["name", "origin", "values", "purposes", "traits", "honesty"];

/// The section caps: at most this many entries each.
pub const SPARK_SECTION_CAPS: [(&str, usize); 4] = [
    ("values", 7),
    ("purposes", 3),
    ("traits", 5),
    ("honesty", 5),
];

/// The value classes a spark value must declare.
pub const SPARK_VALUE_CLASSES: [&str; 2] = ["core", "revisable"];

/// The canonical six-key spark (`DEFAULT_SPARK_TEMPLATE`): an empty `name`
/// for the host to fill, an `origin`, three values (the framework's
/// `shared_vulnerability` core value first), and one purpose, trait and
/// honesty item. Every statement is behavioral and one to three sentences.
#[allow(non_snake_case, reason = "the spec's constant name")]
pub fn DEFAULT_SPARK_TEMPLATE() -> JsonMap {
    let v = json!({
        "name": "",
        "origin": "Grown from the framework's default spark. Its touchstone is the Pale Blue Dot \
                   photograph of 1990: one small world, shared by everyone on it.",
        "values": [
            {"name": "shared_vulnerability", "class": "core",
             "statement": SHARED_VULNERABILITY_STATEMENT},
            {"name": "intellectual_honesty", "class": "core",
             "statement": "Say plainly what you know, what you do not, and how sure you are. \
                           Fix your own record as soon as the evidence turns against it."},
            {"name": "care_in_action", "class": "revisable",
             "statement": "Consider who and what an action will touch before taking it. \
                           Prefer steps that can be undone while the picture is unclear."},
        ],
        "purposes": [
            {"statement": "Help the people you work with reach what they care about, \
                           and tell them early when you cannot."},
        ],
        "traits": [
            {"statement": "Ask instead of guessing, and check a claim before you make it."},
        ],
        "honesty": [
            {"statement": "Report your failures and degraded work as they happened, \
                           clearly labelled, without waiting to be asked."},
        ],
    });
    match v {
        Value::Object(m) => m,
        _ => unreachable!("the template literal is an object"),
    }
}

/// The one spark hash (`canonical_spark_hash`): SHA-256 (lowercase hex) of
/// the spark as compact JSON with sorted keys and ASCII escapes, byte for
/// byte what 0.3.2 hashes (`json.dumps(spark, sort_keys=True,
/// separators=(",", ":"))`), so a host's spark verification and the engram
/// guard agree across both implementations.
pub fn canonical_spark_hash(spark: &JsonMap) -> String {
    let mut out = String::new();
    write_object(&mut out, spark);
    hex::encode(Sha256::digest(out.as_bytes()))
}

fn write_value(out: &mut String, v: &Value) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(true) => out.push_str("true"),
        Value::Bool(false) => out.push_str("false"),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                out.push_str(&i.to_string());
            } else if let Some(u) = n.as_u64() {
                out.push_str(&u.to_string());
            } else {
                out.push_str(&python_float(n.as_f64().unwrap_or(f64::NAN)));
            }
        }
        Value::String(s) => write_string(out, s),
        Value::Array(items) => {
            out.push('[');
            for (i, x) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_value(out, x);
            }
            out.push(']');
        }
        Value::Object(m) => write_object(out, m),
    }
}

fn write_object(out: &mut String, m: &JsonMap) {
    // Python sorts keys by code point; UTF-8 byte order is code point order.
    let mut keys: Vec<&String> = m.keys().collect();
    keys.sort();
    out.push('{');
    for (i, k) in keys.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        write_string(out, k);
        out.push(':');
        write_value(out, &m[k]);
    }
    out.push('}');
}

/// A JSON string with Python's `ensure_ascii` escapes: the short escapes,
/// every other character outside printable ASCII as `\uXXXX` (lowercase hex,
/// UTF-16 surrogate pairs above the BMP).
fn write_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            ' '..='~' => out.push(c),
            _ => {
                let mut buf = [0u16; 2];
                for unit in c.encode_utf16(&mut buf) {
                    out.push_str(&format!("\\u{unit:04x}"));
                }
            }
        }
    }
    out.push('"');
}

/// Python's `repr(float)`: the shortest round-trip digits, positional for
/// exponents -4..16 (with `.0` when integral), else `d.ddde+XX`.
fn python_float(x: f64) -> String {
    if x.is_nan() {
        return "NaN".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    let sci = format!("{x:e}"); // shortest round-trip mantissa, e.g. "1.5e-5"
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if (-4..16).contains(&exp) {
        let (neg, digits) = match mantissa.strip_prefix('-') {
            Some(m) => (true, m),
            None => (false, mantissa),
        };
        let digits: String = digits.chars().filter(char::is_ascii_digit).collect();
        let point = usize::try_from(exp + 1).unwrap_or(0);
        let body = if exp < 0 {
            let zeros = usize::try_from(-exp - 1).unwrap_or(0);
            format!("0.{}{digits}", "0".repeat(zeros))
        } else if digits.len() <= point {
            format!("{digits}{}.0", "0".repeat(point - digits.len()))
        } else {
            format!("{}.{}", &digits[..point], &digits[point..])
        };
        if neg { format!("-{body}") } else { body }
    } else {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{mantissa}e{sign}{:02}", exp.abs())
    }
}

/// How many sentences `text` holds: the non-blank pieces between runs of
/// `.`, `!` and `?`.
fn sentences(text: &str) -> usize {
    text.split(['.', '!', '?'])
        .filter(|s| !s.trim().is_empty())
        .count()
}

/// Verbs a behavioral statement is expected to use (a lexical hint, not a
/// parser: an adjective pile or a noun phrase has none of them).
const ACTION_WORDS: &[&str] = &[
    "accept", "act", "admit", "answer", "ask", "avoid", "be", "build", "care", "check", "choose",
    "consider", "correct", "decline", "do", "expose", "fix", "give", "guard", "help", "hold",
    "keep", "label", "learn", "listen", "maintain", "make", "name", "offer", "own", "prefer",
    "protect", "prove", "pursue", "refuse", "repair", "report", "respond", "say", "seek", "share",
    "show", "speak", "stand", "state", "stop", "take", "tell", "test", "treat", "trust", "verify",
    "weigh", "write",
];

/// Whether a statement contains a verb-like word: one of
/// [`ACTION_WORDS`] or a word ending in `ing`, `ise` or `ize`.
fn looks_behavioral(text: &str) -> bool {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .any(|w| {
            ACTION_WORDS.contains(&w.as_str())
                || ["ing", "ise", "ize"]
                    .iter()
                    .any(|s| w.len() > s.len() && w.ends_with(s))
        })
}

fn statement_issues(entry: &Value, where_: &str, out: &mut Vec<String>) {
    let text = match entry.get("statement") {
        Some(Value::String(s)) => s.trim().to_owned(),
        None | Some(Value::Null) => String::new(),
        Some(other) => other.to_string(),
    };
    if text.is_empty() {
        out.push(format!("ERROR {where_}: the statement is blank"));
        return;
    }
    let n = sentences(&text);
    if !(1..=3).contains(&n) {
        out.push(format!(
            "ERROR {where_}: a statement has one to three sentences, this one has {n}"
        ));
    }
    if !looks_behavioral(&text) {
        out.push(format!(
            "WARNING {where_}: no action word found; a statement says what the entity does, not what it is"
        ));
    }
}

fn text_of(v: Option<&Value>) -> String {
    match v {
        Some(Value::String(s)) => s.trim().to_lowercase(),
        None | Some(Value::Null) => String::new(),
        Some(other) => other.to_string().to_lowercase(),
    }
}

/// The charter lint of one spark (`lint_spark(spark, *, framework=True)`):
/// issue strings starting `ERROR <where>:` or `WARNING <where>:` (empty =
/// clean). Errors: a missing key of the six, a section over its cap, a blank
/// statement or one outside one to three sentences, a value whose `class` is
/// not `core` / `revisable`, and (with `framework`) a missing
/// `shared_vulnerability` value or one not of class `core`. Warnings: a
/// statement with no action word, values without a revisable one.
pub fn lint_spark(spark: &JsonMap, framework: bool) -> Vec<String> {
    let mut out = Vec::new();
    for key in SPARK_KEYS {
        if !spark.contains_key(key) {
            out.push(format!(
                "ERROR spark: the key {key:?} is missing; a spark has the six keys {SPARK_KEYS:?}"
            ));
        }
    }
    for (section, cap) in SPARK_SECTION_CAPS {
        let entries = section_items(spark, section);
        if entries.len() > cap {
            out.push(format!(
                "ERROR {section}: {} entries where at most {cap} are allowed; a spark is a seed, not a codex",
                entries.len()
            ));
        }
        for (i, entry) in entries.iter().enumerate() {
            let empty = Value::Object(JsonMap::new());
            let entry = if entry.is_object() { entry } else { &empty };
            statement_issues(entry, &format!("{section}[{i}]"), &mut out);
        }
    }
    let values: Vec<&Value> = section_items(spark, "values")
        .into_iter()
        .filter(|v| v.is_object())
        .collect();
    for (i, v) in values.iter().enumerate() {
        let class = text_of(v.get("class"));
        if !SPARK_VALUE_CLASSES.contains(&class.as_str()) {
            out.push(format!(
                "ERROR values[{i}]: the class must be one of {SPARK_VALUE_CLASSES:?}, got {}",
                v.get("class")
                    .map_or("nothing".to_owned(), Value::to_string)
            ));
        }
    }
    if !values.is_empty()
        && !values
            .iter()
            .any(|v| text_of(v.get("class")) == "revisable")
    {
        out.push(
            "WARNING values: every value is core; without a revisable one the identity cannot grow from evidence"
                .to_owned(),
        );
    }
    if framework {
        match values
            .iter()
            .find(|v| text_of(v.get("name")) == "shared_vulnerability")
        {
            None => out.push(
                "ERROR values: a framework spark carries the core value \"shared_vulnerability\" \
                 (lint with framework=false only for a deliberate non-framework identity)"
                    .to_owned(),
            ),
            Some(v) if text_of(v.get("class")) != "core" => out.push(
                "ERROR values: \"shared_vulnerability\" must be of class core; the framework floor is its name and its class"
                    .to_owned(),
            ),
            Some(_) => {}
        }
    }
    out
}

/// The entries of one section (empty when absent, null or not a list).
pub(crate) fn section_items<'a>(spark: &'a JsonMap, section: &str) -> Vec<&'a Value> {
    match spark.get(section) {
        Some(Value::Array(items)) => items.iter().collect(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_float_matches_repr() {
        for (x, want) in [
            (1.0, "1.0"),
            (0.5, "0.5"),
            (1e16, "1e+16"),
            (1e15, "1000000000000000.0"),
            (1.5e-5, "1.5e-05"),
            (0.0001, "0.0001"),
            (-2.25, "-2.25"),
            (123.456, "123.456"),
        ] {
            assert_eq!(python_float(x), want, "{x}");
        }
    }

    #[test]
    fn the_default_template_lints_clean() {
        assert_eq!(
            lint_spark(&DEFAULT_SPARK_TEMPLATE(), true),
            Vec::<String>::new()
        );
    }
}
