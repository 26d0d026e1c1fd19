//! Layer 2's error: the shared [`am_triples::Error`] (kind, message, context,
//! source) that callers and conformance checks assert on by kind; the store's
//! and the journal's errors pass through unchanged.
//!
//! Messages name what was expected and what arrived ("unknown record id 'x':
//! neither a store assertion id nor a graph record id ..."), as the spec's
//! errors do. Spec: api.md "Layer 2" contract 5 ("invalid input raises
//! actionable errors"). Every refusal writes nothing: validation runs before the
//! first store or journal append. `Unsupported` names an operation this home
//! does not offer (a payload tier reserved for later, a pending field on a home
//! without a task queue).

pub use am_triples::{Error, Result};
