//! `MiniLmEmbedder` (cargo feature `minilm`): all-MiniLM-L6-v2 through candle's
//! BERT on the CPU, with masked mean pooling and L2 normalization, loaded from a
//! directory the user names. Nothing is downloaded and nothing is compiled in.
//!
//! Spec: api.md "Embedders" (a `TextEmbedder` implementation); stores.md
//! "Embedding-space pin" (it reports its model id and dimension for the pin).

use crate::error::{Error, Result};
use am_triples::TextEmbedder;
use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::{BertModel, Config, DTYPE};
use std::path::{Path, PathBuf};
use tokenizers::{PaddingParams, PaddingStrategy, Tokenizer, TruncationParams};

/// The model id of all-MiniLM-L6-v2, as its model card names it.
pub const MINILM_MODEL_ID: &str = "sentence-transformers/all-MiniLM-L6-v2";

/// all-MiniLM-L6-v2's vector dimension.
pub const MINILM_DIMENSION: usize = 384;

/// Tokens each text is cut to when the directory's `sentence_bert_config.json`
/// names no `max_seq_length` (sentence-transformers' value for this model).
pub const MINILM_DEFAULT_MAX_TOKENS: usize = 256;

/// Texts per forward pass.
const BATCH: usize = 32;

/// A sentence-transformers BERT model (all-MiniLM-L6-v2) on the CPU: text in,
/// one L2-normalized `f32` vector out, the mean of the token states under the
/// attention mask (padding never counts), as sentence-transformers computes it.
///
/// `model_id()` is `"sentence-transformers/all-MiniLM-L6-v2"` unless
/// [`MiniLmEmbedder::with_model_id`] names another; `dimension()` is the
/// model's hidden size (384).
pub struct MiniLmEmbedder {
    model: BertModel,
    tokenizer: Tokenizer,
    device: Device,
    dim: usize,
    model_id: Option<String>,
    dir: PathBuf,
}

impl std::fmt::Debug for MiniLmEmbedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MiniLmEmbedder")
            .field("dir", &self.dir)
            .field("dim", &self.dim)
            .field("model_id", &self.model_id)
            .finish_non_exhaustive()
    }
}

impl MiniLmEmbedder {
    /// Load the model from `dir`, which holds `config.json` (a BERT config),
    /// `tokenizer.json` and `model.safetensors`, and optionally
    /// `sentence_bert_config.json` (its `max_seq_length` bounds the tokens per
    /// text; default [`MINILM_DEFAULT_MAX_TOKENS`]). The tokenizer's own padding
    /// and truncation settings are replaced: texts of a batch are padded to the
    /// longest and cut to `max_seq_length`.
    ///
    /// # Errors
    /// [`Error::Model`] naming the directory and the file that is missing or
    /// does not load.
    pub fn from_dir(dir: impl AsRef<Path>) -> Result<Self> {
        let dir = dir.as_ref();
        let fail = |message: String| Error::Model {
            model: dir.display().to_string(),
            message,
        };
        let read = |name: &str| {
            std::fs::read(dir.join(name)).map_err(|e| {
                fail(format!(
                    "expected {name} (config.json, tokenizer.json, model.safetensors), got: {e}"
                ))
            })
        };
        let config: Config = serde_json::from_slice(&read("config.json")?)
            .map_err(|e| fail(format!("config.json is not a BERT config: {e}")))?;
        let max_tokens = std::fs::read(dir.join("sentence_bert_config.json"))
            .ok()
            .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
            .and_then(|v| v.get("max_seq_length").and_then(serde_json::Value::as_u64))
            .and_then(|n| usize::try_from(n).ok())
            .unwrap_or(MINILM_DEFAULT_MAX_TOKENS)
            .min(config.max_position_embeddings);
        let mut tokenizer = Tokenizer::from_bytes(read("tokenizer.json")?)
            .map_err(|e| fail(format!("tokenizer.json does not load: {e}")))?;
        let pad_token = tokenizer
            .get_padding()
            .map_or_else(|| "[PAD]".to_owned(), |p| p.pad_token.clone());
        tokenizer
            .with_truncation(Some(TruncationParams {
                max_length: max_tokens,
                ..TruncationParams::default()
            }))
            .map_err(|e| fail(format!("cannot set truncation: {e}")))?;
        tokenizer.with_padding(Some(PaddingParams {
            strategy: PaddingStrategy::BatchLongest,
            pad_id: u32::try_from(config.pad_token_id).unwrap_or(0),
            pad_token,
            ..PaddingParams::default()
        }));
        let device = Device::Cpu;
        let vb = VarBuilder::from_buffered_safetensors(read("model.safetensors")?, DTYPE, &device)
            .map_err(|e| fail(format!("model.safetensors does not load: {e}")))?;
        let model = BertModel::load(vb, &config)
            .map_err(|e| fail(format!("model.safetensors is not this BERT: {e}")))?;
        Ok(MiniLmEmbedder {
            model,
            tokenizer,
            device,
            dim: config.hidden_size,
            model_id: Some(MINILM_MODEL_ID.to_owned()),
            dir: dir.to_path_buf(),
        })
    }

