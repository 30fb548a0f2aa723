use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use salve_bindings::{ApplyArgs, Edits, Failure};

pyo3::create_exception!(
    _native,
    EngineError,
    PyException,
    "An engine failure: args are (kind, code, message, hint)."
);

fn raise(failure: Failure) -> PyErr {
    EngineError::new_err((failure.kind, failure.code, failure.message, failure.hint))
}

/// Apply a reply (`is_json` false) or one JSON value's edits; returns (report JSON, extra JSON).
#[pyfunction]
#[pyo3(signature = (edits, is_json, root, check, partial, base, checkpoint, record))]
#[allow(clippy::too_many_arguments)] // mirrors the Python signature, one argument per option
fn apply(
    py: Python<'_>,
    edits: String,
    is_json: bool,
    root: String,
    check: bool,
    partial: bool,
    base: Option<String>,
    checkpoint: bool,
    record: bool,
) -> PyResult<(String, String)> {
    let edits = if is_json {
        Edits::Value(edits)
    } else {
        Edits::Reply(edits)
    };
    let args = ApplyArgs {
        check,
        partial,
        base,
        checkpoint,
        record,
        ..ApplyArgs::new(root)
    };
    // Placing and writing touch no Python object: other threads run meanwhile.
    py.detach(|| salve_bindings::apply(&edits, &args))
        .map(|applied| (applied.report, applied.extra))
        .map_err(raise)
}

#[pyfunction]
#[pyo3(signature = (root, message=None))]
fn checkpoint(py: Python<'_>, root: String, message: Option<String>) -> PyResult<String> {
    py.detach(|| salve_bindings::checkpoint(root, message))
        .map_err(raise)
}

#[pyfunction]
fn restore(py: Python<'_>, root: String, id: String) -> PyResult<String> {
    py.detach(|| salve_bindings::restore(root, &id))
        .map_err(raise)
}

#[pyfunction]
fn undo(py: Python<'_>, root: String) -> PyResult<String> {
    py.detach(|| salve_bindings::undo(root)).map_err(raise)
}

#[pyfunction]
fn extract(py: Python<'_>, reply: String) -> PyResult<String> {
    py.detach(|| salve_bindings::extract(&reply)).map_err(raise)
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("EngineError", m.py().get_type::<EngineError>())?;
    m.add_function(wrap_pyfunction!(apply, m)?)?;
    m.add_function(wrap_pyfunction!(checkpoint, m)?)?;
    m.add_function(wrap_pyfunction!(restore, m)?)?;
    m.add_function(wrap_pyfunction!(undo, m)?)?;
    m.add_function(wrap_pyfunction!(extract, m)?)?;
    Ok(())
}
