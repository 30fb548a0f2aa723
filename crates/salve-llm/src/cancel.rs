//! The token that stops a provider call from outside (Ctrl-C, a client's cancel): it travels
//! with the [`Request`](crate::Request); how a call honours it is in the private `call`
//! module.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// A flag someone else may raise to stop a call. The default is a token nobody raises.
#[derive(Clone, Debug, Default)]
pub struct Cancel(Option<Arc<AtomicBool>>);

impl Cancel {
    /// A token raised when `flag` is true.
    pub fn new(flag: Arc<AtomicBool>) -> Cancel {
        Cancel(Some(flag))
    }

    pub fn is_cancelled(&self) -> bool {
        self.0.as_ref().is_some_and(|f| f.load(Ordering::SeqCst))
    }

    /// Whether anyone can raise it: a call that cannot be cancelled needs no thread.
    pub fn can_cancel(&self) -> bool {
        self.0.is_some()
    }
}

// A token says how to stop a request, not what it asks: two requests that ask the same are
// equal whatever their tokens.
impl PartialEq for Cancel {
    fn eq(&self, _: &Cancel) -> bool {
        true
    }
}

impl Eq for Cancel {}
