//! The server in process, driven by rmcp's own client over a duplex pipe: the handshake (both
//! protocol generations), the tool list, edits that drift, refusals, checkpoints, restore, undo,
//! checks and the record.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{body, call, connect, connect_discover, is_error, Repo};
use rmcp::model::ProtocolVersion;
use serde_json::{json, Value};

const LIB: &str = "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n\npub fn sub(a: i32, b: i32) -> i32 {\n    a - b\n}\n";

/// The edit was written against the committed file; five lines were added above since.
const DRIFTED: &str = "Here is the change:\n\n```diff\n--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -5,3 +5,4 @@\n pub fn sub(a: i32, b: i32) -> i32 {\n-    a - b\n+    // never panics\n+    a.wrapping_sub(b)\n }\n```\n";

const TWICE: &str =
    "fn one() {\n    let x = 1;\n    log(x);\n}\n\nfn two() {\n    let x = 1;\n    log(x);\n}\n";

fn repo() -> Repo {
    let repo = Repo::new();
    repo.write("src/lib.rs", LIB)
        .write("src/twice.rs", TWICE)
        .write(
            "salve.toml",
            "[mcp]\nallowed_checks = [[\"sh\", \"-c\", \"echo 'src/lib.rs:2:5: error: boom' >&2; exit 1\"], [\"true\"]]\n",
        )
        .commit()
        .trust();
    repo.write(
        "src/lib.rs",
        &format!("//! Arithmetic.\n//!\n//! Small.\n\n\n{LIB}"),
    );
    repo
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn handshake_lists_the_tools_with_schemas_derived_from_the_types() {
    let repo = repo();
    let client = connect(&repo.root, false).await;
    let info = client.peer_info().unwrap();
    assert_eq!(info.protocol_version, ProtocolVersion::V_2025_11_25);
    assert_eq!(info.server_info.as_ref().unwrap().name, "salve");
    assert!(info.instructions.as_deref().unwrap().contains("apply_edit"));

    let tools = client.list_all_tools().await.unwrap();
    let listed: Vec<Value> = tools
        .iter()
        .map(|t| {
            json!({
                "name": t.name,
                "description": t.description,
                "inputSchema": t.input_schema.as_ref(),
                "annotations": t.annotations,
            })
        })
        .collect();
    insta::assert_json_snapshot!("tools", listed);
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_2026_revision_negotiates_by_discover_and_applies() {
    let repo = repo();
    let client = connect_discover(&repo.root).await;
    let tools = client.list_all_tools().await.unwrap();
    assert_eq!(tools.len(), 11);
    let applied = call(&client, "apply_edit", json!({ "edit": DRIFTED })).await;
    assert!(!is_error(&applied), "{applied:?}");
    assert!(repo.read("src/lib.rs").contains("a.wrapping_sub(b)"));
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_drifted_edit_applies_once_and_is_then_already_applied() {
    let repo = repo();
    let client = connect(&repo.root, false).await;

    let checked = body(
        &call(
            &client,
            "apply_edit",
            json!({ "edit": DRIFTED, "check_only": true }),
        )
        .await,
    );
    assert_eq!(checked["report"]["outcome"], "applied");
    assert_eq!(checked["report"]["check_only"], true);
    assert!(!repo.read("src/lib.rs").contains("wrapping_sub"));

    let result = call(&client, "apply_edit", json!({ "edit": DRIFTED })).await;
    assert!(!is_error(&result));
    let applied = body(&result);
    assert_eq!(applied["report"]["outcome"], "applied");
    assert_eq!(applied["written"], json!(["src/lib.rs"]));
    let hunk = &applied["report"]["files"][0]["hunks"][0];
    assert_eq!(hunk["lines"], json!({"start": 10, "end": 12}), "{applied}");
    assert!(applied["checkpoint"].is_string());
    assert!(applied["summary"]
        .as_str()
        .unwrap()
        .starts_with("applied: wrote src/lib.rs"));
    assert!(repo.read("src/lib.rs").starts_with("//! Arithmetic."));
    assert!(repo
        .read("src/lib.rs")
        .contains("    // never panics\n    a.wrapping_sub(b)\n"));

    // Idempotent: the same call again writes nothing.
    let again = body(&call(&client, "apply_edit", json!({ "edit": DRIFTED })).await);
    assert_eq!(again["report"]["outcome"], "already_applied");
    assert_eq!(again["written"], json!([]));

    // Recorded: log lists the runs, show_run the diff that landed.
    let log = body(&call(&client, "log", json!({ "limit": 5 })).await);
    let runs = log["runs"].as_array().unwrap();
    assert!(runs.len() >= 2, "{log}");
    let run = applied["run"].as_str().unwrap();
    let shown = body(&call(&client, "show_run", json!({ "run": run })).await);
    assert!(shown["applied_diffs"][0]
        .as_str()
        .unwrap()
        .contains("+    a.wrapping_sub(b)"));
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_ambiguous_edit_is_refused_with_candidates_and_nothing_written() {
    let repo = repo();
    let client = connect(&repo.root, false).await;
    let edit = "src/twice.rs\n```\n<<<<<<< SEARCH\n    let x = 1;\n    log(x);\n=======\n    let x = 2;\n    log(x);\n>>>>>>> REPLACE\n```\n";
    let result = call(&client, "apply_edit", json!({ "edit": edit })).await;
    assert!(is_error(&result));
    let refused = body(&result);
    assert_eq!(refused["report"]["outcome"], "refused");
    let hunk = &refused["report"]["files"][0]["hunks"][0];
    assert_eq!(hunk["status"], "ambiguous", "{refused}");
    assert!(
        hunk["candidates"].as_array().unwrap().len() >= 2,
        "{refused}"
    );
    // Each candidate names the function it sits in and shows the file's lines around it.
    let scopes: Vec<&serde_json::Value> = hunk["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| &c["scope"]["text"])
        .collect();
    assert_eq!(scopes, ["fn one() {", "fn two() {"], "{refused}");
    assert_eq!(
        hunk["candidates"][1]["excerpt"][0],
        json!({ "line": 5, "text": "" }),
        "{refused}"
    );
    assert!(refused["summary"]
        .as_str()
        .unwrap()
        .contains("closest candidates"));
    assert_eq!(repo.read("src/twice.rs"), TWICE);

    // The same through str_replace; a unique old_str then places.
    let result = call(
        &client,
        "str_replace",
        json!({ "path": "src/twice.rs", "old_str": "    let x = 1;\n", "new_str": "    let x = 2;\n" }),
    )
    .await;
    assert!(is_error(&result));
    assert_eq!(repo.read("src/twice.rs"), TWICE);
    let result = call(
        &client,
        "str_replace",
        json!({ "path": "src/twice.rs", "old_str": "fn two() {\n    let x = 1;", "new_str": "fn two() {\n    let x = 2;" }),
    )
    .await;
    assert!(!is_error(&result), "{result:?}");
    assert!(repo
        .read("src/twice.rs")
        .ends_with("fn two() {\n    let x = 2;\n    log(x);\n}\n"));
    // A one-line old_str with a typo is not found, and the line it meant is shown to copy.
    let before = repo.read("src/twice.rs");
    let result = call(
        &client,
        "str_replace",
        json!({ "path": "src/twice.rs", "old_str": "    lgo(x);", "new_str": "    trace(x);" }),
    )
    .await;
    assert!(is_error(&result));
    let refused = body(&result);
    let hunk = &refused["report"]["files"][0]["hunks"][0];
    assert_eq!(hunk["status"], "not_found", "{refused}");
    let lines: Vec<&serde_json::Value> = hunk["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| &c["lines"]["start"])
        .collect();
    assert_eq!(lines, [3, 8], "{refused}");
    assert_eq!(repo.read("src/twice.rs"), before);
    client.cancel().await.unwrap();
}

/// The drop-in tools hand their arguments to the engine as edits, never through a text form, so
/// every path the guard allows can be named: the route files of Next.js, SvelteKit, Nuxt and
/// Remix among them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn write_file_and_str_replace_name_route_files() {
    let repo = repo();
    let client = connect(&repo.root, false).await;
    for path in [
        "src/app/(marketing)/about/page.tsx",
        "app/blog/[slug]/page.tsx",
        "src/routes/+page.svelte",
        "pages/[...all].vue",
        "app/routes/$id.edit.tsx",
        "app/{group}/x=1,y;z!.ts",
        "notes with spaces.md",
        "Makefile",
    ] {
        let written = call(
            &client,
            "write_file",
            json!({ "path": path, "content": "export const x = 1;
" }),
        )
        .await;
        assert!(!is_error(&written), "{path}: {written:?}");
        assert_eq!(
            repo.read(path),
            "export const x = 1;
",
            "{path}"
        );
        let replaced = call(
            &client,
            "str_replace",
            json!({ "path": path, "old_str": "x = 1", "new_str": "x = 2" }),
        )
        .await;
        assert!(!is_error(&replaced), "{path}: {replaced:?}");
        assert_eq!(
            repo.read(path),
            "export const x = 2;
",
            "{path}"
        );
    }
    // The guard still holds on the structured path.
    let escaped = call(
        &client,
        "write_file",
        json!({ "path": "../outside.txt", "content": "no\n" }),
    )
    .await;
    assert!(is_error(&escaped), "{escaped:?}");
    assert!(!repo.outside().join("outside.txt").exists());
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn str_replace_and_write_file_keep_line_endings() {
    let repo = repo();
    repo.write("win.txt", "alpha\r\nbeta\r\ngamma\r\n");
    let client = connect(&repo.root, false).await;
    let result = call(
        &client,
        "str_replace",
        json!({ "path": "win.txt", "old_str": "beta", "new_str": "BETA" }),
    )
    .await;
    assert!(!is_error(&result), "{result:?}");
    assert_eq!(repo.read("win.txt"), "alpha\r\nBETA\r\ngamma\r\n");

    let result = call(
        &client,
        "write_file",
        json!({ "path": "win.txt", "content": "one\ntwo\n" }),
    )
    .await;
    assert!(!is_error(&result), "{result:?}");
    assert_eq!(repo.read("win.txt"), "one\r\ntwo\r\n");

    let created = call(
        &client,
        "write_file",
        json!({ "path": "docs/new.md", "content": "# New\n\n```sh\nmake\n```\n" }),
    )
    .await;
    assert!(!is_error(&created), "{created:?}");
    assert_eq!(repo.read("docs/new.md"), "# New\n\n```sh\nmake\n```\n");
    let again = body(
        &call(
            &client,
            "write_file",
            json!({ "path": "docs/new.md", "content": "# New\n\n```sh\nmake\n```\n" }),
        )
        .await,
    );
    assert_eq!(again["report"]["outcome"], "already_applied");
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn checkpoint_restore_and_undo_round_trip() {
    let repo = repo();
    let client = connect(&repo.root, false).await;
    let before = repo.read("src/lib.rs");
    let taken = body(
        &call(
            &client,
            "checkpoint",
            json!({ "message": "before the rewrite" }),
        )
        .await,
    );
    let id = taken["id"].as_str().unwrap().to_owned();

    let result = call(
        &client,
        "write_file",
        json!({ "path": "src/lib.rs", "content": "pub fn nothing() {}\n" }),
    )
    .await;
    assert!(!is_error(&result), "{result:?}");
    assert_eq!(repo.read("src/lib.rs"), "pub fn nothing() {}\n");

    let listed = body(&call(&client, "list_checkpoints", json!({})).await);
    let ids: Vec<&str> = listed["checkpoints"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert!(ids.contains(&id.as_str()), "{listed}");

    let restored = body(&call(&client, "restore_checkpoint", json!({ "id": id })).await);
    assert_eq!(restored["target"], json!(id));
    assert_eq!(repo.read("src/lib.rs"), before);

    // Undo takes the restore back; a second undo redoes it.
    let undone = body(&call(&client, "undo", json!({})).await);
    assert_eq!(undone["undone"]["kind"], "restore", "{undone}");
    assert_eq!(repo.read("src/lib.rs"), "pub fn nothing() {}\n");
    call(&client, "undo", json!({})).await;
    assert_eq!(repo.read("src/lib.rs"), before);

    let missing = call(&client, "restore_checkpoint", json!({ "id": "0000000000" })).await;
    assert!(is_error(&missing));
    let error = &body(&missing)["error"];
    assert_eq!(error["code"], "no_such_checkpoint", "{error}");
    assert!(error["hint"].is_string());
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run_check_runs_allowed_checks_only_and_reads_their_failures() {
    let repo = repo();
    let client = connect(&repo.root, false).await;

    // No command: the first allowed one.
    let failed = call(&client, "run_check", json!({})).await;
    assert!(
        !is_error(&failed),
        "a failing check is a result, not a tool error"
    );
    let failed = body(&failed);
    assert_eq!(failed["passed"], false);
    assert_eq!(failed["status"], json!({"kind": "exited", "code": 1}));
    assert_eq!(failed["classification"]["class"], "code", "{failed}");
    assert_eq!(failed["failures"][0]["file"], "src/lib.rs", "{failed}");
    assert_eq!(failed["failures"][0]["line"], 2);
    assert!(failed["output"].as_str().unwrap().contains("boom"));

    let passed = body(&call(&client, "run_check", json!({ "command": ["true"] })).await);
    assert_eq!(passed["passed"], true);

    let refused = call(
        &client,
        "run_check",
        json!({ "command": ["sh", "-c", "touch pwned"] }),
    )
    .await;
    assert!(is_error(&refused));
    let error = &body(&refused)["error"];
    assert_eq!(error["code"], "check_not_allowed");
    assert!(
        error["hint"].as_str().unwrap().contains("[\"true\"]"),
        "{error}"
    );
    assert!(!repo.root.join("pwned").exists());
    client.cancel().await.unwrap();

    // --allow-any-check lifts the list.
    let client = connect(&repo.root, true).await;
    let ran = body(
        &call(
            &client,
            "run_check",
            json!({ "command": ["sh", "-c", "echo fine"], "timeout_secs": 30 }),
        )
        .await,
    );
    assert_eq!(ran["passed"], true);
    let missing = body(
        &call(
            &client,
            "run_check",
            json!({ "command": ["salve-no-such-program"] }),
        )
        .await,
    );
    assert_eq!(
        missing["classification"]["class"], "environment",
        "{missing}"
    );
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_edit_that_breaks_the_syntax_is_refused_with_its_line_and_nothing_written() {
    let repo = repo();
    let before = repo.read("src/lib.rs");
    let client = connect(&repo.root, false).await;
    // Curly quotes in code, as a chat renderer writes them: Rust cannot parse them.
    let result = call(
        &client,
        "str_replace",
        json!({ "path": "src/lib.rs", "old_str": "    a + b\n", "new_str": "    println!(\u{201c}sum\u{201d});\n    a + b\n" }),
    )
    .await;
    assert!(is_error(&result));
    let refused = body(&result);
    let file = &refused["report"]["files"][0];
    assert_eq!(file["status"], "syntax", "{refused}");
    let message = file["message"].as_str().unwrap();
    assert!(message.contains("Rust syntax error at line 7"), "{message}");
    assert!(message.contains("Hunk 1 caused it"), "{message}");
    assert_eq!(repo.read("src/lib.rs"), before);
    client.cancel().await.unwrap();
}
