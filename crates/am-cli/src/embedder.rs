//! The `--embedder` spec: `offline` (the bundled potion-base-2M), `none`,
//! `openai:<base_url>#<model>` (an OpenAI-compatible `/embeddings` server) or
//! `gateway:<base_url>` (an AbstractGateway), and with the `minilm` feature
//! `minilm:<model dir>` (all-MiniLM-L6-v2 through candle).

use crate::error::{CliError, CliResult};
use am_triples::{EmbeddingPin, TextEmbedder};
use std::path::Path;
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
    /// all-MiniLM-L6-v2 from a model directory (feature `minilm`).
    MiniLm {
        /// The model directory.
        dir: String,
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
        if let Some(dir) = s.strip_prefix("minilm:") {
            let dir = dir.trim();
            if dir.is_empty() || !cfg!(feature = "minilm") {
                return Err(CliError::invalid(format!(
                    "--embedder {spec:?}: expected minilm:<model directory>, in an am built with --features minilm"
                )));
            }
            return Ok(EmbedderSpec::MiniLm {
                dir: dir.to_owned(),
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
        self.build_keyed(None)
    }

    /// The environment variable a served embedder's key is read from when
    /// `--embedder-key-env` names none: `OPENAI_API_KEY` for `openai:`,
    /// `ABSTRACTGATEWAY_AUTH_TOKEN` for `gateway:` (the Python library's).
    pub fn key_env_default(&self) -> Option<&'static str> {
        match self {
            EmbedderSpec::OpenAi { .. } => Some("OPENAI_API_KEY"),
            EmbedderSpec::Gateway { .. } => Some("ABSTRACTGATEWAY_AUTH_TOKEN"),
            _ => None,
        }
    }

    /// [`EmbedderSpec::build`], a served embedder sending the key held by
    /// the environment variable `key_env` (default
    /// [`EmbedderSpec::key_env_default`]); a 401 names that variable and the
    /// flag. The key never travels on the command line.
    ///
    /// # Errors
    /// As [`EmbedderSpec::build`].
    pub fn build_keyed(&self, key_env: Option<&str>) -> CliResult<Option<Arc<dyn TextEmbedder>>> {
        let var = key_env
            .map(str::to_owned)
            .or_else(|| self.key_env_default().map(str::to_owned))
            .unwrap_or_default();
        let key = std::env::var(&var).ok().filter(|k| !k.trim().is_empty());
        let hint = if key.is_some() {
            format!(
                " (the server rejected the key in the environment variable {var}; \
                 --embedder-key-env NAME reads it from another; the key never goes on the command line)"
            )
        } else {
            format!(
                " (the server wants a key: put it in the environment variable {var}, which is not set, \
                 or name another with --embedder-key-env NAME; the key never goes on the command line)"
            )
        };
        Ok(match self {
            EmbedderSpec::None => None,
            EmbedderSpec::Offline => Some(Arc::new(am_embed::OfflineEmbedder::new()?)),
            EmbedderSpec::OpenAi { base_url, model } => {
                let mut b =
                    am_embed::OpenAICompatTextEmbedder::builder(base_url.clone(), model.clone())
                        .unauthorized_hint(hint);
                if let Some(k) = key {
                    b = b.api_key(k);
                }
                Some(Arc::new(b.build()?))
            }
            EmbedderSpec::Gateway { base_url } => {
                let mut b = am_embed::AbstractGatewayTextEmbedder::builder(base_url.clone())
                    .unauthorized_hint(hint);
                if let Some(k) = key {
                    b = b.auth_token(k);
                }
                Some(Arc::new(b.build()?))
            }
            #[cfg(feature = "minilm")]
            EmbedderSpec::MiniLm { dir } => {
                Some(Arc::new(am_embed::MiniLmEmbedder::from_dir(dir)?))
            }
            #[cfg(not(feature = "minilm"))]
            EmbedderSpec::MiniLm { dir } => {
                return Err(CliError::invalid(format!(
                    "--embedder minilm:{dir}: this am was built without the minilm feature"
                )));
            }
        })
    }
}

/// Whether the bundled offline model can serve a home pinned to `pin`.
fn offline_serves(pin: &EmbeddingPin) -> bool {
    pin.model_id
        .as_deref()
        .is_none_or(|m| m == am_embed::POTION_BASE_2M_MODEL_ID)
        && pin
            .dimension
            .is_none_or(|d| d == am_embed::POTION_BASE_2M_DIMENSION)
}

/// The `--embedder` that serves a pinned home, as the user would type it.
fn pinned_spec_hint(pin: &EmbeddingPin) -> String {
    if offline_serves(pin) {
        "--embedder offline (or no --embedder)".to_owned()
    } else {
        format!(
            "--embedder openai:<base_url>#{} (or gateway:<base_url> serving it)",
            pin.model_id.as_deref().unwrap_or("<model>")
        )
    }
}

/// The embedder a command runs with on a home whose stored pin is `pin`.
///
/// Without `--embedder` (`cli` is `None`): a pinned home gets its pinned
/// embedder when `am` can build it alone (the bundled offline model), and a
/// home pinned to a served model is refused naming the flag to pass; an
/// unpinned or new home gets `default`. An explicit `--embedder none` on a
/// pinned home is refused for a command that `writes` (its rows would have
/// no vector, invisible to the vector channel) unless `allow_vectorless`; an
/// explicit embedder whose model contradicts the pin is refused naming the
/// pin (this port has no re-embed command).
///
/// # Errors
/// Bad input as described, or a malformed spec.
pub fn resolve(
    cli: Option<&str>,
    default: &str,
    pin: Option<&EmbeddingPin>,
    writes: bool,
    allow_vectorless: bool,
    home: &Path,
) -> CliResult<EmbedderSpec> {
    let note = EmbeddingPin::note(pin);
    let Some(value) = cli else {
        return match pin {
            Some(p) if offline_serves(p) => Ok(EmbedderSpec::Offline),
            Some(p) => Err(CliError::invalid(format!(
                "--home {} is pinned to {note}, which am cannot embed with by itself: pass {}",
                home.display(),
                pinned_spec_hint(p)
            ))),
            None => EmbedderSpec::parse(default),
        };
    };
    let spec = EmbedderSpec::parse(value)?;
    let Some(p) = pin else { return Ok(spec) };
    let clash = match &spec {
        EmbedderSpec::None => {
            if writes && !allow_vectorless {
                return Err(CliError::invalid(format!(
                    "--home {} is pinned to {note}: --embedder none would write rows without vectors, which \
                     the vector channel never finds. Pass {}, or --allow-vectorless to write them anyway",
                    home.display(),
                    pinned_spec_hint(p)
                )));
            }
            None
        }
        EmbedderSpec::Offline => (!offline_serves(p)).then(|| {
            format!(
                "{}@{}d",
                am_embed::POTION_BASE_2M_MODEL_ID,
                am_embed::POTION_BASE_2M_DIMENSION
            )
        }),
        EmbedderSpec::OpenAi { model, .. } => p
            .model_id
            .as_deref()
            .is_some_and(|m| m != model)
            .then(|| model.clone()),
        // The store refuses an embedder contradicting its pin at open.
        EmbedderSpec::Gateway { .. } | EmbedderSpec::MiniLm { .. } => None,
    };
    if let Some(theirs) = clash {
        return Err(CliError::invalid(format!(
            "--home {} is pinned to {note}, but --embedder {value} embeds with {theirs}, another embedding \
             space (one home is one space). Pass {}; am has no re-embed command, so a home moves to another \
             model only by ingesting its conversations into a new home",
            home.display(),
            pinned_spec_hint(p)
        )));
    }
    Ok(spec)
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
