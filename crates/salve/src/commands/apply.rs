//! `salve apply [FILE|-]`: read a model's reply, place every hunk, write all files or none.

use std::io::{IsTerminal as _, Read as _, Write as _};
use std::path::{Path, PathBuf};

use salve_engine::apply::{apply, Options, DEFAULT_MAX_FILE_SIZE};

use crate::error::{failed, CliError};
use crate::global::{parse_size, Global};
use crate::output;
use crate::progress::{Progress, LARGE_APPLY};
use crate::style::Paint;

#[derive(Debug, clap::Args)]
pub struct ApplyArgs {
    /// The reply to read: a file, or `-` for stdin (the default). A relative path is taken from
    /// the current directory, or from -C DIR when it is not found there.
    #[arg(value_name = "FILE")]
    pub file: Option<PathBuf>,
    /// Place every edit and report, but write nothing
    #[arg(long)]
    pub check: bool,
    /// Write the files that placed even if others were refused (whole files, never single hunks)
    #[arg(long)]
    pub partial: bool,
    /// The commit the model read [default: HEAD]; files that drifted since are merged from it
    #[arg(long, value_name = "REV")]
    pub base: Option<String>,
    /// Apply the edits backwards, undoing a reply that was applied
    #[arg(long, short = 'R')]
    pub reverse: bool,
    /// Stop instead of reading a file larger than this (bytes, or with a K, M or G suffix)
    #[arg(long, value_name = "SIZE", value_parser = parse_size, default_value = "64M")]
    pub max_file_size: u64,
    /// Do not take a checkpoint before writing (in a git repository one is taken by default)
    #[arg(long)]
    pub no_checkpoint: bool,
    /// Do not record this run (`salve log` lists recorded runs)
    #[arg(long)]
    pub no_record: bool,
    /// Print the unified diff of the change (with --check: what would be written) on stdout,
    /// and the report on stderr; with --json, the report gains a `diff` field
    #[arg(long)]
    pub diff: bool,
    /// Write a file even when the edit leaves it unparsable (by default a file that parsed
    /// before and would not after is refused with status `syntax`)
    #[arg(long)]
    pub no_syntax_check: bool,
    /// Write a whole file even when its new content is only one stretch of the file (its
    /// beginning, its end or a middle part) with the rest left out; by default that reads as
    /// a reply cut short and is refused with status `truncated`
    #[arg(long)]
    pub allow_shrink: bool,
}

pub fn run(global: &Global, args: &ApplyArgs) -> Result<u8, CliError> {
    let reply = read_reply(args.file.as_deref(), global.dir.as_deref())?;
    let options = Options {
        dir: global.work_dir(),
        check: args.check,
        partial: args.partial,
        base: args.base.clone(),
        reverse: args.reverse,
        three_way: true,
        max_file_size: args.max_file_size,
        checkpoint: !args.no_checkpoint,
        record: !args.no_record,
        command: output::command_line(),
        show_diff: args.diff,
        syntax_check: !args.no_syntax_check,
        allow_shrink: args.allow_shrink,
        ..Options::new(global.work_dir())
    };
    // From here Ctrl-C waits for the apply's safe points (see `salve_engine::apply`), also
    // while the report is printed: the exit status then says what is on disk.
    let _guard = (!args.check).then(salve_engine::interrupt::guard);
    let progress = if reply.len() >= LARGE_APPLY {
        Progress::start(
            global,
            &format!(
                "applying a {:.1} MiB reply",
                reply.len() as f64 / f64::from(1 << 20)
            ),
        )
    } else {
        Progress::off()
    };
    let outcome = apply(&reply, &options);
    progress.finish();
    let outcome = outcome.map_err(|e| {
        let error = failed(e);
        if error.code == Some("checkpoint_failed") {
            error.with_hint(
                "fix the cause above (install git if it is missing), or pass --no-checkpoint \
                 only if the change can be undone another way",
            )
        } else {
            error
        }
    })?;
    let report = &outcome.report;
    let err_paint = Paint::stderr();
    if let Some(e) = &outcome.record_error {
        let warning = err_paint.warning_label("warning:");
        eprintln!("{warning} this apply was not recorded: {e}");
    }
    let text = if global.json {
        // The report as recorded, with what the engine says beside it as data.
        let printed = outcome.printed(args.diff);
        let json = serde_json::to_string_pretty(&printed)
            .map_err(|e| CliError::internal(format!("encoding the JSON output: {e}")))?;
        format!("{json}\n")
    } else if global.quiet {
        String::new()
    } else {
        let mut err = std::io::stderr().lock();
        // The engine says what happened; these notes word it in this command line's terms.
        let cli_notes = output::apply_notes(&outcome, args.partial);
        for note in report.notes.iter().chain(&cli_notes) {
            let _ = writeln!(err, "{} {note}", err_paint.note_label("note:"));
        }
        if args.diff {
            // The diff alone on stdout, so it can be piped (`| git apply`).
            let _ = write!(err, "{}", output::render(report, err_paint));
            Paint::stdout().diff(&outcome.diff)
        } else {
            output::render(report, Paint::stdout())
        }
    };
    output::print_text(&text)?;
    Ok(u8::try_from(report.exit_code()).unwrap_or(1))
}

fn read_reply(file: Option<&Path>, dir: Option<&Path>) -> Result<String, CliError> {
    let bytes = match file {
        Some(path) if path != Path::new("-") => {
            let path = locate(path, dir);
            std::fs::read(&path).map_err(|e| {
                CliError::user(format!("cannot read the reply {}: {e}", path.display()))
                    .with_hint("pass the file holding the model's reply, or - to read stdin")
            })?
        }
        _ => {
            let stdin = std::io::stdin();
            if file.is_none() && stdin.is_terminal() {
                return Err(CliError::user("no reply given").with_hint(
                    "pass the reply file (`salve apply reply.md`) or pipe it (`... | salve apply`)",
                ));
            }
            let mut bytes = Vec::new();
            stdin
                .lock()
                .read_to_end(&mut bytes)
                .map_err(|e| CliError::user(format!("cannot read the reply from stdin: {e}")))?;
            bytes
        }
    };
    String::from_utf8(bytes).map_err(|e| {
        CliError::user(format!(
            "the reply is not UTF-8 text (invalid byte at offset {})",
            e.utf8_error().valid_up_to()
        ))
        .with_hint("save the reply as UTF-8")
    })
}

/// The reply path as given, or below -C DIR when it is only found there.
fn locate(path: &Path, dir: Option<&Path>) -> PathBuf {
    match dir {
        Some(dir) if path.is_relative() && !path.exists() && dir.join(path).exists() => {
            dir.join(path)
        }
        _ => path.to_path_buf(),
    }
}

// The documented default must match the engine's.
const _: () = assert!(DEFAULT_MAX_FILE_SIZE == 64 << 20);
