//! Chains: providers tried in order until one gives an edit (or says nothing needs to change).
//!
//! Each call is classified ([`crate::classify()`]):
//! - `edit` or `no_change`: the chain stops with that [`Answer`];
//! - `overloaded` (a 429/529-style failure, or an overload notice as the reply): the same
//!   provider is tried again after a wait, the server's `retry-after` when it sent one, else an
//!   exponential backoff with jitter; after [`RetryPolicy::max_retries`] retries (or when the
//!   server asks for a longer wait than [`RetryPolicy::max_delay`]) the chain moves on;
//! - `non_diff`, `empty`, `error`: the chain moves on at once.
//!
//! Every call is an [`Attempt`] with its class, reason and metadata, so the record shows why
//! each provider was passed over; when none answers, [`AllFailed`] lists each one's reason.
//! While it runs, [`Chain::run_observed`] reports each call, what the provider says while it
//! works, and each failure as an [`Event`], for a progress display.

use std::collections::hash_map::RandomState;
use std::fmt;
use std::hash::{BuildHasher, Hasher};
use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;

use crate::classify::{classify, ReplyClass};
use crate::provider::{FailureKind, Meta, Provider, Reply, Request};

/// How overloads are retried.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Retries of one provider after an overload (so `max_retries + 1` calls at most).
    pub max_retries: u32,
    /// The first backoff; each retry doubles it (with jitter).
    pub base_delay: Duration,
    /// No single wait is longer; a server asking for more moves the chain on instead.
    pub max_delay: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_retries: 2,
            base_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(30),
        }
    }
}

impl RetryPolicy {
    /// The backoff before retry number `retry` (1-based): `base * 2^(retry-1)`, scaled by a
    /// random factor in [0.5, 1.0] so that many clients do not retry in step.
    pub fn backoff(&self, retry: u32) -> Duration {
        let exp = self
            .base_delay
            .saturating_mul(1u32 << retry.saturating_sub(1).min(16));
        let capped = exp.min(self.max_delay);
        let jitter = 0.5 + 0.5 * random_unit();
        capped.mul_f64(jitter)
    }
}

/// A number in [0, 1) from the standard library's per-process random hash keys.
fn random_unit() -> f64 {
    let mut hasher = RandomState::new().build_hasher();
    hasher.write_u64(0x5a17e);
    (hasher.finish() >> 11) as f64 / (1u64 << 53) as f64
}

/// One call of one provider.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Attempt {
    pub provider: String,
    /// 1 for the first call of this provider in this run, 2 for the next (a retry after an
    /// overload, or a follow-up), ...
    pub call: u32,
    pub class: ReplyClass,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure: Option<FailureKind>,
    /// Why the chain did not stop here (absent for an edit or no-change answer).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Present when the provider answered.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// The wait before the next call of the same provider, milliseconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retry_in_ms: Option<u64>,
}

/// What a running chain reports, as it happens.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    /// A provider is being asked.
    Calling { provider: String, call: u32 },
    /// The provider reported a problem it is working around (a retried connection).
    Notice { provider: String, message: String },
    /// The call gave no usable answer; the reason is the attempt's.
    Failed { provider: String, reason: String },
    /// The same provider is asked again after this wait (an overload).
    Waiting { provider: String, wait_ms: u64 },
}

/// The reply that stopped the chain.
#[derive(Clone)]
pub struct Answer {
    /// [`ReplyClass::Edit`] or [`ReplyClass::NoChange`].
    pub class: ReplyClass,
    pub reply: Reply,
    /// Who answered, so a follow-up can go to the same provider.
    pub provider: Arc<dyn Provider>,
}

impl fmt::Debug for Answer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Answer")
            .field("class", &self.class)
            .field("reply", &self.reply)
            .field("provider", &self.provider.name())
            .finish()
    }
}

/// A chain run that ended with an answer.
#[derive(Clone, Debug)]
pub struct Answered {
    pub answer: Answer,
    pub attempts: Vec<Attempt>,
}

/// No provider gave an edit or a no-change answer.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub struct AllFailed {
    pub chain: String,
    pub attempts: Vec<Attempt>,
}

