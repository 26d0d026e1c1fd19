//! The `--embedder` spec: `offline` (the bundled potion-base-2M), `none`,
//! `openai:<base_url>#<model>` (an OpenAI-compatible `/embeddings` server) or
//! `gateway:<base_url>` (an AbstractGateway).

use crate::error::{CliError, CliResult};
use am_triples::TextEmbedder;
use std::sync::Arc;

/// A parsed `--embedder` value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EmbedderSpec {
    /// No embedder: no vector channel.
    None,
    /// The bundled offline model.
    Offline,
    /// An OpenAI-compatible server and model.
    OpenAi {
        /// The server's base URL.
        base_url: String,
        /// The model name.
        model: String,
    },
    /// An AbstractGateway.
    Gateway {
        /// The gateway's base URL.
        base_url: String,
    },
}

const EXPECTED: &str = "expected offline, none, openai:<base_url>#<model> or gateway:<base_url>";

impl EmbedderSpec {
    /// Parse a spec.
    ///
    /// # Errors
    /// Bad input naming the accepted forms and what arrived.
    pub fn parse(spec: &str) -> CliResult<Self> {
        let s = spec.trim();
        match s {
            "none" => return Ok(EmbedderSpec::None),
            "offline" => return Ok(EmbedderSpec::Offline),
            _ => {}
        }
        if let Some(rest) = s.strip_prefix("openai:") {
            let Some((url, model)) = rest.split_once('#') else {
                return Err(CliError::invalid(format!(
                    "--embedder {spec:?}: an openai spec needs a model after '#': {EXPECTED}"
                )));
            };
            let (url, model) = (url.trim(), model.trim());
            if !is_http_url(url) || model.is_empty() {
                return Err(CliError::invalid(format!(
                    "--embedder {spec:?}: expected openai:<http(s) base_url>#<non-empty model>"
                )));
            }
            return Ok(EmbedderSpec::OpenAi {
                base_url: url.to_owned(),
                model: model.to_owned(),
            });
        }
        if let Some(url) = s.strip_prefix("gateway:") {
            let url = url.trim();
            if !is_http_url(url) {
                return Err(CliError::invalid(format!(
                    "--embedder {spec:?}: expected gateway:<http(s) base_url>"
                )));
            }
            return Ok(EmbedderSpec::Gateway {
                base_url: url.to_owned(),
            });
        }
        Err(CliError::invalid(format!(
            "unknown --embedder {spec:?}: {EXPECTED}"
        )))
    }

    /// Build the embedder (`None` for `none`).
    ///
    /// # Errors
    /// The embedder's construction error.
    pub fn build(&self) -> CliResult<Option<Arc<dyn TextEmbedder>>> {
        Ok(match self {
            EmbedderSpec::None => None,
            EmbedderSpec::Offline => Some(Arc::new(am_embed::OfflineEmbedder::new()?)),
            EmbedderSpec::OpenAi { base_url, model } => Some(Arc::new(
                am_embed::OpenAICompatTextEmbedder::new(base_url.clone(), model.clone())?,
            )),
            EmbedderSpec::Gateway { base_url } => Some(Arc::new(
                am_embed::AbstractGatewayTextEmbedder::new(base_url.clone())?,
            )),
        })
    }
}

fn is_http_url(url: &str) -> bool {
    let rest = url
        .strip_prefix("http://")
        .or_else(|| url.strip_prefix("https://"));
    rest.is_some_and(|r| !r.is_empty() && !r.starts_with('/'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_spec_form_parses_and_garbage_is_refused() {
        assert_eq!(EmbedderSpec::parse("none").unwrap(), EmbedderSpec::None);
        assert_eq!(
            EmbedderSpec::parse("offline").unwrap(),
            EmbedderSpec::Offline
        );
        assert_eq!(
            EmbedderSpec::parse("openai:http://127.0.0.1:9/v1#m").unwrap(),
            EmbedderSpec::OpenAi {
                base_url: "http://127.0.0.1:9/v1".into(),
                model: "m".into()
            }
        );
        assert!(matches!(
            EmbedderSpec::parse("gateway:https://gw.example").unwrap(),
            EmbedderSpec::Gateway { .. }
        ));
        for bad in [
            "",
            "bert",
            "openai:http://x",
            "openai:ftp://x#m",
            "gateway:",
            "openai:http://x#",
        ] {
            let e = EmbedderSpec::parse(bad).unwrap_err();
            assert_eq!(e.code, 2, "{bad}");
            assert!(e.message.contains("expected"), "{}", e.message);
        }
    }
}
