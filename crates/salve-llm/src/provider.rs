//! The provider interface: a [`Request`] (one prompt, or a short conversation for a follow-up)
//! goes in, a [`Reply`] (text plus [`Meta`]) or a [`Failure`] comes out.
//!
//! Providers are synchronous and `Send + Sync`, so a chain can hold them as
//! `Arc<dyn Provider>` and the engine can call the same one again for a follow-up. What a reply
//! *means* (an edit, the no-change sentinel, prose) is decided by [`crate::classify()`], not here:
//! a provider only reports whether it got text and what it cost.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::cancel::Cancel;
use crate::secret::redact;

/// Who said a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    User,
    Assistant,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::User => "user",
            Role::Assistant => "assistant",
        }
    }
}

/// One turn of a conversation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Message {
    pub role: Role,
    pub content: String,
}

/// What to ask: the first message is the prompt; a follow-up appends the model's reply and the
/// next user message.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Request {
    pub messages: Vec<Message>,
    /// Raised to stop the call (Ctrl-C); see [`crate::cancel`]. Not part of what is asked.
    #[serde(skip)]
    pub cancel: Cancel,
}

impl Request {
    /// A one-message request.
    pub fn new(prompt: impl Into<String>) -> Request {
        Request {
            messages: vec![Message {
                role: Role::User,
                content: prompt.into(),
            }],
            cancel: Cancel::default(),
        }
    }

    /// This request, stopped when `cancel` is raised.
    pub fn with_cancel(mut self, cancel: Cancel) -> Request {
        self.cancel = cancel;
        self
    }

    /// This conversation, plus the model's `reply` and the user's `next` message.
    pub fn follow_up(&self, reply: &str, next: impl Into<String>) -> Request {
        let mut messages = self.messages.clone();
        messages.push(Message {
            role: Role::Assistant,
            content: reply.to_owned(),
        });
        messages.push(Message {
            role: Role::User,
            content: next.into(),
        });
        Request {
            messages,
            cancel: self.cancel.clone(),
        }
    }

    /// The conversation as one text, for providers that take a single prompt (command-line
    /// agents, cassettes). A one-message request is its prompt unchanged.
    pub fn flatten(&self) -> String {
        if let [only] = self.messages.as_slice() {
            return only.content.clone();
        }
        let mut out = String::new();
        for (i, m) in self.messages.iter().enumerate() {
            if i > 0 {
                out.push_str("\n\n");
            }
            let label = match m.role {
                Role::User => "USER",
                Role::Assistant => "ASSISTANT (your earlier reply)",
            };
            out.push_str("=== ");
            out.push_str(label);
            out.push_str(" ===\n");
            out.push_str(&m.content);
        }
        out
    }
}

/// Which kind of provider answered.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ProviderKind {
    Command,
    Openai,
    Anthropic,
    Replay,
}

impl ProviderKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ProviderKind::Command => "command",
            ProviderKind::Openai => "openai",
            ProviderKind::Anthropic => "anthropic",
            ProviderKind::Replay => "replay",
        }
    }
}

/// What is known about one answer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Meta {
    /// The provider's name in the configuration.
    pub provider: String,
    pub kind: ProviderKind,
    /// The model that answered, as the provider reported it (else as configured).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tokens_in: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tokens_out: Option<u64>,
    /// In US dollars, only when the provider reports it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
    /// Wall time of the call, milliseconds.
    pub latency_ms: u64,
}

impl Meta {
    pub fn new(provider: &str, kind: ProviderKind, model: Option<&str>) -> Meta {
        Meta {
            provider: provider.to_owned(),
            kind,
            model: model.map(str::to_owned),
            tokens_in: None,
            tokens_out: None,
            cost_usd: None,
            latency_ms: 0,
        }
    }

    pub fn latency(&self) -> Duration {
        Duration::from_millis(self.latency_ms)
    }

    /// Record the elapsed time since `start`.
    pub fn timed(mut self, start: std::time::Instant) -> Meta {
        self.latency_ms = u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX);
        self
    }
}

/// A model's answer.
#[derive(Clone, Debug, PartialEq)]
pub struct Reply {
    pub text: String,
    pub meta: Meta,
}

/// Why a provider gave no answer. The chain retries [`FailureKind::Overloaded`] and moves on
/// for every other kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FailureKind {
    /// Overloaded or rate-limited (HTTP 429/503/529, "Overloaded"): worth a retry later.
    Overloaded,
    /// No answer within the time limit (the process tree was killed, or the request abandoned).
    Timeout,
    /// The connection failed or dropped (refused, reset, DNS, a stream cut short).
    Transport,
    /// The credentials were missing or refused.
    Auth,
    /// An HTTP error status other than the ones above.
    Http,
    /// The answer did not have the expected shape (malformed JSON, missing fields).
    Protocol,
    /// A command exited with a failure status.
    Exit,
    /// The agent rejected its input (gemini exit code 42).
    Input,
    /// The agent ran out of turns (gemini exit code 53).
    TurnLimit,
    /// The output went past the size limit.
    TooLarge,
    /// The program is not installed (not on PATH).
    NotFound,
    /// The cassette holds no reply for this prompt.
    ReplayMiss,
    /// The provider itself is misconfigured (no model, bad URL, unreadable cassette).
    Config,
    /// The user stopped the call (Ctrl-C); a command's process tree was killed.
    Cancelled,
}

impl FailureKind {
    pub fn as_str(self) -> &'static str {
        match self {
            FailureKind::Overloaded => "overloaded",
            FailureKind::Timeout => "timeout",
            FailureKind::Transport => "transport",
            FailureKind::Auth => "auth",
            FailureKind::Http => "http",
            FailureKind::Protocol => "protocol",
            FailureKind::Exit => "exit",
            FailureKind::Input => "input",
            FailureKind::TurnLimit => "turn_limit",
            FailureKind::TooLarge => "too_large",
            FailureKind::NotFound => "not_found",
            FailureKind::ReplayMiss => "replay_miss",
            FailureKind::Config => "config",
            FailureKind::Cancelled => "cancelled",
        }
    }
}

