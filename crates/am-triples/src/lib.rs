//! Layer 1 of AbstractMemory: append-only, temporal, provenance-aware triples.
//!
//! This crate owns the data model ([`TripleAssertion`], [`TripleQuery`]), the store
//! contract ([`TripleStore`], [`Capabilities`]), canonicalization and the one
//! timestamp form, the canonical text and keyword tokens, the reference vector
//! scoring, the embedding pin, the [`TextEmbedder`] trait, and the dependency-free
//! [`InMemoryTripleStore`]. It knows nothing of SQL, LanceDB, HTTP or async.
//!
//! Spec: api.md "Layer 1: triples, queries, stores, embedders"; stores.md.
//!
//! # Examples
//! ```
//! use am_triples::{InMemoryTripleStore, TripleAssertion, TripleQuery, TripleStore};
//! let store = InMemoryTripleStore::new(None);
//! store.add(&[TripleAssertion::new("Scrooge", "is", "miser").with_scope("session").with_owner("sess-1")]).unwrap();
//! let q = TripleQuery { subject: Some("scrooge".into()), scope: Some("session".into()), ..TripleQuery::default() };
//! assert_eq!(store.query(&q).unwrap().len(), 1);
//! ```

pub mod assertion;
pub mod barrier;
pub mod embed;
pub mod error;
pub mod guard;
pub mod home_key;
pub mod lent;
pub mod memory;
pub mod pin;
pub mod query;
pub mod rewrite;
pub mod store;
pub mod text;
pub mod timestamp;
pub mod vector;
pub mod vocab;

pub use assertion::{JsonMap, TripleAssertion, canonicalize_term};
pub use barrier::{BarrierHold, FileLock, WriteBarrierTimeout, WriteFence, WriteLock};
pub use embed::TextEmbedder;
pub use error::{Error, ErrorKind, Result};
pub use guard::{CommitGuard, CommitPoint, GuardError, GuardRefusal, GuardSlot};
pub use home_key::{HomeKey, HomeMember};
pub use lent::Lent;
pub use memory::InMemoryTripleStore;
pub use pin::{EmbeddingPin, build_pin};
pub use query::{Order, TripleQuery};
pub use rewrite::{DigestRewrite, PreparedRewrite, VectorChange};
pub use store::{Added, Capabilities, FeedPage, Narrow, NarrowRow, ReadAccelerator, TripleStore};
pub use text::{CANONICAL_TEXT_VERSION, canonical_text, token_estimate};
pub use timestamp::{Clock, Timestamp, fixed_clock, wall_clock};
