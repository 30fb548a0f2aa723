//! What the server refuses, and that it keeps serving after: path attacks through every
//! writing tool, unknown tools and bad arguments (JSON-RPC errors), and malformed JSON-RPC
//! written straight onto the pipe.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{body, call, connect, is_error, spawn_server, Repo};
use rmcp::model::{CallToolRequestParams, ErrorCode};
use rmcp::ServiceError;
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _, BufReader};

fn repo() -> Repo {
    let repo = Repo::new();
    repo.write("src/a.txt", "one\ntwo\n").commit();
    repo
}

/// Every file below the scratch directory, outside the work tree.
fn outside_files(repo: &Repo) -> Vec<String> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(repo.outside()).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if name != "work" {
            found.push(name);
        }
    }
    found
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn path_attacks_through_apply_edit_and_write_file_are_refused() {
    let repo = repo();
    std::os::unix::fs::symlink(repo.outside(), repo.root.join("escape")).unwrap();
    let client = connect(&repo.root, false).await;
    let attacks = [
        "../evil.txt",
        "../../evil.txt",
        "/tmp/salve-mcp-evil.txt",
        ".git/hooks/pre-commit",
        "escape/evil.txt",
        "src/../../evil.txt",
    ];
    for path in attacks {
        let diff = format!("--- /dev/null\n+++ b/{path}\n@@ -0,0 +1 @@\n+pwned\n");
        let edit_json =
            json!({ "path": path, "old_string": "", "new_string": "pwned\n" }).to_string();
        for (tool, args) in [
            ("apply_edit", json!({ "edit": diff })),
            ("apply_edit", json!({ "edit": edit_json })),
            (
                "write_file",
                json!({ "path": path, "content": "#!/bin/sh\necho pwned\n" }),
            ),
            (
                "str_replace",
                json!({ "path": path, "old_str": "", "new_str": "pwned\n" }),
            ),
        ] {
            let result = call(&client, tool, args).await;
            assert!(is_error(&result), "{tool} {path}: {result:?}");
            let refused = body(&result);
            assert_ne!(
                refused["report"]["outcome"], "applied",
                "{tool} {path}: {refused}"
            );
        }
    }
    assert_eq!(outside_files(&repo), Vec::<String>::new());
    assert!(!std::path::Path::new("/tmp/salve-mcp-evil.txt").exists());
    assert!(!repo.root.join(".git/hooks/pre-commit").exists());
    // And the server still works.
    let ok = call(
        &client,
        "str_replace",
        json!({ "path": "src/a.txt", "old_str": "two", "new_str": "2" }),
    )
    .await;
    assert!(!is_error(&ok), "{ok:?}");
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_tools_are_protocol_errors_bad_arguments_tool_errors_and_the_server_keeps_serving()
{
    let repo = repo();
    let client = connect(&repo.root, false).await;
    let protocol_error = |e: ServiceError| match e {
        ServiceError::McpError(data) => data.code,
        other => panic!("expected a JSON-RPC error, got {other:?}"),
    };
    let e = client
        .call_tool(CallToolRequestParams::new("delete_everything"))
        .await
        .unwrap_err();
    assert_eq!(protocol_error(e), ErrorCode::INVALID_PARAMS);
    // Arguments that do not fit the schema: a tool error naming the field (rmcp answers them
    // as tool errors, so a model can correct its call).
    let bad = call(&client, "apply_edit", json!({ "edits": 3 })).await;
    assert!(is_error(&bad));
    let text = &bad.content[0].as_text().unwrap().text;
    assert!(
        text.contains("missing argument `edit` (a string)"),
        "{text}"
    );
    // A wrong type is said in the schema's words, naming the argument.
    let bad = call(
        &client,
        "str_replace",
        json!({ "path": "src/a.txt", "old_str": ["one"], "new_str": "1" }),
    )
    .await;
    assert!(is_error(&bad));
    let text = &bad.content[0].as_text().unwrap().text;
    assert!(
        text.contains("`old_str` must be a string, not an array"),
        "{text}"
    );
    let bad = call(&client, "list_checkpoints", json!({ "limit": -3 })).await;
    let text = &bad.content[0].as_text().unwrap().text;
    assert!(
        text.contains("`limit` must be an integer from 0 to 4294967295, not -3"),
        "{text}"
    );
    assert_eq!(repo.read("src/a.txt"), "one\ntwo\n");
    // A tool error (not a protocol error) for an edit that names no file.
    let nothing = call(&client, "apply_edit", json!({ "edit": "just prose" })).await;
    assert!(is_error(&nothing));
    let tools = client.list_all_tools().await.unwrap();
    assert_eq!(tools.len(), 11);
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_json_rpc_on_the_wire_does_not_stop_the_server() {
    let repo = repo();
    let (server_end, client_end) = tokio::io::duplex(1 << 16);
    spawn_server(&repo.root, false, server_end);
    let (read, mut write) = tokio::io::split(client_end);
    let mut lines = BufReader::new(read).lines();
    let mut send = async |text: &str| {
        write.write_all(text.as_bytes()).await.unwrap();
        write.write_all(b"\n").await.unwrap();
    };
    send(r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}"#).await;
    let init: Value = serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap();
    assert_eq!(init["result"]["protocolVersion"], "2025-06-18");
    send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#).await;
    // Not JSON at all: ignored (rmcp, like the other official SDKs, does not answer it).
    send("{this is not json").await;
    // JSON, but no JSON-RPC message: Invalid Request.
    send(r#"{"hello":"world"}"#).await;
    let invalid: Value = serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap();
    assert_eq!(invalid["error"]["code"], -32600, "{invalid}");
    // An unknown method: Method not found.
    send(r#"{"jsonrpc":"2.0","id":2,"method":"files/delete","params":{}}"#).await;
    let unknown: Value = serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap();
    assert_eq!(unknown["id"], 2);
    assert_eq!(unknown["error"]["code"], -32601, "{unknown}");
    // Still serving.
    send(r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"list_checkpoints","arguments":{}}}"#).await;
    let listed: Value = serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap();
    assert_eq!(listed["id"], 3);
    assert_eq!(listed["result"]["isError"], false, "{listed}");
}
