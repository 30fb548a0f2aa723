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
    /// The run record and the applied diffs (as text), in one reading.
    RecordWithDiffs,
    /// The apply reports the run kept (one per apply: a fix or an ask may keep several), typed.
    Reports,
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
    /// [`Shown::RecordWithDiffs`]: the run record, with `applied_diffs` beside its fields.
    RecordWithDiffs {
        #[serde(flatten)]
        record: Box<RunRecord>,
        /// Each applied patch set's diff, in order (invalid UTF-8 replaced).
        applied_diffs: Vec<String>,
    },
    /// [`Shown::Reports`]: each kept apply report with its artifact name, in the record's
    /// order; a report that cannot be read is left out.
    Reports(Vec<NamedReport>),
    /// [`Shown::Artifact`]: the artifact as stored.
    Artifact(Vec<u8>),
}

/// An apply report kept in the record, and the artifact it was kept as (`apply_report`,
/// `apply_report.2`, ...).
#[derive(Clone, Debug, Serialize)]
pub struct NamedReport {
    pub name: String,
    pub report: crate::report::Report,
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
            let diffs = applied_diffs(&store, &record)?;
            Ok(ShowOutcome::Diffs {
                run: id,
                status: record.run.status.clone(),
                diffs,
            })
        }
        Shown::Reports => {
            let record = store.record(&id)?;
            let reports = record
                .artifacts
                .iter()
                .filter(|a| a.name.starts_with(super::artifact::APPLY_REPORT))
                .filter_map(|a| {
                    let bytes = store.artifact(&id, &a.name).ok()?;
                    let report = serde_json::from_slice(&bytes).ok()?;
                    Some(NamedReport {
                        name: a.name.clone(),
                        report,
                    })
                })
                .collect();
            Ok(ShowOutcome::Reports(reports))
        }
        Shown::RecordWithDiffs => {
            let record = store.record(&id)?;
            let applied_diffs = applied_diffs(&store, &record)?
                .iter()
                .map(|d| String::from_utf8_lossy(d).into_owned())
                .collect();
            Ok(ShowOutcome::RecordWithDiffs {
                record: Box::new(record),
                applied_diffs,
            })
        }
    }
}

/// The diffs of the run's applied patch sets, in order.
fn applied_diffs(store: &Store, record: &RunRecord) -> Result<Vec<Vec<u8>>, Error> {
    let mut diffs = Vec::new();
    for p in &record.patch_sets {
        if let (PatchStatus::Applied, Some(sha)) = (p.status, &p.diff_sha256) {
            diffs.push(store.content(sha)?);
        }
    }
    Ok(diffs)
}
