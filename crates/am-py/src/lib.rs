//! `abstractmemory_rs._native`: the verb table ([`am_ops::table`]) for
//! Python. Every verb is run by [`am_ops::dispatch`] over a home opened here
//! from the 0.3.2-shaped store and journal objects; its keyword arguments
//! are read by the verb's own arguments struct, converted from Python objects
//! directly (pythonize, no JSON text). The Python side (`abstractmemory_rs`)
//! turns the table into methods and module functions; this module holds only
//! what the table cannot express: the store and journal constructors, the
//! hooks as Python callables, and the error classes' lookup.
//!
//! Every engine call releases the GIL (`Python::detach`); a hook re-takes it
//! for the duration of its Python call.

mod embed;
mod errors;
mod home;
mod hooks;

use am_ops::{CallShape, Host};
use am_triples::JsonMap;
use home::{NativeHome, Opened};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use std::sync::{Arc, OnceLock};

/// The Python value of an enum the table serializes (`"method"`, ...).
fn wire<T: serde::Serialize>(v: T) -> String {
    serde_json::to_value(v)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

/// The verb table as a list of dicts: `name`, `family`, `summary`, `writes`,
/// `shape`, `present`, `hooks`, `needs_queue`, `no_args`, `arguments` (the
/// JSON Schema of its arguments).
#[pyfunction]
fn table(py: Python<'_>) -> PyResult<Bound<'_, PyList>> {
    let list = PyList::empty(py);
    for v in am_ops::table() {
        let d = PyDict::new(py);
        d.set_item("name", v.name)?;
        d.set_item("family", wire(v.family))?;
        d.set_item("summary", v.summary)?;
        d.set_item("writes", v.writes)?;
        d.set_item("shape", wire(v.shape))?;
        d.set_item("present", wire(v.present))?;
        let hooks: Vec<&str> = v.hooks.iter().map(|h| h.argument()).collect();
        d.set_item("hooks", hooks)?;
        d.set_item("needs_queue", v.needs_queue)?;
        d.set_item("no_args", v.no_args)?;
        d.set_item(
            "arguments",
            pythonize::pythonize(py, v.args_schema().as_value()).map_err(errors::convert)?,
        )?;
        list.append(d)?;
    }
    Ok(list)
}

/// Read a dict of keyword arguments as the JSON map the table takes.
fn args_of(kwargs: Option<&Bound<'_, PyDict>>) -> PyResult<JsonMap> {
    match kwargs {
        None => Ok(JsonMap::new()),
        Some(d) => pythonize::depythonize::<JsonMap>(d.as_any()).map_err(|e| {
            errors::invalid(format!(
                "the keyword arguments are not plain data (dicts, lists, str, int, float, bool, None): {e}"
            ))
        }),
    }
}

/// Run `op` over `home` with `kwargs` and the host's `author` (a callable,
/// or None), the GIL released; answers `(value, warnings)`.
fn run<'py>(
    py: Python<'py>,
    home: &Arc<Opened>,
    op: &str,
    kwargs: Option<&Bound<'py, PyDict>>,
    hooks: Hooks,
) -> PyResult<(Bound<'py, PyAny>, Vec<String>)> {
    let args = args_of(kwargs)?;
    let mut host = Host::default();
    host.embedder = home.embedder.clone();
    let given = |h: Option<Py<PyAny>>| h.filter(|h| !h.is_none(py));
    if let Some(a) = given(hooks.author) {
        host.author = Some(Arc::new(hooks::PyAuthor::new(a)));
    }
    host.should_continue = given(hooks.should_continue).map(|c| hooks::py_predicate(c, false));
    host.cancelled = given(hooks.cancelled).map(|c| hooks::py_predicate(c, true));
    // An embedder object (`reembed_store(embedder=obj)`): the table refuses
    // it for a verb that takes none.
    host.embedder_arg = embed::embedder_of(py, hooks.embedder)?;
    let answer = py.detach(|| {
        let mut h = NativeHome(home.as_ref());
        let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            am_ops::dispatch(&mut h, op, args, &host)
        }))
        .unwrap_or_else(|_| {
            Err(am_ops::OpError::internal(format!(
                "internal failure while running {op}"
            )))
        });
        // What the home raised outside the verb's result travels with it.
        out.map(|a| {
            let more = home.system.take_warnings();
            a.with_warnings(more)
        })
    });
    let answer = answer.map_err(|e| errors::raise(py, &e))?;
    let value = pythonize::pythonize(py, &answer.value).map_err(errors::convert)?;
    Ok((value, answer.warnings))
}

/// A call's Python hooks (each optional).
struct Hooks {
    author: Option<Py<PyAny>>,
    should_continue: Option<Py<PyAny>>,
    cancelled: Option<Py<PyAny>>,
    embedder: Option<Py<PyAny>>,
}

/// An open home: a memory system over a store and a journal.
#[pyclass(name = "System", module = "abstractmemory_rs._native", frozen)]
struct System {
    home: Arc<Opened>,
}

