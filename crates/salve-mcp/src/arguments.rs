//! Tool arguments checked against the schema the client was shown, so that a call that does not
//! fit it is answered in the schema's words: the argument's name and the type `tools/list`
//! gave for it ("`old_str` must be a string, not an array"), not serde's view of the Rust type
//! behind it ("invalid type: sequence, expected a string", "expected usize").
//!
//! [`Checked`] wraps a parameter type: its schema is the type's own, and deserialising it first
//! holds the arguments against that schema, then reads them as the type.

use std::fmt::Write as _;

use rmcp::handler::server::tool::schema_for_type;
use rmcp::schemars::{self, JsonSchema};
use serde::de::{DeserializeOwned, Error as _};
use serde::{Deserialize, Deserializer};
use serde_json::{Map, Value};

/// Arguments of type `T`, read only once they fit `T`'s schema.
#[derive(Clone, Debug)]
pub struct Checked<T>(pub T);

impl<'de, T: DeserializeOwned + JsonSchema + 'static> Deserialize<'de> for Checked<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        let schema = schema_for_type::<T>();
        if let Some(problem) = misfit(&schema, &value) {
            return Err(D::Error::custom(problem));
        }
        serde_json::from_value(value)
            .map(Checked)
            .map_err(D::Error::custom)
    }
}

impl<T: JsonSchema> JsonSchema for Checked<T> {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        T::schema_name()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        T::json_schema(generator)
    }
}

/// The first way `arguments` does not fit the object schema `schema`, said for a model.
fn misfit(schema: &Map<String, Value>, arguments: &Value) -> Option<String> {
    let Value::Object(given) = arguments else {
        return Some(format!(
            "the arguments must be an object, not {}",
            kind(arguments)
        ));
    };
    let properties = schema.get("properties").and_then(Value::as_object);
    let required = schema.get("required").and_then(Value::as_array);
    for name in required.into_iter().flatten().filter_map(Value::as_str) {
        if !given.contains_key(name) {
            let wanted = properties
                .and_then(|p| p.get(name))
                .map(described)
                .unwrap_or_else(|| "a value".to_string());
            return Some(format!("missing argument `{name}` ({wanted})"));
        }
    }
    for (name, value) in given {
        let Some(property) = properties.and_then(|p| p.get(name)) else {
            continue;
        };
        let optional = !required.is_some_and(|r| r.iter().any(|n| n == name));
        if value.is_null() && optional {
            continue;
        }
        if !fits(property, value) {
            return Some(format!(
                "`{name}` must be {}, not {}",
                described(property),
                kind(value)
            ));
        }
    }
    None
}

/// Whether `value` fits `property` (the keywords the parameter types use: `type`, `items`,
/// integer bounds and formats).
fn fits(property: &Value, value: &Value) -> bool {
    let types: Vec<&str> = match property.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => return true,
    };
    types.iter().any(|t| match (*t, value) {
        ("string", Value::String(_)) | ("boolean", Value::Bool(_)) | ("null", Value::Null) => true,
        ("object", Value::Object(_)) => true,
        ("number", Value::Number(_)) => true,
        ("integer", Value::Number(n)) => n
            .as_u64()
            .map(|u| u <= max_of(property))
            .or_else(|| n.as_i64().map(|i| i >= min_of(property)))
            .unwrap_or(false),
        ("array", Value::Array(items)) => match property.get("items") {
            Some(item) => items.iter().all(|v| fits(item, v)),
            None => true,
        },
        _ => false,
    })
}

fn max_of(property: &Value) -> u64 {
    match property.get("format").and_then(Value::as_str) {
        Some("uint8") => u8::MAX.into(),
        Some("uint16") => u16::MAX.into(),
        Some("uint32") => u32::MAX.into(),
        _ => property
            .get("maximum")
            .and_then(Value::as_u64)
            .unwrap_or(u64::MAX),
    }
}

fn min_of(property: &Value) -> i64 {
    property
        .get("minimum")
        .and_then(Value::as_i64)
        .unwrap_or(i64::MIN)
}

