//! Noticing an agent that hangs: its output lines are read as they arrive and a run of
//! transport errors ends it, instead of waiting for the whole time limit.
//!
//! The agent CLIs retry a lost connection on their own and say so while they do: `codex exec
//! --json` prints `error` events ("Reconnecting... waiting for network") forever, `claude
//! --output-format stream-json` prints `api_retry` events for minutes, and gemini prints
//! "Attempt N failed. Retrying with backoff..." on stderr. Each line is read as a [`Signal`]:
//! progress (the agent is working), a transport error, or nothing. A [`StallPolicy`] ends the
//! run once `errors` transport errors came in a row (no progress between them) and at least
//! `span` passed since the first of them, so the agent's own quick reconnects get their chance
//! and a network that is really gone is given up on in seconds. The defaults follow each
//! agent's rhythm: three retries over 3 s; for codex over 4 s, as its five fast WebSocket
//! retries take about 3 s before it falls back to HTTPS; for gemini, which retries only every 4
//! to 20 s, two.

use std::time::{Duration, Instant};

use serde_json::Value;

use super::presets::Preset;
use crate::classify::failure_kind_of;
use crate::provider::{one_line, tail, FailureKind};

/// Which of the program's outputs a line came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stream {
    Stdout,
    Stderr,
}

/// What one output line says about the run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Signal {
    /// The agent made progress (an event other than an error).
    Progress,
    /// The agent reported a failed connection it is retrying, in its words, and what kind of
    /// failure it is ([`FailureKind::Transport`] or [`FailureKind::Overloaded`]).
    Retrying { kind: FailureKind, message: String },
    /// Neither: a warning, a stack trace line, a partial result.
    Other,
}

/// When a run of retries ends the program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StallPolicy {
    /// Retries in a row, with no progress between them.
    pub errors: u32,
    /// And at least this long since the first of them.
    pub span: Duration,
}

impl Default for StallPolicy {
    fn default() -> Self {
        StallPolicy {
            errors: 3,
            span: Duration::from_secs(4),
        }
    }
}

impl StallPolicy {
    /// The default for `preset`'s retry rhythm; see the module docs.
    pub fn for_preset(preset: Option<Preset>) -> StallPolicy {
        let span = Duration::from_secs(3);
        match preset {
            Some(Preset::Codex) => StallPolicy::default(),
            Some(Preset::Gemini) => StallPolicy { errors: 2, span },
            Some(Preset::Claude) | None => StallPolicy { errors: 3, span },
        }
    }
}

/// Why a watched run was ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stalled {
    pub kind: FailureKind,
    /// How many retries in a row were seen, and the last one's words.
    pub message: String,
}

/// The state of one run: reads each line, says when to give up.
#[derive(Debug)]
pub struct Watch {
    preset: Option<Preset>,
    policy: StallPolicy,
    run: u32,
    first: Option<Instant>,
    transport: bool,
}

impl Watch {
    pub fn new(preset: Option<Preset>, policy: StallPolicy) -> Watch {
        Watch {
            preset,
            policy,
            run: 0,
            first: None,
            transport: false,
        }
    }

    /// Read one line; `Some` once the run of retries is long enough to give up.
    pub fn line(&mut self, stream: Stream, line: &str) -> (Signal, Option<Stalled>) {
        let signal = match self.preset {
            Some(preset) => signal(preset, stream, line),
            None => Signal::Other,
        };
        let stalled = self.count(&signal, Instant::now());
        (signal, stalled)
    }

    fn count(&mut self, signal: &Signal, now: Instant) -> Option<Stalled> {
        match signal {
            Signal::Progress => {
                self.run = 0;
                self.first = None;
                self.transport = false;
                None
            }
            Signal::Other => None,
            Signal::Retrying { kind, message } => {
                self.run += 1;
                let first = *self.first.get_or_insert(now);
                self.transport |= *kind == FailureKind::Transport;
                let long_enough = now.duration_since(first) >= self.policy.span;
                (self.policy.errors > 0 && self.run >= self.policy.errors && long_enough).then(
                    || Stalled {
                        kind: if self.transport {
                            FailureKind::Transport
                        } else {
                            FailureKind::Overloaded
                        },
                        message: format!(
                            "gave up after {} retries in a row over {:.0}s: {}",
                            self.run,
                            now.duration_since(first).as_secs_f64(),
                            tail(message, 300)
                        ),
                    },
                )
            }
        }
    }
}

/// What `line` from `preset`'s `stream` says; see the module docs.
pub fn signal(preset: Preset, stream: Stream, line: &str) -> Signal {
    let line = line.trim();
    if line.is_empty() {
        return Signal::Other;
    }
    match (preset, stream) {
        (Preset::Codex, Stream::Stdout) => codex(line),
        (Preset::Claude, Stream::Stdout) => claude(line),
        (Preset::Gemini, Stream::Stderr) => gemini_stderr(line),
        (Preset::Gemini, Stream::Stdout) => json_event(line).map_or(Signal::Other, |event| {
            // stream-json: every event but an error one is progress.
            if event.get("type").and_then(Value::as_str) == Some("error") {
                Signal::Other
            } else {
                Signal::Progress
            }
        }),
        // codex and claude log to stderr freely; their stdout events are the signal.
        (Preset::Codex | Preset::Claude, Stream::Stderr) => Signal::Other,
    }
}

fn json_event(line: &str) -> Option<Value> {
    serde_json::from_str::<Value>(line)
        .ok()
        .filter(Value::is_object)
}

/// A retry notice's kind, from its words: overloaded when it says so, else transport.
fn retrying(message: &str) -> Signal {
    let message = one_line(message);
    let kind = match failure_kind_of(&message, FailureKind::Transport) {
        FailureKind::Overloaded => FailureKind::Overloaded,
        _ => FailureKind::Transport,
    };
    Signal::Retrying { kind, message }
}

