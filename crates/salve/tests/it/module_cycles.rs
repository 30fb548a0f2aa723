//! No two files of a crate import each other, directly or around a circle (issue 22 §5): a file
//! that needs a type of another's shares it through a module of its own below both. The check is
//! `scripts/module-cycles.py`, which reads every `use crate::…`/`use super::…` path; the first
//! test shows it finds a circle, so the second cannot pass by finding nothing.

use std::path::{Path, PathBuf};
use std::process::Command;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn run_script(dir: &Path) -> (bool, String) {
    let out = Command::new("python3")
        .arg(workspace().join("scripts/module-cycles.py"))
        .current_dir(dir)
        .env_remove("VERBOSE")
        .output()
        .expect("python3 runs scripts/module-cycles.py");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[test]
fn the_script_finds_a_circle_through_a_test_only_function() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("crates/demo/src");
    std::fs::create_dir_all(&src).unwrap();
    std::fs::write(src.join("lib.rs"), "mod a;\nmod b;\nmod c;\n").unwrap();
    // a -> b -> c -> a, with c's import after a `#[cfg(test)]` function, which is code.
    std::fs::write(src.join("a.rs"), "use super::b::B;\npub struct A;\n").unwrap();
    std::fs::write(src.join("b.rs"), "use crate::c::C;\npub struct B;\n").unwrap();
    std::fs::write(
        src.join("c.rs"),
        "#[cfg(test)]\nfn only() {}\n\nuse super::a::A;\npub struct C;\n\n#[cfg(test)]\nmod tests {\n    use crate::b::B;\n}\n",
    )
    .unwrap();
    let (ok, out) = run_script(tmp.path());
    assert!(!ok, "{out}");
    assert_eq!(out.trim(), "demo: a <-> b <-> c");
    // Imports inside the test module alone make no circle.
    std::fs::write(
        src.join("c.rs"),
        "pub struct C;\n#[cfg(test)]\nmod tests {\n    use super::super::a::A;\n}\n",
    )
    .unwrap();
    let (ok, out) = run_script(tmp.path());
    assert!(ok, "{out}");
}

#[test]
fn no_crate_of_the_workspace_has_files_importing_each_other_in_a_circle() {
    let (ok, out) = run_script(&workspace());
    assert!(
        ok,
        "files import each other in a circle (run `VERBOSE=1 python3 scripts/module-cycles.py` for the edges):\n{out}"
    );
}
