//! Issue 27, point 6: linked worktrees share the checkpoint catalog, but each lists its own
//! checkpoints by default (`--all-worktrees` for the rest, with a worktree column), and a
//! restore of another worktree's checkpoint is refused unless asked for.

use crate::support::{Run, Tree};

fn salve_in(tree: &Tree, dir: &std::path::Path, args: &[&str]) -> Run {
    let mut cmd = tree.salve();
    cmd.current_dir(dir).args(args);
    Run::from(cmd.output().unwrap())
}

fn git_in(dir: &std::path::Path, args: &[&str]) -> String {
    let out = std::process::Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn ids(run: &Run) -> Vec<String> {
    run.json()
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn each_worktree_lists_and_restores_its_own_checkpoints() {
    let tree = Tree::git();
    tree.write("shared.py", "s = 1\n")
        .write("mainonly.py", "m = 1\n");
    tree.commit("initial");
    let wt = tree.outside().join("wt");
    tree.git_cmd(&["worktree", "add", "-q", "-b", "side", wt.to_str().unwrap()]);
    git_in(&wt, &["rm", "-q", "mainonly.py"]);
    git_in(
        &wt,
        &[
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "commit",
            "-qm",
            "side",
        ],
    );
    std::fs::write(wt.join("side.py"), "side = 1\n").unwrap();

    let main_cp = salve_in(
        &tree,
        &tree.root,
        &["checkpoint", "-m", "in main", "--json"],
    );
    let main_id = main_cp.code(0).json()["id"].as_str().unwrap().to_owned();
    let wt_cp = salve_in(&tree, &wt, &["checkpoint", "-m", "in wt", "--json"]);
    let wt_id = wt_cp.code(0).json()["id"].as_str().unwrap().to_owned();

    // Own ones by default, in both worktrees; every one with --all-worktrees.
    let here = salve_in(&tree, &tree.root, &["checkpoints", "--json"]);
    assert_eq!(ids(here.code(0)), vec![main_id.clone()]);
    let there = salve_in(&tree, &wt, &["checkpoints", "--json"]);
    assert_eq!(ids(there.code(0)), vec![wt_id.clone()]);
    let all = salve_in(
        &tree,
        &tree.root,
        &["checkpoints", "--all-worktrees", "--json"],
    );
    assert_eq!(ids(all.code(0)).len(), 2);
    let table = salve_in(&tree, &tree.root, &["checkpoints", "--all-worktrees"]);
    table.code(0);
    assert!(table.stdout.contains("WORKTREE"), "{}", table.stdout);
    let wt_name = std::fs::canonicalize(&wt).unwrap();
    let wt_row = table.stdout.lines().find(|l| l.contains(&wt_id)).unwrap();
    assert!(
        wt_row.contains(wt_name.to_str().unwrap()),
        "{}",
        table.stdout
    );
    let plain = salve_in(&tree, &tree.root, &["checkpoints"]);
    assert!(!plain.stdout.contains("WORKTREE"), "{}", plain.stdout);
    assert!(!plain.stdout.contains(&wt_id), "{}", plain.stdout);

    // Restoring the other worktree's checkpoint here: refused, nothing changed.
    let before = tree.snapshot();
    let status = tree.git_cmd(&["status", "--porcelain"]);
    let index = tree.git_cmd(&["ls-files", "-s"]);
    let refused = salve_in(&tree, &tree.root, &["restore", &wt_id]);
    refused.code(1);
    assert!(
        refused.stderr.contains("was taken in the worktree"),
        "{}",
        refused.stderr
    );
    assert!(
        refused.stderr.contains("--other-worktree"),
        "{}",
        refused.stderr
    );
    assert_eq!(tree.snapshot(), before);
    assert_eq!(tree.git_cmd(&["status", "--porcelain"]), status);
    assert_eq!(tree.git_cmd(&["ls-files", "-s"]), index);
    assert!(tree.exists("mainonly.py"));

    // Its own restores as ever; asked for, the other one restores too.
    salve_in(&tree, &tree.root, &["restore", &main_id]).code(0);
    let forced = salve_in(&tree, &tree.root, &["restore", "--other-worktree", &wt_id]);
    forced.code(0);
    assert_eq!(tree.read("side.py"), "side = 1\n");
    // And that restore is undone like any other.
    salve_in(&tree, &tree.root, &["undo"]).code(0);
    assert_eq!(tree.snapshot(), before);
    assert_eq!(tree.git_cmd(&["ls-files", "-s"]), index);
}

/// Over MCP, `list_checkpoints` lists this work tree's own checkpoints (those
/// `restore_checkpoint` takes), and every worktree's when asked.
#[test]
fn mcp_lists_this_worktrees_checkpoints_unless_asked_for_all() {
    let tree = Tree::git();
    tree.write("shared.py", "s = 1\n");
    tree.commit("initial");
    let wt = tree.outside().join("wt");
    tree.git_cmd(&["worktree", "add", "-q", "-b", "side", wt.to_str().unwrap()]);
    let main_cp = salve_in(
        &tree,
        &tree.root,
        &["checkpoint", "-m", "in main", "--json"],
    );
    let main_id = main_cp.code(0).json()["id"].as_str().unwrap().to_owned();
    salve_in(&tree, &wt, &["checkpoint", "-m", "in wt", "--json"]).code(0);

    let mut server = crate::mcp::Server::start(&tree, &[]);
    server.initialize("2025-06-18");
    let (own, is_error) = server.call("list_checkpoints", serde_json::json!({}));
    assert!(!is_error, "{own}");
    let listed: Vec<&str> = own["checkpoints"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert_eq!(listed, [main_id.as_str()], "{own}");
    let (all, _) = server.call(
        "list_checkpoints",
        serde_json::json!({"all_worktrees": true}),
    );
    assert_eq!(all["checkpoints"].as_array().unwrap().len(), 2, "{all}");
    server.finish();
}