fn codex(line: &str) -> Signal {
    let Some(event) = json_event(line) else {
        return Signal::Other;
    };
    match event.get("type").and_then(Value::as_str).unwrap_or("") {
        // A top-level error during a turn is codex retrying its connection.
        "error" => event
            .get("message")
            .and_then(Value::as_str)
            .map_or(Signal::Other, retrying),
        // "Falling back from WebSockets to HTTPS transport": a change of route, not progress
        // and not a failure of its own.
        "item.completed" | "item.started"
            if event
                .get("item")
                .and_then(|i| i.get("type"))
                .and_then(Value::as_str)
                == Some("error") =>
        {
            Signal::Other
        }
        _ => Signal::Progress,
    }
}

fn claude(line: &str) -> Signal {
    let Some(event) = json_event(line) else {
        return Signal::Other;
    };
    let kind = event.get("type").and_then(Value::as_str).unwrap_or("");
    let subtype = event.get("subtype").and_then(Value::as_str).unwrap_or("");
    if kind == "system" && subtype == "api_retry" {
        let status = event.get("error_status").and_then(Value::as_u64);
        let error = event
            .get("error")
            .and_then(Value::as_str)
            .unwrap_or("unknown");
        let attempt = event.get("attempt").and_then(Value::as_u64).unwrap_or(0);
        let max = event
            .get("max_retries")
            .and_then(Value::as_u64)
            .unwrap_or(0);
        let message = match status {
            Some(status) => format!("API retry {attempt}/{max} (HTTP {status}): {error}"),
            None => format!("API retry {attempt}/{max} (no connection): {error}"),
        };
        return match status {
            Some(429 | 503 | 529) => Signal::Retrying {
                kind: FailureKind::Overloaded,
                message,
            },
            _ => Signal::Retrying {
                kind: FailureKind::Transport,
                message,
            },
        };
    }
    Signal::Progress
}

fn gemini_stderr(line: &str) -> Signal {
    // "Attempt 2 failed. Retrying with backoff... Error: exception TypeError: fetch failed"
    let lower = line.to_ascii_lowercase();
    if lower.starts_with("attempt ") && lower.contains("failed") && lower.contains("retrying") {
        retrying(line)
    } else {
        Signal::Other
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn the_agents_retry_notices_are_read_as_such() {
        let codex = r#"{"type":"error","message":"Reconnecting... waiting for network (Connection failed: error sending request)"}"#;
        assert!(matches!(
            signal(Preset::Codex, Stream::Stdout, codex),
            Signal::Retrying {
                kind: FailureKind::Transport,
                ..
            }
        ));
        let fallback = r#"{"type":"item.completed","item":{"id":"item_0","type":"error","message":"Falling back from WebSockets to HTTPS transport."}}"#;
        assert_eq!(
            signal(Preset::Codex, Stream::Stdout, fallback),
            Signal::Other
        );
        let message = r#"{"type":"item.completed","item":{"type":"agent_message","text":"hi"}}"#;
        assert_eq!(
            signal(Preset::Codex, Stream::Stdout, message),
            Signal::Progress
        );
        let claude = r#"{"type":"system","subtype":"api_retry","attempt":2,"max_retries":10,"error_status":null,"error":"unknown"}"#;
        assert!(matches!(
            signal(Preset::Claude, Stream::Stdout, claude),
            Signal::Retrying {
                kind: FailureKind::Transport,
                ..
            }
        ));
        let overloaded = r#"{"type":"system","subtype":"api_retry","attempt":1,"error_status":529,"error":"overloaded"}"#;
        assert!(matches!(
            signal(Preset::Claude, Stream::Stdout, overloaded),
            Signal::Retrying {
                kind: FailureKind::Overloaded,
                ..
            }
        ));
        let gemini = "Attempt 2 failed. Retrying with backoff... Error: exception TypeError: fetch failed sending request";
        assert!(matches!(
            signal(Preset::Gemini, Stream::Stderr, gemini),
            Signal::Retrying { .. }
        ));
        assert_eq!(
            signal(
                Preset::Gemini,
                Stream::Stderr,
                "    at async retryWithBackoff"
            ),
            Signal::Other
        );
    }

    #[test]
    fn a_run_of_retries_ends_only_when_long_enough_and_progress_resets_it() {
        let policy = StallPolicy {
            errors: 3,
            span: Duration::from_secs(5),
        };
        let mut watch = Watch::new(Some(Preset::Codex), policy);
        let retry = Signal::Retrying {
            kind: FailureKind::Transport,
            message: "Reconnecting...".to_owned(),
        };
        let t0 = Instant::now();
        assert!(watch.count(&retry, t0).is_none());
        assert!(watch.count(&retry, t0 + Duration::from_secs(1)).is_none());
        // Three in a row, but within the span: codex's own quick reconnects.
        assert!(watch.count(&retry, t0 + Duration::from_secs(2)).is_none());
        assert!(watch
            .count(&Signal::Other, t0 + Duration::from_secs(3))
            .is_none());
        let stalled = watch.count(&retry, t0 + Duration::from_secs(6)).unwrap();
        assert_eq!(stalled.kind, FailureKind::Transport);
        assert!(
            stalled.message.contains("4 retries in a row"),
            "{}",
            stalled.message
        );
        // Progress starts the count again.
        assert!(watch
            .count(&Signal::Progress, t0 + Duration::from_secs(7))
            .is_none());
        assert!(watch.count(&retry, t0 + Duration::from_secs(20)).is_none());
    }
}
