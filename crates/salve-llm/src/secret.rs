//! API keys, and the redaction that keeps them out of everything salve prints or saves.
//!
//! A key enters salve only through [`ApiKey::from_env`], which reads the environment variable a
//! configuration names and registers the value in a process-wide list. [`redact`] replaces every
//! registered value with `[REDACTED]`; provider failures run their messages through it when they
//! are made, and the engine runs replies, artifacts and reports through it before they are
//! printed or recorded. So a server that echoes the key in an error body, or a model that repeats
//! it, cannot carry it into a log, an artifact or `--json`.

use std::fmt;
use std::sync::Mutex;

/// What a secret is replaced with.
pub const REDACTED: &str = "[REDACTED]";

/// Values shorter than this are not redacted: replacing every `abc` in a reply would mangle code
/// and a key that short protects nothing anyway.
const MIN_SECRET_LEN: usize = 8;

static SECRETS: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// Remember `value` as a secret, so [`redact`] removes it from now on.
pub fn register(value: &str) {
    if value.len() < MIN_SECRET_LEN {
        return;
    }
    // A poisoned lock only means another thread panicked while pushing; the list is still usable.
    let mut secrets = SECRETS.lock().unwrap_or_else(|e| e.into_inner());
    if !secrets.iter().any(|s| s == value) {
        secrets.push(value.to_owned());
        // Longest first, so a key that contains another is removed whole.
        secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
    }
}

/// `text` with every registered secret replaced by [`REDACTED`].
pub fn redact(text: &str) -> String {
    let secrets = SECRETS.lock().unwrap_or_else(|e| e.into_inner());
    let mut out = text.to_owned();
    for secret in secrets.iter() {
        if out.contains(secret.as_str()) {
            out = out.replace(secret.as_str(), REDACTED);
        }
    }
    out
}

/// An API key read from the environment. It has no `Display`, and its `Debug` hides the value,
/// so it cannot be formatted into a message by accident.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    /// The key held by the environment variable `var`, or `None` when it is unset or empty.
    /// The value is registered for redaction.
    pub fn from_env(var: &str) -> Option<ApiKey> {
        let value = std::env::var(var).ok()?;
        let value = value.trim().to_owned();
        if value.is_empty() {
            return None;
        }
        register(&value);
        Some(ApiKey(value))
    }

    /// A key given directly (tests, embedders); registered for redaction like one from the
    /// environment.
    pub fn new(value: impl Into<String>) -> ApiKey {
        let value = value.into();
        register(&value);
        ApiKey(value)
    }

    /// The value, for the one place that needs it: the request header.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey([REDACTED])")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registered_values_are_redacted_and_debug_hides_the_key() {
        let key = ApiKey::new("sk-test-secret-unit-0123456789");
        assert_eq!(
            redact("header sk-test-secret-unit-0123456789 echoed"),
            "header [REDACTED] echoed"
        );
        assert!(!format!("{key:?}").contains("0123456789"));
        assert_eq!(redact("short abc"), "short abc");
    }

    #[test]
    fn short_values_are_not_registered() {
        register("abc");
        assert_eq!(redact("abc abc"), "abc abc");
    }
}
