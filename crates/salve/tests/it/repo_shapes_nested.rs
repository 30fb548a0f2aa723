//! Issue 27, point 4 (and the dangling symlink of point 8): a path inside a submodule or a
//! nested repository is refused up front, by `--check` and by the apply alike, with a hint to
//! apply from that repository (`-C`), where it works and undoes as anywhere else.

use crate::support::{Run, Tree};

fn salve(tree: &Tree, args: &[&str]) -> Run {
    Run::from(tree.salve().args(args).output().unwrap())
}

/// A superproject with `vendor/lib` as a submodule (from a local repository).
fn with_submodule() -> Tree {
    let lib = Tree::git();
    lib.write("lib.rs", "pub fn lib() -> u32 {\n    1\n}\n");
    lib.commit("lib");
    let tree = Tree::git();
    tree.write("main.rs", "fn main() {}\n");
    tree.commit("initial");
    let url = lib.root.to_string_lossy().into_owned();
    tree.git_cmd(&[
        "-c",
        "protocol.file.allow=always",
        "submodule",
        "add",
        "-q",
        &url,
        "vendor/lib",
    ]);
    tree.commit("add lib");
    // The tree owns the library's directory until the test ends.
    std::mem::forget(lib);
    tree
}

const MODIFY: &str = "\
vendor/lib/lib.rs
<<<<<<< SEARCH
    1
=======
    2
>>>>>>> REPLACE
";

const CREATE: &str = "vendor/lib/new.rs\n```rust\npub fn new() {}\n```\n";

#[track_caller]
fn assert_refused_for_repository(run: &Run, repository: &str) {
    run.code(1);
    let hint = format!("salve -C {repository} apply");
    assert!(
        run.stdout.contains(&hint) || run.stderr.contains(&hint),
        "{run:?}"
    );
    assert!(
        run.stdout
            .contains(&format!("inside the repository `{repository}`")),
        "{run:?}"
    );
}

#[test]
fn submodule_paths_are_refused_by_check_and_apply_alike() {
    let tree = with_submodule();
    let before = tree.snapshot();
    let status = tree.git_cmd(&["status", "--porcelain"]);
    for reply in [MODIFY, CREATE] {
        assert_refused_for_repository(&tree.apply(reply, &["--check"]), "vendor/lib");
        assert_refused_for_repository(&tree.apply(reply, &[]), "vendor/lib");
        let json = tree.apply(reply, &["--json"]);
        json.code(1);
        assert_eq!(json.json()["files"][0]["status"], "path_rejected");
    }
    assert_eq!(tree.snapshot(), before);
    assert_eq!(tree.git_cmd(&["status", "--porcelain"]), status);
    assert_eq!(
        tree.git_cmd(&["-C", "vendor/lib", "status", "--porcelain"]),
        ""
    );
    // Nothing was written, so there is nothing to undo.
    let undo = salve(&tree, &["undo"]);
    undo.code(1);
    assert!(undo.stderr.contains("nothing to undo"), "{}", undo.stderr);
}

#[test]
fn an_uninitialized_submodule_is_refused_too() {
    let sup = with_submodule();
    // A clone without its submodules: `vendor/lib` is an empty directory and a gitlink.
    let tree = Tree::plain();
    std::fs::remove_dir(&tree.root).unwrap();
    let out = std::process::Command::new("git")
        .args(["clone", "-q"])
        .arg(&sup.root)
        .arg(&tree.root)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(tree.path("vendor/lib").is_dir() && !tree.exists("vendor/lib/lib.rs"));
    assert_refused_for_repository(&tree.apply(CREATE, &["--check"]), "vendor/lib");
    assert_refused_for_repository(&tree.apply(CREATE, &[]), "vendor/lib");
    assert!(!tree.exists("vendor/lib/new.rs"));
    assert_eq!(tree.git_cmd(&["status", "--porcelain"]), "");
    std::mem::forget(sup);
}

#[test]
fn from_inside_the_submodule_the_same_edit_applies_and_undoes() {
    let tree = with_submodule();
    let reply = MODIFY.replace("vendor/lib/", "");
    let file = tree.outside().join("sub-reply.md");
    std::fs::write(&file, reply).unwrap();
    let applied = salve(
        &tree,
        &["-C", "vendor/lib", "apply", file.to_str().unwrap()],
    );
    applied.code(0);
    assert!(tree.read("vendor/lib/lib.rs").contains("    2\n"));
    salve(&tree, &["-C", "vendor/lib", "undo"]).code(0);
    assert_eq!(
        tree.read("vendor/lib/lib.rs"),
        "pub fn lib() -> u32 {\n    1\n}\n"
    );
    assert_eq!(
        tree.git_cmd(&["-C", "vendor/lib", "status", "--porcelain"]),
        ""
    );
    assert_eq!(tree.git_cmd(&["status", "--porcelain"]), "");
}

#[test]
fn nested_repository_paths_are_refused_and_redo_never_reports_success_for_nothing() {
    let tree = Tree::git();
    tree.write("top.py", "t = 1\n");
    tree.commit("initial");
    let nested = tree.path("nested");
    std::fs::create_dir(&nested).unwrap();
    tree.git_cmd(&["-C", "nested", "init", "-q"]);
    tree.write("nested/n.py", "n = 1\n");
    let reply = "nested/n.py\n<<<<<<< SEARCH\nn = 1\n=======\nn = 2\n>>>>>>> REPLACE\n";
    assert_refused_for_repository(&tree.apply(reply, &["--check"]), "nested");
    assert_refused_for_repository(&tree.apply(reply, &[]), "nested");
    assert_eq!(tree.read("nested/n.py"), "n = 1\n");
    salve(&tree, &["undo"]).code(1);
}

#[cfg(unix)]
#[test]
fn a_dangling_symlink_inside_the_tree_is_called_dangling() {
    let tree = Tree::git();
    tree.write("a.py", "a = 1\n");
    std::os::unix::fs::symlink("missing-dir", tree.path("link")).unwrap();
    tree.commit("initial");
    let run = tree.apply("link/x.py\n```python\nx = 1\n```\n", &[]);
    run.code(1);
    assert!(
        run.stdout.contains("whose target does not exist"),
        "{run:?}"
    );
    assert!(!run.stdout.contains("outside the work tree"), "{run:?}");
    assert!(!tree.exists("missing-dir"));
}
