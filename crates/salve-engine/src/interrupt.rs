//! Ctrl-C and SIGTERM, as salve's operations want them: a front end installs one signal
//! handler that calls [`request`]. Work that must not be cut in the middle (a transaction
//! writing its temporary files and renaming them into place, a fix loop that puts the tree back)
//! holds a [`Guard`]; then the request only raises a flag that the work checks at its safe
//! points ([`requested`], [`cancel_flag`]), and it stops cleanly: temporary files removed, the
//! tree as it was. With no guard held there is nothing to clean up, and the front end may exit
//! at once.
//!
//! Besides the process's own stop, each call can carry a [`Cancel`] token of its own (a server
//! cancels one request, not the process): work stops at the same safe points when either is
//! raised.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

static GUARDS: AtomicUsize = AtomicUsize::new(0);
static EXIT_WHEN_IDLE: AtomicBool = AtomicBool::new(false);

/// For a server (`salve mcp`, `salve ui`): a stop asked for while guarded work ran ends the
/// process (exit 130) once that work is done. Without this the flag would stay raised and stop
/// every later request at its first safe point, while the server went on running.
pub fn exit_when_idle() {
    EXIT_WHEN_IDLE.store(true, Ordering::SeqCst);
}

/// The flag a request raises; shared with check runs, which poll it to kill their tree.
pub fn cancel_flag() -> Arc<AtomicBool> {
    static FLAG: OnceLock<Arc<AtomicBool>> = OnceLock::new();
    Arc::clone(FLAG.get_or_init(|| Arc::new(AtomicBool::new(false))))
}

/// Ask the work under way to stop. True when guarded work will stop by itself at its next safe
/// point; false when nothing is guarded and the caller may exit now.
pub fn request() -> bool {
    cancel_flag().store(true, Ordering::SeqCst);
    GUARDS.load(Ordering::SeqCst) > 0
}

/// Whether a stop was asked for.
pub fn requested() -> bool {
    cancel_flag().load(Ordering::SeqCst)
}

/// A stop asked for one call: the process's stop ([`request`]) counts, and a flag of the
/// call's own when it has one. The default token is the process's stop alone; [`Cancel::none`]
/// is for work that puts things back after a stop and must not be stopped itself.
#[derive(Clone, Debug)]
pub struct Cancel {
    flag: Option<Arc<AtomicBool>>,
    process: bool,
}

impl Default for Cancel {
    fn default() -> Self {
        Cancel {
            flag: None,
            process: true,
        }
    }
}

impl Cancel {
    /// A token for one call, raised when `flag` is (or when the process is asked to stop).
    pub fn with_flag(flag: Arc<AtomicBool>) -> Cancel {
        Cancel {
            flag: Some(flag),
            process: true,
        }
    }

    /// A token nothing raises: for the work that takes a change back after a stop.
    pub fn none() -> Cancel {
        Cancel {
            flag: None,
            process: false,
        }
    }

    /// Whether this call, or the whole process, was asked to stop.
    pub fn requested(&self) -> bool {
        (self.process && requested())
            || self.flag.as_ref().is_some_and(|f| f.load(Ordering::SeqCst))
    }

    /// The call's own flag, when it has one (else the process's): for a child process that
    /// polls one flag.
    pub fn flag(&self) -> Arc<AtomicBool> {
        self.flag.clone().unwrap_or_else(cancel_flag)
    }

    /// Whether the call has a flag of its own.
    pub fn is_per_call(&self) -> bool {
        self.flag.is_some()
    }
}

/// Held while work must finish or undo itself rather than die half done.
#[derive(Debug)]
pub struct Guard(());

/// Guard the work until the returned value is dropped.
pub fn guard() -> Guard {
    GUARDS.fetch_add(1, Ordering::SeqCst);
    Guard(())
}

impl Drop for Guard {
    fn drop(&mut self) {
        let last = GUARDS.fetch_sub(1, Ordering::SeqCst) == 1;
        if last && requested() && EXIT_WHEN_IDLE.load(Ordering::SeqCst) {
            std::process::exit(130);
        }
    }
}
