//! The canonical text of an assertion (embedding input, the `text` column, the
//! keyword surface), the token estimate, and the keyword token family.
//!
//! Spec: api.md "Canonical text"; algorithms.md §2 and §3 (with version 3: an
//! `original_context` renders whole).

use crate::assertion::{TripleAssertion, json_truthy, py_strip};
use serde_json::Value;
use std::collections::BTreeSet;

/// The version of [`canonical_text`]'s rendering. Changing the rendering
/// invalidates stored vectors, so it must bump this and ride a re-embed.
pub const CANONICAL_TEXT_VERSION: u32 = 3;
/// Minimum token length of the recall keyword channel.
pub const RECALL_MIN_TOKEN_LEN: usize = 4;
/// Minimum token length for near-duplicate evidence.
pub const EVIDENCE_MIN_TOKEN_LEN: usize = 3;
/// Display titles are bounded at this many code points.
pub const TITLE_MAX: usize = 120;

/// A value as a message shows it: its JSON text (`"rant"`, `3`, `null` for
/// an absent one), never Rust's debug form (`Some(String("rant"))`).
pub fn shown<T: serde::Serialize + ?Sized>(v: &T) -> String {
    serde_json::to_string(v).unwrap_or_else(|_| "<a value JSON cannot show>".to_owned())
}

/// Python's `str(v)` for the JSON scalars a keyword list may hold.
pub fn py_str(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => "None".to_owned(),
        Value::Bool(true) => "True".to_owned(),
        Value::Bool(false) => "False".to_owned(),
        Value::Number(n) => {
            if n.is_f64() {
                let f = n.as_f64().unwrap_or(0.0);
                if f.fract() == 0.0 && f.abs() < 1e16 {
                    format!("{f:.1}")
                } else {
                    format!("{f}")
                }
            } else {
                n.to_string()
            }
        }
        other => other.to_string(),
    }
}

/// Whether the assertion is a formed record's digest (`attributes.record_kind` is a
/// non-empty string).
pub fn is_record_digest(a: &TripleAssertion) -> bool {
    matches!(a.attributes.get("record_kind"), Some(Value::String(s)) if !s.is_empty())
}

/// Whether the assertion is a formed record's edge (`attributes.record_edge` truthy):
/// never embedded, never a shelf member.
pub fn is_record_edge(a: &TripleAssertion) -> bool {
    json_truthy(a.attributes.get("record_edge"))
}

/// Whether the row is engine state that is never embedded: a topic record
/// (`attributes.record_kind == "community"`; api.md "Communities (topics)":
/// community records are never embedded and never recalled).
pub fn is_engine_state(a: &TripleAssertion) -> bool {
    matches!(a.attributes.get("record_kind"), Some(Value::String(k)) if k.trim() == "community")
}

fn attr_str<'a>(a: &'a TripleAssertion, key: &str) -> Option<&'a str> {
    match a.attributes.get(key) {
        Some(Value::String(s)) => Some(py_strip(s)).filter(|s| !s.is_empty()),
        _ => None,
    }
}

/// The one text form of an assertion (version [`CANONICAL_TEXT_VERSION`]).
///
/// Record digests: `title`, the digest literal, and `keywords: a, b` (non-empty
/// parts, joined by `\n`). Other assertions: `"{s} {p} {o}"` stripped, then
/// `subject_type: X`, `object_type: X`, `evidence: X` and `context: X` lines
/// when those attributes are non-empty strings. The context renders whole.
pub fn canonical_text(a: &TripleAssertion) -> String {
    if is_record_digest(a) {
        let title = match a.attributes.get("title") {
            Some(Value::String(s)) => py_strip(s).to_owned(),
            Some(v) if json_truthy(Some(v)) => py_strip(&py_str(v)).to_owned(),
            _ => String::new(),
        };
        let mut parts: Vec<String> = [title, a.object.clone()]
            .into_iter()
            .filter(|p| !p.is_empty())
            .collect();
        if let Some(Value::Array(kw)) = a.attributes.get("keywords")
            && !kw.is_empty()
        {
            let joined = kw.iter().map(py_str).collect::<Vec<_>>().join(", ");
            parts.push(format!("keywords: {joined}"));
        }
        return parts.join("\n");
    }
    let mut parts =
        vec![py_strip(&format!("{} {} {}", a.subject, a.predicate, a.object)).to_owned()];
    if let Some(st) = attr_str(a, "subject_type") {
        parts.push(format!("subject_type: {st}"));
    }
    if let Some(ot) = attr_str(a, "object_type") {
        parts.push(format!("object_type: {ot}"));
    }
    if let Some(eq) = attr_str(a, "evidence_quote") {
        parts.push(format!("evidence: {eq}"));
    }
    if let Some(ctx) = attr_str(a, "original_context") {
        parts.push(format!("context: {ctx}"));
    }
    parts.join("\n")
}

