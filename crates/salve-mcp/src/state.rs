//! What the server keeps between calls: the work tree it was started in (resolved once), and
//! its `[mcp]` configuration (read once, so an edit of `salve.toml` made through the server
//! cannot widen what the running server allows; and a repository's `allowed_checks` count only
//! once the user has trusted them, so such an edit cannot widen what a restarted server allows
//! either).

use std::path::PathBuf;

use salve_engine::config::{Config, ConfigError, McpConfig};

use crate::Options;

/// The server's settled state, shared by every call.
#[derive(Debug)]
pub struct State {
    /// The work tree, canonical: every path of every edit stays inside it.
    pub dir: PathBuf,
    /// The top of the repository (or `dir` outside git).
    pub root: PathBuf,
    /// `[mcp]` as configured when the server started.
    pub mcp: McpConfig,
    /// `--allow-any-check`: `run_check` runs any command.
    pub allow_any_check: bool,
    /// Configuration warnings, said once at start.
    pub warnings: Vec<String>,
    /// The repository lists checks the user has not trusted, so they are not allowed.
    pub untrusted_checks: bool,
    /// The changes this session made (edits, restores, undos), by the checkpoint taken before
    /// each: the session's `undo` takes back the newest of them, not another session's.
    pub changes: std::sync::Mutex<Vec<String>>,
}

impl State {
    /// Remember a change this session made, by the checkpoint taken before it.
    pub fn made(&self, checkpoint: Option<&str>) {
        if let (Some(id), Ok(mut changes)) = (checkpoint, self.changes.lock()) {
            changes.push(id.to_owned());
        }
    }

    /// The changes this session made, oldest first.
    pub fn changes(&self) -> Vec<String> {
        self.changes.lock().map(|c| c.clone()).unwrap_or_default()
    }
}

/// Why the server cannot start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// The directory does not exist or cannot be resolved.
    #[error("cannot use {} as the work tree: {source}", dir.display())]
    Dir {
        /// The directory given.
        dir: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The configuration cannot be read.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The async runtime or the standard streams could not be set up.
    #[error("cannot start the server: {0}")]
    Runtime(std::io::Error),
    /// The client went away or broke the protocol during the handshake.
    #[error("the MCP session ended with an error: {0}")]
    Session(String),
}

impl salve_engine::Classified for StartError {
    fn kind(&self) -> salve_engine::Kind {
        match self {
            StartError::Dir { .. } => salve_engine::Kind::User,
            StartError::Config(_) => salve_engine::Kind::Config,
            StartError::Runtime(_) | StartError::Session(_) => salve_engine::Kind::Environment,
        }
    }

    fn code(&self) -> &'static str {
        match self {
            StartError::Dir { .. } => "bad_directory",
            StartError::Config(_) => "bad_config",
            StartError::Runtime(_) => "server_failed",
            StartError::Session(_) => "session_failed",
        }
    }

    fn hint(&self) -> Option<String> {
        match self {
            StartError::Dir { .. } => Some("check the directory of the work tree".to_owned()),
            StartError::Config(e) => e.hint(),
            _ => None,
        }
    }
}

impl State {
    /// Resolve the work tree and read the configuration once.
    pub fn load(options: &Options) -> Result<State, StartError> {
        let dir = std::fs::canonicalize(&options.dir).map_err(|source| StartError::Dir {
            dir: options.dir.clone(),
            source,
        })?;
        if !dir.is_dir() {
            return Err(StartError::Dir {
                dir: options.dir.clone(),
                source: std::io::Error::other("not a directory"),
            });
        }
        let config = Config::load(&dir)?;
        Ok(State {
            root: config.root.clone(),
            mcp: config.mcp.clone(),
            allow_any_check: options.allow_any_check,
            warnings: config
                .warnings
                .iter()
                .cloned()
                .chain(config.untrusted_notes())
                .collect(),
            untrusted_checks: config
                .gated
                .iter()
                .any(|g| !g.trusted && g.power == salve_engine::config::Power::AllowsChecks),
            changes: std::sync::Mutex::new(Vec::new()),
            dir,
        })
    }
}
