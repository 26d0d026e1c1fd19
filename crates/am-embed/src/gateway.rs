//! `AbstractGatewayTextEmbedder`: an AbstractGateway deployment's embeddings
//! endpoint (the gateway picks the model; one gateway is one embedding space).
//!
//! Spec: api.md "Embedders"; FAQ "What embedding interface do I need to implement?".

use crate::error::{Error, Result};
use crate::http::{DEFAULT_TIMEOUT, Endpoint, SpaceGuard, parse_reply};
use am_triples::TextEmbedder;
use serde_json::json;
use std::sync::OnceLock;
use std::time::Duration;

/// Default endpoint path under the gateway's base URL.
pub const DEFAULT_GATEWAY_PATH: &str = "/api/gateway/embeddings";

/// Hint appended to a 401 reply, as the Python library's.
const UNAUTHORIZED_HINT: &str = " (set ABSTRACTGATEWAY_AUTH_TOKEN / ABSTRACTFLOW_GATEWAY_AUTH_TOKEN \
     for the caller process, or pass auth_token)";

/// Text embedder that calls AbstractGateway's embeddings API.
///
/// Each call POSTs `{"input": [<texts>]}` (one request per call; the gateway
/// batches) to `{base_url}{path}`, with `Authorization: Bearer <auth_token>`
/// when a token is set, and reads an OpenAI-shaped reply (`{"data": [{"index",
/// "embedding"}, ...]}`, optionally `"model"`), placing rows by `index`.
/// Replies are held to the same discipline as
/// [`crate::OpenAICompatTextEmbedder`]'s: one vector per input, one dimension,
/// finite values, or an error and no vectors.
///
/// `model_id()` is the declared model (see [`AbstractGatewayBuilder::model_id`]),
/// else the `model` the first successful reply names, else `None` (the gateway
/// chooses its model; the Python library never learns it). `dimension()` is the
/// declared dimension, else the first reply's.
///
/// Uses `reqwest`'s blocking client: do not build, call or drop it inside an
/// async runtime.
///
/// # Examples
/// ```no_run
/// use am_embed::AbstractGatewayTextEmbedder;
/// let embedder = AbstractGatewayTextEmbedder::builder("http://127.0.0.1:8080")
///     .auth_token("secret")
///     .build()?;
/// let vectors = embedder.embed(&["who is scrooge".to_owned()])?;
/// # Ok::<(), am_embed::Error>(())
/// ```
#[derive(Debug)]
pub struct AbstractGatewayTextEmbedder {
    endpoint: Endpoint,
    declared_model: Option<String>,
    served_model: OnceLock<String>,
    space: SpaceGuard,
}

/// Options for [`AbstractGatewayTextEmbedder`]; see
/// [`AbstractGatewayTextEmbedder::builder`].
#[derive(Debug, Clone)]
#[must_use]
pub struct AbstractGatewayBuilder {
    base_url: String,
    auth_token: Option<String>,
    unauthorized_hint: Option<String>,
    path: String,
    timeout: Duration,
    model_id: Option<String>,
    dimension: Option<usize>,
}

impl AbstractGatewayBuilder {
    /// What a 401 reply's error adds (default: the Python library's hint
    /// naming its environment variables and `auth_token`).
    pub fn unauthorized_hint(mut self, hint: impl Into<String>) -> Self {
        self.unauthorized_hint = Some(hint.into());
        self
    }

    /// Send `Authorization: Bearer <token>` (blank tokens send nothing).
    pub fn auth_token(mut self, token: impl Into<String>) -> Self {
        self.auth_token = Some(token.into());
        self
    }

    /// Endpoint path under the base URL; default `/api/gateway/embeddings`
    /// (a missing leading `/` is added).
    pub fn path(mut self, path: impl Into<String>) -> Self {
        self.path = path.into();
        self
    }

