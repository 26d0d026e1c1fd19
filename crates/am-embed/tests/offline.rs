//! The offline embedder (potion-base-2M compiled in): identity, shape,
//! normalization, determinism and semantic sanity; loading from a directory.

use am_embed::{OfflineEmbedder, POTION_BASE_2M_DIMENSION, POTION_BASE_2M_MODEL_ID};
use am_triples::vector::cosine;
use am_triples::{ErrorKind, TextEmbedder};

fn texts(ts: &[&str]) -> Vec<String> {
    ts.iter().map(|t| (*t).to_owned()).collect()
}

fn embed_one(e: &OfflineEmbedder, t: &str) -> Vec<f32> {
    e.embed_texts(&texts(&[t])).unwrap().remove(0)
}

#[test]
fn embedded_model_reports_its_model_id_and_dimension_for_the_pin() {
    let e = OfflineEmbedder::new().unwrap();
    assert_eq!(e.model_id().as_deref(), Some(POTION_BASE_2M_MODEL_ID));
    assert_eq!(e.model_id().as_deref(), Some("minishlab/potion-base-2M"));
    assert_eq!(TextEmbedder::dimension(&e), Some(64));
    assert_eq!(POTION_BASE_2M_DIMENSION, 64);
}

#[test]
fn every_text_gets_one_64_dimensional_l2_normalized_vector_in_order() {
    let e = OfflineEmbedder::new().unwrap();
    let input = texts(&[
        "a puppy",
        "the stock market fell",
        "pottery class on tuesday",
    ]);
    let out = e.embed_texts(&input).unwrap();
    assert_eq!(out.len(), 3);
    for (i, v) in out.iter().enumerate() {
        assert_eq!(v.len(), 64, "vector {i}");
        let norm: f64 = v.iter().map(|x| f64::from(*x).powi(2)).sum::<f64>().sqrt();
        assert!((norm - 1.0).abs() < 1e-4, "vector {i} has norm {norm}");
        // Order: each batch row equals the text embedded alone.
        assert_eq!(v, &embed_one(&e, &input[i]), "vector {i}");
    }
}

#[test]
fn embedding_is_deterministic_across_calls_and_instances() {
    let a = OfflineEmbedder::new().unwrap();
    let b = OfflineEmbedder::new().unwrap();
    let t = "Caroline went to the LGBTQ support group yesterday.";
    assert_eq!(embed_one(&a, t), embed_one(&a, t));
    assert_eq!(embed_one(&a, t), embed_one(&b, t));
}

#[test]
fn related_texts_are_closer_than_unrelated_ones() {
    let e = OfflineEmbedder::new().unwrap();
    let puppy = embed_one(&e, "puppy");
    let dog = embed_one(&e, "new dog");
    let tax = embed_one(&e, "quarterly tax filing deadline");
    let related = cosine(&puppy, &dog);
    let unrelated = cosine(&puppy, &tax);
    assert!(
        related > unrelated,
        "cosine(puppy, new dog) = {related} should exceed cosine(puppy, tax) = {unrelated}"
    );
    let pottery = embed_one(&e, "pottery");
    let ceramics = embed_one(&e, "ceramics");
    assert!(cosine(&pottery, &ceramics) > cosine(&pottery, &tax));
}

#[test]
fn empty_input_list_returns_no_vectors() {
    let e = OfflineEmbedder::new().unwrap();
    assert!(e.embed_texts(&[]).unwrap().is_empty());
}

#[test]
fn from_dir_loads_the_same_model_as_the_embedded_one() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/model/potion-base-2M");
    let from_dir = OfflineEmbedder::from_dir(dir).unwrap();
    let embedded = OfflineEmbedder::new().unwrap();
    let t = "Melanie painted a sunrise over the lake.";
    assert_eq!(embed_one(&from_dir, t), embed_one(&embedded, t));
    assert_eq!(TextEmbedder::dimension(&from_dir), Some(64));
}

#[test]
fn from_dir_has_no_model_id_until_named() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/model/potion-base-2M");
    let e = OfflineEmbedder::from_dir(dir).unwrap();
    assert_eq!(e.model_id(), None);
    let e = e.with_model_id("minishlab/potion-base-2M");
    assert_eq!(e.model_id().as_deref(), Some("minishlab/potion-base-2M"));
}

#[test]
fn from_dir_refuses_a_missing_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let missing = tmp.path().join("no-such-model");
    let err = OfflineEmbedder::from_dir(&missing).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Embedder);
    assert!(matches!(err, am_embed::Error::Model { .. }), "{err}");
    assert!(err.to_string().contains("no-such-model"), "{err}");
}

#[test]
fn from_dir_refuses_a_directory_without_model_files() {
    let tmp = tempfile::tempdir().unwrap();
    let err = OfflineEmbedder::from_dir(tmp.path()).unwrap_err();
    assert!(matches!(err, am_embed::Error::Model { .. }), "{err}");
}

#[test]
fn from_dir_refuses_a_corrupt_weights_file() {
    let tmp = tempfile::tempdir().unwrap();
    let src = concat!(env!("CARGO_MANIFEST_DIR"), "/model/potion-base-2M");
    for f in ["config.json", "tokenizer.json"] {
        std::fs::copy(format!("{src}/{f}"), tmp.path().join(f)).unwrap();
    }
    std::fs::write(
        tmp.path().join("model.safetensors"),
        b"not a safetensors file",
    )
    .unwrap();
    let err = OfflineEmbedder::from_dir(tmp.path()).unwrap_err();
    assert!(matches!(err, am_embed::Error::Model { .. }), "{err}");
}

#[test]
fn empty_text_embeds_to_the_zero_vector() {
    let e = OfflineEmbedder::new().unwrap();
    let v = embed_one(&e, "");
    assert_eq!(v.len(), 64);
    assert!(v.iter().all(|x| *x == 0.0), "{v:?}");
}