/// The digest a handle carries: the literal for record digests, the canonical text
/// for everything else.
pub fn handle_digest(a: &TripleAssertion) -> String {
    if is_record_digest(a) {
        a.object.clone()
    } else {
        canonical_text(a)
    }
}

/// Bound a title at [`TITLE_MAX`] code points (119 and `…` when longer).
pub fn bound_title(title: &str) -> String {
    if title.chars().count() > TITLE_MAX {
        let mut t: String = title.chars().take(TITLE_MAX - 1).collect();
        t.push('…');
        t
    } else {
        title.to_owned()
    }
}

/// `"{s} {p} {o}"`, bounded at 120 code points.
pub fn display_title(a: &TripleAssertion) -> String {
    bound_title(&format!("{} {} {}", a.subject, a.predicate, a.object))
}

/// The package-wide token estimate: `code_points / 4 + 1` (never 0).
pub fn token_estimate(text: &str) -> usize {
    text.chars().count() / 4 + 1
}

/// Fold text for keyword matching: Unicode casefold, then NFKD, then drop every
/// code point with a non-zero canonical combining class (in that order).
pub fn fold_text(s: &str) -> String {
    use unicode_normalization::UnicodeNormalization;
    // ASCII folds to its lowercase: case folding maps only A-Z there, and
    // no ASCII character decomposes or combines.
    if s.is_ascii() {
        return s.to_ascii_lowercase();
    }
    use unicode_normalization::char::canonical_combining_class;
    caseless::default_case_fold_str(s)
        .nfkd()
        .filter(|c| canonical_combining_class(*c) == 0)
        .collect()
}

/// The ASCII `[a-z0-9]+` runs of the folded text, in order, with repeats.
fn runs(folded: &str) -> impl Iterator<Item = &str> {
    folded
        .split(|c: char| !(c.is_ascii_lowercase() || c.is_ascii_digit()))
        .filter(|r| !r.is_empty())
}

/// Recall tokens: runs of at least `min_len` characters, de-duplicated in
/// first-seen order.
pub fn tokenize(text: &str, min_len: usize) -> Vec<String> {
    let folded = fold_text(text);
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for r in runs(&folded) {
        if r.len() >= min_len && seen.insert(r) {
            out.push(r.to_owned());
        }
    }
    out
}

/// The tokens of `text` of at least `min_len` characters, as a set.
pub fn token_set(text: &str, min_len: usize) -> BTreeSet<String> {
    runs(&fold_text(text))
        .filter(|r| r.len() >= min_len)
        .map(str::to_owned)
        .collect()
}

/// Each token of `text` of at least `min_len` characters, in order, with
/// repeats: the tokens [`token_set`] collects, lent one by one.
pub fn for_each_token(text: &str, min_len: usize, mut f: impl FnMut(&str)) {
    for r in runs(&fold_text(text)) {
        if r.len() >= min_len {
            f(r);
        }
    }
}

/// Every run of the folded text (no length floor) joined by single spaces.
pub fn title_key(text: &str) -> String {
    runs(&fold_text(text)).collect::<Vec<_>>().join(" ")
}

