//! `salve gc [--older-than DUR]`: prune runs older than an age (90 days unless told otherwise,
//! as git keeps its reflog), then remove the artifacts no remaining run references and the
//! leftovers of interrupted writes.

use std::time::Duration;

use salve_store::time::parse_duration;
use salve_store::{GcOptions, GcStats, Timestamp};

use crate::cli::Global;
use crate::commands::log::open_existing;
use crate::error::CliError;
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
    let Some(mut store) = open_existing(global)? else {
        if !global.quiet && !global.json {
            eprintln!("no record here; nothing to collect");
        }
        if global.json {
            print_json(&GcStats::default())?;
        }
        return Ok(0);
    };
    let options = GcOptions {
        older_than_ms: match args.older_than {
            Age::Never => None,
            Age::Millis(ms) => Some(ms),
        },
        now: Timestamp::now(),
        grace: Duration::from_secs(3600),
    };
    let stats = store.gc(&options)?;
    if global.json {
        print_json(&stats)?;
    } else if !global.quiet {
        eprintln!(
            "pruned {} runs; removed {} artifacts ({} bytes) and {} temporary files; kept {} artifacts",
            stats.runs_pruned,
            stats.objects_removed,
            stats.bytes_freed,
            stats.temp_files_removed,
            stats.objects_kept
        );
    }
    Ok(0)
}
