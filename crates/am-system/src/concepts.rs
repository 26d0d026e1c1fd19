//! The concept words of a text: the one tokenization the mention reads share
//! (valence's `stimulus_feelings`, recall's orientation admission).
//!
//! Spec: api.md "Reconstruction" (`orientation_admission`), "Valence and
//! gradation" (`stimulus_feelings`); 0.3.2's `concept_anchor.concept_terms`
//! settles the rule (camelCase split, folded, 3+ character words, bigrams).

use std::collections::BTreeSet;

/// The words of `text` that name a concept: camelCase split, folded, ASCII
/// alphanumeric runs of 3+ characters, in order (repeats kept).
pub(crate) fn concept_words(text: &str) -> Vec<String> {
    let mut split = String::with_capacity(text.len() + 8);
    let mut prev: Option<char> = None;
    for c in text.chars() {
        if c.is_ascii_uppercase()
            && prev.is_some_and(|p| p.is_ascii_lowercase() || p.is_ascii_digit())
        {
            split.push(' ');
        }
        split.push(c);
        prev = Some(c);
    }
    let folded = am_triples::text::fold_text(&split);
    folded
        .split(|c: char| !(c.is_ascii_lowercase() || c.is_ascii_digit()))
        .filter(|w| w.len() >= 3)
        .map(str::to_owned)
        .collect()
}

/// The concept terms of `text`: its [`concept_words`] plus each adjacent pair
/// joined with `_`.
pub(crate) fn concept_terms(text: &str) -> BTreeSet<String> {
    let words = concept_words(text);
    let mut out: BTreeSet<String> = words.iter().cloned().collect();
    for pair in words.windows(2) {
        out.insert(format!("{}_{}", pair[0], pair[1]));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn concept_terms_split_identifiers_and_join_neighbours() {
        let t = concept_terms("autoMemory web_search on GPU");
        for w in [
            "auto",
            "memory",
            "auto_memory",
            "web",
            "search",
            "gpu",
            "search_gpu",
        ] {
            assert!(t.contains(w), "{w} missing from {t:?}");
        }
        assert!(!t.contains("on"));
    }
}