/// `|A ∩ B| / |A ∪ B|`; 0.0 when either set is empty.
pub fn jaccard(a: &BTreeSet<String>, b: &BTreeSet<String>) -> f64 {
    if a.is_empty() || b.is_empty() {
        return 0.0;
    }
    let inter = a.intersection(b).count();
    let union = a.len() + b.len() - inter;
    inter as f64 / union as f64
}

/// Facet tokens: lowercase (no fold), commas to spaces, split on whitespace, strip
/// `.;:!?()[]"'` from each end, keep tokens of at least `min_len` code points.
pub fn facet_tokens<'a>(
    values: impl IntoIterator<Item = &'a str>,
    min_len: usize,
) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut scratch = String::new();
    for v in values {
        each_facet_token(v, min_len, &mut scratch, &mut |t| {
            out.insert(t.to_owned());
        });
    }
    out
}

/// Each facet token of one value, in text order (repeats included), as
/// [`facet_tokens`] reads it; `scratch` holds the lowered text (an ASCII
/// value is lowered byte by byte, which is what `to_lowercase` does to it).
pub fn each_facet_token(v: &str, min_len: usize, scratch: &mut String, f: &mut dyn FnMut(&str)) {
    const EDGE: &[char] = &['.', ';', ':', '!', '?', '(', ')', '[', ']', '"', '\''];
    scratch.clear();
    if v.is_ascii() {
        scratch.extend(v.bytes().map(|b| match b {
            b',' => ' ',
            b => char::from(b.to_ascii_lowercase()),
        }));
    } else {
        scratch.push_str(&v.to_lowercase().replace(',', " "));
    }
    for tok in scratch.split_whitespace() {
        let t = tok.trim_matches(EDGE);
        if t.chars().count() >= min_len {
            f(t);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fold_handles_accents_sharp_s_and_compat_uppercase() {
        assert_eq!(fold_text("Café"), "cafe");
        assert_eq!(fold_text("Straße"), "strasse");
        assert_eq!(
            tokenize("ℌello wörld", 4),
            vec!["ello".to_owned(), "world".to_owned()]
        );
        assert_eq!(tokenize("łódź", 4), Vec::<String>::new());
        assert_eq!(tokenize("łódź", 3), vec!["odz".to_owned()]);
        assert!(tokenize("日本語のテキスト", 1).is_empty());
    }

    #[test]
    fn tokenize_dedups_in_first_seen_order_with_min_len() {
        assert_eq!(
            tokenize("Fusion energy, FUSION report a an", 4),
            vec!["fusion", "energy", "report"]
        );
    }

    #[test]
    fn token_estimate_counts_code_points() {
        assert_eq!(token_estimate(""), 1);
        assert_eq!(token_estimate("ééééé"), 2);
    }

    #[test]
    fn canonical_text_renders_records_and_plain_assertions() {
        let mut a =
            TripleAssertion::new_literal("ex:episode-1", "dcterms:abstract", "Alice met Bob");
        a.attributes.insert("record_kind".into(), "episode".into());
        a.attributes.insert("title".into(), " Meeting ".into());
        a.attributes
            .insert("keywords".into(), serde_json::json!(["alice", 3]));
        assert_eq!(
            canonical_text(&a),
            "Meeting\nAlice met Bob\nkeywords: alice, 3"
        );
        let mut b = TripleAssertion::new("alice", "wrote", "report");
        let long = "x".repeat(500);
        b.attributes
            .insert("original_context".into(), long.clone().into());
        b.attributes.insert("subject_type".into(), "person".into());
        assert_eq!(
            canonical_text(&b),
            format!("alice wrote report\nsubject_type: person\ncontext: {long}")
        );
    }

    #[test]
    fn facets_and_jaccard() {
        let f = facet_tokens(["Tea, (coffee) ab"], 3);
        assert_eq!(f.into_iter().collect::<Vec<_>>(), vec!["coffee", "tea"]);
        let a = token_set("alpha beta", 3);
        let b = token_set("beta gamma", 3);
        assert!((jaccard(&a, &b) - 1.0 / 3.0).abs() < 1e-12);
    }
}