impl AllFailed {
    /// Each provider tried, in order, with the reason it was passed over (its last call's).
    pub fn reasons(&self) -> Vec<(String, String)> {
        let mut out: Vec<(String, String)> = Vec::new();
        for a in &self.attempts {
            let reason = a
                .reason
                .clone()
                .unwrap_or_else(|| a.class.as_str().to_owned());
            match out.iter_mut().find(|(p, _)| *p == a.provider) {
                Some(slot) => slot.1 = reason,
                None => out.push((a.provider.clone(), reason)),
            }
        }
        out
    }
}

impl fmt::Display for AllFailed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let reasons = self.reasons();
        if reasons.is_empty() {
            return write!(
                f,
                "All providers failed: the chain `{}` has no providers",
                self.chain
            );
        }
        write!(f, "All providers failed (chain `{}`):", self.chain)?;
        for (provider, reason) in reasons {
            write!(f, "\n  {provider}: {reason}")?;
        }
        Ok(())
    }
}

/// Providers in order, with a retry policy.
#[derive(Clone)]
pub struct Chain {
    name: String,
    providers: Vec<Arc<dyn Provider>>,
    retry: RetryPolicy,
}

impl fmt::Debug for Chain {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self.providers.iter().map(|p| p.name()).collect();
        f.debug_struct("Chain")
            .field("name", &self.name)
            .field("providers", &names)
            .field("retry", &self.retry)
            .finish()
    }
}

