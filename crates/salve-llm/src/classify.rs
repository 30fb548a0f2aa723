//! What a reply means, decided from its text: an edit, the no-change sentinel, prose without an
//! edit, nothing at all, or an overload notice that came back as text.
//!
//! An edit is whatever [`salve_patch::looks_like_edit`] sees one in: a cheap scan for the markers
//! of every format [`salve_patch::extract`] reads, which says yes whenever extraction would find
//! an edit (and, rarely, for an edit it cannot use: a refused apply costs less than a dropped
//! edit). So the chain stops on every reply `salve apply` can work with. The checks run in this
//! order: empty, edit, sentinel, overloaded, non-diff. A reply holding both an edit and the
//! sentinel is an edit: applying is safe (refusals write nothing), and dropping an edit is not.

use serde::{Deserialize, Serialize};

use crate::provider::FailureKind;

/// The line a model writes when nothing needs to change.
pub const NO_CHANGE_SENTINEL: &str = "NO_CHANGES_NEEDED";

/// Replies longer than this are never read as overload notices: a real notice is short, and a
/// long reply that mentions "rate limit" is about code.
const NOTICE_MAX_CHARS: usize = 600;

/// The class of one provider call, successful or not.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReplyClass {
    /// The reply holds an edit salve can read: the chain is done.
    Edit,
    /// The reply says nothing needs to change: the chain stops, nothing to do.
    NoChange,
    /// Text, but no edit: next provider.
    NonDiff,
    /// No text at all: next provider.
    Empty,
    /// Overloaded or rate-limited: retry with backoff, then next provider.
    Overloaded,
    /// Transport, auth, protocol or process failure: next provider, with the reason.
    Error,
}

impl ReplyClass {
    pub fn as_str(self) -> &'static str {
        match self {
            ReplyClass::Edit => "edit",
            ReplyClass::NoChange => "no_change",
            ReplyClass::NonDiff => "non_diff",
            ReplyClass::Empty => "empty",
            ReplyClass::Overloaded => "overloaded",
            ReplyClass::Error => "error",
        }
    }

    /// The class of a failed call.
    pub fn of_failure(kind: FailureKind) -> ReplyClass {
        if kind == FailureKind::Overloaded {
            ReplyClass::Overloaded
        } else {
            ReplyClass::Error
        }
    }
}

/// The class of a reply's text.
pub fn classify(text: &str) -> ReplyClass {
    if text.trim().is_empty() {
        return ReplyClass::Empty;
    }
    if salve_patch::looks_like_edit(text) {
        return ReplyClass::Edit;
    }
    if has_sentinel(text) {
        return ReplyClass::NoChange;
    }
    if text.chars().count() <= NOTICE_MAX_CHARS && looks_overloaded(text) {
        return ReplyClass::Overloaded;
    }
    ReplyClass::NonDiff
}

/// The sentinel as a word of its own (`NO_CHANGES_NEEDED`, `**NO_CHANGES_NEEDED**`,
/// `NO_CHANGES_NEEDED.`), not inside a longer identifier.
pub fn has_sentinel(text: &str) -> bool {
    text.match_indices(NO_CHANGE_SENTINEL).any(|(i, _)| {
        let word = |c: char| c.is_alphanumeric() || c == '_';
        let before = text[..i].chars().next_back().is_none_or(|c| !word(c));
        let after = text[i + NO_CHANGE_SENTINEL.len()..]
            .chars()
            .next()
            .is_none_or(|c| !word(c));
        before && after
    })
}

/// Text that reports an overload or a rate limit (status lines, API error bodies, CLI messages).
pub fn looks_overloaded(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    const WORDS: &[&str] = &[
        "overloaded",
        "rate limit",
        "rate-limit",
        "rate_limit",
        "ratelimit",
        "too many requests",
        "resource_exhausted",
        "resource exhausted",
        "quota exceeded",
        "server is busy",
        "capacity",
    ];
    if WORDS.iter().any(|w| lower.contains(w)) {
        return true;
    }
    // Status codes only as words ("429 Too Many", "status 529"), not inside other numbers.
    lower
        .split(|c: char| !c.is_ascii_alphanumeric())
        .any(|w| w == "429" || w == "529")
}

/// Text that reports missing or refused credentials.
pub fn looks_like_auth(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    const WORDS: &[&str] = &[
        "api key",
        "api_key",
        "apikey",
        "unauthorized",
        "unauthenticated",
        "authentication",
        "not logged in",
        "please run /login",
        "login required",
        "credentials",
        "permission denied",
        "forbidden",
        "invalid x-api-key",
        "401",
        "403",
    ];
    WORDS.iter().any(|w| lower.contains(w))
}

/// Text that reports a network failure.
pub fn looks_like_network(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    const WORDS: &[&str] = &[
        "network",
        "connection refused",
        "connection reset",
        "could not resolve",
        "failed to resolve",
        "dns",
        "enotfound",
        "econnrefused",
        "econnreset",
        "etimedout",
        "getaddrinfo",
        "fetch failed",
        "stream disconnected",
        "error sending request",
        "offline",
    ];
    WORDS.iter().any(|w| lower.contains(w))
}

/// The failure kind an error text suggests, `fallback` when it suggests none.
pub fn failure_kind_of(text: &str, fallback: FailureKind) -> FailureKind {
    if looks_overloaded(text) {
        FailureKind::Overloaded
    } else if looks_like_auth(text) {
        FailureKind::Auth
    } else if looks_like_network(text) {
        FailureKind::Transport
    } else {
        fallback
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes() {
        assert_eq!(classify("  \n"), ReplyClass::Empty);
        assert_eq!(classify("NO_CHANGES_NEEDED\n"), ReplyClass::NoChange);
        assert_eq!(
            classify("The code is fine. **NO_CHANGES_NEEDED**"),
            ReplyClass::NoChange
        );
        assert_eq!(classify("NO_CHANGES_NEEDED_X"), ReplyClass::NonDiff);
        assert_eq!(classify("Overloaded"), ReplyClass::Overloaded);
        assert_eq!(
            classify("I think you should rename the variable."),
            ReplyClass::NonDiff
        );
        let diff = "--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a = 1\n+a = 2\n";
        assert_eq!(classify(diff), ReplyClass::Edit);
        assert_eq!(
            classify(&format!("{diff}\nNO_CHANGES_NEEDED")),
            ReplyClass::Edit
        );
        // A bare Cline tool call is an edit too: the chain must not move on to the next
        // provider as if the reply held none.
        assert_eq!(
            classify("<write_to_file>\n<path>notes.md</path>\n<content>\n# Notes\n</content>\n</write_to_file>\n"),
            ReplyClass::Edit
        );
    }

    #[test]
    fn failure_texts() {
        assert_eq!(
            failure_kind_of("API Error: 529 Overloaded", FailureKind::Exit),
            FailureKind::Overloaded
        );
        assert_eq!(
            failure_kind_of("Invalid API key · Please run /login", FailureKind::Exit),
            FailureKind::Auth
        );
        assert_eq!(
            failure_kind_of("getaddrinfo ENOTFOUND api.example", FailureKind::Exit),
            FailureKind::Transport
        );
        assert_eq!(
            failure_kind_of("segfault", FailureKind::Exit),
            FailureKind::Exit
        );
        assert!(!looks_overloaded("line 14290 changed"));
    }
}