    /// Bound on the whole request (connect, send, headers, body); default 30 s.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Declare the model the gateway serves (operator knowledge), so
    /// `model_id()` is known before any request and stores can check it
    /// against their pin at open.
    pub fn model_id(mut self, model_id: impl Into<String>) -> Self {
        self.model_id = Some(model_id.into());
        self
    }

    /// Declare the vector dimension; every reply is held to it.
    pub fn dimension(mut self, dimension: usize) -> Self {
        self.dimension = Some(dimension);
        self
    }

    /// Validate the options and build the HTTP client.
    ///
    /// # Errors
    /// [`Error::Config`] for a blank `base_url` or `path`, a zero timeout or
    /// dimension, or a token that cannot be a header value.
    pub fn build(self) -> Result<AbstractGatewayTextEmbedder> {
        let root = self.base_url.trim().trim_end_matches('/');
        if root.is_empty() {
            return Err(Error::Config(
                "base_url is required (e.g. http://127.0.0.1:8080), got a blank one".into(),
            ));
        }
        let path = self.path.trim();
        if path.is_empty() {
            return Err(Error::Config(format!(
                "path is required (default {DEFAULT_GATEWAY_PATH:?}), got a blank one"
            )));
        }
        if self.dimension == Some(0) {
            return Err(Error::Config("dimension must be >= 1, got 0".into()));
        }
        let url = if path.starts_with('/') {
            format!("{root}{path}")
        } else {
            format!("{root}/{path}")
        };
        let bearer = self
            .auth_token
            .map(|t| t.trim().to_owned())
            .filter(|t| !t.is_empty());
        let hint = self
            .unauthorized_hint
            .unwrap_or_else(|| UNAUTHORIZED_HINT.to_owned());
        let endpoint = Endpoint::new(url.clone(), url, bearer, self.timeout, hint)?;
        Ok(AbstractGatewayTextEmbedder {
            endpoint,
            declared_model: self
                .model_id
                .map(|m| m.trim().to_owned())
                .filter(|m| !m.is_empty()),
            served_model: OnceLock::new(),
            space: SpaceGuard::new(self.dimension),
        })
    }
}

impl AbstractGatewayTextEmbedder {
    /// Options for a gateway at `base_url` (e.g. `http://127.0.0.1:8080`).
    pub fn builder(base_url: impl Into<String>) -> AbstractGatewayBuilder {
        AbstractGatewayBuilder {
            base_url: base_url.into(),
            auth_token: None,
            unauthorized_hint: None,
            path: DEFAULT_GATEWAY_PATH.to_owned(),
            timeout: DEFAULT_TIMEOUT,
            model_id: None,
            dimension: None,
        }
    }

    /// A gateway embedder with the default options (no token, default path, 30 s).
    ///
    /// # Errors
    /// See [`AbstractGatewayBuilder::build`].
    pub fn new(base_url: impl Into<String>) -> Result<Self> {
        Self::builder(base_url).build()
    }

    /// The full request URL (`{base_url}{path}`).
    pub fn url(&self) -> &str {
        &self.endpoint.url
    }

    /// Embed `texts`: one vector per text, in input order, all of one dimension.
    /// An empty slice returns an empty list without a request.
    ///
    /// # Errors
    /// Any [`Error`] variant but `Config` and `Model`.
    pub fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let reply = self.endpoint.post_json(&json!({"input": texts}))?;
        let parsed = parse_reply(&reply, texts.len(), &self.endpoint.where_)?;
        self.space.check(&parsed.vectors, &self.endpoint.where_)?;
        if let Some(model) = parsed.model {
            let _ = self.served_model.set(model);
        }
        Ok(parsed.vectors)
    }
}

impl TextEmbedder for AbstractGatewayTextEmbedder {
    fn embed_texts(&self, texts: &[String]) -> am_triples::Result<Vec<Vec<f32>>> {
        Ok(self.embed(texts)?)
    }

    fn model_id(&self) -> Option<String> {
        self.declared_model
            .clone()
            .or_else(|| self.served_model.get().cloned())
    }

    fn dimension(&self) -> Option<usize> {
        self.space.dimension()
    }
}
