//! The keyword token family and `token_estimate` agree with AbstractMemory 0.3.2
//! on accents, ß and other casefold expansions, compatibility characters and
//! non-Latin scripts. The fixture was captured from the oracle's `text_tokens`
//! (`fold_text`, `tokenize`, `token_set`, `title_key`, `facet_tokens`) and
//! `canonical_text.token_estimate`.

use am_triples::text::{facet_tokens, fold_text, title_key, token_estimate, token_set, tokenize};
use serde_json::Value;

const FIXTURE: &str = include_str!("fixtures/tokens-oracle-0.3.2.json");

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn tokens_match_the_oracle() {
    let cases: Vec<Value> = serde_json::from_str(FIXTURE).unwrap();
    assert!(cases.len() >= 20);
    for c in &cases {
        let text = c["text"].as_str().unwrap();
        assert_eq!(
            fold_text(text),
            c["fold"].as_str().unwrap(),
            "fold_text({text:?})"
        );
        assert_eq!(
            tokenize(text, 4),
            strings(&c["tokenize4"]),
            "tokenize({text:?}, 4)"
        );
        assert_eq!(
            tokenize(text, 3),
            strings(&c["tokenize3"]),
            "tokenize({text:?}, 3)"
        );
        assert_eq!(
            title_key(text),
            c["title_key"].as_str().unwrap(),
            "title_key({text:?})"
        );
        assert_eq!(
            token_set(text, 3).into_iter().collect::<Vec<_>>(),
            strings(&c["token_set3"]),
            "token_set({text:?}, 3)"
        );
        assert_eq!(
            facet_tokens([text], 3).into_iter().collect::<Vec<_>>(),
            strings(&c["facet3"]),
            "facet_tokens({text:?}, 3)"
        );
        assert_eq!(
            Some(token_estimate(text) as u64),
            c["token_estimate"].as_u64(),
            "token_estimate({text:?})"
        );
    }
}
