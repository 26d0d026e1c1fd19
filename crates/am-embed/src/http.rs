//! The HTTP plumbing both remote embedders share: one blocking POST of a JSON
//! body, the mapping of transport failures and HTTP statuses onto [`Error`], and
//! the parsing of an OpenAI-shaped embeddings reply (`{"data": [{"index",
//! "embedding"}, ...], "model"?}`) back into input order.
//!
//! Spec: api.md "Embedders". The reply shape is the one AbstractMemory 0.3.2's
//! parsers accept (`embeddings.py`, `embeddings_openai_compat.py`), made strict:
//! a count, index or dimension that cannot be aligned is an error, never a guess.

use crate::error::{Error, Result};
use serde_json::Value;
use std::sync::OnceLock;
use std::time::Duration;

/// Default bound on one whole request (connect, send, headers and body): 30 s,
/// as the Python library's `timeout_s=30.0`.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// Longest body excerpt an HTTP status error quotes, in characters.
const MAX_DETAIL_CHARS: usize = 500;

/// One configured endpoint: URL, auth header and a blocking client.
///
/// The `reqwest` blocking client runs its own internal runtime: it must not be
/// created, used or dropped from inside an async runtime (tokio panics). Call
/// the embedders from plain threads, or via `spawn_blocking`.
#[derive(Debug)]
pub(crate) struct Endpoint {
    pub(crate) url: String,
    /// How errors name the target: the URL, plus the model when there is one.
    pub(crate) where_: String,
    bearer: Option<String>,
    timeout: Duration,
    client: reqwest::blocking::Client,
    /// A hint appended to 401 errors.
    unauthorized_hint: String,
}

impl Endpoint {
    /// Build the client. `url` is the full request URL.
    pub(crate) fn new(
        url: String,
        where_: String,
        bearer: Option<String>,
        timeout: Duration,
        unauthorized_hint: String,
    ) -> Result<Self> {
        if timeout.is_zero() {
            return Err(Error::Config(
                "timeout must be greater than zero, got 0s".into(),
            ));
        }
        if let Some(token) = &bearer
            && reqwest::header::HeaderValue::from_str(&format!("Bearer {token}")).is_err()
        {
            return Err(Error::Config(
                "the bearer token holds characters an HTTP header cannot carry".into(),
            ));
        }
        let client = reqwest::blocking::Client::builder()
            .timeout(timeout)
            .build()
            .map_err(|e| Error::Config(format!("cannot build the HTTP client: {e}")))?;
        Ok(Endpoint {
            url,
            where_,
            bearer,
            timeout,
            client,
            unauthorized_hint,
        })
    }

    /// POST `body` as JSON and return the reply parsed as JSON.
    ///
    /// # Errors
    /// [`Error::Connect`], [`Error::Timeout`], [`Error::Transport`],
    /// [`Error::Status`] or [`Error::MalformedJson`].
    pub(crate) fn post_json(&self, body: &Value) -> Result<Value> {
        let payload = serde_json::to_vec(body).map_err(|e| Error::Transport {
            where_: self.where_.clone(),
            message: format!("cannot serialize the request: {e}"),
        })?;
        let mut req = self
            .client
            .post(&self.url)
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(payload);
        if let Some(token) = &self.bearer {
            req = req.bearer_auth(token);
        }
        let resp = req.send().map_err(|e| self.transport_error(&e))?;
        let status = resp.status();
        let bytes = resp.bytes().map_err(|e| self.transport_error(&e))?;
        let text = String::from_utf8_lossy(&bytes);
        if !status.is_success() {
            return Err(Error::Status {
                where_: self.where_.clone(),
                status: status.as_u16(),
                message: status_detail(&text, status.canonical_reason()),
                hint: if status.as_u16() == 401 {
                    self.unauthorized_hint.clone()
                } else {
                    String::new()
                },
            });
        }
        serde_json::from_str(&text).map_err(|e| Error::MalformedJson {
            where_: self.where_.clone(),
            message: format!("{e} (body starts {:?})", excerpt(&text, 80)),
        })
    }

    fn transport_error(&self, e: &reqwest::Error) -> Error {
        if e.is_timeout() || has_timed_out_source(e) {
            return Error::Timeout {
                where_: self.where_.clone(),
                timeout: self.timeout,
            };
        }
        let message = error_chain(e);
        if e.is_connect() {
            Error::Connect {
                where_: self.where_.clone(),
                message,
            }
        } else {
            Error::Transport {
                where_: self.where_.clone(),
                message,
            }
        }
    }
}

