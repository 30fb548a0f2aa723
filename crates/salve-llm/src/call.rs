//! Stopping a provider call from outside (Ctrl-C): a [`Cancel`](crate::Cancel) token travels with the
//! [`Request`], and [`complete`] returns a [`FailureKind::Cancelled`] failure soon after it is
//! raised, whatever the provider.
//!
//! A command provider watches the token itself and kills its whole process tree (it runs in a
//! process group of its own, so a terminal's Ctrl-C never reaches it), then returns. An HTTP
//! call cannot be stopped half way, so [`complete`] runs a cancellable call on a thread of its
//! own and stops waiting for it: the thread is left to finish or to die with the process, and
//! its answer is dropped. A command provider gets [`KILL_GRACE`] to report that its tree is
//! gone before the caller moves on, so nothing it started outlives the caller's exit.

use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use crate::provider::{Failure, FailureKind, Provider, Reply, Request};

/// How often a waiting call looks at the token.
const TICK: Duration = Duration::from_millis(10);
/// How long a cancelled call is given to clean up (kill its tree) before the caller moves on.
pub const KILL_GRACE: Duration = Duration::from_secs(2);

/// The failure of a call stopped by its token.
pub fn cancelled() -> Failure {
    Failure::new(FailureKind::Cancelled, "stopped by the user")
}

enum Event {
    Notice(String),
    Done(Result<Reply, Failure>),
}

/// `provider.complete_observed(request, notice)`, returning a cancelled failure soon after the
/// request's token is raised; see the module docs.
pub fn complete(
    provider: &Arc<dyn Provider>,
    request: &Request,
    notice: &mut dyn FnMut(&str),
) -> Result<Reply, Failure> {
    if request.cancel.is_cancelled() {
        return Err(cancelled());
    }
    if !request.cancel.can_cancel() {
        return provider.complete_observed(request, notice);
    }
    let (tx, rx) = mpsc::channel();
    let worker = Arc::clone(provider);
    let owned = request.clone();
    std::thread::spawn(move || {
        let notices = tx.clone();
        let mut forward = |m: &str| {
            let _ = notices.send(Event::Notice(m.to_owned()));
        };
        let result = worker.complete_observed(&owned, &mut forward);
        // The caller may have stopped listening: the answer is not needed then.
        let _ = tx.send(Event::Done(result));
    });
    let mut cancelled_at: Option<Instant> = None;
    loop {
        match rx.recv_timeout(TICK) {
            Ok(Event::Notice(m)) => notice(&m),
            Ok(Event::Done(result)) => {
                return if cancelled_at.is_some() || request.cancel.is_cancelled() {
                    Err(cancelled())
                } else {
                    result
                };
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                return Err(Failure::new(
                    FailureKind::Exit,
                    "the provider's thread ended without an answer",
                ));
            }
        }
        match cancelled_at {
            None if request.cancel.is_cancelled() => cancelled_at = Some(Instant::now()),
            Some(at) if at.elapsed() >= KILL_GRACE => return Err(cancelled()),
            _ => {}
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::provider::{Meta, ProviderKind};
    use crate::Cancel;
    use std::sync::atomic::{AtomicBool, Ordering};

    /// Answers after a long sleep, as an HTTP call that cannot be interrupted.
    struct Slow;

    impl Provider for Slow {
        fn name(&self) -> &str {
            "slow"
        }
        fn kind(&self) -> ProviderKind {
            ProviderKind::Command
        }
        fn complete(&self, _: &Request) -> Result<Reply, Failure> {
            std::thread::sleep(Duration::from_secs(30));
            Ok(Reply {
                text: "late".to_owned(),
                meta: Meta::new("slow", ProviderKind::Command, None),
            })
        }
    }

    #[test]
    fn a_raised_token_stops_waiting_for_a_call_that_cannot_stop() {
        let flag = Arc::new(AtomicBool::new(false));
        let request = Request::new("hi").with_cancel(Cancel::new(Arc::clone(&flag)));
        let provider: Arc<dyn Provider> = Arc::new(Slow);
        let raise = Arc::clone(&flag);
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(100));
            raise.store(true, Ordering::SeqCst);
        });
        let start = Instant::now();
        let failure = complete(&provider, &request, &mut |_| {}).unwrap_err();
        assert_eq!(failure.kind, FailureKind::Cancelled);
        assert!(start.elapsed() < KILL_GRACE + Duration::from_secs(2));
        // Raised before the call: no call at all.
        let failure = complete(&provider, &request, &mut |_| {}).unwrap_err();
        assert_eq!(failure.kind, FailureKind::Cancelled);
    }

    #[test]
    fn tokens_do_not_make_requests_differ() {
        let a = Request::new("x");
        let b = Request::new("x").with_cancel(Cancel::new(Arc::new(AtomicBool::new(true))));
        assert_eq!(a, b);
    }
}
