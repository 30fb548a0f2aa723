//! Errors as the user sees them, sorted into kinds (in the manner of jj): a user error (bad
//! arguments, unreadable input, a revision that does not exist, an I/O failure in the tree), a
//! configuration or environment error (git missing, settings wrong), or an internal error (a bug
//! in salve). Each prints one `Error:` line and, where there is something to do about it, one
//! `Hint:` line, on stderr.

use std::fmt::Display;
use std::io::Write as _;

use salve_engine::{Classified, Kind as EngineKind};

use crate::style::Paint;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// The job ran and declined; nothing changed (exit 1).
    Refused,
    User,
    Config,
    /// Stopped by the user (Ctrl-C, SIGTERM) before anything changed (exit 130).
    Interrupted,
    Internal,
}

#[derive(Debug)]
pub struct CliError {
    pub kind: Kind,
    /// The engine's stable name for the error, printed with `--json` for refusals.
    pub code: Option<&'static str>,
    pub message: String,
    pub hint: Option<String>,
}

impl CliError {
    /// A usage error; [`with_hint`](Self::with_hint) replaces the general hint.
    pub fn user(message: impl Display) -> Self {
        CliError {
            kind: Kind::User,
            code: None,
            message: message.to_string(),
            hint: Some(fallback_hint(Kind::User).to_owned()),
        }
    }

    pub fn internal(message: impl Display) -> Self {
        CliError {
            kind: Kind::Internal,
            code: None,
            message: message.to_string(),
            hint: Some(BUG_HINT.to_owned()),
        }
    }

    pub fn with_hint(mut self, hint: impl Display) -> Self {
        self.hint = Some(hint.to_string());
        self
    }

    /// 1 for a job that was refused, 2 for usage, configuration and environment errors, 130
    /// for a job stopped by Ctrl-C (as a shell reports SIGINT), 101 for bugs (the same code a
    /// Rust panic exits with).
    pub fn exit_code(&self) -> u8 {
        match self.kind {
            Kind::Refused => 1,
            Kind::User | Kind::Config => 2,
            Kind::Interrupted => 130,
            Kind::Internal => 101,
        }
    }

    /// Say it on stderr; with `--json` it is also data on stdout:
    /// `{"error": {"kind": CODE, "message": ..., "hint": ...}}`.
    pub fn print(&self, json: bool) {
        if json {
            let error = ErrorJson {
                kind: self.code.unwrap_or(match self.kind {
                    Kind::Refused => "refused",
                    Kind::User => "usage",
                    Kind::Config => "config",
                    Kind::Interrupted => "interrupted",
                    Kind::Internal => "internal",
                }),
                message: &self.message,
                hint: self.hint.as_deref(),
            };
            print_error_json(&ErrorReport { error });
        }
        let label = match self.kind {
            Kind::Refused | Kind::User => "Error",
            Kind::Config => "Config error",
            Kind::Interrupted => "Interrupted",
            Kind::Internal => "Internal error",
        };
        let paint = Paint::stderr();
        let mut err = std::io::stderr().lock();
        // Nothing sensible is left to do if stderr itself is gone.
        let _ = writeln!(
            err,
            "{} {}",
            paint.error_label(&format!("{label}:")),
            self.message
        );
        if let Some(hint) = &self.hint {
            let _ = writeln!(err, "{} {hint}", paint.hint_label("Hint:"));
        }
    }
}

/// Every error says what to do next, even where the engine has nothing specific to add.
fn fallback_hint(kind: Kind) -> &'static str {
    match kind {
        Kind::Refused => "nothing was changed; the message above says why",
        Kind::User => "`salve help <command>` shows what each command takes",
        Kind::Config => "`salve doctor` shows what salve found and what is missing",
        Kind::Interrupted => "nothing was changed; run the command again to do it",
        Kind::Internal => BUG_HINT,
    }
}

/// What `--json` prints on stdout for an error, whatever the command.
#[derive(serde::Serialize)]
struct ErrorReport<'a> {
    error: ErrorJson<'a>,
}

#[derive(serde::Serialize)]
struct ErrorJson<'a> {
    /// The engine's stable code (`unknown_revision`, `nothing_to_undo`, ...).
    kind: &'a str,
    message: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    hint: Option<&'a str>,
}

const BUG_HINT: &str =
    "this is a bug in salve; please report it with the command you ran and the reply file";

