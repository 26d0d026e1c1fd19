//! The concept words of a text: the one tokenization the mention reads share
//! (valence's `stimulus_feelings`, recall's orientation admission); and the
//! discriminative terms of the matching lane ([`matching_terms`]: drive
//! grouping, and the candidate miner when it lands).
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

/// The function words the matching lane never counts as a shared term
/// (English and French, accents folded: `etre`, `tres`, `apres`, `meme`).
/// 0.3.2's `candidate_miner` screen settles the list.
const MATCHING_STOPWORDS: [&str; 139] = [
    "the", "a", "an", "and", "or", "of", "in", "on", "for", "with", "to", "that", "this", "those",
    "these", "is", "are", "was", "were", "be", "been", "it", "its", "his", "her", "their", "our",
    "your", "my", "i", "about", "into", "from", "what", "when", "where", "how", "why", "who",
    "does", "did", "will", "would", "could", "should", "can", "cannot", "not", "no", "yes", "but",
    "as", "at", "by", "if", "then", "than", "there", "here", "have", "has", "had", "do", "am",
    "we", "they", "some", "same", "each", "also", "just", "very", "more", "most", "dans", "cette",
    "ces", "avec", "pour", "sans", "leur", "leurs", "nous", "vous", "mais", "donc", "alors",
    "etre", "tout", "tous", "toute", "toutes", "comme", "plus", "moins", "tres", "bien", "encore",
    "aussi", "autre", "autres", "entre", "vers", "chez", "sous", "apres", "avant", "depuis",
    "quand", "comment", "pourquoi", "parce", "elle", "elles", "sont", "etait", "sera", "fait",
    "faire", "peut", "peuvent", "cela", "ceci", "celui", "celle", "ainsi", "meme", "sur", "une",
    "les", "des", "aux", "est", "ont", "par", "pas", "que", "qui", "quoi",
];

/// The discriminative terms of `text` for the matching lane (two texts about
/// the same thing share them): folded ASCII alphanumeric runs of 4+
/// characters, minus [`MATCHING_STOPWORDS`] and minus digit-dominated runs
/// (at least half digits: timestamp fragments such as `17t22` discriminate
/// nothing). A set: order and repeats carry nothing here.
pub(crate) fn matching_terms(text: &str) -> BTreeSet<String> {
    am_triples::text::token_set(text, 4)
        .into_iter()
        .filter(|t| !MATCHING_STOPWORDS.contains(&t.as_str()))
        .filter(|t| t.bytes().filter(u8::is_ascii_digit).count() * 2 < t.len())
        .collect()
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

    #[test]
    fn matching_terms_drop_short_function_and_digit_dominated_words() {
        let t =
            matching_terms("Comment la Mémoire tient-elle depuis 2026-07-17T22 et 17t22 kiln4?");
        let want: BTreeSet<String> = ["memoire", "tient", "kiln4"]
            .iter()
            .map(|s| (*s).to_owned())
            .collect();
        assert_eq!(t, want);
    }
}