/// The schema type of `property` in words: "a string", "an array of strings", "an integer from
/// 0 to 4294967295".
fn described(property: &Value) -> String {
    let types: Vec<&str> = match property.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .filter(|t| *t != "null")
            .collect(),
        _ => return "a value".to_string(),
    };
    let mut words = String::new();
    for (k, t) in types.iter().enumerate() {
        if k > 0 {
            words.push_str(" or ");
        }
        match *t {
            "integer" => {
                words.push_str("an integer");
                if let Some(min) = property.get("minimum").and_then(Value::as_i64) {
                    let _ = write!(words, " from {min} to {}", max_of(property));
                }
            }
            "array" => {
                words.push_str("an array");
                if let Some(item) = property.get("items") {
                    let one = described(item);
                    let plural = one
                        .trim_start_matches("an ")
                        .trim_start_matches("a ")
                        .to_string();
                    let _ = write!(words, " of {plural}s");
                }
            }
            "object" => words.push_str("an object"),
            "boolean" => words.push_str("a boolean (true or false)"),
            other => {
                let _ = write!(words, "a {other}");
            }
        }
    }
    words
}

/// What was given instead, in the schema's words (a number is shown as it is).
fn kind(value: &Value) -> String {
    match value {
        Value::Null => "null".to_string(),
        Value::Bool(_) => "a boolean".to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(_) => "a string".to_string(),
        Value::Array(_) => "an array".to_string(),
        Value::Object(_) => "an object".to_string(),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use crate::params::{ListCheckpointsParams, RunCheckParams, StrReplaceParams};
    use serde_json::json;

    fn problem<T: DeserializeOwned + JsonSchema + 'static>(arguments: Value) -> String {
        match serde_json::from_value::<Checked<T>>(arguments) {
            Ok(_) => "fits".to_string(),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn a_wrong_type_names_the_argument_and_the_schema_type() {
        let got =
            problem::<StrReplaceParams>(json!({"path": "a", "old_str": ["x"], "new_str": "y"}));
        assert_eq!(got, "`old_str` must be a string, not an array");
        let got = problem::<ListCheckpointsParams>(json!({"limit": -1}));
        assert_eq!(
            got,
            "`limit` must be an integer from 0 to 4294967295, not -1"
        );
        let got = problem::<ListCheckpointsParams>(json!({"limit": 5_000_000_000u64}));
        assert_eq!(
            got,
            "`limit` must be an integer from 0 to 4294967295, not 5000000000"
        );
        let got = problem::<ListCheckpointsParams>(json!({"limit": 2.5}));
        assert_eq!(
            got,
            "`limit` must be an integer from 0 to 4294967295, not 2.5"
        );
        let got = problem::<ListCheckpointsParams>(json!({"limit": "3"}));
        assert_eq!(
            got,
            "`limit` must be an integer from 0 to 4294967295, not a string"
        );
        let got = problem::<ListCheckpointsParams>(json!({"all_worktrees": "yes"}));
        assert_eq!(
            got,
            "`all_worktrees` must be a boolean (true or false), not a string"
        );
        let got = problem::<RunCheckParams>(json!({"command": "cargo test"}));
        assert_eq!(got, "`command` must be an array of strings, not a string");
        let got = problem::<RunCheckParams>(json!({"command": ["cargo", 1]}));
        assert_eq!(got, "`command` must be an array of strings, not an array");
    }

    #[test]
    fn a_missing_argument_is_named_with_its_type() {
        let got = problem::<StrReplaceParams>(json!({"path": "a", "new_str": "y"}));
        assert_eq!(got, "missing argument `old_str` (a string)");
        let got = problem::<StrReplaceParams>(json!(["a"]));
        assert_eq!(got, "the arguments must be an object, not an array");
    }

    #[test]
    fn arguments_that_fit_are_read_as_before() {
        assert_eq!(problem::<ListCheckpointsParams>(json!({})), "fits");
        assert_eq!(
            problem::<ListCheckpointsParams>(json!({"limit": null, "offset": 2})),
            "fits"
        );
        assert_eq!(
            problem::<StrReplaceParams>(
                json!({"path": "a", "old_str": "", "new_str": "", "extra": 1})
            ),
            "fits"
        );
        let Checked(p) = serde_json::from_value::<Checked<RunCheckParams>>(
            json!({"command": ["make"], "timeout_secs": 9}),
        )
        .unwrap();
        assert_eq!(p.command, Some(vec!["make".to_string()]));
        assert_eq!(p.timeout_secs, Some(9));
    }
}
