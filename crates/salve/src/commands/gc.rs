//! `salve gc [--older-than DUR]`: prune runs older than an age (90 days unless told otherwise,
//! as git keeps its reflog), then remove the artifacts no remaining run references and the
//! leftovers of interrupted writes (the record's, and temporary files in the work tree).

use salve_engine::record::{gc, parse_duration, GcOptions};

use crate::error::{failed, CliError};
use crate::global::Global;
use crate::output::print_json;

#[derive(Debug, clap::Args)]
pub struct GcArgs {
    /// Prune runs started longer ago than this (30m, 12h, 7d, 2w), or `never` to keep every run
    #[arg(long, value_name = "DUR", default_value = "90d", value_parser = parse_age)]
    pub older_than: Age,
}

#[derive(Clone, Copy, Debug)]
pub enum Age {
    Never,
    Millis(i64),
}

fn parse_age(text: &str) -> Result<Age, String> {
    if text == "never" {
        return Ok(Age::Never);
    }
    parse_duration(text)
        .map(Age::Millis)
        .ok_or_else(|| format!("`{text}` is not a duration (30m, 12h, 7d, 2w) or `never`"))
}

pub fn run(global: &Global, args: &GcArgs) -> Result<u8, CliError> {
    let options = GcOptions {
        dir: global.work_dir(),
        older_than_ms: match args.older_than {
            Age::Never => None,
            Age::Millis(ms) => Some(ms),
        },
    };
    let outcome = gc(&options).map_err(failed)?;
    let stats = &outcome.stats;
    if global.json {
        print_json(&outcome)?;
    } else if global.quiet {
        // The exit code tells.
    } else if outcome.record {
        for path in &outcome.work_tree_temp_files {
            eprintln!("removed {path} (left by a killed salve write)");
        }
        eprintln!(
            "pruned {} runs; removed {} artifacts ({} bytes) and {} temporary files; kept {} artifacts",
            stats.runs_pruned,
            stats.objects_removed,
            stats.bytes_freed,
            stats.temp_files_removed,
            stats.objects_kept
        );
    } else {
        for path in &outcome.work_tree_temp_files {
            eprintln!("removed {path} (left by a killed salve write)");
        }
        eprintln!("no record here; nothing else to collect");
    }
    Ok(0)
}
