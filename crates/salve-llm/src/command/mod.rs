//! Command providers: any program that reads a prompt and prints a reply, with presets for the
//! agent CLIs (see [`presets`]).
//!
//! The prompt goes to stdin, unless an argument contains `{prompt}`, which is then replaced by
//! the prompt (for programs that only take it as an argument). Without a preset stdout is the
//! reply and a non-zero exit is a failure; with one, the preset's parser reads the output. Every
//! run has a time limit and an output cap, and a run that passes either has its whole process
//! tree killed ([`process`]). A preset's output is also read line by line as it arrives, and an
//! agent that only keeps retrying a lost connection is ended early with a transport reason
//! ([`watch`]).
//!
//! Providers answer; they do not act. Every call runs in a fresh, empty temporary directory,
//! never in the repository, and is removed afterwards ([`rundir`]); the presets switch the
//! agents' tools off where the CLI can ([`presets`]). A relative program path (`./model.sh`) is
//! still taken from the directory salve works in.

mod finished;
pub mod presets;
pub mod process;
pub mod rundir;
pub mod signin;
pub mod watch;

use std::path::PathBuf;
use std::time::{Duration, Instant};

pub use presets::{Parsed, Preset};
pub use process::{Finished, RunError, Spec};
pub use rundir::RunDir;
pub use watch::{Signal, StallPolicy, Stalled, Stream, Watch};

use crate::classify::failure_kind_of;
use crate::provider::{
    one_line, tail, Failure, FailureKind, Meta, Provider, ProviderKind, Reply, Request,
};

/// The placeholder an argument may hold to take the prompt instead of stdin.
pub const PROMPT_PLACEHOLDER: &str = "{prompt}";
/// Default cap on a command's stdout: 16 MiB.
pub const DEFAULT_MAX_OUTPUT: usize = 16 * 1024 * 1024;

/// A program that answers prompts.
#[derive(Clone, Debug)]
pub struct CommandProvider {
    name: String,
    argv: Vec<String>,
    preset: Option<Preset>,
    model: Option<String>,
    timeout: Duration,
    max_output: usize,
    /// Where a relative program path is taken from; `None`: salve's current directory.
    base_dir: Option<PathBuf>,
    /// `None`: the preset's default.
    stall: Option<StallPolicy>,
}

impl CommandProvider {
    /// A provider running `argv`; with a preset and an empty `argv`, the preset's default
    /// command line.
    pub fn new(
        name: impl Into<String>,
        argv: Vec<String>,
        preset: Option<Preset>,
        timeout: Duration,
    ) -> CommandProvider {
        CommandProvider {
            name: name.into(),
            argv,
            preset,
            model: None,
            timeout,
            max_output: DEFAULT_MAX_OUTPUT,
            base_dir: None,
            stall: None,
        }
    }

    /// When a run of retries ends the program (presets only: their output says what a retry
    /// is).
    pub fn with_stall_policy(mut self, policy: StallPolicy) -> CommandProvider {
        self.stall = Some(policy);
        self
    }

    /// The model to ask for: passed to a preset's default command line, and reported in the
    /// metadata when the program does not say.
    pub fn with_model(mut self, model: Option<String>) -> CommandProvider {
        self.model = model;
        self
    }

    pub fn with_max_output(mut self, bytes: usize) -> CommandProvider {
        self.max_output = bytes;
        self
    }

    /// Take a relative program path (`./model.sh`) from `dir` (default: salve's own working
    /// directory). The program itself always runs in an empty directory of its own
    /// ([`rundir`]).
    pub fn with_base_dir(mut self, dir: Option<PathBuf>) -> CommandProvider {
        self.base_dir = dir;
        self
    }

    /// The command line that runs (before the prompt placeholder is filled in).
    pub fn argv(&self) -> Vec<String> {
        match self.preset {
            Some(preset) if self.argv.is_empty() => preset.default_command(self.model.as_deref()),
            _ => self.argv.clone(),
        }
    }

    pub fn preset(&self) -> Option<Preset> {
        self.preset
    }

    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    fn spec(&self, prompt: &str, dir: &RunDir, cancel: &crate::cancel::Cancel) -> Spec {
        let mut argv = self.argv();
        if let Some(program) = argv.first_mut() {
            *program = rundir::resolve_program(program, self.base_dir.as_deref());
        }
        let as_argument = argv.iter().any(|a| a.contains(PROMPT_PLACEHOLDER));
        Spec {
            argv: if as_argument {
                argv.iter()
                    .map(|a| a.replace(PROMPT_PLACEHOLDER, prompt))
                    .collect()
            } else {
                argv
            },
            stdin: (!as_argument).then(|| prompt.as_bytes().to_vec()),
            timeout: self.timeout,
            max_output: self.max_output,
            cwd: Some(dir.work().to_path_buf()),
            env: self
                .preset
                .map(Preset::env)
                .unwrap_or_default()
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect(),
            cancel: cancel.clone(),
        }
    }
}