/// Whether any error in the chain is an I/O timeout (reqwest does not always
/// flag a body read that ran out of time as `is_timeout`).
fn has_timed_out_source(e: &reqwest::Error) -> bool {
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        if let Some(io) = s.downcast_ref::<std::io::Error>()
            && io.kind() == std::io::ErrorKind::TimedOut
        {
            return true;
        }
        source = s.source();
    }
    false
}

/// The error and its causes, joined with `: `.
fn error_chain(e: &reqwest::Error) -> String {
    let mut out = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        out.push_str(": ");
        out.push_str(&s.to_string());
        source = s.source();
    }
    out
}

/// The first `n` characters of `s` (code points), with `…` when cut.
fn excerpt(s: &str, n: usize) -> String {
    let mut out: String = s.chars().take(n).collect();
    if s.chars().nth(n).is_some() {
        out.push('…');
    }
    out
}

/// The message a failed reply carries: OpenAI's `{"error":{"message":..}}`,
/// `{"error":".."}`, FastAPI's `{"detail":..}`, `{"message":..}`; else the
/// body text; else the reason phrase.
pub(crate) fn status_detail(body: &str, reason: Option<&str>) -> String {
    if let Ok(v) = serde_json::from_str::<Value>(body) {
        let candidates = [
            v.pointer("/error/message"),
            v.get("error"),
            v.get("detail"),
            v.get("message"),
        ];
        for c in candidates.into_iter().flatten() {
            match c {
                Value::String(s) if !s.trim().is_empty() => return s.trim().to_owned(),
                Value::Null | Value::Object(_) => {}
                other => return other.to_string(),
            }
        }
    }
    let body = body.trim();
    if body.is_empty() {
        reason.unwrap_or("no body").to_owned()
    } else {
        excerpt(body, MAX_DETAIL_CHARS)
    }
}

/// A parsed embeddings reply: vectors in input order, and the model it names.
#[derive(Debug)]
pub(crate) struct Reply {
    pub(crate) vectors: Vec<Vec<f32>>,
    pub(crate) model: Option<String>,
}

/// Parse an OpenAI-shaped reply to `expected` inputs and put it in input order.
///
/// A row's `index` places it; a row without one takes its position in `data`.
///
/// # Errors
/// [`Error::MalformedResponse`], [`Error::WrongCount`], [`Error::NonFinite`].
pub(crate) fn parse_reply(v: &Value, expected: usize, where_: &str) -> Result<Reply> {
    let malformed = |message: String| Error::MalformedResponse {
        where_: where_.to_owned(),
        message,
    };
    let Some(rows) = v.get("data").and_then(Value::as_array) else {
        return Err(malformed(format!(
            "expected an object with a 'data' list, got {}",
            excerpt(&v.to_string(), 120)
        )));
    };
    if rows.len() != expected {
        return Err(Error::WrongCount {
            where_: where_.to_owned(),
            expected,
            got: rows.len(),
        });
    }
    let mut slots: Vec<Option<Vec<f32>>> = vec![None; expected];
    for (pos, row) in rows.iter().enumerate() {
        let index = match row.get("index") {
            None | Some(Value::Null) => pos,
            Some(i) => match i.as_u64() {
                Some(i) if (i as usize) < expected => i as usize,
                _ => {
                    return Err(malformed(format!(
                        "row {pos}: expected an 'index' in 0..{expected}, got {i}"
                    )));
                }
            },
        };
        let Some(values) = row.get("embedding").and_then(Value::as_array) else {
            return Err(malformed(format!(
                "row {pos}: expected an 'embedding' list of numbers, got {}",
                row.get("embedding")
                    .map_or("nothing".to_owned(), |e| excerpt(&e.to_string(), 60))
            )));
        };
        if values.is_empty() {
            return Err(malformed(format!(
                "row {pos}: expected a non-empty 'embedding', got []"
            )));
        }
        let mut vector = Vec::with_capacity(values.len());
        for (position, x) in values.iter().enumerate() {
            let Some(x) = x.as_f64() else {
                return Err(malformed(format!(
                    "row {pos}: expected a number at position {position} of 'embedding', got {x}"
                )));
            };
            // Vectors are stored as f32; `as` saturates to infinity beyond f32's
            // range, and such a value is refused rather than stored.
            let y = x as f32;
            if !y.is_finite() {
                return Err(Error::NonFinite {
                    where_: where_.to_owned(),
                    index,
                    position,
                    value: x,
                });
            }
            vector.push(y);
        }
        if slots[index].replace(vector).is_some() {
            return Err(malformed(format!(
                "row {pos}: index {index} appears twice — cannot align results to texts"
            )));
        }
    }
    // Every slot is filled: `expected` rows, distinct indices, all in range.
    let vectors = slots.into_iter().flatten().collect();
    let model = v
        .get("model")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|m| !m.is_empty())
        .map(str::to_owned);
    Ok(Reply { vectors, model })
}