/// A provider's failure: its kind, a one-line reason (already free of secrets), and for rate
/// limits the wait the server asked for.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{message}")]
pub struct Failure {
    pub kind: FailureKind,
    pub message: String,
    pub retry_after: Option<Duration>,
}

impl Failure {
    /// A failure with `message` redacted and free of terminal escape codes (an agent's colored
    /// stderr would otherwise print as `ESC[31m` in a log, a report or `--json`).
    pub fn new(kind: FailureKind, message: impl AsRef<str>) -> Failure {
        Failure {
            kind,
            message: redact(&strip_ansi(message.as_ref())),
            retry_after: None,
        }
    }

    pub fn with_retry_after(mut self, wait: Option<Duration>) -> Failure {
        self.retry_after = wait;
        self
    }

    /// Worth retrying the same provider after a wait.
    pub fn is_retryable(&self) -> bool {
        self.kind == FailureKind::Overloaded
    }
}

/// A model behind some transport.
pub trait Provider: Send + Sync {
    /// The provider's name in the configuration.
    fn name(&self) -> &str;
    fn kind(&self) -> ProviderKind;
    /// The configured model, when there is one.
    fn model(&self) -> Option<&str> {
        None
    }
    /// Ask; blocks until the answer, a failure, or the provider's time limit.
    fn complete(&self, request: &Request) -> Result<Reply, Failure>;
    /// [`Provider::complete`], telling `notice` what the provider reports while it works (a
    /// retried connection, in its words), for a progress display. Providers that report nothing
    /// need not implement it.
    fn complete_observed(
        &self,
        request: &Request,
        notice: &mut dyn FnMut(&str),
    ) -> Result<Reply, Failure> {
        let _ = notice;
        self.complete(request)
    }
}

/// The last `max` characters of `text` (on a character boundary), for quoting stderr or an
/// error body in a one-line reason.
pub(crate) fn tail(text: &str, max: usize) -> String {
    let text = text.trim();
    let count = text.chars().count();
    if count <= max {
        return text.to_owned();
    }
    let skip = count - max;
    let rest: String = text.chars().skip(skip).collect();
    format!("…{rest}")
}

/// `text` on one line: terminal escape codes removed, newlines and runs of whitespace
/// collapsed.
pub(crate) fn one_line(text: &str) -> String {
    strip_ansi(text)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// `text` without terminal escape sequences (colors, cursor moves, window titles) and other
/// control characters but tab and newline. Agents color their stderr even when it is a pipe, and
/// what salve quotes from it goes into reasons, records and JSON, where the codes are noise.
///
/// Removed: CSI sequences (`ESC [` parameters, final byte `@`..`~`), OSC sequences (`ESC ]` up
/// to BEL or `ESC \`), other two-byte `ESC x` escapes, and the one-character CSI (U+009B).
pub fn strip_ansi(text: &str) -> String {
    const ESC: char = '\u{1b}';
    const BEL: char = '\u{7}';
    const CSI: char = '\u{9b}';
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            ESC => match chars.next() {
                Some('[') => skip_csi(&mut chars),
                Some(']') => {
                    // OSC: up to BEL or the string terminator `ESC \`.
                    while let Some(c) = chars.next() {
                        if c == BEL || (c == ESC && chars.next_if_eq(&'\\').is_some()) {
                            break;
                        }
                    }
                }
                // A two-byte escape (`ESC c`, `ESC =`, ...): both bytes go.
                Some(_) | None => {}
            },
            CSI => skip_csi(&mut chars),
            '\t' | '\n' => out.push(c),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

/// Skip a CSI sequence's parameter and intermediate bytes and its final byte.
fn skip_csi(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    for c in chars.by_ref() {
        if ('@'..='~').contains(&c) {
            break;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flatten_keeps_a_single_prompt_and_labels_a_conversation() {
        let r = Request::new("fix it");
        assert_eq!(r.flatten(), "fix it");
        let f = r.follow_up("diff...", "it failed");
        let flat = f.flatten();
        assert!(flat.starts_with("=== USER ===\nfix it"));
        assert!(flat.contains("=== ASSISTANT (your earlier reply) ===\ndiff..."));
        assert!(flat.ends_with("=== USER ===\nit failed"));
    }

    #[test]
    fn terminal_codes_are_stripped() {
        let gemini = "\u{1b}[31mGemini CLI is not running in a trusted directory.\u{1b}[0m";
        assert_eq!(
            strip_ansi(gemini),
            "Gemini CLI is not running in a trusted directory."
        );
        assert_eq!(strip_ansi("a\u{1b}[1;38;5;208mb\u{1b}[Kc"), "abc");
        assert_eq!(strip_ansi("\u{1b}]0;title\u{7}x\u{1b}]8;;u\u{1b}\\y"), "xy");
        assert_eq!(strip_ansi("\u{9b}2Jz\r\n\té"), "z\n\té");
        assert_eq!(strip_ansi("cut off \u{1b}["), "cut off ");
        assert_eq!(one_line("\u{1b}[31mred\u{1b}[0m\n  text"), "red text");
        let f = Failure::new(FailureKind::Exit, "gemini failed: \u{1b}[31mno\u{1b}[0m");
        assert_eq!(f.message, "gemini failed: no");
    }

    #[test]
    fn tail_cuts_on_char_boundaries() {
        assert_eq!(tail("  abc  ", 5), "abc");
        assert_eq!(tail("ééééé", 2), "…éé");
    }
}