    /// The same model under the id `model_id` (what the pin records).
    #[must_use]
    pub fn with_model_id(mut self, model_id: impl Into<String>) -> Self {
        let id = model_id.into();
        self.model_id = Some(id.trim().to_owned()).filter(|m| !m.is_empty());
        self
    }

    /// Embed `texts`: one L2-normalized vector of `dimension` values per text,
    /// in input order.
    ///
    /// # Errors
    /// [`Error::Model`] when tokenization or the forward pass fails.
    pub fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>> {
        let mut out = Vec::with_capacity(texts.len());
        for chunk in texts.chunks(BATCH) {
            out.extend(self.embed_batch(chunk)?);
        }
        Ok(out)
    }

    fn embed_batch(&self, texts: &[String]) -> Result<Vec<Vec<f32>>> {
        let fail = |message: String| Error::Model {
            model: self.dir.display().to_string(),
            message,
        };
        let encodings = self
            .tokenizer
            .encode_batch(texts.to_vec(), true)
            .map_err(|e| fail(format!("tokenization failed: {e}")))?;
        let n = encodings.len();
        let len = encodings.first().map_or(0, |e| e.get_ids().len());
        let mut ids = Vec::with_capacity(n * len);
        let mut mask = Vec::with_capacity(n * len);
        for e in &encodings {
            ids.extend_from_slice(e.get_ids());
            mask.extend_from_slice(e.get_attention_mask());
        }
        let pooled = (|| -> candle_core::Result<Vec<Vec<f32>>> {
            let ids = Tensor::from_vec(ids, (n, len), &self.device)?;
            let mask = Tensor::from_vec(mask, (n, len), &self.device)?;
            let type_ids = ids.zeros_like()?;
            let hidden = self.model.forward(&ids, &type_ids, Some(&mask))?;
            // Masked mean over tokens: padding contributes nothing to the sum
            // and nothing to the count.
            let m = mask.to_dtype(DType::F32)?.unsqueeze(2)?;
            let summed = hidden.broadcast_mul(&m)?.sum(1)?;
            let counts = m.sum(1)?.clamp(1e-9, f32::MAX)?;
            let mean = summed.broadcast_div(&counts)?;
            let norms = mean.sqr()?.sum_keepdim(1)?.sqrt()?.clamp(1e-12, f32::MAX)?;
            mean.broadcast_div(&norms)?.to_vec2::<f32>()
        })()
        .map_err(|e| fail(format!("forward pass failed: {e}")))?;
        Ok(pooled)
    }
}

impl TextEmbedder for MiniLmEmbedder {
    fn embed_texts(&self, texts: &[String]) -> am_triples::Result<Vec<Vec<f32>>> {
        Ok(self.embed(texts)?)
    }

    fn model_id(&self) -> Option<String> {
        self.model_id.clone()
    }

    fn dimension(&self) -> Option<usize> {
        Some(self.dim)
    }
}
