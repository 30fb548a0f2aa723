//! Shared helpers for the integration tests: a temporary work tree (optionally a git repository
//! with an identity of its own), file helpers, and the `salve` binary pointed at the tree.

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use tempfile::TempDir;

/// A temporary work tree. `root` is a subdirectory of a private scratch directory, so tests can
/// check that nothing was written next to the tree (`outside`).
pub struct Tree {
    scratch: TempDir,
    pub root: PathBuf,
}

impl Tree {
    /// An empty directory, not a git repository.
    pub fn plain() -> Tree {
        let scratch = tempfile::tempdir().unwrap();
        let root = scratch.path().join("work");
        std::fs::create_dir(&root).unwrap();
        Tree { scratch, root }
    }

    /// An empty git repository with a local identity.
    pub fn git() -> Tree {
        let tree = Tree::plain();
        tree.git_cmd(&["init", "-q", "-b", "main"]);
        tree.git_cmd(&["config", "user.name", "salve tests"]);
        tree.git_cmd(&["config", "user.email", "tests@salve.invalid"]);
        tree.git_cmd(&["config", "core.autocrlf", "false"]);
        tree
    }

    /// The scratch directory around the tree: writes must never land here.
    pub fn outside(&self) -> &Path {
        self.scratch.path()
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    pub fn write(&self, rel: &str, content: impl AsRef<[u8]>) -> &Self {
        let p = self.path(rel);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).unwrap();
        }
        std::fs::write(p, content).unwrap();
        self
    }

    pub fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.path(rel)).unwrap()
    }

    pub fn exists(&self, rel: &str) -> bool {
        std::fs::symlink_metadata(self.path(rel)).is_ok()
    }

    /// Run git in the tree with the user's and the system's configuration ignored.
    pub fn git_cmd(&self, args: &[&str]) -> String {
        let out = Command::new("git")
            .args(args)
            .current_dir(&self.root)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env_remove("GIT_DIR")
            .env_remove("GIT_WORK_TREE")
            .env_remove("GIT_INDEX_FILE")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "git {args:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Stage everything and commit.
    pub fn commit(&self, message: &str) -> &Self {
        self.git_cmd(&["add", "-A"]);
        self.git_cmd(&["commit", "-q", "-m", message]);
        self
    }

    /// Every file below the root except `.git`, with its bytes (symlinks as their target).
    pub fn snapshot(&self) -> BTreeMap<String, Vec<u8>> {
        snapshot(&self.root)
    }

    /// `salve` running in the tree.
    /// The `salve` binary in the tree, with a home of its own outside the tree, so neither the
    /// user's configuration nor the user's trust reaches a test.
    pub fn salve(&self) -> assert_cmd::Command {
        let mut cmd = assert_cmd::Command::cargo_bin("salve").unwrap();
        cmd.current_dir(&self.root)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("NO_COLOR", "1")
            .env("HOME", self.home())
            .env_remove("XDG_CONFIG_HOME")
            .env_remove("XDG_DATA_HOME");
        cmd
    }

    /// The home directory [`salve`](Self::salve) runs with.
    pub fn home(&self) -> PathBuf {
        let home = self.outside().join("home");
        std::fs::create_dir_all(&home).unwrap();
        home
    }

    /// `salve trust`: the user allows what the tree's `salve.toml` runs and where it sends keys.
    pub fn trust(&self) -> &Self {
        let out = self.salve().arg("trust").output().unwrap();
        assert!(
            out.status.success(),
            "salve trust failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        self
    }

    /// `salve apply` on `reply` (given through a file outside the tree), returning the output.
    pub fn apply(&self, reply: &str, args: &[&str]) -> Run {
        let file = self.outside().join("reply.md");
        std::fs::write(&file, reply).unwrap();
        let mut cmd = self.salve();
        cmd.arg("apply").args(args).arg(&file);
        Run::from(cmd.output().unwrap())
    }
}

pub fn snapshot(root: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let entry = entry.unwrap();
            let path = entry.path();
            let rel = path
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            if rel == ".git" {
                continue;
            }
            let kind = entry.file_type().unwrap();
            if kind.is_symlink() {
                let target = std::fs::read_link(&path).unwrap();
                out.insert(rel, format!("-> {}", target.display()).into_bytes());
            } else if kind.is_dir() {
                stack.push(path);
            } else {
                out.insert(rel, std::fs::read(&path).unwrap());
            }
        }
    }
    out
}

/// The result of one run of the binary.
#[derive(Debug)]
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl From<std::process::Output> for Run {
    fn from(out: std::process::Output) -> Self {
        Run {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }
}

impl Run {
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("stdout is not JSON ({e}):\n{}", self.stdout))
    }

    /// Assert the exit code, showing the output when it is wrong.
    #[track_caller]
    pub fn code(&self, expected: i32) -> &Self {
        assert_eq!(
            self.code, expected,
            "unexpected exit code\n--- stdout\n{}\n--- stderr\n{}",
            self.stdout, self.stderr
        );
        self
    }
}