#[pymethods]
impl System {
    /// Open the memory system over `store` and `journal` (the native store
    /// and journal objects), with an optional `clock() -> str`, the task
    /// queue when `task_queue`, an `embedder` (the store's when None) and a
    /// `commit_guard(where) -> None` installed on the store and journal.
    #[new]
    #[pyo3(signature = (store, journal, *, clock=None, task_queue=false, embedder=None, commit_guard=None))]
    fn new(
        py: Python<'_>,
        store: &Bound<'_, PyAny>,
        journal: &Bound<'_, PyAny>,
        clock: Option<Py<PyAny>>,
        task_queue: bool,
        embedder: Option<Py<PyAny>>,
        commit_guard: Option<Py<PyAny>>,
    ) -> PyResult<Self> {
        let clock = clock
            .filter(|c| !c.is_none(py))
            .map(|c| hooks::py_clock(py, c))
            .transpose()?;
        let opening = home::Opening {
            clock,
            task_queue,
            embedder: embed::embedder_of(py, embedder)?,
            commit_guard: commit_guard.filter(|g| !g.is_none(py)).map(hooks::py_guard),
        };
        let home = home::open(py, store, journal, opening)?;
        Ok(System {
            home: Arc::new(home),
        })
    }

    /// Run the table's `op` with `kwargs` and the call's hooks (an
    /// `embedder` object for a verb whose `embedder` hook takes one);
    /// answers `(value, warnings)`.
    #[pyo3(signature = (op, kwargs=None, author=None, should_continue=None, cancelled=None, embedder=None))]
    #[allow(
        clippy::too_many_arguments,
        reason = "one keyword per hook, as the Python side passes them"
    )]
    fn call<'py>(
        &self,
        py: Python<'py>,
        op: &str,
        kwargs: Option<&Bound<'py, PyDict>>,
        author: Option<Py<PyAny>>,
        should_continue: Option<Py<PyAny>>,
        cancelled: Option<Py<PyAny>>,
        embedder: Option<Py<PyAny>>,
    ) -> PyResult<(Bound<'py, PyAny>, Vec<String>)> {
        let hooks = Hooks {
            author,
            should_continue,
            cancelled,
            embedder,
        };
        run(py, &self.home, op, kwargs, hooks)
    }

    /// The warnings the home raised outside any verb's result (what opening
    /// it said: a volatile in-memory journal, an upgrade note), taken.
    fn take_warnings(&self) -> Vec<String> {
        self.home.system.take_warnings()
    }

    /// Release the journal (0.3.2: `close()` releases the journal only).
    fn close(&self, py: Python<'_>) -> PyResult<()> {
        py.detach(|| self.home.system.close())
            .map_err(|e| errors::raise(py, &am_ops::OpError::from(e)))
    }
}

/// The home a pure function runs over (it reads none of it).
fn pure_home() -> PyResult<&'static Arc<Opened>> {
    static HOME: OnceLock<Arc<Opened>> = OnceLock::new();
    if let Some(h) = HOME.get() {
        return Ok(h);
    }
    let opened = Arc::new(home::open_memory(home::Opening::default())?);
    // What opening it said (a volatile journal) belongs to no call.
    let _ = opened.system.take_warnings();
    Ok(HOME.get_or_init(|| opened))
}

/// Run a module function of the table (call shape `pure_function` or
/// `path_function`) with `kwargs`; answers `(value, warnings)`. A
/// `store_journal_function` runs through a `System` over its store and
/// journal instead.
#[pyfunction]
#[pyo3(signature = (op, kwargs=None, author=None, should_continue=None, cancelled=None))]
fn call_function<'py>(
    py: Python<'py>,
    op: &str,
    kwargs: Option<&Bound<'py, PyDict>>,
    author: Option<Py<PyAny>>,
    should_continue: Option<Py<PyAny>>,
    cancelled: Option<Py<PyAny>>,
) -> PyResult<(Bound<'py, PyAny>, Vec<String>)> {
    let verb = am_ops::find(op).ok_or_else(|| errors::raise(py, &am_ops::unknown_op(op)))?;
    if !matches!(
        verb.shape,
        CallShape::PureFunction | CallShape::PathFunction
    ) {
        return Err(errors::invalid(format!(
            "{op} is not a pure or path function of the verb table (its call shape is {})",
            wire(verb.shape)
        )));
    }
    let hooks = Hooks {
        author,
        should_continue,
        cancelled,
        embedder: None,
    };
    run(py, pure_home()?, op, kwargs, hooks)
}

/// Register the package's exception classes (a dict from the error kind's
/// name, and the spec's named classes, to the class).
#[pyfunction]
fn _set_errors(classes: Bound<'_, PyDict>) -> PyResult<()> {
    errors::set_classes(classes)
}

/// The native module.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<System>()?;
    m.add_class::<home::PySqliteStore>()?;
    m.add_class::<home::PySqliteJournal>()?;
    m.add_class::<home::PyMemoryStore>()?;
    m.add_class::<home::PyMemoryJournal>()?;
    m.add_class::<embed::PyOfflineEmbedder>()?;
    m.add_function(wrap_pyfunction!(table, m)?)?;
    m.add_function(wrap_pyfunction!(call_function, m)?)?;
    m.add_function(wrap_pyfunction!(_set_errors, m)?)?;
    Ok(())
}
