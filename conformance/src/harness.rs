//! The conformance harness: named checks, the factories that open fresh isolated
//! instances, capability selection, and libtest-mimic trials.
//!
//! A check is a plain public function named after the contract sentence it pins;
//! a group lists its checks with the capability each needs, and only the checks a
//! backend's declared [`Capabilities`] satisfy become trials. Nothing is skipped by
//! hand: an unsatisfied check is not listed at all.

use am_triples::{Capabilities, EmbeddingPin, TextEmbedder, TripleStore};
use libtest_mimic::Trial;
use std::sync::Arc;

/// The outcome of one check: `Err` carries a message naming what was expected and
/// what arrived.
pub type CheckResult = Result<(), String>;

/// Opens fresh, isolated triple stores for the `stores` and `vectors` groups.
///
/// # Contract
/// - Every call returns a new, empty store that shares nothing with stores opened
///   before (a new temporary home for a persistent backend); dropping the store
///   releases everything it holds.
/// - `open_with_pin` creates the store with a creation pin (`source = "creation"`),
///   and refuses (`ErrorKind::Refused`) an embedder whose known model id or
///   dimension contradicts it, writing nothing.
pub trait StoreFactory: Send + Sync {
    /// A fresh empty store, vector-capable with `embedder`.
    ///
    /// # Errors
    /// Whatever the backend reports when it cannot open a store.
    fn open(
        &self,
        embedder: Option<Arc<dyn TextEmbedder>>,
    ) -> am_triples::Result<Box<dyn TripleStore>>;

    /// A fresh empty store created with `pin`.
    ///
    /// # Errors
    /// `Refused` when the embedder's known identity contradicts `pin`.
    fn open_with_pin(
        &self,
        embedder: Option<Arc<dyn TextEmbedder>>,
        pin: EmbeddingPin,
    ) -> am_triples::Result<Box<dyn TripleStore>>;

    /// The capabilities the backend declares (read off a freshly opened store
    /// bound to a test embedder by default).
    fn capabilities(&self) -> Capabilities {
        let embedder: Arc<dyn TextEmbedder> =
            Arc::new(crate::embedder::HashEmbedder::new(8, "conformance-probe"));
        self.open(Some(embedder))
            .map(|s| s.capabilities())
            .unwrap_or_default()
    }
}

/// One capability a check may need; mirrors the fields of [`Capabilities`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Capability {
    /// `close_assertion` in place.
    CloseAssertion,
    /// `narrow_assertion` in place.
    NarrowAssertion,
    /// `assertions_after`.
    ChangeFeed,
    /// `query_text` / `query_vector` ranking.
    VectorSearch,
    /// Data survives the process.
    Persistent,
    /// A record digest row's reading is rewritten in place.
    DigestRewrite,
}

impl Capability {
    /// Whether `caps` declares this capability.
    pub fn offered_by(self, caps: &Capabilities) -> bool {
        match self {
            Capability::CloseAssertion => caps.close_assertion,
            Capability::NarrowAssertion => caps.narrow_assertion,
            Capability::ChangeFeed => caps.change_feed,
            Capability::VectorSearch => caps.vector_search,
            Capability::Persistent => caps.persistent,
            Capability::DigestRewrite => caps.digest_rewrite,
        }
    }
}

/// A named check over a factory of type `F`.
pub struct Check<F: ?Sized> {
    /// The check's function name (the contract sentence it pins).
    pub name: &'static str,
    /// Capabilities a backend must declare for this check to be listed.
    pub requires: &'static [Capability],
    /// The check itself.
    pub run: fn(&F) -> CheckResult,
}

impl<F: ?Sized> Clone for Check<F> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<F: ?Sized> Copy for Check<F> {}

impl<F: ?Sized> std::fmt::Debug for Check<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Check")
            .field("name", &self.name)
            .field("requires", &self.requires)
            .finish()
    }
}

impl<F: ?Sized> Check<F> {
    /// Whether a backend declaring `caps` must pass this check.
    pub fn applies_to(&self, caps: &Capabilities) -> bool {
        self.requires.iter().all(|c| c.offered_by(caps))
    }
}

/// Build a [`Check`] from a function name and the capabilities it needs.
#[macro_export]
macro_rules! check {
    ($f:ident) => {
        $crate::harness::Check {
            name: stringify!($f),
            requires: &[],
            run: $f,
        }
    };
    ($f:ident, $($cap:ident),+) => {
        $crate::harness::Check {
            name: stringify!($f),
            requires: &[$($crate::harness::Capability::$cap),+],
            run: $f,
        }
    };
}

/// One libtest-mimic trial per check that applies, named `{group}::{check}` with
/// the backend as the trial's kind (`test [memory] stores::limit_zero_is_unbounded ... ok`).
pub fn trials<F: ?Sized + Send + Sync + 'static>(
    backend: &str,
    group: &str,
    checks: &[Check<F>],
    factory: &Arc<F>,
    caps: Option<&Capabilities>,
) -> Vec<Trial> {
    checks
        .iter()
        .filter(|c| caps.is_none_or(|caps| c.applies_to(caps)))
        .map(|c| {
            let check = *c;
            let factory = Arc::clone(factory);
            Trial::test(format!("{group}::{}", check.name), move || {
                (check.run)(&factory).map_err(Into::into)
            })
            .with_kind(backend)
        })
        .collect()
}

/// `Ok(())` when `cond` holds, else `Err(msg())`.
///
/// # Errors
/// The message when the condition fails.
pub fn ensure(cond: bool, msg: impl FnOnce() -> String) -> CheckResult {
    if cond { Ok(()) } else { Err(msg()) }
}

/// `Ok(())` when `left == right`, else an error naming both and `what`.
///
/// # Errors
/// A message naming what was expected and what arrived.
pub fn ensure_eq<T: PartialEq + std::fmt::Debug>(what: &str, got: T, expected: T) -> CheckResult {
    ensure(got == expected, || {
        format!("{what}: expected {expected:?}, got {got:?}")
    })
}

/// Expect `result` to be an error of `kind`; returns its message.
///
/// # Errors
/// When `result` is `Ok` or an error of another kind.
pub fn expect_kind<T: std::fmt::Debug>(
    what: &str,
    result: am_triples::Result<T>,
    kind: am_triples::ErrorKind,
) -> Result<String, String> {
    match result {
        Ok(v) => Err(format!("{what}: expected a {kind} error, got Ok({v:?})")),
        Err(e) if e.kind() == kind => Ok(e.to_string()),
        Err(e) => Err(format!(
            "{what}: expected a {kind} error, got {} ({e})",
            e.kind()
        )),
    }
}

/// Attach context to an `am_triples` error.
///
/// # Errors
/// The error's text prefixed with `what`.
pub fn ok<T>(what: &str, result: am_triples::Result<T>) -> Result<T, String> {
    result.map_err(|e| format!("{what}: unexpected {} error: {e}", e.kind()))
}
