//! The MCP handler: the tool router over [`crate::ops`] and [`crate::check`]. Each call runs
//! its engine operation on the blocking pool, so the protocol loop keeps answering (pings,
//! cancellations, other calls) while a check or an apply runs.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, Implementation, ServerCapabilities, ServerConfig};
use rmcp::{tool, tool_handler, tool_router, ErrorData, ServerHandler};
use salve_engine::interrupt::Cancel;
use tokio_util::sync::CancellationToken;

use crate::arguments::Checked;
use crate::descriptions as d;
use crate::params::{
    ApplyEditParams, CheckpointParams, EditFileParams, ListCheckpointsParams, LogParams,
    RestoreParams, RunCheckParams, ShowRunParams, StrReplaceParams, WriteFileParams,
};
use crate::state::State;
use crate::{check, ops};

type ToolResult = Result<CallToolResult, ErrorData>;

/// salve's MCP server for one work tree. Cheap to clone: the state is shared.
#[derive(Clone, Debug)]
pub struct SalveServer {
    state: Arc<State>,
    tool_router: ToolRouter<SalveServer>,
}

impl SalveServer {
    /// A server over a state loaded with [`State::load`].
    pub fn new(state: State) -> SalveServer {
        SalveServer {
            state: Arc::new(state),
            tool_router: Self::tool_router(),
        }
    }

    /// The state every call uses.
    pub fn state(&self) -> &State {
        &self.state
    }

    /// Run `job` on the blocking pool with a stop token of this call's own, raised when the
    /// client cancels the request (`notifications/cancelled`): a check's process tree is killed,
    /// an apply stops at its next safe point; other calls go on. A panic in the job is an
    /// internal error of this call only.
    async fn blocking<F>(&self, ct: CancellationToken, job: F) -> ToolResult
    where
        F: FnOnce(&State, &Cancel) -> CallToolResult + Send + 'static,
    {
        let state = Arc::clone(&self.state);
        let flag = Arc::new(AtomicBool::new(false));
        let cancel = Cancel::with_flag(Arc::clone(&flag));
        let watcher = tokio::spawn(async move {
            ct.cancelled().await;
            flag.store(true, Ordering::SeqCst);
        });
        let done = tokio::task::spawn_blocking(move || job(&state, &cancel)).await;
        watcher.abort();
        done.map_err(|e| ErrorData::internal_error(format!("the tool call failed: {e}"), None))
    }
}

#[tool_router]
impl SalveServer {
    #[tool(description = d::APPLY_EDIT, annotations(destructive_hint = true, idempotent_hint = true))]
    async fn apply_edit(
        &self,
        Parameters(Checked(p)): Parameters<Checked<ApplyEditParams>>,
        ct: CancellationToken,
    ) -> ToolResult {
        self.blocking(ct, move |s, c| ops::apply_edit(s, &p, c))
            .await
    }

    #[tool(description = d::STR_REPLACE, annotations(destructive_hint = true, idempotent_hint = true))]
    async fn str_replace(
        &self,
        Parameters(Checked(p)): Parameters<Checked<StrReplaceParams>>,
        ct: CancellationToken,
    ) -> ToolResult {
        self.blocking(ct, move |s, c| ops::str_replace(s, &p, c))
            .await
    }

    #[tool(description = d::WRITE_FILE, annotations(destructive_hint = true, idempotent_hint = true))]
    async fn write_file(
        &self,
        Parameters(Checked(p)): Parameters<Checked<WriteFileParams>>,
        ct: CancellationToken,
    ) -> ToolResult {
        self.blocking(ct, move |s, c| ops::write_file(s, &p, c))
            .await
    }

    #[tool(description = d::EDIT_FILE, annotations(destructive_hint = true, idempotent_hint = true))]
    async fn edit_file(
        &self,
        Parameters(Checked(p)): Parameters<Checked<EditFileParams>>,
        ct: CancellationToken,
    ) -> ToolResult {
        self.blocking(ct, move |s, c| ops::edit_file(s, &p, c))
            .await
    }

    #[tool(description = d::CHECKPOINT, annotations(destructive_hint = false))]
    async fn checkpoint(
        &self,
        Parameters(Checked(p)): Parameters<Checked<CheckpointParams>>,
        ct: CancellationToken,
    ) -> ToolResult {
        self.blocking(ct, move |s, _| ops::checkpoint(s, &p)).await
    }

    #[tool(description = d::LIST_CHECKPOINTS, annotations(read_only_hint = true))]
    async fn list_checkpoints(
        &self,
        Parameters(Checked(p)): Parameters<Checked<ListCheckpointsParams>>,
        ct: CancellationToken,
    ) -> ToolResult {
        self.blocking(ct, move |s, _| ops::list_checkpoints(s, &p))
            .await
    }

    #[tool(description = d::RESTORE_CHECKPOINT, annotations(destructive_hint = true))]
    async fn restore_checkpoint(
        &self,
        Parameters(Checked(p)): Parameters<Checked<RestoreParams>>,
        ct: CancellationToken,
    ) -> ToolResult {
        self.blocking(ct, move |s, _| ops::restore_checkpoint(s, &p))
            .await
    }

    #[tool(description = d::UNDO, annotations(destructive_hint = true))]
    async fn undo(&self, ct: CancellationToken) -> ToolResult {
        self.blocking(ct, |s, _| ops::undo(s)).await
    }

    #[tool(description = d::RUN_CHECK, annotations(destructive_hint = false))]
    async fn run_check(
        &self,
        Parameters(Checked(p)): Parameters<Checked<RunCheckParams>>,
        ct: CancellationToken,
    ) -> ToolResult {
        self.blocking(ct, move |s, c| check::run_check(s, &p, c))
            .await
    }

    #[tool(description = d::LOG, annotations(read_only_hint = true))]
    async fn log(
        &self,
        Parameters(Checked(p)): Parameters<Checked<LogParams>>,
        ct: CancellationToken,
    ) -> ToolResult {
        self.blocking(ct, move |s, _| ops::log(s, &p)).await
    }

    #[tool(description = d::SHOW_RUN, annotations(read_only_hint = true))]
    async fn show_run(
        &self,
        Parameters(Checked(p)): Parameters<Checked<ShowRunParams>>,
        ct: CancellationToken,
    ) -> ToolResult {
        self.blocking(ct, move |s, _| ops::show_run(s, &p)).await
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for SalveServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(
                Implementation::new("salve", env!("CARGO_PKG_VERSION"))
                    .with_title("salve: safe edits, checkpoints and checks"),
            )
            .with_instructions(d::INSTRUCTIONS)
    }
}
