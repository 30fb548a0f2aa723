//! Shared by the in-process tests: a temporary git repository, a server over a duplex pipe
//! with rmcp's own client, and readers for tool results.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::Command;

use rmcp::model::{CallToolRequestParams, CallToolResult, ProtocolVersion};
use rmcp::service::{RoleClient, RunningService};
use rmcp::{ClientServiceExt as _, ServiceExt as _};
use serde_json::Value;
use tempfile::TempDir;

/// A git repository in a private scratch directory (`outside` must stay untouched).
pub struct Repo {
    scratch: TempDir,
    pub root: PathBuf,
}

impl Repo {
    pub fn new() -> Repo {
        let scratch = tempfile::tempdir().unwrap();
        let root = scratch.path().join("work");
        std::fs::create_dir(&root).unwrap();
        let repo = Repo { scratch, root };
        repo.git(&["init", "-q", "-b", "main"]);
        repo.git(&["config", "user.name", "salve tests"]);
        repo.git(&["config", "user.email", "tests@salve.invalid"]);
        repo.git(&["config", "core.autocrlf", "false"]);
        repo
    }

    pub fn outside(&self) -> &Path {
        self.scratch.path()
    }

    pub fn write(&self, rel: &str, content: &str) -> &Repo {
        let path = self.root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, content).unwrap();
        self
    }

    pub fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.root.join(rel)).unwrap()
    }

    /// The user trusts the repository's `salve.toml` (its allowed checks), in a trust store
    /// private to this test process so the user's own is never touched.
    pub fn trust(&self) -> &Repo {
        static STORE: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
        STORE.get_or_init(|| {
            let dir = tempfile::tempdir().unwrap().keep();
            std::env::set_var("XDG_DATA_HOME", &dir);
            dir
        });
        salve_engine::trust::trust(&salve_engine::trust::Options {
            dir: self.root.clone(),
            action: salve_engine::trust::Action::Trust,
        })
        .unwrap();
        self
    }

    pub fn commit(&self) -> &Repo {
        self.git(&["add", "-A"]);
        self.git(&["commit", "-q", "-m", "snapshot"]);
        self
    }

    pub fn git(&self, args: &[&str]) -> String {
        let out = Command::new("git")
            .args(args)
            .current_dir(&self.root)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }
}

pub type Client = RunningService<RoleClient, ()>;

/// Start a server on `dir` in this process and connect rmcp's client with the `initialize`
/// handshake.
pub async fn connect(dir: &Path, allow_any_check: bool) -> Client {
    let (server_end, client_end) = tokio::io::duplex(1 << 16);
    spawn_server(dir, allow_any_check, server_end);
    ().serve(client_end).await.unwrap()
}

/// The same, negotiating the 2026-07-28 revision with `server/discover`.
pub async fn connect_discover(dir: &Path) -> Client {
    let (server_end, client_end) = tokio::io::duplex(1 << 16);
    spawn_server(dir, false, server_end);
    let mode = rmcp::ClientLifecycleMode::Discover {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
    };
    ().serve_with_lifecycle(client_end, mode).await.unwrap()
}

pub fn spawn_server(dir: &Path, allow_any_check: bool, end: tokio::io::DuplexStream) {
    let options = salve_mcp::Options {
        dir: dir.to_path_buf(),
        allow_any_check,
    };
    let server = salve_mcp::SalveServer::new(salve_mcp::State::load(&options).unwrap());
    tokio::spawn(async move {
        let _ = salve_mcp::serve(server, end).await;
    });
}

/// Call `tool` with `args` (a JSON object); protocol errors fail the test.
pub async fn call(client: &Client, tool: &str, args: Value) -> CallToolResult {
    let params = CallToolRequestParams::new(tool.to_owned());
    let params = match args {
        Value::Object(map) => params.with_arguments(map),
        _ => params,
    };
    client.call_tool(params).await.unwrap()
}

/// The result's JSON object, checked to be the same as its text.
pub fn body(result: &CallToolResult) -> Value {
    let structured = result
        .structured_content
        .clone()
        .expect("structured content");
    let text = result.content[0]
        .as_text()
        .expect("text content")
        .text
        .clone();
    assert_eq!(serde_json::from_str::<Value>(&text).unwrap(), structured);
    structured
}

pub fn is_error(result: &CallToolResult) -> bool {
    result.is_error == Some(true)
}
