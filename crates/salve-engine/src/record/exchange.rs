//! `export` and `import`: runs as JSON Lines, to move a record between machines or into other
//! tools. The shape is documented in the README and only grows.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;

use salve_store::{ImportStats, Store, StoreError};
use serde::Serialize;

use super::error::{existing_dir, Error};

/// Which runs to export.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Selection {
    /// Every run, oldest first.
    All,
    /// These runs (ids or unique prefixes), in this order.
    Runs(Vec<String>),
}

/// What to export.
#[derive(Clone, Debug)]
pub struct ExportOptions {
    /// The work tree whose record is read.
    pub dir: PathBuf,
    pub runs: Selection,
}

/// How many runs were written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ExportOutcome {
    pub exported: usize,
}

/// Write the selected runs to `out`, one JSON object per line, streamed (a full record can be
/// far larger than memory). A failure part way stops after the lines already written.
pub fn export(options: &ExportOptions, out: &mut dyn Write) -> Result<ExportOutcome, Error> {
    let dir = existing_dir(&options.dir)?;
    let store = Store::open_existing(dir)?;
    let ids = match (&options.runs, &store) {
        (Selection::All, Some(store)) => store.all_ids()?,
        (Selection::All, None) => Vec::new(),
        (Selection::Runs(runs), Some(store)) => runs
            .iter()
            .map(|r| store.resolve(r))
            .collect::<Result<Vec<_>, _>>()?,
        (Selection::Runs(runs), None) => {
            let first = runs.first().cloned().unwrap_or_default();
            return Err(StoreError::NoSuchRun(first).into());
        }
    };
    let Some(store) = store else {
        return Ok(ExportOutcome::default());
    };
    store.export(&ids, out)?;
    out.flush().map_err(|e| StoreError::Io {
        context: "writing the export".to_owned(),
        source: e,
    })?;
    Ok(ExportOutcome {
        exported: ids.len(),
    })
}

/// Where to import to, and from.
#[derive(Clone, Debug)]
pub struct ImportOptions {
    /// The work tree whose record receives the runs (created when missing).
    pub dir: PathBuf,
    /// The export to read; `None` reads the given reader.
    pub file: Option<PathBuf>,
}

/// Add the runs of an export: all or nothing; runs already present are skipped, so importing
/// twice is the same as once. Reads `options.file`, or `input` when there is none.
pub fn import(options: &ImportOptions, input: &mut dyn BufRead) -> Result<ImportStats, Error> {
    let mut store = Store::open(&options.dir)?;
    let stats = match &options.file {
        Some(path) => {
            let file = std::fs::File::open(path).map_err(|source| Error::Read {
                path: path.clone(),
                source,
            })?;
            store.import(&mut BufReader::new(file))?
        }
        None => store.import(input)?,
    };
    Ok(stats)
}
