//! The host's hooks as Python callables: the `author(kind, body, context)
//! -> dict` callable (spec api.md "Authored with the record") and the
//! system's `clock() -> str` (0.3.2's `MemorySystem(clock=...)`). Each takes
//! the GIL for its Python call only.

use am_system::{Author, AuthorContext, AuthorError, Authored, Clock};
use am_triples::Timestamp;
use pyo3::prelude::*;
use std::sync::Arc;

/// A Python `author` callable.
pub(crate) struct PyAuthor {
    callable: Py<PyAny>,
}

impl PyAuthor {
    pub(crate) fn new(callable: Py<PyAny>) -> Self {
        PyAuthor { callable }
    }
}

impl Author for PyAuthor {
    fn author(
        &self,
        kind: &str,
        body: &str,
        context: &AuthorContext,
    ) -> Result<Authored, AuthorError> {
        Python::attach(|py| {
            let raised = |e: PyErr| {
                let class = e
                    .get_type(py)
                    .name()
                    .map_or_else(|_| "Exception".to_owned(), |n| n.to_string());
                let message = e
                    .value(py)
                    .str()
                    .map_or_else(|_| String::new(), |s| s.to_string());
                AuthorError::new(class, message)
            };
            let ctx = pythonize::pythonize(py, context)
                .map_err(|e| AuthorError::new("ConversionError", e.to_string()))?;
            let out = self
                .callable
                .bind(py)
                .call1((kind, body, ctx))
                .map_err(raised)?;
            // A result that is not the author's dict is an unusable answer:
            // the empty result, which the engine's check refuses
            // (`invalid_result`: no author).
            Ok(pythonize::depythonize::<Authored>(&out).unwrap_or_default())
        })
    }
}

/// The engine clock from a Python `clock() -> str` (an ISO-8601 instant).
/// The callable is called once here: one that fails or answers something
/// else is refused; a later failure reads the wall clock.
pub(crate) fn py_clock(py: Python<'_>, callable: Py<PyAny>) -> PyResult<Clock> {
    let first: String = callable.bind(py).call0()?.extract()?;
    Timestamp::parse(&first).map_err(|e| {
        crate::errors::invalid(format!(
            "clock() answers an ISO-8601 instant, got {first:?}: {e}"
        ))
    })?;
    let callable = Arc::new(callable);
    Ok(Arc::new(move || {
        Python::attach(|py| {
            callable
                .bind(py)
                .call0()
                .and_then(|v| v.extract::<String>())
                .ok()
                .and_then(|s| Timestamp::parse(&s).ok())
                .unwrap_or_else(Timestamp::now)
        })
    }))
}

/// A Python predicate hook (`should_continue() -> bool`, `cancelled() ->
/// bool`), read by its truth value. One that raises stops the pass (it
/// answers `stop_on_raise`): a host whose check fails is not asked to go on.
pub(crate) fn py_predicate(
    callable: Py<PyAny>,
    stop_on_raise: bool,
) -> Arc<dyn Fn() -> bool + Send + Sync> {
    Arc::new(move || {
        Python::attach(|py| {
            callable
                .bind(py)
                .call0()
                .and_then(|v| v.is_truthy())
                .unwrap_or(stop_on_raise)
        })
    })
}

/// The engine's commit guard from a Python `commit_guard(where: str) ->
/// None`: raising refuses the commit, the exception kept
/// ([`crate::errors::GuardRaised`]).
pub(crate) fn py_guard(callable: Py<PyAny>) -> am_triples::CommitGuard {
    am_triples::CommitGuard::new(move |point| {
        Python::attach(|py| {
            callable
                .bind(py)
                .call1((point,))
                .map(|_| ())
                .map_err(|e| Box::new(crate::errors::GuardRaised(e)) as am_triples::GuardError)
        })
    })
}
