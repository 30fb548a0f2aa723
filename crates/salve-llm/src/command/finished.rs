//! What a provider program left when it ended: the one thing both the runner (which produces
//! it) and the presets (which read it) need, so neither depends on the other.

use std::process::ExitStatus;

/// A finished run.
#[derive(Debug)]
pub struct Finished {
    pub status: ExitStatus,
    pub stdout: Vec<u8>,
    /// The last `STDERR_KEEP` bytes of stderr (see `process`).
    pub stderr: Vec<u8>,
}
