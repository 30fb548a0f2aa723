//! Tool results: every tool answers with one JSON object, as structured content and as its
//! text. A job that ran and declined (a refused edit, nothing to undo) and an error of the
//! engine are tool errors (`isError: true`) whose object says what to do next.

use rmcp::model::CallToolResult;
use salve_engine::Classified;
use serde::Serialize;
use serde_json::{Map, Value};

/// A success: `value` (an object, or wrapped in `{"result": ...}`) with a one-line `summary`.
pub fn ok(summary: impl Into<String>, value: &impl Serialize) -> CallToolResult {
    CallToolResult::structured(with_summary(summary.into(), value))
}

/// The job ran and declined, changing nothing; `value` says why in full.
pub fn declined(summary: impl Into<String>, value: &impl Serialize) -> CallToolResult {
    CallToolResult::structured_error(with_summary(summary.into(), value))
}

/// An engine error: `{"error": {"code", "kind", "message", "hint"?}}`.
pub fn failed<E: Classified + ?Sized>(e: &E) -> CallToolResult {
    error(e.code(), kind_name(e.kind()), &e.to_string(), e.hint())
}

/// An error of this server's own (a check that is not allowed, a path it cannot name).
pub fn refused(code: &str, message: &str, hint: Option<String>) -> CallToolResult {
    error(code, "refused", message, hint)
}

fn error(code: &str, kind: &str, message: &str, hint: Option<String>) -> CallToolResult {
    let mut error = Map::new();
    error.insert("code".to_owned(), Value::from(code));
    error.insert("kind".to_owned(), Value::from(kind));
    error.insert("message".to_owned(), Value::from(message));
    if let Some(hint) = hint {
        error.insert("hint".to_owned(), Value::from(hint));
    }
    let mut object = Map::new();
    object.insert("error".to_owned(), Value::Object(error));
    CallToolResult::structured_error(Value::Object(object))
}

fn kind_name(kind: salve_engine::Kind) -> &'static str {
    match kind {
        salve_engine::Kind::Refused => "refused",
        salve_engine::Kind::User => "user",
        salve_engine::Kind::Config => "config",
        salve_engine::Kind::Environment => "environment",
        salve_engine::Kind::Interrupted => "interrupted",
        salve_engine::Kind::Internal => "internal",
    }
}

fn with_summary(summary: String, value: &impl Serialize) -> Value {
    let value = serde_json::to_value(value).unwrap_or_else(|e| Value::from(e.to_string()));
    let mut object = match value {
        Value::Object(map) => map,
        other => {
            let mut map = Map::new();
            map.insert("result".to_owned(), other);
            map
        }
    };
    object.insert("summary".to_owned(), Value::from(summary));
    Value::Object(object)
}
