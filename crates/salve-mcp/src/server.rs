//! The MCP handler: the tool router over [`crate::ops`] and [`crate::check`]. Each call runs
//! its engine operation on the blocking pool, so the protocol loop keeps answering (pings,
//! cancellations, other calls) while a check or an apply runs.

use std::sync::Arc;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, Implementation, ServerCapabilities, ServerConfig};
use rmcp::{tool, tool_handler, tool_router, ErrorData, ServerHandler};

use crate::descriptions as d;
use crate::params::{
    ApplyEditParams, CheckpointParams, LogParams, RestoreParams, RunCheckParams, ShowRunParams,
    StrReplaceParams, WriteFileParams,
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

    /// Run `job` on the blocking pool. A panic in it is an internal error of this call only.
    async fn blocking<F>(&self, job: F) -> ToolResult
    where
        F: FnOnce(&State) -> CallToolResult + Send + 'static,
    {
        let state = Arc::clone(&self.state);
        tokio::task::spawn_blocking(move || job(&state))
            .await
            .map_err(|e| ErrorData::internal_error(format!("the tool call failed: {e}"), None))
    }
}

#[tool_router]
impl SalveServer {
    #[tool(description = d::APPLY_EDIT, annotations(destructive_hint = true, idempotent_hint = true))]
    async fn apply_edit(&self, Parameters(p): Parameters<ApplyEditParams>) -> ToolResult {
        self.blocking(move |s| ops::apply_edit(s, &p)).await
    }

    #[tool(description = d::STR_REPLACE, annotations(destructive_hint = true, idempotent_hint = true))]
    async fn str_replace(&self, Parameters(p): Parameters<StrReplaceParams>) -> ToolResult {
        self.blocking(move |s| ops::str_replace(s, &p)).await
    }

    #[tool(description = d::WRITE_FILE, annotations(destructive_hint = true, idempotent_hint = true))]
    async fn write_file(&self, Parameters(p): Parameters<WriteFileParams>) -> ToolResult {
        self.blocking(move |s| ops::write_file(s, &p)).await
    }

    #[tool(description = d::CHECKPOINT, annotations(destructive_hint = false))]
    async fn checkpoint(&self, Parameters(p): Parameters<CheckpointParams>) -> ToolResult {
        self.blocking(move |s| ops::checkpoint(s, &p)).await
    }

    #[tool(description = d::LIST_CHECKPOINTS, annotations(read_only_hint = true))]
    async fn list_checkpoints(&self) -> ToolResult {
        self.blocking(ops::list_checkpoints).await
    }

    #[tool(description = d::RESTORE_CHECKPOINT, annotations(destructive_hint = true))]
    async fn restore_checkpoint(&self, Parameters(p): Parameters<RestoreParams>) -> ToolResult {
        self.blocking(move |s| ops::restore_checkpoint(s, &p)).await
    }

    #[tool(description = d::UNDO, annotations(destructive_hint = true))]
    async fn undo(&self) -> ToolResult {
        self.blocking(ops::undo).await
    }

    #[tool(description = d::RUN_CHECK, annotations(destructive_hint = false))]
    async fn run_check(&self, Parameters(p): Parameters<RunCheckParams>) -> ToolResult {
        self.blocking(move |s| check::run_check(s, &p)).await
    }

    #[tool(description = d::LOG, annotations(read_only_hint = true))]
    async fn log(&self, Parameters(p): Parameters<LogParams>) -> ToolResult {
        self.blocking(move |s| ops::log(s, &p)).await
    }

    #[tool(description = d::SHOW_RUN, annotations(read_only_hint = true))]
    async fn show_run(&self, Parameters(p): Parameters<ShowRunParams>) -> ToolResult {
        self.blocking(move |s| ops::show_run(s, &p)).await
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
