//! `OpenAICompatTextEmbedder`: any server that speaks OpenAI's `/embeddings`
//! shape (LM Studio, Ollama, vLLM, OpenAI).
//!
//! Spec: api.md "Embedders"; getting-started §5 ("Embedder options").

use crate::error::{Error, Result};
use crate::http::{DEFAULT_TIMEOUT, Endpoint, SpaceGuard, parse_reply};
use am_triples::TextEmbedder;
use serde_json::json;
use std::time::Duration;

/// Default number of inputs per POST (the Python library's `batch_size=64`).
pub const DEFAULT_BATCH_SIZE: usize = 64;

/// Text embedder for OpenAI-compatible `/embeddings` endpoints.
///
/// Each call POSTs `{"model": <model>, "input": [<texts>]}` to
/// `{base_url}/embeddings`, in chunks of at most `batch_size` inputs, and
/// returns one `f32` vector per text in input order: within a chunk each reply
/// row is placed by its `index`, and chunks are concatenated in request order.
/// Every vector of every reply must have the same dimension (the declared one,
/// else the first reply's); anything that cannot be aligned is an error and the
/// call returns no vectors at all.
///
/// `model_id()` is the `model` passed in (a claim the server is not asked to
/// confirm); `dimension()` is the declared dimension, else the one observed in
/// the first successful reply, else `None`.
///
/// The HTTP client is `reqwest`'s blocking client (rustls, no OpenSSL). It runs
/// its own runtime: do not build, call or drop this embedder inside an async
/// runtime (tokio panics); use a plain thread or `spawn_blocking`.
///
/// # Examples
/// ```no_run
/// use am_embed::OpenAICompatTextEmbedder;
/// use am_triples::TextEmbedder;
/// use std::time::Duration;
/// let embedder = OpenAICompatTextEmbedder::builder(
///     "http://127.0.0.1:1234/v1",
///     "text-embedding-qwen3-embedding-0.6b",
/// )
/// .timeout(Duration::from_secs(10))
/// .batch_size(32)
/// .build()?;
/// let vectors = embedder.embed(&["who is scrooge".to_owned()])?;
/// assert_eq!(vectors.len(), 1);
/// # Ok::<(), am_embed::Error>(())
/// ```
#[derive(Debug)]
pub struct OpenAICompatTextEmbedder {
    endpoint: Endpoint,
    model: String,
    batch_size: usize,
    space: SpaceGuard,
}

/// Options for [`OpenAICompatTextEmbedder`]; see [`OpenAICompatTextEmbedder::builder`].
#[derive(Debug, Clone)]
#[must_use]
pub struct OpenAICompatBuilder {
    base_url: String,
    model: String,
    api_key: Option<String>,
    unauthorized_hint: Option<String>,
    timeout: Duration,
    batch_size: usize,
    dimension: Option<usize>,
}

impl OpenAICompatBuilder {
    /// Send `Authorization: Bearer <key>` (blank keys send nothing).
    pub fn api_key(mut self, key: impl Into<String>) -> Self {
        self.api_key = Some(key.into());
        self
    }

    /// What a 401 reply's error adds (default: pass `api_key`): a front end
    /// names its own way to give the key (`am`'s `--embedder-key-env`).
    pub fn unauthorized_hint(mut self, hint: impl Into<String>) -> Self {
        self.unauthorized_hint = Some(hint.into());
        self
    }

    /// Bound on each whole request (connect, send, headers, body); default 30 s.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Most inputs per POST; default 64; must be at least 1.
    pub fn batch_size(mut self, batch_size: usize) -> Self {
        self.batch_size = batch_size;
        self
    }

    /// Declare the vector dimension the model produces, so `dimension()` is
    /// known before any request (stores check it against their pin at open)
    /// and every reply is held to it. Nothing is sent to the server.
    pub fn dimension(mut self, dimension: usize) -> Self {
        self.dimension = Some(dimension);
        self
    }