impl Provider for CommandProvider {
    fn name(&self) -> &str {
        &self.name
    }

    fn kind(&self) -> ProviderKind {
        ProviderKind::Command
    }

    fn model(&self) -> Option<&str> {
        self.model.as_deref()
    }

    fn complete(&self, request: &Request) -> Result<Reply, Failure> {
        self.complete_observed(request, &mut |_| {})
    }

    fn complete_observed(
        &self,
        request: &Request,
        notice: &mut dyn FnMut(&str),
    ) -> Result<Reply, Failure> {
        let start = Instant::now();
        let policy = self
            .stall
            .unwrap_or_else(|| StallPolicy::for_preset(self.preset));
        let mut watch = Watch::new(self.preset, policy);
        let mut on_line = |stream: Stream, line: &str| {
            let (signal, stalled) = watch.line(stream, line);
            if let Signal::Retrying { message, .. } = &signal {
                notice(&crate::secret::redact(message));
            }
            stalled
        };
        let dir = RunDir::create(self.preset).map_err(|e| {
            Failure::new(
                FailureKind::Exit,
                format!("cannot make an empty directory to run in: {e}"),
            )
        })?;
        let finished = process::run_watched(
            &self.spec(&request.flatten(), &dir, &request.cancel),
            &mut on_line,
        )
        .map_err(run_failure);
        // Removed before the output is read: nothing of the run's directory is needed after it.
        drop(dir);
        let finished = finished?;
        let parsed = match self.preset {
            Some(preset) => preset.parse(&finished)?,
            None => plain(&finished)?,
        };
        let mut meta = Meta::new(
            &self.name,
            ProviderKind::Command,
            parsed.model.as_deref().or(self.model.as_deref()),
        )
        .timed(start);
        meta.tokens_in = parsed.tokens_in;
        meta.tokens_out = parsed.tokens_out;
        meta.cost_usd = parsed.cost_usd;
        Ok(Reply {
            text: parsed.text,
            meta,
        })
    }
}

/// stdout is the reply; a failure status is a failure, classified by what the program said.
fn plain(run: &Finished) -> Result<Parsed, Failure> {
    let stdout = String::from_utf8_lossy(&run.stdout).into_owned();
    if run.status.success() {
        return Ok(Parsed {
            text: stdout,
            ..Parsed::default()
        });
    }
    let stderr = String::from_utf8_lossy(&run.stderr);
    let said = if stderr.trim().is_empty() {
        one_line(&tail(&stdout, 400))
    } else {
        one_line(&tail(&stderr, 400))
    };
    let status = match run.status.code() {
        Some(code) => format!("exit code {code}"),
        None => "killed by a signal".to_owned(),
    };
    let detail = if said.is_empty() {
        String::new()
    } else {
        format!(": {said}")
    };
    Err(Failure::new(
        failure_kind_of(&said, FailureKind::Exit),
        format!("the command failed ({status}){detail}"),
    ))
}

fn run_failure(e: RunError) -> Failure {
    let kind = match &e {
        RunError::NotFound { .. } => FailureKind::NotFound,
        RunError::Timeout { .. } => FailureKind::Timeout,
        RunError::TooLarge { .. } => FailureKind::TooLarge,
        RunError::Empty => FailureKind::Config,
        RunError::Stalled(stalled) => stalled.kind,
        RunError::Cancelled => FailureKind::Cancelled,
        RunError::Spawn { .. } | RunError::Wait { .. } => FailureKind::Exit,
    };
    Failure::new(kind, e.to_string())
}

/// Where `program` is: itself when it names a path, else the first executable file of that name
/// in the directories of `path` (a `PATH`-style list; `None` reads the process's `PATH`).
pub fn find_program(program: &str, path: Option<&str>) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt as _;
    let executable = |p: &std::path::Path| {
        std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    };
    if program.contains('/') {
        let p = PathBuf::from(program);
        return executable(&p).then_some(p);
    }
    let owned;
    let path = match path {
        Some(p) => p,
        None => {
            owned = std::env::var("PATH").unwrap_or_default();
            &owned
        }
    };
    std::env::split_paths(path)
        .map(|dir| dir.join(program))
        .find(|p| executable(p))
}
