//! Engine errors as the package's exception classes: one class per error
//! kind (registered by `abstractmemory_rs.errors` at import, each subclassing
//! the builtins a 0.3.2 caller catches), and the spec's named classes where
//! the engine marks them (`InvalidSourceRef`, `WriteBarrierTimeout`).

use am_ops::OpError;
use am_triples::ErrorKind;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyType};
use std::sync::OnceLock;

static CLASSES: OnceLock<Py<PyDict>> = OnceLock::new();

/// What a Python commit guard raised, kept whole so that it reaches the
/// caller unchanged (spec api.md "Commit guard").
#[derive(Debug)]
pub(crate) struct GuardRaised(pub(crate) PyErr);

impl std::fmt::Display for GuardRaised {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the commit guard raised {}", self.0)
    }
}

impl std::error::Error for GuardRaised {}

/// Keep the package's classes (their names to the classes).
pub(crate) fn set_classes(classes: Bound<'_, PyDict>) -> PyResult<()> {
    // A second registration (a reload) keeps the first's classes.
    let _ = CLASSES.set(classes.unbind());
    Ok(())
}

/// The class name an engine error is raised as.
fn class_name(e: &OpError) -> &'static str {
    let tagged = e
        .source
        .as_deref()
        .and_then(|s| (s as &(dyn std::error::Error + 'static)).downcast_ref::<am_triples::Error>())
        .is_some_and(am_triples::Error::is_invalid_source_ref);
    match e.kind {
        ErrorKind::InvalidInput if tagged => "InvalidSourceRef",
        ErrorKind::Timeout => "WriteBarrierTimeout",
        k => k.name(),
    }
}

/// The exception a Python commit guard raised, when `e` is its refusal.
fn guard_raised(py: Python<'_>, e: &OpError) -> Option<PyErr> {
    let mut next: Option<&(dyn std::error::Error + 'static)> = e
        .source
        .as_deref()
        .map(|s| s as &(dyn std::error::Error + 'static));
    while let Some(err) = next {
        if let Some(g) = err.downcast_ref::<GuardRaised>() {
            return Some(g.0.clone_ref(py));
        }
        if let Some(r) = err
            .downcast_ref::<am_triples::Error>()
            .and_then(am_triples::Error::guard_refusal)
        {
            let inner = r.source_error() as &(dyn std::error::Error + 'static);
            if let Some(g) = inner.downcast_ref::<GuardRaised>() {
                return Some(g.0.clone_ref(py));
            }
        }
        next = err.source();
    }
    None
}

/// The Python exception of an engine error (a commit guard's own exception
/// when the guard refused: it reaches the caller unchanged).
pub(crate) fn raise(py: Python<'_>, e: &OpError) -> PyErr {
    if let Some(raised) = guard_raised(py, e) {
        return raised;
    }
    let name = class_name(e);
    let class = CLASSES
        .get()
        .and_then(|d| d.bind(py).get_item(name).ok().flatten())
        .and_then(|c| c.cast_into::<PyType>().ok());
    match class {
        Some(c) => PyErr::from_type(c, e.message.clone()),
        None => PyRuntimeError::new_err(format!("{}: {}", e.kind.name(), e.message)),
    }
}

/// [`raise`], where the GIL is not held.
pub(crate) fn raise_nogil(e: &OpError) -> PyErr {
    Python::attach(|py| raise(py, e))
}

/// A malformed call from Python (`InvalidInput`).
pub(crate) fn invalid(message: String) -> PyErr {
    raise_nogil(&OpError::invalid(message))
}

/// A value the conversion could not carry.
pub(crate) fn convert(e: pythonize::PythonizeError) -> PyErr {
    PyValueError::new_err(format!("cannot convert the value: {e}"))
}
