//! Each MCP call can be cancelled on its own: `notifications/cancelled` for a running
//! `run_check` kills that check's process tree, and the server goes on answering, so a later
//! call runs to its end.

use std::time::{Duration, Instant};

use serde_json::json;

use crate::mcp::{repo, Server};

fn alive(pid: &str) -> bool {
    std::path::Path::new(&format!("/proc/{pid}")).exists()
}

#[test]
fn a_cancelled_check_is_killed_and_the_server_goes_on() {
    let tree = repo();
    let pidfile = tree.outside().join("check.pid");
    let mut server = Server::start(&tree, &["--allow-any-check"]);
    server.initialize("2025-06-18");
    let long = json!([
        "sh",
        "-c",
        format!("echo $$ > {}; exec sleep 60", pidfile.to_string_lossy())
    ]);
    server.send(
        &json!({"jsonrpc": "2.0", "id": 901, "method": "tools/call",
                "params": {"name": "run_check", "arguments": {"command": long}}})
        .to_string(),
    );
    // Wait for the check to start (bounded, not a timing assertion).
    let started = Instant::now();
    let pid = loop {
        if let Ok(text) = std::fs::read_to_string(&pidfile) {
            if !text.trim().is_empty() {
                break text.trim().to_owned();
            }
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "the check never started"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(alive(&pid));
    server.send(
        &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                "params": {"requestId": 901, "reason": "the agent changed its mind"}})
        .to_string(),
    );
    let cancelled = Instant::now();
    while alive(&pid) {
        assert!(
            cancelled.elapsed() < Duration::from_secs(30),
            "the cancelled check still runs"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    // Another call still runs to its end, uncancelled.
    let (passed, is_error) = server.call("run_check", json!({ "command": ["true"] }));
    assert!(!is_error, "{passed}");
    assert_eq!(passed["passed"], true, "{passed}");
    server.finish();
}
