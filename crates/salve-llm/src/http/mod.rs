//! HTTP providers: OpenAI-compatible chat completions ([`openai`]) and Anthropic messages
//! ([`anthropic`]), over ureq with no async runtime.
//!
//! Shared here: the API key read from its variable, the conversation as JSON messages, the agent
//! (a time limit on the whole call, connect included; proxies from the environment except for
//! loopback servers), and the reading of an error response into a [`Failure`]: 429, 503 and 529
//! are overloaded (with the server's `retry-after`), 401 and 403 are auth failures, anything else
//! is an HTTP error quoting the server's message. Bodies are read with a size limit; error bodies
//! are redacted like every failure message.

pub mod anthropic;
pub mod openai;
mod sse;

use std::io::ErrorKind;
use std::time::Duration;

use serde_json::Value;
use ureq::http::{HeaderMap, Response};
use ureq::{Agent, Body};

use crate::classify::{failure_kind_of, looks_overloaded};
use crate::provider::{one_line, tail, Failure, FailureKind, Request};
use crate::secret::ApiKey;

/// Largest response body read: 16 MiB.
const MAX_BODY: u64 = 16 * 1024 * 1024;
/// Largest error body read: 64 KiB.
const MAX_ERROR_BODY: u64 = 64 * 1024;
/// Connecting never waits longer than this, whatever the call's time limit.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// How much of a server's error message a reason quotes.
const REASON_CHARS: usize = 300;

/// Settings shared by the HTTP providers.
#[derive(Clone, Debug)]
pub struct HttpSettings {
    /// Up to and including the version segment, e.g. `http://127.0.0.1:11434/v1`.
    pub base_url: String,
    pub model: String,
    pub timeout: Duration,
}

impl HttpSettings {
    /// `base_url` joined with `path` (one slash between them).
    pub fn endpoint(&self, path: &str) -> String {
        format!(
            "{}/{}",
            self.base_url.trim_end_matches('/'),
            path.trim_start_matches('/')
        )
    }
}

/// True for `localhost` and 127.0.0.0/8 / `[::1]` URLs: local servers, never behind a proxy.
pub fn is_loopback(url: &str) -> bool {
    let rest = url.split_once("://").map(|(_, rest)| rest).unwrap_or(url);
    let host_port = rest.split('/').next().unwrap_or("");
    let host = if let Some(v6) = host_port.strip_prefix('[') {
        v6.split(']').next().unwrap_or("")
    } else {
        host_port.split(':').next().unwrap_or("")
    };
    host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// Where the key comes from.
#[derive(Clone, Debug)]
pub(crate) enum Key {
    /// No key configured (local servers).
    None,
    /// Read from this variable; `None` when it was unset.
    Env { var: String, key: Option<ApiKey> },
}

impl Key {
    /// The key from `var`, when a variable is named.
    pub(crate) fn from_env(var: Option<&str>) -> Key {
        match var {
            None => Key::None,
            Some(var) => Key::Env {
                var: var.to_owned(),
                key: ApiKey::from_env(var),
            },
        }
    }

    /// The key to send, or the auth failure of a named but unset variable.
    pub(crate) fn get(&self) -> Result<Option<&ApiKey>, Failure> {
        match self {
            Key::None => Ok(None),
            Key::Env { key: Some(key), .. } => Ok(Some(key)),
            Key::Env { var, key: None } => Err(Failure::new(
                FailureKind::Auth,
                format!("the environment variable {var} (api_key_env) is not set"),
            )),
        }
    }
}

/// The conversation as both APIs take it: `[{"role", "content"}, ...]`.
pub(crate) fn messages_json(request: &Request) -> Vec<Value> {
    request
        .messages
        .iter()
        .map(|m| serde_json::json!({"role": m.role.as_str(), "content": m.content}))
        .collect()
}

pub(crate) fn agent(settings: &HttpSettings) -> Agent {
    let mut config = Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(settings.timeout))
        .timeout_connect(Some(CONNECT_TIMEOUT.min(settings.timeout)))
        .user_agent(concat!("salve/", env!("CARGO_PKG_VERSION")));
    if is_loopback(&settings.base_url) {
        config = config.proxy(None);
    }
    Agent::new_with_config(config.build())
}

/// A transport error as a failure.
pub(crate) fn transport(e: ureq::Error) -> Failure {
    match e {
        ureq::Error::Timeout(which) => Failure::new(
            FailureKind::Timeout,
            format!("no answer in time ({which} timeout)"),
        ),
        ureq::Error::Io(io) => io_failure(&io),
        ureq::Error::HostNotFound => Failure::new(FailureKind::Transport, "host not found"),
        ureq::Error::ConnectionFailed => Failure::new(FailureKind::Transport, "connection failed"),
        ureq::Error::BadUri(uri) => Failure::new(FailureKind::Config, format!("bad URL: {uri}")),
        ureq::Error::BodyExceedsLimit(limit) => Failure::new(
            FailureKind::TooLarge,
            format!("the response passed {limit} bytes"),
        ),
        other => Failure::new(FailureKind::Transport, other.to_string()),
    }
}

