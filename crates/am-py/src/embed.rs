//! Embedders from Python: any object with `embed_texts(texts) ->
//! list[list[float]]` (0.3.2's `TextEmbedder` protocol), adapted to the
//! engine's [`TextEmbedder`] (the GIL taken for the call only; an exception
//! or an answer that is not one vector of floats per text is an `Embedder`
//! error), and the bundled offline model as the class `OfflineEmbedder`
//! (the potion-base-2M model `am --embedder offline` loads), which the
//! engine calls natively, the GIL never taken.

use crate::errors;
use am_triples::{Error, ErrorKind, TextEmbedder};
use pyo3::prelude::*;
use std::sync::Arc;

/// A Python embedder object.
struct PyEmbedder {
    object: Py<PyAny>,
    model_id: Option<String>,
    dimension: Option<usize>,
}

impl TextEmbedder for PyEmbedder {
    fn embed_texts(&self, texts: &[String]) -> am_triples::Result<Vec<Vec<f32>>> {
        Python::attach(|py| {
            let out = self
                .object
                .bind(py)
                .call_method1("embed_texts", (texts.to_vec(),))
                .map_err(|e| {
                    let class = e
                        .get_type(py)
                        .name()
                        .map_or_else(|_| "Exception".to_owned(), |n| n.to_string());
                    let message = e
                        .value(py)
                        .str()
                        .map_or_else(|_| String::new(), |s| s.to_string());
                    Error::embedder(format!(
                        "the embedder's embed_texts raised {class}: {message}"
                    ))
                })?;
            let vectors: Vec<Vec<f32>> = out.extract().map_err(|e| {
                Error::embedder(format!(
                    "the embedder's embed_texts answers a list of lists of floats, one per text: {e}"
                ))
            })?;
            if vectors.len() != texts.len() {
                return Err(Error::embedder(format!(
                    "the embedder's embed_texts answered {} vector(s) for {} text(s)",
                    vectors.len(),
                    texts.len()
                )));
            }
            Ok(vectors)
        })
    }

    fn model_id(&self) -> Option<String> {
        self.model_id.clone()
    }

    fn dimension(&self) -> Option<usize> {
        self.dimension
    }
}

/// `OfflineEmbedder()`: the bundled potion-base-2M model (64 dimensions,
/// no download, no network).
#[pyclass(name = "OfflineEmbedder", module = "abstractmemory_rs._native", frozen)]
pub(crate) struct PyOfflineEmbedder {
    inner: Arc<am_embed::OfflineEmbedder>,
}

#[pymethods]
impl PyOfflineEmbedder {
    #[new]
    fn new(py: Python<'_>) -> PyResult<Self> {
        let inner = py.detach(am_embed::OfflineEmbedder::new).map_err(|e| {
            errors::raise(
                py,
                &am_ops::OpError::new(ErrorKind::Embedder, e.to_string()),
            )
        })?;
        Ok(PyOfflineEmbedder {
            inner: Arc::new(inner),
        })
    }

    /// One 64-float vector per text, in order.
    fn embed_texts(&self, py: Python<'_>, texts: Vec<String>) -> Vec<Vec<f32>> {
        py.detach(|| self.inner.embed(&texts))
    }

    /// The model's id (`minishlab/potion-base-2M`).
    #[getter]
    fn model_id(&self) -> Option<String> {
        TextEmbedder::model_id(self.inner.as_ref())
    }

    /// The vector dimension (64).
    #[getter]
    fn dimension(&self) -> usize {
        self.inner.vector_dimension()
    }
}

/// The engine's embedder for a Python `embedder=` argument: `None` for
/// None, the native model for an `OfflineEmbedder`, else an object with
/// `embed_texts` (its optional `model_id` and `dimension` attributes are
/// what the embedding-space pin records).
pub(crate) fn embedder_of(
    py: Python<'_>,
    object: Option<Py<PyAny>>,
) -> PyResult<Option<Arc<dyn TextEmbedder>>> {
    let Some(object) = object.filter(|o| !o.is_none(py)) else {
        return Ok(None);
    };
    let bound = object.bind(py);
    if let Ok(native) = bound.cast::<PyOfflineEmbedder>() {
        return Ok(Some(native.get().inner.clone()));
    }
    if !bound.hasattr("embed_texts")? {
        return Err(pyo3::exceptions::PyTypeError::new_err(format!(
            "an embedder is an object with embed_texts(texts) -> list[list[float]], got {}",
            bound.get_type().name()?
        )));
    }
    let attr = |name: &str| bound.getattr(name).ok().filter(|v| !v.is_none());
    let model_id = attr("model_id")
        .and_then(|v| v.extract::<String>().ok())
        .filter(|s| !s.trim().is_empty());
    let dimension = attr("dimension").and_then(|v| v.extract::<usize>().ok());
    Ok(Some(Arc::new(PyEmbedder {
        object,
        model_id,
        dimension,
    })))
}
