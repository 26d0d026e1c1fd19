//! Embedders for AbstractMemory: [`OpenAICompatTextEmbedder`],
//! [`AbstractGatewayTextEmbedder`] and the offline default [`OfflineEmbedder`]
//! (potion-base-2M, compiled into the binary), and with the cargo feature
//! `minilm` the `MiniLmEmbedder` (all-MiniLM-L6-v2 through candle, loaded from a
//! directory the user names), each implementing
//! [`am_triples::TextEmbedder`] and reporting its model id and dimension so
//! stores pin the embedding space at creation.
//!
//! Each embedder also has an inherent `embed` returning this crate's typed
//! [`Error`]; through the trait the error becomes an [`am_triples::Error`] of kind
//! `Embedder`, `Timeout` or `InvalidInput` (see [`Error::kind`]).
//!
//! The HTTP embedders use `reqwest`'s blocking client (rustls, no OpenSSL): build,
//! call and drop them outside any async runtime.
//!
//! Spec: api.md "Embedders"; getting-started §3 and §5; stores.md
//! "Embedding-space pin"; troubleshooting "Embedding spaces"; FAQ "What embedding
//! interface do I need to implement?".
//!
//! # Examples
//! ```
//! use am_embed::OfflineEmbedder;
//! use am_triples::{InMemoryTripleStore, TripleAssertion, TripleQuery, TripleStore, build_pin};
//! use std::sync::Arc;
//! let embedder = Arc::new(OfflineEmbedder::new()?);
//! let pin = build_pin(Some("minishlab/potion-base-2M"), Some(64), "creation", None)?;
//! let store = InMemoryTripleStore::with_pin(Some(embedder), pin)?;
//! store.add(&[TripleAssertion::new("scrooge", "is", "a miser")])?;
//! let q = TripleQuery { query_text: Some("stingy old man".into()), ..TripleQuery::default() };
//! assert_eq!(store.query(&q)?.len(), 1);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod error;
pub mod gateway;
mod http;
#[cfg(feature = "minilm")]
pub mod minilm;
pub mod offline;
pub mod openai;

pub use error::{Error, Result};
pub use gateway::{AbstractGatewayBuilder, AbstractGatewayTextEmbedder, DEFAULT_GATEWAY_PATH};
pub use http::DEFAULT_TIMEOUT;
#[cfg(feature = "minilm")]
pub use minilm::{MINILM_DIMENSION, MINILM_MODEL_ID, MiniLmEmbedder};
pub use offline::{OfflineEmbedder, POTION_BASE_2M_DIMENSION, POTION_BASE_2M_MODEL_ID};
pub use openai::{DEFAULT_BATCH_SIZE, OpenAICompatBuilder, OpenAICompatTextEmbedder};
