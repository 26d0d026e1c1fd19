//! `OfflineEmbedder`: the embedded default, potion-base-2M (a Model2Vec static
//! model by MinishLab, MIT) compiled into the binary, so a fresh machine embeds
//! with no download, no server and no network.
//!
//! Spec: api.md "Embedders" (a `TextEmbedder` implementation); stores.md
//! "Embedding-space pin" (it reports its model id and dimension for the pin).

use crate::error::{Error, Result};
use am_triples::TextEmbedder;
use model2vec_rs::model::StaticModel;
use std::path::Path;
use std::sync::OnceLock;

/// The model id of the embedded model, as its model card names it.
pub const POTION_BASE_2M_MODEL_ID: &str = "minishlab/potion-base-2M";

/// The embedded model's vector dimension.
pub const POTION_BASE_2M_DIMENSION: usize = 64;

/// Tokens each text is cut to before pooling (Model2Vec's default `max_length`).
pub const MAX_TOKENS: usize = 512;

const TOKENIZER: &[u8] = include_bytes!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/model/potion-base-2M/tokenizer.json"
));
const WEIGHTS: &[u8] = include_bytes!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/model/potion-base-2M/model.safetensors"
));
const CONFIG: &[u8] = include_bytes!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/model/potion-base-2M/config.json"
));

/// The embedded model, parsed once per process (the model is immutable and
/// `StaticModel` clones share it).
static EMBEDDED: OnceLock<StaticModel> = OnceLock::new();

/// A local static-embedding model: text in, one L2-normalized `f32` vector out,
/// deterministic, no I/O after loading.
///
/// [`OfflineEmbedder::new`] uses the potion-base-2M model compiled into the
/// binary (`model_id()` = `"minishlab/potion-base-2M"`, `dimension()` = 64).
/// [`OfflineEmbedder::from_dir`] loads any Model2Vec model directory
/// (`config.json`, `tokenizer.json`, `model.safetensors`).
///
/// Texts are cut to [`MAX_TOKENS`] tokens. A text with no known token (the
/// empty string, emoji-only text, `"\0"`) embeds to the zero vector; the stores
/// keep such a row without a vector and warn `#FALLBACK` once per batch
/// (`am_triples::embed::embedded_batch`).
///
/// # Examples
/// ```
/// use am_embed::OfflineEmbedder;
/// use am_triples::TextEmbedder;
/// let embedder = OfflineEmbedder::new()?;
/// let v = embedder.embed(&["a puppy".to_owned()]);
/// assert_eq!(v[0].len(), 64);
/// assert_eq!(embedder.model_id().as_deref(), Some("minishlab/potion-base-2M"));
/// # Ok::<(), am_embed::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct OfflineEmbedder {
    model: StaticModel,
    model_id: Option<String>,
}

impl OfflineEmbedder {
    /// The embedded potion-base-2M model (parsed on first use, then shared).
    ///
    /// # Errors
    /// [`Error::Model`] if the embedded files do not parse (a build defect).
    pub fn new() -> Result<Self> {
        let model = match EMBEDDED.get() {
            Some(m) => m.clone(),
            None => {
                let m = StaticModel::from_bytes(TOKENIZER, WEIGHTS, CONFIG, None).map_err(|e| {
                    Error::Model {
                        model: POTION_BASE_2M_MODEL_ID.to_owned(),
                        message: format!("the embedded model files do not load: {e:#}"),
                    }
                })?;
                EMBEDDED.get_or_init(|| m).clone()
            }
        };
        Ok(OfflineEmbedder {
            model,
            model_id: Some(POTION_BASE_2M_MODEL_ID.to_owned()),
        })
    }

    /// A Model2Vec model from a local directory holding `config.json`,
    /// `tokenizer.json` and `model.safetensors` (the layout of
    /// `crates/am-embed/model/potion-base-2M/`). Never downloads.
    ///
    /// The directory does not say which model it holds, so `model_id()` is
    /// `None` (a pin then records the dimension only) until
    /// [`OfflineEmbedder::with_model_id`] names it.
    ///
    /// # Errors
    /// [`Error::Model`] when the directory is missing or its files do not load.
    pub fn from_dir(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        let fail = |message: String| Error::Model {
            model: path.display().to_string(),
            message,
        };
        if !path.is_dir() {
            return Err(fail(
                "expected a model directory (config.json, tokenizer.json, model.safetensors), \
                 got no directory at that path"
                    .into(),
            ));
        }
        let model = StaticModel::from_pretrained(path, None, None, None)
            .map_err(|e| fail(format!("cannot load the model: {e:#}")))?;
        Ok(OfflineEmbedder {
            model,
            model_id: None,
        })
    }

    /// The same model under the id `model_id` (what the pin records).
    #[must_use]
    pub fn with_model_id(mut self, model_id: impl Into<String>) -> Self {
        let id = model_id.into();
        self.model_id = Some(id.trim().to_owned()).filter(|m| !m.is_empty());
        self
    }

    /// Embed `texts`: one vector of [`Self::vector_dimension`] values per text,
    /// in input order. Infallible once loaded.
    pub fn embed(&self, texts: &[String]) -> Vec<Vec<f32>> {
        self.model
            .encode_with_args(texts, Some(MAX_TOKENS), texts.len().max(1))
    }

    /// The model's vector dimension.
    pub fn vector_dimension(&self) -> usize {
        self.model.dim()
    }
}

impl TextEmbedder for OfflineEmbedder {
    fn embed_texts(&self, texts: &[String]) -> am_triples::Result<Vec<Vec<f32>>> {
        Ok(self.embed(texts))
    }

    fn model_id(&self) -> Option<String> {
        self.model_id.clone()
    }

    fn dimension(&self) -> Option<usize> {
        Some(self.model.dim())
    }
}