    /// Validate the options and build the HTTP client.
    ///
    /// # Errors
    /// [`Error::Config`] for a blank `base_url` or `model`, `batch_size` 0,
    /// a declared dimension 0, a zero timeout, or an API key that cannot be a
    /// header value.
    pub fn build(self) -> Result<OpenAICompatTextEmbedder> {
        let root = self.base_url.trim().trim_end_matches('/');
        if root.is_empty() {
            return Err(Error::Config(
                "base_url is required (e.g. http://127.0.0.1:1234/v1), got a blank one".into(),
            ));
        }
        let model = self.model.trim();
        if model.is_empty() {
            return Err(Error::Config(
                "model is required: OpenAI-compatible servers embed with an explicit model id \
                 (e.g. 'text-embedding-qwen3-embedding-0.6b' on LM Studio), got a blank one"
                    .into(),
            ));
        }
        if self.batch_size == 0 {
            return Err(Error::Config("batch_size must be >= 1, got 0".into()));
        }
        if self.dimension == Some(0) {
            return Err(Error::Config("dimension must be >= 1, got 0".into()));
        }
        let url = format!("{root}/embeddings");
        let where_ = format!("{url} (model {model:?})");
        let bearer = self
            .api_key
            .map(|k| k.trim().to_owned())
            .filter(|k| !k.is_empty());
        let endpoint = Endpoint::new(
            url,
            where_,
            bearer,
            self.timeout,
            self.unauthorized_hint
                .unwrap_or_else(|| " (the server wants an API key: pass api_key)".to_owned()),
        )?;
        Ok(OpenAICompatTextEmbedder {
            endpoint,
            model: model.to_owned(),
            batch_size: self.batch_size,
            space: SpaceGuard::new(self.dimension),
        })
    }
}

impl OpenAICompatTextEmbedder {
    /// Options for an embedder of `model` at `base_url` (the API root including
    /// its version prefix, e.g. `http://127.0.0.1:1234/v1`; `/embeddings` is
    /// appended).
    pub fn builder(base_url: impl Into<String>, model: impl Into<String>) -> OpenAICompatBuilder {
        OpenAICompatBuilder {
            base_url: base_url.into(),
            model: model.into(),
            api_key: None,
            unauthorized_hint: None,
            timeout: DEFAULT_TIMEOUT,
            batch_size: DEFAULT_BATCH_SIZE,
            dimension: None,
        }
    }

    /// An embedder with the default options (no API key, 30 s, batches of 64).
    ///
    /// # Errors
    /// See [`OpenAICompatBuilder::build`].
    pub fn new(base_url: impl Into<String>, model: impl Into<String>) -> Result<Self> {
        Self::builder(base_url, model).build()
    }

    /// The model id sent with every request.
    pub fn model(&self) -> &str {
        &self.model
    }

    /// The full request URL (`{base_url}/embeddings`).
    pub fn url(&self) -> &str {
        &self.endpoint.url
    }

    /// Embed `texts`: one vector per text, in input order, all of one dimension.
    /// An empty slice returns an empty list without a request.
    ///
    /// # Errors
    /// Any [`Error`] variant but `Config` and `Model`; on error no vector is
    /// returned, even when earlier chunks succeeded.
    pub fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>> {
        let mut out = Vec::with_capacity(texts.len());
        for chunk in texts.chunks(self.batch_size) {
            let body = json!({"model": self.model, "input": chunk});
            let reply = self.endpoint.post_json(&body)?;
            let parsed = parse_reply(&reply, chunk.len(), &self.endpoint.where_)?;
            out.extend(parsed.vectors);
        }
        self.space.check(&out, &self.endpoint.where_)?;
        Ok(out)
    }
}

impl TextEmbedder for OpenAICompatTextEmbedder {
    fn embed_texts(&self, texts: &[String]) -> am_triples::Result<Vec<Vec<f32>>> {
        Ok(self.embed(texts)?)
    }

    fn model_id(&self) -> Option<String> {
        Some(self.model.clone())
    }

    fn dimension(&self) -> Option<usize> {
        self.space.dimension()
    }
}
