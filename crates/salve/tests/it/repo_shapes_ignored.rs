//! Issue 27, point 5: the pre-image of an ignored file (`.env`) that an apply overwrites is kept
//! in salve's own store under `.git/salve/`, reachable from no ref, and still brought back by
//! undo, redo, `undo --force` and `restore`.

use crate::support::{Run, Tree};

const OLD: &str = "API_KEY=old-secret-4242\nX=1\n";
const NEW: &str = "API_KEY=new-secret-4343\nX=1\n";

const REPLY: &str = "\
.env
<<<<<<< SEARCH
API_KEY=old-secret-4242
=======
API_KEY=new-secret-4343
>>>>>>> REPLACE
";

fn repo_with_secret() -> Tree {
    let tree = Tree::git();
    tree.write(".gitignore", ".env\n").write("m.py", "a = 1\n");
    tree.commit("initial");
    tree.write(".env", OLD);
    tree
}

/// `git grep` of every ref under `refs/salve/` for `needle`: the refs and what it found.
fn grep_salve_refs(tree: &Tree, needle: &str) -> (Vec<String>, String) {
    let refs: Vec<String> = tree
        .git_cmd(&["for-each-ref", "--format=%(refname)", "refs/salve/"])
        .lines()
        .map(str::to_owned)
        .collect();
    let out = std::process::Command::new("git")
        .args(["grep", "-I", needle])
        .args(&refs)
        .current_dir(&tree.root)
        .output()
        .unwrap();
    // 1 is "nothing found"; anything else is a broken grep.
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "git grep failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    (refs, String::from_utf8_lossy(&out.stdout).into_owned())
}

#[track_caller]
fn assert_no_secret_in_refs(tree: &Tree) {
    let (refs, found) = grep_salve_refs(tree, "secret");
    assert!(refs.iter().any(|r| r == "refs/salve/catalog"), "{refs:?}");
    assert_eq!(found, "", "ignored content reachable from a ref");
}

fn salve(tree: &Tree, args: &[&str]) -> Run {
    Run::from(tree.salve().args(args).output().unwrap())
}

#[test]
fn ignored_pre_images_stay_out_of_refs_and_undo_still_brings_them_back() {
    let tree = repo_with_secret();
    tree.apply(REPLY, &[]).code(0);
    assert_eq!(tree.read(".env"), NEW);
    assert_no_secret_in_refs(&tree);
    // The pre-image is in salve's store, not lost.
    let store = tree.path(".git/salve/ignored/objects");
    let kept: Vec<String> = std::fs::read_dir(&store)
        .unwrap()
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
        .collect();
    assert!(kept.iter().any(|k| k == OLD), "{kept:?}");

    let undo = salve(&tree, &["undo"]);
    undo.code(0);
    assert!(undo.stdout.contains(".env"), "{}", undo.stdout);
    assert_eq!(tree.read(".env"), OLD);
    salve(&tree, &["undo"]).code(0);
    assert_eq!(tree.read(".env"), NEW);
    assert_no_secret_in_refs(&tree);
    // Still ignored, still untracked: git sees nothing.
    assert_eq!(tree.git_cmd(&["status", "--porcelain"]), "");
    assert_eq!(tree.git_cmd(&["ls-files", "--", ".env"]), "");
}

#[test]
fn undo_force_and_restore_bring_back_the_ignored_bytes() {
    let tree = repo_with_secret();
    let applied = tree.apply(REPLY, &["--json"]);
    applied.code(0);
    let checkpoint = applied.json()["checkpoint"].as_str().unwrap().to_owned();

    let forced = salve(&tree, &["undo", "--force"]);
    forced.code(0);
    assert_eq!(tree.read(".env"), OLD);
    assert!(forced.stdout.contains("1 written"), "{}", forced.stdout);

    // Forward again, then the whole-tree restore of the apply's checkpoint.
    salve(&tree, &["undo"]).code(0);
    assert_eq!(tree.read(".env"), NEW);
    let restored = salve(&tree, &["restore", &checkpoint]);
    restored.code(0);
    assert_eq!(tree.read(".env"), OLD);
    assert_no_secret_in_refs(&tree);
    assert_eq!(tree.git_cmd(&["status", "--porcelain"]), "");

    // Dropping every checkpoint forgets the kept bytes too.
    let listed = salve(&tree, &["checkpoints", "--json"]);
    for checkpoint in listed.code(0).json().as_array().unwrap() {
        let id = checkpoint["id"].as_str().unwrap();
        salve(&tree, &["checkpoint", "drop", id]).code(0);
    }
    let left = std::fs::read_dir(tree.path(".git/salve/ignored/objects"))
        .unwrap()
        .count();
    assert_eq!(left, 0);
}