/// An I/O error while talking to the server.
pub(crate) fn io_failure(e: &std::io::Error) -> Failure {
    let text = e.to_string();
    if e.kind() == ErrorKind::TimedOut || text.to_ascii_lowercase().contains("timeout") {
        return Failure::new(FailureKind::Timeout, format!("no answer in time ({text})"));
    }
    let what = match e.kind() {
        ErrorKind::ConnectionRefused => "connection refused",
        ErrorKind::ConnectionReset | ErrorKind::ConnectionAborted | ErrorKind::BrokenPipe => {
            "connection dropped"
        }
        ErrorKind::UnexpectedEof => "connection closed early",
        _ => "transport error",
    };
    Failure::new(FailureKind::Transport, format!("{what}: {text}"))
}

/// The wait a `retry-after` (seconds) or `retry-after-ms` header asks for.
pub(crate) fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let get = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    if let Some(ms) = get("retry-after-ms").and_then(|v| v.trim().parse::<f64>().ok()) {
        return Some(Duration::from_secs_f64(ms.max(0.0) / 1000.0));
    }
    get("retry-after")
        .and_then(|v| v.trim().parse::<f64>().ok())
        .filter(|s| s.is_finite())
        .map(|s| Duration::from_secs_f64(s.max(0.0)))
}

/// Read a successful response's JSON body.
pub(crate) fn read_json(response: &mut Response<Body>) -> Result<Value, Failure> {
    let text = response
        .body_mut()
        .with_config()
        .limit(MAX_BODY)
        .read_to_string()
        .map_err(transport)?;
    serde_json::from_str(&text).map_err(|e| {
        Failure::new(
            FailureKind::Protocol,
            format!(
                "malformed JSON from the server ({e}): {}",
                one_line(&tail(&text, 120))
            ),
        )
    })
}

/// The failure an error status stands for.
pub(crate) fn status_failure(response: &mut Response<Body>) -> Failure {
    let status = response.status().as_u16();
    let wait = retry_after(response.headers());
    let body = response
        .body_mut()
        .with_config()
        .limit(MAX_ERROR_BODY)
        .lossy_utf8(true)
        .read_to_string()
        .unwrap_or_default();
    let message = error_message(&body);
    let kind = match status {
        429 | 503 | 529 => FailureKind::Overloaded,
        401 | 403 => FailureKind::Auth,
        _ if looks_overloaded(&message) => FailureKind::Overloaded,
        _ => FailureKind::Http,
    };
    let label = match kind {
        FailureKind::Overloaded => "overloaded or rate-limited",
        FailureKind::Auth => "the credentials were refused",
        _ => "error",
    };
    let detail = if message.is_empty() {
        String::new()
    } else {
        format!(": {message}")
    };
    Failure::new(kind, format!("HTTP {status}, {label}{detail}")).with_retry_after(wait)
}

/// An error the server reported inside a successful response (or a stream event).
pub(crate) fn reported_error(message: &str) -> Failure {
    Failure::new(
        failure_kind_of(message, FailureKind::Http),
        format!("the server reported an error: {message}"),
    )
}

/// The message in an error body: `{"error": {"message"}}`, `{"error": "..."}`, `{"message"}`, or
/// the text itself.
fn error_message(body: &str) -> String {
    let from_json = serde_json::from_str::<Value>(body).ok().and_then(|v| {
        let error = v.get("error");
        error
            .and_then(|e| e.get("message"))
            .and_then(Value::as_str)
            .or_else(|| error.and_then(Value::as_str))
            .or_else(|| v.get("message").and_then(Value::as_str))
            .map(str::to_owned)
    });
    one_line(&tail(
        &from_json.unwrap_or_else(|| body.to_owned()),
        REASON_CHARS,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_hosts() {
        assert!(is_loopback("http://127.0.0.1:8080/v1"));
        assert!(is_loopback("http://localhost/v1"));
        assert!(is_loopback("http://[::1]:9/v1"));
        assert!(!is_loopback("https://api.openai.com/v1"));
        assert!(!is_loopback("https://127.example.com/v1"));
    }

    #[test]
    fn error_messages() {
        assert_eq!(
            error_message(r#"{"error":{"type":"overloaded_error","message":"Overloaded"}}"#),
            "Overloaded"
        );
        assert_eq!(error_message(r#"{"error":"bad model"}"#), "bad model");
        assert_eq!(error_message("plain\ntext"), "plain text");
    }
}
