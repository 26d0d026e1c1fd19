//! A card's provisional body: the evidence briefing (`mechanical-card-v2`)
//! a new or mechanical card forms with, or the authored lead carried
//! forward with one "Since then" line (`authored-card-v1+delta`). Both are
//! the text the host's author writes the card's summary from; neither is
//! ever the card's authored words.

use crate::world_models::evidence::Evidence;

/// Newest evidence lines quoted in a briefing.
const GIST_COUNT: usize = 4;
/// The bound of one quoted line, in characters (the sources carry the
/// whole text).
const GIST_CHARS: usize = 150;
/// Newest evidence lines quoted in a "Since then" line.
const DELTA_GIST_COUNT: usize = 3;
/// Titles that tell a reader nothing (machine labels): the body is quoted
/// instead.
const MACHINE_TITLE_PREFIXES: [&str; 4] = [
    "exchange:",
    "session reflection:",
    "Diary entry",
    "Consolidated:",
];

/// `text` without act-frame markers (`[used tool: …]`: a bracketed run of
/// 1 to 120 characters holding no bracket), each replaced by a space.
fn without_markers(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        if chars[i] == '[' {
            let close = chars[i + 1..]
                .iter()
                .take(121)
                .position(|c| *c == '[' || *c == ']')
                .filter(|&n| (1..=120).contains(&n) && chars[i + 1 + n] == ']');
            if let Some(n) = close {
                out.push(' ');
                i += n + 2;
                continue;
            }
        }
        out.push(chars[i]);
        i += 1;
    }
    out
}

fn first_chars(s: &str, n: usize) -> &str {
    s.char_indices().nth(n).map_or(s, |(i, _)| &s[..i])
}

/// One readable line of an evidence record: its title and body, or the body
/// alone when the title is a machine label or absent, markers removed,
/// bounded at 150 characters with an ellipsis.
pub(crate) fn gist(e: &Evidence) -> String {
    let residue = without_markers(&e.digest)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let title = e.title.trim();
    let text = if title.is_empty() || MACHINE_TITLE_PREFIXES.iter().any(|p| title.starts_with(p)) {
        residue
    } else {
        format!("{title} — {residue}")
    };
    let text = match text.trim() {
        "" if !title.is_empty() => title.to_owned(),
        "" => "(no words survived the compression)".to_owned(),
        t => t.to_owned(),
    };
    if text.chars().count() > GIST_CHARS {
        format!("{}…", first_chars(&text, GIST_CHARS - 1))
    } else {
        text
    }
}

/// A number as Python's `{:+g}` writes it: 6 significant digits, trailing
/// zeros dropped, the exponent form outside `1e-4 ..< 1e6`.
pub(crate) fn signed_g(x: f64) -> String {
    if x == 0.0 {
        return if x.is_sign_negative() { "-0" } else { "+0" }.to_owned();
    }
    if !x.is_finite() {
        return format!(
            "{}{}",
            if x < 0.0 { "-" } else { "+" },
            if x.is_nan() { "nan" } else { "inf" }
        );
    }
    let sci = format!("{:.5e}", x.abs());
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let sign = if x < 0.0 { "-" } else { "+" };
    let trim = |s: String| {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_owned()
        } else {
            s
        }
    };
    if (-4..6).contains(&exp) {
        #[allow(clippy::cast_sign_loss)] // exp < 6, so 5 - exp >= 0
        let decimals = (5 - exp) as usize;
        format!("{sign}{}", trim(format!("{:.*}", decimals, x.abs())))
    } else {
        format!(
            "{sign}{}e{}{:02}",
            trim(mantissa.to_owned()),
            if exp < 0 { "-" } else { "+" },
            exp.abs()
        )
    }
}

/// The parts of a briefing besides its evidence rows.
pub(crate) struct BriefingFacts<'a> {
    /// The target without its namespace.
    pub display: &'a str,
    /// The standing-feeling line, or empty when the target was never
    /// appraised.
    pub feeling: &'a str,
    /// `"{n} {kind}, ..."`, most frequent first.
    pub kinds_line: &'a str,
    /// The most frequent keywords.
    pub top_facets: &'a [String],
}

/// The `mechanical-card-v2` briefing of `rows` (oldest first): a heading,
/// the standing feeling, the newest evidence lines (newest first), and a
/// footer with the span, the kinds and the threads.
pub(crate) fn floor_briefing(rows: &[&Evidence], facts: &BriefingFacts<'_>) -> String {
    let mut lines = vec![format!("What I know of {}:", facts.display)];
    if !facts.feeling.is_empty() {
        lines.push(facts.feeling.to_owned());
    }
    for r in rows.iter().rev().take(GIST_COUNT) {
        lines.push(format!(
            "- {}: {}",
            first_chars(&r.observed_at, 10),
            gist(r)
        ));
    }
    let first = rows.first().map_or("", |r| first_chars(&r.observed_at, 10));
    let last = rows.last().map_or("", |r| first_chars(&r.observed_at, 10));
    let threads = if facts.top_facets.is_empty() {
        String::new()
    } else {
        format!(" Threads: {}.", facts.top_facets.join(", "))
    };
    lines.push(format!(
        "(from {} lived record(s), {first} to {last}, {}.{threads} Orientation, never \
         authority — follow the sources when it matters.)",
        rows.len(),
        facts.kinds_line
    ));
    lines.join("\n")
}

/// The "Since then" line an authored card's next revision carries after its
/// lead: the records new since the authoring (newest first, at most three),
/// or, when none is new, that the evidence set was revised.
pub(crate) fn since_then(rows: &[&Evidence], new_rows: &[&Evidence]) -> String {
    let last = rows.last().map_or("", |r| first_chars(&r.observed_at, 10));
    if new_rows.is_empty() {
        return format!(
            "Since then: no new records; the evidence set was revised ({} record(s) now stand).",
            rows.len()
        );
    }
    let gists: Vec<String> = new_rows
        .iter()
        .rev()
        .take(DELTA_GIST_COUNT)
        .map(|r| gist(r))
        .collect();
    format!(
        "Since then ({} new record(s), through {last}): {}",
        new_rows.len(),
        gists.join("; ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signed_g_writes_as_python_does() {
        for (x, want) in [
            (2.0, "+2"),
            (-1.5, "-1.5"),
            (0.1, "+0.1"),
            (1.0 / 3.0, "+0.333333"),
            (1e-5, "+1e-05"),
            (1_234_567.0, "+1.23457e+06"),
            (0.0, "+0"),
        ] {
            assert_eq!(signed_g(x), want, "{x}");
        }
    }

    #[test]
    fn markers_go_and_a_long_line_is_bounded() {
        assert_eq!(without_markers("a [used tool: x] b"), "a   b");
        assert_eq!(without_markers("a [] b [x"), "a [] b [x");
        let e = Evidence {
            record_id: "r".into(),
            kind: "episode".into(),
            title: String::new(),
            title_pending: false,
            digest: "w ".repeat(200),
            observed_at: "2026-01-01".into(),
            keywords: vec![],
            participants: vec![],
            topics: vec![],
            session: String::new(),
        };
        let g = gist(&e);
        assert_eq!(g.chars().count(), 150);
        assert!(g.ends_with('…'));
    }
}
