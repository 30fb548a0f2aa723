//! `show`: one recorded run in full, its applied diffs, or one of its artifacts.

use std::path::PathBuf;

use salve_store::{PatchStatus, RunRecord, Store, StoreError};
use serde::Serialize;

use super::error::{existing_dir, Error};

/// Which run, and what of it.
#[derive(Clone, Debug, Default)]
pub struct ShowOptions {
    /// The work tree whose record is read.
    pub dir: PathBuf,
    /// The run's id or a unique prefix of it.
    pub run: String,
    /// What to read.
    pub what: Shown,
}

/// What of a run [`show`] reads.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Shown {
    /// The run with its patch sets, attempts, decisions and artifact list.
    #[default]
    Record,
    /// The diffs of the patch sets that were applied, in order.
    Diffs,
    /// One artifact's bytes, by name.
    Artifact(String),
}

/// A run, or the bytes asked for. Serialized as the run record (`{run, patch_sets, ...}`).
#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
pub enum ShowOutcome {
    /// [`Shown::Record`].
    Record(Box<RunRecord>),
    /// [`Shown::Diffs`]: each applied patch set's diff; none when the run applied nothing.
    Diffs {
        /// The full run id.
        run: String,
        /// How the run ended (`checked` wrote nothing by design).
        status: String,
        /// The diffs, in patch-set order.
        diffs: Vec<Vec<u8>>,
    },
    /// [`Shown::Artifact`]: the artifact as stored.
    Artifact(Vec<u8>),
}

/// Read what `options` asks for.
pub fn show(options: &ShowOptions) -> Result<ShowOutcome, Error> {
    let dir = existing_dir(&options.dir)?;
    let store = Store::open_existing(dir)?;
    // No record at all reads as no such run.
    let Some(store) = store else {
        return Err(StoreError::NoSuchRun(options.run.clone()).into());
    };
    let id = store.resolve(&options.run)?;
    match &options.what {
        Shown::Artifact(name) => Ok(ShowOutcome::Artifact(store.artifact(&id, name)?)),
        Shown::Record => Ok(ShowOutcome::Record(Box::new(store.record(&id)?))),
        Shown::Diffs => {
            let record = store.record(&id)?;
            let mut diffs = Vec::new();
            for p in &record.patch_sets {
                if let (PatchStatus::Applied, Some(sha)) = (p.status, &p.diff_sha256) {
                    diffs.push(store.objects().get(sha)?);
                }
            }
            Ok(ShowOutcome::Diffs {
                run: id,
                status: record.run.status.clone(),
                diffs,
            })
        }
    }
}
