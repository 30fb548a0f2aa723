//! `salve mcp` driven by MCP clients nobody here wrote, when they are installed
//! (`scripts/install-mcp-clients.sh`, which `.ci/run` calls; they live in target/mcp-clients or
//! $SALVE_MCP_CLIENTS). A client that is not installed is skipped with a note on stderr.
//!
//! - The official MCP Inspector in CLI mode (npm `@modelcontextprotocol/inspector`): it
//!   negotiates with `initialize`. The server command goes before the inspector's flags.
//! - The official Python SDK (PyPI `mcp` 2.x), through `crates/salve-mcp/tests/python_client.py`:
//!   its default client probes `server/discover` and negotiates the 2026-07-28 revision.

use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;

use crate::scenarios::workspace_root;
use crate::support::Tree;

fn clients_dir() -> PathBuf {
    std::env::var_os("SALVE_MCP_CLIENTS")
        .map(PathBuf::from)
        .map(|p| {
            if p.is_absolute() {
                p
            } else {
                workspace_root().join(p)
            }
        })
        .unwrap_or_else(|| workspace_root().join("target/mcp-clients"))
}

fn found(path: PathBuf, what: &str) -> Option<PathBuf> {
    if path.exists() {
        Some(path)
    } else {
        crate::skip::skip(
            "mcp_clients",
            &format!(
                "{what} is not installed at {} (scripts/install-mcp-clients.sh installs it)",
                path.display()
            ),
        );
        None
    }
}

fn hello_repo() -> Tree {
    let tree = Tree::git();
    tree.write(
        "hello.py",
        "def greet(name):\n    return \"Hello, \" + name\n",
    );
    tree.git_cmd(&["add", "-A"]);
    tree.git_cmd(&["commit", "-q", "-m", "start"]);
    tree
}

fn inspector(tree: &Tree, bin: &PathBuf, flags: &[&str]) -> Value {
    let out = Command::new(bin)
        .arg("--cli")
        .arg(env!("CARGO_BIN_EXE_salve"))
        .args(["mcp", "-C"])
        .arg(&tree.root)
        .args(flags)
        // The inspector's catalog of servers, kept out of the home directory.
        .env(
            "MCP_CATALOG_PATH",
            tree.outside().join("inspector-catalog.json"),
        )
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "inspector {flags:?} failed ({}): {stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("inspector printed no JSON ({e}): {stdout}"))
}

#[test]
fn the_mcp_inspector_lists_the_tools_and_applies_an_edit() {
    let Some(bin) = found(
        clients_dir().join("npm/node_modules/.bin/mcp-inspector"),
        "the MCP Inspector",
    ) else {
        return;
    };
    let tree = hello_repo();
    let listed = inspector(&tree, &bin, &["--method", "tools/list"]);
    let tools = listed["tools"].as_array().unwrap();
    assert_eq!(tools.len(), 11, "{listed}");
    let apply = tools.iter().find(|t| t["name"] == "apply_edit").unwrap();
    assert_eq!(
        apply["inputSchema"]["required"],
        serde_json::json!(["edit"])
    );

    let edit = "--- a/hello.py\n+++ b/hello.py\n@@ -1,2 +1,2 @@\n def greet(name):\n-    return \"Hello, \" + name\n+    return \"Hi, \" + name\n";
    let arg = format!("edit={edit}");
    let called = inspector(
        &tree,
        &bin,
        &[
            "--method",
            "tools/call",
            "--tool-name",
            "apply_edit",
            "--tool-arg",
            &arg,
        ],
    );
    assert_eq!(called["isError"], false, "{called}");
    assert_eq!(
        called["structuredContent"]["report"]["outcome"], "applied",
        "{called}"
    );
    assert_eq!(
        tree.read("hello.py"),
        "def greet(name):\n    return \"Hi, \" + name\n"
    );

    let checkpoint = inspector(
        &tree,
        &bin,
        &["--method", "tools/call", "--tool-name", "checkpoint"],
    );
    assert!(
        checkpoint["structuredContent"]["id"].is_string(),
        "{checkpoint}"
    );
}

#[test]
fn the_python_sdk_negotiates_2026_07_28_lists_applies_and_checkpoints() {
    let Some(python) = found(clients_dir().join("venv/bin/python"), "the MCP Python SDK") else {
        return;
    };
    let script = workspace_root().join("crates/salve-mcp/tests/python_client.py");
    for (mode, version) in [("auto", "2026-07-28"), ("legacy", "2025-11-25")] {
        let tree = hello_repo();
        let out = Command::new(&python)
            .arg(&script)
            .arg(env!("CARGO_BIN_EXE_salve"))
            .arg(&tree.root)
            .arg(mode)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "python client ({mode}) failed: {stdout}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let report: Value = serde_json::from_str(stdout.trim()).unwrap();
        assert_eq!(report["protocol_version"], version, "{report}");
        assert_eq!(report["tools"].as_array().unwrap().len(), 11);
        assert_eq!(
            tree.read("hello.py"),
            "def greet(name):\n    return \"Good day, \" + name\n"
        );
    }
}

const SHOP: &str = "import math\n\n\ndef total(items):\n    return sum(item.price * item.count for item in items)\n\n\ndef find(items, name):\n    for item in items:\n        if item.name == name:\n            return item\n        return None\n    log(\"done\")\n\n\ndef first(items):\n    if not items:\n        return None\n    log(\"done\")\n";

/// Cursor's `edit_file` tool, as the Python SDK calls it: a snippet merged, the same snippet
/// again already applied, an ambiguous one and a cut one refused with nothing written.
#[test]
fn the_python_sdk_calls_edit_file_with_cursors_arguments() {
    let Some(python) = found(clients_dir().join("venv/bin/python"), "the MCP Python SDK") else {
        return;
    };
    let script = workspace_root().join("crates/salve-mcp/tests/python_edit_file.py");
    let tree = Tree::git();
    tree.write("shop.py", SHOP);
    tree.git_cmd(&["add", "-A"]);
    tree.git_cmd(&["commit", "-q", "-m", "start"]);
    let out = Command::new(&python)
        .arg(&script)
        .arg(env!("CARGO_BIN_EXE_salve"))
        .arg(&tree.root)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "python edit_file client failed: {stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Merged once; the refused calls wrote nothing.
    assert_eq!(
        tree.read("shop.py"),
        SHOP.replace(
            "def total(items):\n",
            "def total(items):\n    # Prices are in cents.\n"
        )
    );
}
