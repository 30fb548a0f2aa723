//! Undo over MCP belongs to the session: two servers on one tree each take back their own
//! edit; a redo applies the change again merged, so the user's later edit stays and the result
//! names the file it wrote; and outside git every write says that no undo is possible.

use serde_json::json;

use crate::mcp::{repo, Server};
use crate::support::Tree;

#[test]
fn each_session_undoes_its_own_edit() {
    let tree = repo();
    tree.write("a.txt", "alpha\n").write("b.txt", "beta\n");
    tree.git_cmd(&["add", "-A"]);
    tree.git_cmd(&["commit", "-q", "-m", "two files"]);
    let mut a = Server::start(&tree, &[]);
    a.initialize("2025-06-18");
    let mut b = Server::start(&tree, &[]);
    b.initialize("2025-06-18");

    let (edited, is_error) = a.call(
        "str_replace",
        json!({"path": "a.txt", "old_str": "alpha", "new_str": "ALPHA"}),
    );
    assert!(!is_error, "{edited}");
    let (edited, is_error) = b.call(
        "str_replace",
        json!({"path": "b.txt", "old_str": "beta", "new_str": "BETA"}),
    );
    assert!(!is_error, "{edited}");

    // A's undo takes back A's edit, though B's is newer.
    let (undone, is_error) = a.call("undo", json!({}));
    assert!(!is_error, "{undone}");
    assert_eq!(tree.read("a.txt"), "alpha\n");
    assert_eq!(tree.read("b.txt"), "BETA\n", "B's edit stays");
    let (undone, is_error) = b.call("undo", json!({}));
    assert!(!is_error, "{undone}");
    assert_eq!(tree.read("b.txt"), "beta\n");
    assert_eq!(tree.read("a.txt"), "alpha\n");

    // A session that changed nothing has nothing to undo, whatever others did.
    let mut c = Server::start(&tree, &[]);
    c.initialize("2025-06-18");
    let (refused, is_error) = c.call("undo", json!({}));
    assert!(is_error, "{refused}");
    assert_eq!(refused["error"]["code"], "nothing_to_undo", "{refused}");
    a.finish();
    b.finish();
    c.finish();
}

#[test]
fn a_redo_keeps_the_users_later_edit_and_names_its_file() {
    let tree = repo();
    tree.write("README.md", "# project\n");
    tree.git_cmd(&["add", "-A"]);
    tree.git_cmd(&["commit", "-q", "-m", "readme"]);
    let mut server = Server::start(&tree, &[]);
    server.initialize("2025-06-18");
    let (edited, is_error) = server.call(
        "str_replace",
        json!({"path": "src/twice.rs", "old_str": "fn one() {", "new_str": "fn uno() {"}),
    );
    assert!(!is_error, "{edited}");
    let (undone, is_error) = server.call("undo", json!({}));
    assert!(!is_error, "{undone}");
    assert!(tree.read("src/twice.rs").contains("fn one() {"));
    // The user appends a line by hand.
    tree.write("README.md", "# project\nby hand\n");
    let (redone, is_error) = server.call("undo", json!({}));
    assert!(!is_error, "{redone}");
    assert_eq!(redone["reverted"]["redo"], true, "{redone}");
    assert_eq!(
        redone["reverted"]["written"],
        json!(["src/twice.rs"]),
        "{redone}"
    );
    assert!(tree.read("src/twice.rs").contains("fn uno() {"));
    assert_eq!(tree.read("README.md"), "# project\nby hand\n");
    server.finish();
}

#[test]
fn outside_git_every_write_says_undo_is_unavailable() {
    let tree = Tree::plain();
    tree.write("notes.md", "one\n");
    let mut server = Server::start(&tree, &[]);
    server.initialize("2025-06-18");
    let response = server.request(
        "tools/call",
        json!({"name": "write_file", "arguments": {"path": "notes.md", "content": "two\n"}}),
    );
    let structured = &response["result"]["structuredContent"];
    assert_eq!(tree.read("notes.md"), "two\n");
    assert_eq!(
        structured["no_checkpoint"], "not_a_repository",
        "{structured}"
    );
    let summary = response.to_string();
    assert!(
        summary.contains("the undo tool cannot revert this"),
        "{summary}"
    );
    server.finish();
}

/// `list_checkpoints` pages: 20 by default, `limit` and `offset` to see more, `total` to know
/// how many there are.
#[test]
fn list_checkpoints_pages_through_them() {
    let tree = repo();
    let mut server = Server::start(&tree, &[]);
    server.initialize("2025-06-18");
    for n in 0..3 {
        tree.write("notes.txt", format!("{n}\n"));
        let (taken, is_error) = server.call("checkpoint", json!({ "message": format!("n{n}") }));
        assert!(!is_error, "{taken}");
    }
    let (page, is_error) = server.call("list_checkpoints", json!({ "limit": 2 }));
    assert!(!is_error, "{page}");
    assert_eq!(page["checkpoints"].as_array().unwrap().len(), 2, "{page}");
    assert_eq!(page["total"], 3, "{page}");
    assert_eq!(page["checkpoints"][0]["message"], "n2", "{page}");
    let (rest, _) = server.call("list_checkpoints", json!({ "limit": 2, "offset": 2 }));
    assert_eq!(rest["checkpoints"].as_array().unwrap().len(), 1, "{rest}");
    assert_eq!(rest["checkpoints"][0]["message"], "n0", "{rest}");
    assert!(
        rest["checkpoints"][0]["files_changed"].is_number(),
        "{rest}"
    );
    server.finish();
}

/// An empty path is named as such, not as a character the whole-file form cannot carry.
#[test]
fn write_file_with_an_empty_path_says_so() {
    let tree = repo();
    let mut server = Server::start(&tree, &[]);
    server.initialize("2025-06-18");
    let (refused, is_error) = server.call("write_file", json!({"path": "", "content": "x\n"}));
    assert!(is_error, "{refused}");
    assert_eq!(refused["error"]["code"], "path_rejected", "{refused}");
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(message.contains("empty"), "{message}");
    server.finish();
}