impl Chain {
    pub fn new(
        name: impl Into<String>,
        providers: Vec<Arc<dyn Provider>>,
        retry: RetryPolicy,
    ) -> Chain {
        Chain {
            name: name.into(),
            providers,
            retry,
        }
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn providers(&self) -> &[Arc<dyn Provider>] {
        &self.providers
    }

    pub fn retry(&self) -> RetryPolicy {
        self.retry
    }

    /// Try each provider in order; see the module docs.
    pub fn run(&self, request: &Request) -> Result<Answered, AllFailed> {
        self.run_observed(request, &mut |_| {})
    }

    /// [`Chain::run`], telling `on` each [`Event`] as it happens.
    pub fn run_observed(
        &self,
        request: &Request,
        on: &mut dyn FnMut(&Event),
    ) -> Result<Answered, AllFailed> {
        let mut attempts = Vec::new();
        for provider in &self.providers {
            if let Some(answer) = call_observed(provider, request, &self.retry, &mut attempts, on) {
                return Ok(Answered { answer, attempts });
            }
            // Stopped by the user: the next provider is not asked either.
            if request.cancel.is_cancelled() {
                break;
            }
        }
        Err(AllFailed {
            chain: self.name.clone(),
            attempts,
        })
    }
}

/// Call one provider, retrying overloads, and append each call to `attempts`. Returns the
/// answer when the provider gave an edit or a no-change reply.
pub fn call(
    provider: &Arc<dyn Provider>,
    request: &Request,
    retry: &RetryPolicy,
    attempts: &mut Vec<Attempt>,
) -> Option<Answer> {
    call_observed(provider, request, retry, attempts, &mut |_| {})
}

/// [`call`], telling `on` each [`Event`] as it happens.
pub fn call_observed(
    provider: &Arc<dyn Provider>,
    request: &Request,
    retry: &RetryPolicy,
    attempts: &mut Vec<Attempt>,
    on: &mut dyn FnMut(&Event),
) -> Option<Answer> {
    let name = provider.name().to_owned();
    // Calls are numbered per provider across the run, so a follow-up is not "call 1" again.
    let earlier = attempts
        .iter()
        .filter(|a| a.provider == provider.name())
        .count() as u32;
    let mut number = 0;
    loop {
        number += 1;
        let retries_left = number <= retry.max_retries;
        let mut attempt = Attempt {
            provider: provider.name().to_owned(),
            call: earlier + number,
            class: ReplyClass::Error,
            failure: None,
            reason: None,
            meta: None,
            retry_in_ms: None,
        };
        on(&Event::Calling {
            provider: name.clone(),
            call: attempt.call,
        });
        let mut notice = |message: &str| {
            on(&Event::Notice {
                provider: name.clone(),
                message: message.to_owned(),
            })
        };
        let server_wait = match judge(
            crate::call::complete(provider, request, &mut notice),
            &mut attempt,
        ) {
            Judged::Answer(class, reply) => {
                attempts.push(attempt);
                return Some(Answer {
                    class,
                    reply,
                    provider: Arc::clone(provider),
                });
            }
            Judged::Next => {
                failed(attempts, attempt, on);
                return None;
            }
            Judged::Retry(server_wait) => server_wait,
        };
        // Overloaded: wait and retry, or give up on this provider.
        if !retries_left || request.cancel.is_cancelled() {
            if let Some(reason) = &mut attempt.reason {
                reason.push_str(&format!(" (gave up after {number} calls)"));
            }
            failed(attempts, attempt, on);
            return None;
        }
        let wait = match server_wait {
            Some(wait) if wait > retry.max_delay => {
                if let Some(reason) = &mut attempt.reason {
                    reason.push_str(&format!(
                        " (the server asked to wait {:.0}s, more than the {:.0}s limit)",
                        wait.as_secs_f64(),
                        retry.max_delay.as_secs_f64()
                    ));
                }
                failed(attempts, attempt, on);
                return None;
            }
            Some(wait) => wait,
            None => retry.backoff(number),
        };
        attempt.retry_in_ms = Some(u64::try_from(wait.as_millis()).unwrap_or(u64::MAX));
        on(&Event::Waiting {
            provider: name.clone(),
            wait_ms: attempt.retry_in_ms.unwrap_or(0),
        });
        attempts.push(attempt);
        sleep_unless_cancelled(wait, request);
    }
}

/// Wait before a retry, cut short when the request is cancelled (the next call then fails at
/// once as cancelled).
fn sleep_unless_cancelled(wait: Duration, request: &Request) {
    let end = std::time::Instant::now() + wait;
    while !request.cancel.is_cancelled() {
        let left = end.saturating_duration_since(std::time::Instant::now());
        if left.is_zero() {
            return;
        }
        std::thread::sleep(left.min(Duration::from_millis(20)));
    }
}

/// What to do after one call.
enum Judged {
    /// An edit or a no-change answer: the chain stops.
    Answer(ReplyClass, Reply),
    /// Nothing usable: the next provider.
    Next,
    /// Overloaded: the same provider again, after the server's wait if it gave one.
    Retry(Option<Duration>),
}

/// Classify one call's result into `attempt` (class, failure, reason, metadata).
fn judge(result: Result<Reply, crate::provider::Failure>, attempt: &mut Attempt) -> Judged {
    let reply = match result {
        Ok(reply) => reply,
        Err(failure) => {
            attempt.class = ReplyClass::of_failure(failure.kind);
            attempt.failure = Some(failure.kind);
            attempt.reason = Some(format!("{}: {}", failure.kind.as_str(), failure.message));
            return if failure.is_retryable() {
                Judged::Retry(failure.retry_after)
            } else {
                Judged::Next
            };
        }
    };
    let class = classify(&reply.text);
    attempt.class = class;
    attempt.meta = Some(reply.meta.clone());
    match class {
        ReplyClass::Edit | ReplyClass::NoChange => Judged::Answer(class, reply),
        ReplyClass::Empty => {
            attempt.reason = Some("the reply was empty".to_owned());
            Judged::Next
        }
        ReplyClass::NonDiff => {
            attempt.reason = Some(format!(
                "the reply holds no edit ({} characters of text)",
                reply.text.chars().count()
            ));
            Judged::Next
        }
        ReplyClass::Overloaded | ReplyClass::Error => {
            attempt.reason = Some(format!(
                "overloaded: the reply was an overload notice: {}",
                crate::provider::one_line(&crate::secret::redact(&reply.text))
            ));
            Judged::Retry(None)
        }
    }
}

/// Keep a call that gave no answer, and report it.
fn failed(attempts: &mut Vec<Attempt>, attempt: Attempt, on: &mut dyn FnMut(&Event)) {
    on(&Event::Failed {
        provider: attempt.provider.clone(),
        reason: attempt
            .reason
            .clone()
            .unwrap_or_else(|| attempt.class.as_str().to_owned()),
    });
    attempts.push(attempt);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_with_jitter_and_is_capped() {
        let policy = RetryPolicy {
            max_retries: 5,
            base_delay: Duration::from_millis(100),
            max_delay: Duration::from_millis(300),
        };
        for _ in 0..20 {
            let first = policy.backoff(1);
            assert!(first >= Duration::from_millis(50) && first <= Duration::from_millis(100));
            let second = policy.backoff(2);
            assert!(second >= Duration::from_millis(100) && second <= Duration::from_millis(200));
            assert!(policy.backoff(9) <= Duration::from_millis(300));
        }
    }
}
