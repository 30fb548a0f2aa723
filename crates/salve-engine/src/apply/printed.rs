//! The one machine-readable form of an apply's result: the report, with the checkpoint (or why
//! there is none) and, when asked, the diff beside it. Every front end (the command line, the
//! Python and Node packages) serializes this, so a caller reading one reads them all.

use serde::Serialize;

use super::{NoCheckpoint, Outcome};

/// An [`Outcome`] as it is shown to machines: the report's fields at the top level, then what
/// the engine says beside it as data.
#[derive(Clone, Debug, Serialize)]
pub struct Printed<'a> {
    #[serde(flatten)]
    pub report: &'a salve_patch::Report,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub checkpoint: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub no_checkpoint: Option<NoCheckpoint>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff: Option<&'a str>,
}

impl Outcome {
    /// This outcome for machines; `with_diff` adds the unified diff of the change (present
    /// when the apply rendered one: recorded, or asked to show it).
    pub fn printed(&self, with_diff: bool) -> Printed<'_> {
        Printed {
            report: &self.report,
            checkpoint: self.checkpoint.as_deref(),
            no_checkpoint: self.no_checkpoint,
            diff: with_diff.then_some(self.diff.as_str()),
        }
    }
}