/// The dimension one embedder has answered with, and the check that keeps it one
/// embedding space: every vector of a call, and of every later call, has the
/// declared dimension or, without one, the dimension of the first reply.
#[derive(Debug, Default)]
pub(crate) struct SpaceGuard {
    declared: Option<usize>,
    observed: OnceLock<usize>,
}

impl SpaceGuard {
    pub(crate) fn new(declared: Option<usize>) -> Self {
        SpaceGuard {
            declared,
            observed: OnceLock::new(),
        }
    }

    /// The declared dimension, else the one observed in the first reply.
    pub(crate) fn dimension(&self) -> Option<usize> {
        self.declared.or_else(|| self.observed.get().copied())
    }

    /// Check one call's vectors (all chunks, in input order); remember the
    /// dimension when it is the first.
    ///
    /// # Errors
    /// [`Error::InconsistentDimension`].
    pub(crate) fn check(&self, vectors: &[Vec<f32>], where_: &str) -> Result<()> {
        let (expected, basis) = match (self.declared, self.observed.get()) {
            (Some(d), _) => (d, "declared"),
            (None, Some(d)) => (*d, "earlier replies"),
            (None, None) => match vectors.first() {
                Some(v) => (v.len(), "input 0 of this call"),
                None => return Ok(()),
            },
        };
        if let Some((index, v)) = vectors
            .iter()
            .enumerate()
            .find(|(_, v)| v.len() != expected)
        {
            return Err(Error::InconsistentDimension {
                where_: where_.to_owned(),
                expected,
                basis: basis.to_owned(),
                got: v.len(),
                index,
            });
        }
        let _ = self.observed.set(expected);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn status_detail_prefers_the_bodys_own_message() {
        let openai =
            r#"{"error":{"message":"model 'x' not found","type":"invalid_request_error"}}"#;
        assert_eq!(
            status_detail(openai, Some("Bad Request")),
            "model 'x' not found"
        );
        assert_eq!(
            status_detail(r#"{"detail":"Unauthorized"}"#, None),
            "Unauthorized"
        );
        assert_eq!(status_detail(r#"{"error":"boom"}"#, None), "boom");
        assert_eq!(status_detail("plain text", None), "plain text");
        assert_eq!(status_detail("", Some("Bad Gateway")), "Bad Gateway");
    }

    #[test]
    fn parse_reply_refuses_an_index_out_of_range() {
        let v = json!({"data": [{"index": 5, "embedding": [1.0]}]});
        let e = parse_reply(&v, 1, "u").unwrap_err();
        assert!(matches!(e, Error::MalformedResponse { .. }), "{e}");
    }

    #[test]
    fn parse_reply_refuses_a_repeated_index() {
        let v =
            json!({"data": [{"index": 0, "embedding": [1.0]}, {"index": 0, "embedding": [2.0]}]});
        let e = parse_reply(&v, 2, "u").unwrap_err();
        assert!(e.to_string().contains("appears twice"), "{e}");
    }

    #[test]
    fn parse_reply_places_rows_without_index_by_position() {
        let v = json!({"data": [{"embedding": [1.0]}, {"embedding": [2.0]}], "model": "m"});
        let r = parse_reply(&v, 2, "u").unwrap();
        assert_eq!(r.vectors, vec![vec![1.0], vec![2.0]]);
        assert_eq!(r.model.as_deref(), Some("m"));
    }

    #[test]
    fn parse_reply_refuses_non_numeric_and_empty_embeddings() {
        let v = json!({"data": [{"embedding": ["a"]}]});
        assert!(matches!(
            parse_reply(&v, 1, "u").unwrap_err(),
            Error::MalformedResponse { .. }
        ));
        let v = json!({"data": [{"embedding": []}]});
        assert!(matches!(
            parse_reply(&v, 1, "u").unwrap_err(),
            Error::MalformedResponse { .. }
        ));
    }

    #[test]
    fn space_guard_holds_the_first_dimension_across_calls() {
        let g = SpaceGuard::new(None);
        assert_eq!(g.dimension(), None);
        g.check(&[vec![1.0, 2.0]], "u").unwrap();
        assert_eq!(g.dimension(), Some(2));
        let e = g.check(&[vec![1.0, 2.0, 3.0]], "u").unwrap_err();
        assert!(matches!(
            e,
            Error::InconsistentDimension {
                expected: 2,
                got: 3,
                ..
            }
        ));
    }
}
