//! salve as an MCP server: the edit, checkpoint and verify tool of any coding agent, over
//! stdio, built on the official Rust SDK (`rmcp`).
//!
//! `salve mcp [-C DIR] [--allow-any-check]` calls [`serve_stdio`]. The server works only in
//! the work tree it was started in; it resolves that directory and reads the configuration
//! once ([`State`]), then serves until the client closes stdin. Nothing but JSON-RPC goes to
//! stdout; the few lines it logs go to stderr.
//!
//! | tool | engine operation |
//! |---|---|
//! | `apply_edit {edit, check_only?}` | [`salve_engine::apply::apply`]: any edit format, the structured report |
//! | `str_replace {path, old_str, new_str}` | the same, the arguments given to the engine as an old/new edit |
//! | `write_file {path, content}` | the same, the arguments given to the engine as a whole-file write |
//! | `edit_file {target_file, instructions, code_edit}` | the same, as Cursor's `edit_file`: `code_edit` is a lazy edit snippet (`// ... existing code ...`), merged without a model |
//! | `checkpoint {message?}`, `list_checkpoints` | [`salve_engine::checkpoint`] |
//! | `restore_checkpoint {id}`, `undo` | [`salve_engine::restore`], [`salve_engine::undo`] |
//! | `run_check {command?, timeout_secs?}` | [`salve_engine::fix`]: run, extract failures, classify |
//! | `log {limit?, status?}`, `show_run {run}` | [`salve_engine::record`] |
//!
//! Every write is checkpointed and recorded as `salve apply` does, under the same write lock,
//! so two servers, or a server and the CLI, can work on one repository. A call that fails is a
//! tool result with `isError: true` whose JSON says what happened and what to do
//! (`{"error": {"code", "kind", "message", "hint"}}`, or the refused edit's report); unknown
//! tools and malformed arguments are JSON-RPC errors. The server keeps serving after either.
//!
//! `run_check` runs only the commands listed in `[mcp] allowed_checks` (see
//! [`salve_engine::config::mcp`]) unless [`Options::allow_any_check`] is set.
//!
//! ```no_run
//! // Serve the work tree in the current directory over stdin and stdout.
//! let options = salve_mcp::Options::new(".");
//! if let Err(e) = salve_mcp::serve_stdio(&options) {
//!     eprintln!("salve mcp: {e}");
//! }
//! ```
//!
//! In-process (tests, embedding), [`serve`] runs the same server over any transport rmcp
//! accepts, such as one end of a `tokio::io::duplex` pipe.

#![deny(missing_docs)]

mod arguments;
pub mod check;
pub mod descriptions;
pub mod ops;
pub mod params;
pub mod result;
pub mod server;
pub mod state;

use std::path::PathBuf;

use rmcp::transport::IntoTransport;
use rmcp::{RoleServer, ServiceExt as _};

pub use server::SalveServer;
pub use state::{StartError, State};

/// How to start the server.
#[derive(Clone, Debug)]
pub struct Options {
    /// The work tree: every edit stays inside it.
    pub dir: PathBuf,
    /// Let `run_check` run any command, not only the configured ones.
    pub allow_any_check: bool,
}

impl Options {
    /// Serve the work tree at `dir`, running only configured checks.
    pub fn new(dir: impl Into<PathBuf>) -> Options {
        Options {
            dir: dir.into(),
            allow_any_check: false,
        }
    }
}

/// Serve `options.dir` over stdin and stdout until the client closes the connection.
pub fn serve_stdio(options: &Options) -> Result<(), StartError> {
    let state = State::load(options)?;
    // One process serves every call of the session: the record stays open between them.
    salve_engine::record::keep_record_open();
    for warning in &state.warnings {
        eprintln!("salve mcp: warning: {warning}");
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .thread_name("salve-mcp")
        .enable_all()
        .build()
        .map_err(StartError::Runtime)?;
    runtime.block_on(async move {
        let transport = rmcp::transport::stdio_pipes();
        serve(SalveServer::new(state), transport).await
    })
}

/// Serve with `server` over `transport` until the peer closes it.
pub async fn serve<T, E, A>(server: SalveServer, transport: T) -> Result<(), StartError>
where
    T: IntoTransport<RoleServer, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    let running = server
        .serve(transport)
        .await
        .map_err(|e| StartError::Session(e.to_string()))?;
    running
        .waiting()
        .await
        .map_err(|e| StartError::Session(e.to_string()))?;
    Ok(())
}
