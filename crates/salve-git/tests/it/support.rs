//! Real temporary repositories and exact snapshots of everything a user could lose.

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Once;

use salve_git::Repo;

/// Keep the machine's git configuration (identity, hooks, autocrlf) out of the tests, for the
/// tests' own git calls and for the library's alike.
fn isolate_git_config() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        std::env::set_var("GIT_CONFIG_GLOBAL", "/dev/null");
        std::env::set_var("GIT_CONFIG_NOSYSTEM", "1");
        std::env::remove_var("GIT_DIR");
        std::env::remove_var("GIT_INDEX_FILE");
    });
}

pub struct TestRepo {
    _dir: tempfile::TempDir,
    pub root: PathBuf,
}

impl TestRepo {
    /// `git init` on branch main, with a local identity for the test's own commits.
    pub fn new() -> TestRepo {
        let repo = TestRepo::without_identity();
        repo.git(&["config", "user.name", "Test User"]);
        repo.git(&["config", "user.email", "test@example.com"]);
        repo
    }

    pub fn without_identity() -> TestRepo {
        isolate_git_config();
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap().join("work");
        std::fs::create_dir(&root).unwrap();
        let repo = TestRepo { _dir: dir, root };
        repo.git(&["init", "-q", "-b", "main"]);
        repo.git(&["config", "core.autocrlf", "false"]);
        repo
    }

    /// A repository at `root` that this value does not own (a linked worktree, say).
    pub fn at(&self, root: PathBuf) -> TestRepo {
        TestRepo {
            _dir: tempfile::tempdir().unwrap(),
            root,
        }
    }

    pub fn repo(&self) -> Repo {
        Repo::discover(&self.root).unwrap()
    }

    pub fn git_output(&self, args: &[&str]) -> std::process::Output {
        Command::new("git")
            .args(args)
            .current_dir(&self.root)
            .env_remove("GIT_INDEX_FILE")
            .output()
            .unwrap()
    }

    /// Run git; panic with its stderr on failure; stdout as bytes.
    pub fn git_bytes(&self, args: &[&str]) -> Vec<u8> {
        let out = self.git_output(args);
        assert!(
            out.status.success(),
            "git {args:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        out.stdout
    }

    pub fn git(&self, args: &[&str]) -> String {
        String::from_utf8_lossy(&self.git_bytes(args))
            .trim_end()
            .to_owned()
    }

    pub fn write(&self, path: impl AsRef<Path>, bytes: impl AsRef<[u8]>) {
        let full = self.root.join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, bytes).unwrap();
    }

    pub fn read(&self, path: impl AsRef<Path>) -> Vec<u8> {
        std::fs::read(self.root.join(path)).unwrap()
    }

    pub fn exists(&self, path: impl AsRef<Path>) -> bool {
        self.root.join(path).symlink_metadata().is_ok()
    }

    pub fn remove(&self, path: impl AsRef<Path>) {
        let full = self.root.join(path);
        if full.symlink_metadata().unwrap().is_dir() {
            std::fs::remove_dir_all(full).unwrap();
        } else {
            std::fs::remove_file(full).unwrap();
        }
    }

    pub fn chmod(&self, path: impl AsRef<Path>, mode: u32) {
        std::fs::set_permissions(self.root.join(path), std::fs::Permissions::from_mode(mode))
            .unwrap();
    }

    pub fn symlink(&self, target: &str, link: impl AsRef<Path>) {
        std::os::unix::fs::symlink(target, self.root.join(link)).unwrap();
    }

    pub fn commit_all(&self, message: &str) {
        self.git(&["add", "-A"]);
        self.git(&["commit", "-q", "--allow-empty", "-m", message]);
    }

    pub fn head(&self) -> Option<String> {
        let out = self.git_output(&["rev-parse", "--verify", "-q", "HEAD"]);
        out.status
            .success()
            .then(|| String::from_utf8_lossy(&out.stdout).trim().to_owned())
    }

    /// Everything a user could lose, captured exactly.
    pub fn state(&self) -> State {
        let mut files = BTreeMap::new();
        walk(&self.root, Path::new(""), &mut files);
        State {
            files,
            index: lossy(&self.git_bytes(&["ls-files", "-s", "-z"])),
            cached_diff: lossy(&self.git_bytes(&["diff", "--cached", "--binary"])),
            head: self.head(),
            branch: lossy(&self.git_output(&["symbolic-ref", "-q", "HEAD"]).stdout),
        }
    }
}

/// A file as found on disk.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Entry {
    File { executable: bool, bytes: String },
    Symlink(String),
    Dir,
}

/// Every path under the work tree (except the top `.git`), the index, the staged diff and HEAD.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct State {
    pub files: BTreeMap<String, Entry>,
    pub index: String,
    pub cached_diff: String,
    pub head: Option<String>,
    pub branch: String,
}

impl State {
    pub fn file(&self, path: &str) -> Option<&Entry> {
        self.files.get(path)
    }
}

fn lossy(bytes: &[u8]) -> String {
    // Escape rather than replace, so non-UTF-8 names and contents still compare exactly.
    bytes.escape_ascii().to_string()
}

fn walk(root: &Path, rel: &Path, out: &mut BTreeMap<String, Entry>) {
    let mut entries: Vec<_> = std::fs::read_dir(root.join(rel))
        .unwrap()
        .map(|e| e.unwrap())
        .collect();
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let name = entry.file_name();
        if rel.as_os_str().is_empty() && name == OsStr::new(".git") {
            continue;
        }
        let path = rel.join(&name);
        let key = lossy(path.as_os_str().as_bytes());
        let meta = entry.path().symlink_metadata().unwrap();
        if meta.file_type().is_symlink() {
            let target = std::fs::read_link(entry.path()).unwrap();
            out.insert(key, Entry::Symlink(lossy(target.as_os_str().as_bytes())));
        } else if meta.is_dir() {
            out.insert(key, Entry::Dir);
            walk(root, &path, out);
        } else {
            out.insert(
                key,
                Entry::File {
                    executable: meta.permissions().mode() & 0o111 != 0,
                    bytes: lossy(&std::fs::read(entry.path()).unwrap()),
                },
            );
        }
    }
}

/// A non-UTF-8 file name.
pub fn non_utf8_name() -> PathBuf {
    PathBuf::from(OsStr::from_bytes(b"caf\xe9 \xff.txt"))
}
