//! `salve mcp` as a real child process over stdio, driven by a small JSON-RPC client written
//! here against the protocol text (no SDK): both handshakes, the tool list, a drifted edit, a
//! refusal report, checkpoint and restore, a check, malformed input, and a clean exit on EOF.
//! Every line the server writes on stdout must be a JSON-RPC message.

use std::io::{BufRead as _, BufReader, Write as _};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use serde_json::{json, Value};

use crate::support::Tree;

/// A `salve mcp` child and the JSON-RPC lines it wrote.
pub(crate) struct Server {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    next_id: u64,
}

impl Server {
    pub(crate) fn start(tree: &Tree, extra: &[&str]) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_salve"))
            .arg("mcp")
            .arg("-C")
            .arg(&tree.root)
            .args(extra)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("HOME", tree.home())
            .env_remove("XDG_CONFIG_HOME")
            .env_remove("XDG_DATA_HOME")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        Server {
            child,
            stdin,
            stdout,
            next_id: 1,
        }
    }

    pub(crate) fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(line.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    /// The next message on stdout; it must be JSON-RPC 2.0.
    pub(crate) fn receive(&mut self) -> Value {
        let mut line = String::new();
        assert!(
            self.stdout.read_line(&mut line).unwrap() > 0,
            "the server closed stdout"
        );
        let message: Value = serde_json::from_str(&line).unwrap_or_else(|e| {
            panic!("stdout carried something else than JSON-RPC ({e}): {line}")
        });
        assert_eq!(message["jsonrpc"], "2.0", "{message}");
        message
    }

    /// Send a request and return its response (notifications in between are skipped).
    pub(crate) fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(
            &json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string(),
        );
        loop {
            let message = self.receive();
            if message["id"] == json!(id) {
                return message;
            }
            assert!(
                message.get("id").is_none(),
                "a response to another request: {message}"
            );
        }
    }

    pub(crate) fn initialize(&mut self, version: &str) -> Value {
        let init = self.request(
            "initialize",
            json!({"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "salve-tests", "version": "0"}}),
        );
        self.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        init
    }

    /// `tools/call`; returns the result's structured content and whether it is an error.
    pub(crate) fn call(&mut self, tool: &str, arguments: Value) -> (Value, bool) {
        let response = self.request("tools/call", json!({"name": tool, "arguments": arguments}));
        let result = &response["result"];
        assert!(result.is_object(), "{response}");
        let text: Value =
            serde_json::from_str(result["content"][0]["text"].as_str().unwrap()).unwrap();
        assert_eq!(text, result["structuredContent"]);
        (text, result["isError"] == json!(true))
    }

    /// Close stdin; the server must exit 0 and write nothing more.
    pub(crate) fn finish(mut self) {
        drop(self.stdin.take());
        let mut rest = String::new();
        std::io::Read::read_to_string(&mut self.stdout, &mut rest).unwrap();
        assert_eq!(rest, "", "output after EOF");
        let status = self.child.wait().unwrap();
        assert!(status.success(), "salve mcp exited with {status}");
    }
}

const LIB: &str = "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n\npub fn sub(a: i32, b: i32) -> i32 {\n    a - b\n}\n";
const DRIFTED: &str = "--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -5,3 +5,3 @@\n pub fn sub(a: i32, b: i32) -> i32 {\n-    a - b\n+    a.wrapping_sub(b)\n }\n";
const TWICE: &str = "fn one() {\n    let x = 1;\n}\n\nfn two() {\n    let x = 1;\n}\n";

pub(crate) fn repo() -> Tree {
    let tree = Tree::git();
    tree.write("src/lib.rs", LIB)
        .write("src/twice.rs", TWICE)
        .write(
            "salve.toml",
            "[mcp]\nallowed_checks = [[\"grep\", \"-q\", \"wrapping_sub\", \"src/lib.rs\"]]\n",
        );
    tree.git_cmd(&["add", "-A"]);
    tree.git_cmd(&["commit", "-q", "-m", "start"]);
    tree.trust();
    tree.write("src/lib.rs", format!("// Arithmetic.\n\n\n{LIB}"));
    tree
}

#[test]
fn the_real_server_over_stdio_edits_checkpoints_restores_and_checks() {
    let tree = repo();
    let mut server = Server::start(&tree, &[]);
    let init = server.initialize("2025-06-18");
    assert_eq!(init["result"]["protocolVersion"], "2025-06-18", "{init}");
    assert_eq!(init["result"]["serverInfo"]["name"], "salve");
    assert!(init["result"]["capabilities"]["tools"].is_object());

    let listed = server.request("tools/list", json!({}));
    let mut names: Vec<&str> = listed["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    names.sort_unstable();
    assert_eq!(
        names,
        [
            "apply_edit",
            "checkpoint",
            "edit_file",
            "list_checkpoints",
            "log",
            "restore_checkpoint",
            "run_check",
            "show_run",
            "str_replace",
            "undo",
            "write_file"
        ]
    );

    // Before the edit: the configured check fails.
    let (failing, is_error) = server.call("run_check", json!({}));
    assert!(!is_error);
    assert_eq!(failing["passed"], false, "{failing}");

    let (taken, _) = server.call("checkpoint", json!({"message": "before"}));
    let before = taken["id"].as_str().unwrap().to_owned();

    let (applied, is_error) = server.call("apply_edit", json!({"edit": DRIFTED}));
    assert!(!is_error, "{applied}");
    assert_eq!(applied["report"]["outcome"], "applied");
    assert_eq!(
        applied["report"]["files"][0]["hunks"][0]["lines"],
        json!({"start": 8, "end": 10})
    );
    assert!(tree.read("src/lib.rs").starts_with("// Arithmetic.\n"));
    assert!(tree.read("src/lib.rs").contains("a.wrapping_sub(b)"));

    let (passing, _) = server.call(
        "run_check",
        json!({"command": ["grep", "-q", "wrapping_sub", "src/lib.rs"]}),
    );
    assert_eq!(passing["passed"], true, "{passing}");
    let (not_allowed, is_error) =
        server.call("run_check", json!({"command": ["rm", "-rf", "src"]}));
    assert!(is_error);
    assert_eq!(not_allowed["error"]["code"], "check_not_allowed");
    assert!(tree.exists("src/lib.rs"));

    let ambiguous =
        "src/twice.rs\n<<<<<<< SEARCH\n    let x = 1;\n=======\n    let x = 2;\n>>>>>>> REPLACE\n";
    let (refused, is_error) = server.call("apply_edit", json!({"edit": ambiguous}));
    assert!(is_error);
    assert_eq!(
        refused["report"]["files"][0]["hunks"][0]["status"], "ambiguous",
        "{refused}"
    );
    assert_eq!(
        refused["report"]["files"][0]["hunks"][0]["candidates"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    assert_eq!(tree.read("src/twice.rs"), TWICE);

    // Malformed input does not stop the server.
    server.send("this is not JSON");
    server.send(r#"{"not":"a message"}"#);
    assert_eq!(server.receive()["error"]["code"], -32600);
    let unknown = server.request(
        "tools/call",
        json!({"name": "format_disk", "arguments": {}}),
    );
    assert!(unknown["error"]["code"].is_i64(), "{unknown}");

    let (restored, is_error) = server.call("restore_checkpoint", json!({"id": before}));
    assert!(!is_error, "{restored}");
    assert!(!tree.read("src/lib.rs").contains("wrapping_sub"));
    let (log, _) = server.call("log", json!({"limit": 10}));
    assert!(!log["runs"].as_array().unwrap().is_empty());
    server.finish();
}

#[test]
fn the_2026_revision_is_served_through_server_discover() {
    let tree = repo();
    let mut server = Server::start(&tree, &[]);
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "salve-tests", "version": "0"},
        "io.modelcontextprotocol/clientCapabilities": {}
    });
    let discovered = server.request("server/discover", json!({"_meta": meta}));
    let versions = discovered["result"]["supportedVersions"]
        .as_array()
        .unwrap();
    assert!(versions.contains(&json!("2026-07-28")), "{discovered}");
    assert!(versions.contains(&json!("2025-11-25")), "{discovered}");
    let listed = server.request("tools/list", json!({"_meta": meta}));
    assert_eq!(
        listed["result"]["tools"].as_array().unwrap().len(),
        11,
        "{listed}"
    );
    let called = server.request(
        "tools/call",
        json!({"name": "apply_edit", "arguments": {"edit": DRIFTED}, "_meta": meta}),
    );
    assert_eq!(called["result"]["isError"], false, "{called}");
    assert!(tree.read("src/lib.rs").contains("a.wrapping_sub(b)"));
    server.finish();
}

#[test]
fn a_missing_directory_is_a_usage_error_before_any_protocol() {
    let tree = Tree::plain();
    let out = Command::new(env!("CARGO_BIN_EXE_salve"))
        .args(["mcp", "-C"])
        .arg(tree.root.join("nope"))
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
}
