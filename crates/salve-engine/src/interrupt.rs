//! Ctrl-C and SIGTERM, as salve's operations want them: a front end installs one signal
//! handler that calls [`request`]. Work that must not be cut in the middle (a transaction
//! writing its temporary files and renaming them into place, a fix loop that puts the tree back)
//! holds a [`Guard`]; then the request only raises a flag that the work checks at its safe
//! points ([`requested`], [`cancel_flag`]), and it stops cleanly: temporary files removed, the
//! tree as it was. With no guard held there is nothing to clean up, and the front end may exit
//! at once.

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