/// An engine error as the CLI says it: its kind, and its hint in the CLI's own words where the
/// engine's names a setting the command line spells as a flag.
pub fn failed<E: Classified>(e: E) -> CliError {
    let kind = match e.kind() {
        EngineKind::Refused => Kind::Refused,
        EngineKind::User | EngineKind::Environment => Kind::User,
        EngineKind::Config => Kind::Config,
        EngineKind::Interrupted => Kind::Interrupted,
        EngineKind::Internal => Kind::Internal,
    };
    let code = e.code();
    let hint = match (code, kind) {
        (_, Kind::Internal) => Some(BUG_HINT.to_owned()),
        ("bad_directory", _) => Some("check the directory given with -C".to_owned()),
        ("unknown_revision", _) => {
            Some("--base takes the commit the model read: a hash, branch, tag or HEAD~N".to_owned())
        }
        ("no_repository", _) => {
            Some("drop --base, or run salve inside the git repository".to_owned())
        }
        ("file_too_large", _) => Some(
            "raise the limit with --max-file-size if this file is meant to be edited".to_owned(),
        ),
        ("not_a_repository", _) => {
            Some("run salve inside a git work tree, or pass -C DIR".to_owned())
        }
        ("bad_prompt_file", _) => Some(
            "--file takes existing files; use --target for a file the change creates".to_owned(),
        ),
        ("no_such_checkpoint" | "ambiguous_checkpoint", _) => {
            Some("`salve checkpoints` lists the ids".to_owned())
        }
        ("not_a_directory", _) => Some("check the directory given with -C".to_owned()),
        ("hook_failed", _) => Some(
            "fix what the hook reports, or pass --no-verify if skipping hooks is intended"
                .to_owned(),
        ),
        ("unreadable_input", _) => {
            Some("pass a file written by `salve export`, or - for stdin".to_owned())
        }
        ("untrusted_config", _) => Some(
            "read the sections named (`salve trust --show`), then run `salve trust` in the \
             repository to allow them"
                .to_owned(),
        ),
        ("bad_config", _) => Some(match e.hint() {
            Some(h) => format!("{h}; `salve doctor` shows what is configured"),
            None => "`salve doctor` shows what is configured".to_owned(),
        }),
        ("not_checkpointable", _) => Some(
            "pass --no-checkpoint to write them anyway (undo will not cover them), or run \
             salve with -C in the repository that holds them"
                .to_owned(),
        ),
        // Only `apply` can write without a checkpoint: it names its flag itself.
        ("checkpoint_failed", _) => Some(
            "fix the cause above (install git if it is missing); nothing was changed".to_owned(),
        ),
        // A failed write was rolled back unless its message says otherwise; the engine's hint
        // covers that case.
        ("write_failed", _) => e.hint().or_else(|| {
            Some(
                "the files are as they were; fix the cause above (disk space, permissions) and \
                 apply again"
                    .to_owned(),
            )
        }),
        ("record_too_new", _) => {
            Some("a newer salve wrote this record; upgrade salve, or pass --no-record".to_owned())
        }
        _ => e.hint().or_else(|| Some(fallback_hint(kind).to_owned())),
    };
    CliError {
        kind,
        code: Some(code),
        message: e.to_string(),
        hint,
    }
}

/// A command line clap could not parse, or `--help` / `--version` (which are no errors): clap
/// says it on stderr (help and version on stdout) as usual, and with `--json` among the
/// arguments an error is also data on stdout, in the shape every other error has, so a script
/// that reads stdout is not left with nothing. Returns the exit code: 2, or 0 for help.
pub fn parse_failed(err: &clap::Error) -> u8 {
    use clap::error::ErrorKind;
    let is_error = !matches!(
        err.kind(),
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion
    );
    if is_error && json_requested(std::env::args_os().skip(1)) {
        let (message, hint) = describe_parse_error(err);
        let error = ErrorJson {
            kind: "usage",
            message: &message,
            hint: Some(&hint),
        };
        print_error_json(&ErrorReport { error });
    }
    // Nothing sensible is left to do if the stream itself is gone.
    let _ = err.print();
    u8::try_from(err.exit_code()).unwrap_or(2)
}

/// Whether `--json` was given: the line could not be parsed, so it is looked for by hand, up to
/// a `--` after which everything is an argument of the command salve runs.
fn json_requested(args: impl Iterator<Item = std::ffi::OsString>) -> bool {
    args.take_while(|a| a != "--").any(|a| a == "--json")
}

/// The error's message (its first paragraph, on one line) and a hint: clap's own tip (`a similar
/// subcommand exists: 'apply'`) when it has one.
fn describe_parse_error(err: &clap::Error) -> (String, String) {
    use clap::error::ErrorKind;
    let text = err.render().to_string();
    if err.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
        // clap printed the command's help: name the command from its usage line.
        let usage = text
            .lines()
            .find_map(|l| l.strip_prefix("Usage: "))
            .unwrap_or("salve");
        let command: Vec<&str> = usage
            .split_whitespace()
            .take_while(|w| !w.starts_with(['[', '<']))
            .collect();
        let command = command.join(" ");
        let help = command.replacen("salve", "salve help", 1);
        return (
            format!("`{command}` needs a command; usage: {usage}"),
            format!("`{help}` lists them"),
        );
    }
    let mut paragraphs = text.split("\n\n");
    let message = paragraphs
        .next()
        .unwrap_or_default()
        .lines()
        .map(str::trim)
        .collect::<Vec<_>>()
        .join(" ");
    let message = message
        .strip_prefix("error: ")
        .unwrap_or(&message)
        .to_owned();
    let tips: Vec<&str> = text
        .lines()
        .filter_map(|l| l.trim().strip_prefix("tip: "))
        .collect();
    let hint = if tips.is_empty() {
        fallback_hint(Kind::User).to_owned()
    } else {
        tips.join("; ")
    };
    (message, hint)
}

/// A panic is a bug: say so in the same shape as other errors. The process then exits with 101.
pub fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        let location = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        let payload = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".to_owned());
        CliError::internal(format!("salve panicked{location}: {payload}")).print(false);
    }));
}

/// An error as one line of JSON on stdout, for `--json`. Written here, not through the output
/// module, which itself reports its failures as errors; a closed pipe or a value that will not
/// encode leaves only the message on stderr, which follows.
fn print_error_json(value: &impl serde::Serialize) {
    if let Ok(text) = serde_json::to_string(value) {
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "{text}").and_then(|()| out.flush());
    }
}
