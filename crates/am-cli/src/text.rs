//! Stored text made safe for a terminal: every control character (C0, DEL,
//! C1: ANSI escape sequences, NUL, a carriage return that rewrites the line)
//! and every invisible formatting character that reorders or hides what is
//! printed (the bidirectional overrides and isolates, zero-width characters,
//! the BOM) is shown as a visible escape (`\n`, `\t`, `\u{1b}`), so what a
//! reader sees is what is stored. Only the human text output is escaped; the
//! JSON output carries the exact strings.

/// Whether `c` must not reach a terminal as itself.
fn unsafe_char(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{061c}'                 // Arabic letter mark
                | '\u{200b}'..='\u{200f}' // zero-width space/joiners, LRM, RLM
                | '\u{2028}'..='\u{202e}' // line/paragraph separators, embeddings, overrides
                | '\u{2060}'..='\u{2064}' // word joiner, invisible operators
                | '\u{2066}'..='\u{2069}' // isolates
                | '\u{feff}'              // BOM / zero-width no-break space
                | '\u{fff9}'..='\u{fffb}' // interlinear annotation
        )
}

/// `s` with every unsafe character replaced by a visible escape.
pub fn escape(s: &str) -> String {
    if !s.chars().any(unsafe_char) {
        return s.to_owned();
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if unsafe_char(c) => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::escape;

    #[test]
    fn control_and_bidi_characters_become_visible_escapes() {
        assert_eq!(escape("plain — text é"), "plain — text é");
        assert_eq!(escape("\u{1b}[2Jgone"), "\\u{1b}[2Jgone");
        assert_eq!(escape("a\u{0}b\u{7f}c\u{9b}d"), "a\\u{0}b\\u{7f}c\\u{9b}d");
        assert_eq!(escape("abc\u{202e}fed"), "abc\\u{202e}fed");
        assert_eq!(escape("x\u{2066}y\u{200b}z"), "x\\u{2066}y\\u{200b}z");
        assert_eq!(escape("one\ntwo\tthree\r"), "one\\ntwo\\tthree\\r");
    }
}
