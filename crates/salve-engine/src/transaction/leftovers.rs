//! Temporary files a transaction may leave behind, and how a later transaction clears them.
//!
//! A transaction writes each new content to a temporary file next to its target and renames it
//! into place. A process that dies between the two (killed, out of power, aborted) leaves the
//! temporary file behind: harmless, since it was never renamed, but clutter that `git status`
//! shows. So every temporary name is recognisable and names its owner:
//!
//! ```text
//! .salve-tmp-<pid>-<random>-<file name>.tmp
//! ```
//!
//! Before writing into a directory, a transaction removes the leftovers there whose owner is
//! no longer running ([`sweep_leftovers`]); an apply in a git repository also sweeps the ones
//! git lists anywhere in the tree ([`sweep_files`]), and `salve gc` walks the whole tree, ignored
//! directories included ([`sweep_tree`]). The owner check is what makes this safe while two
//! salve processes work in the same tree: a live process's temporary file is never touched.
//! A leftover whose owner cannot be checked (no `/proc`, no `ps`) is left alone, since clutter
//! is better than a broken concurrent write.
//!
//! A leftover only ever holds new content that was not put in place, so the next apply of the
//! same reply writes it again; that apply writes into the same directory and so clears it.

use std::fs;
use std::path::{Path, PathBuf};

/// How every temporary file of a transaction is named, in any directory.
pub const TEMP_PREFIX: &str = ".salve-tmp-";

const TEMP_SUFFIX: &str = ".tmp";

/// Longest piece of the target's name kept in a temporary name, in bytes: names stay within
/// the usual 255-byte limit with the prefix, process id and random part added.
const NAME_PART_MAX: usize = 96;

/// The name pattern of a temporary file standing in for a target, owned by this process.
pub(super) struct TempName {
    prefix: String,
    suffix: String,
}

impl TempName {
    pub(super) fn for_target(target: &Path) -> TempName {
        let name = target
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let mut cut = name.len().min(NAME_PART_MAX);
        while !name.is_char_boundary(cut) {
            cut -= 1;
        }
        TempName {
            prefix: format!("{TEMP_PREFIX}{}-", std::process::id()),
            suffix: format!("-{}{TEMP_SUFFIX}", &name[..cut]),
        }
    }

    /// A builder that creates temporary files under this name pattern.
    pub(super) fn builder(&self) -> tempfile::Builder<'_, '_> {
        let mut builder = tempfile::Builder::new();
        builder.prefix(&self.prefix).suffix(&self.suffix);
        builder
    }
}

/// The process that created a temporary file, from its name; `None` when the name is not one
/// of salve's temporary names.
pub fn owner_of(name: &str) -> Option<u32> {
    let rest = name.strip_prefix(TEMP_PREFIX)?;
    if !rest.ends_with(TEMP_SUFFIX) {
        return None;
    }
    let (pid, _) = rest.split_once('-')?;
    if pid.is_empty() || !pid.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    pid.parse().ok()
}

/// Remove the temporary files that dead salve processes left in `dir` (not below it). Returns
/// the paths removed. Errors are not reported: a leftover that cannot be removed is clutter,
/// and the transaction that asked must not fail over it.
pub fn sweep_leftovers(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    sweep_files(entries.flatten().map(|e| e.path()))
}

/// Remove those of `paths` that are temporary files of dead salve processes; the others (any
/// other name, a live owner, not a regular file) are left alone. Returns the paths removed.
pub fn sweep_files(paths: impl IntoIterator<Item = PathBuf>) -> Vec<PathBuf> {
    let me = std::process::id();
    let mut removed = Vec::new();
    for path in paths {
        let owner = path.file_name().and_then(|n| n.to_str()).and_then(owner_of);
        let Some(owner) = owner else {
            continue;
        };
        // Not followed: a symbolic link under a temporary name is not salve's.
        let is_file = fs::symlink_metadata(&path).is_ok_and(|m| m.is_file());
        if owner == me || !is_file || process_alive(owner) != Some(false) {
            continue;
        }
        if fs::remove_file(&path).is_ok() {
            removed.push(path);
        }
    }
    removed
}

/// Remove the temporary files of dead salve processes anywhere below `root`: every directory,
/// ignored ones included, except `.git` and nested repositories (their leftovers are theirs).
/// Symbolic links are not followed. Returns the paths removed.
pub fn sweep_tree(root: &Path) -> Vec<PathBuf> {
    let mut removed = Vec::new();
    let mut dirs = vec![root.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        let Ok(entries) = fs::read_dir(&dir) else {
            continue;
        };
        let mut files = Vec::new();
        for entry in entries.flatten() {
            let path = entry.path();
            let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
            if !is_dir {
                files.push(path);
            } else if entry.file_name() != ".git" && !path.join(".git").exists() {
                dirs.push(path);
            }
        }
        removed.extend(sweep_files(files));
    }
    removed
}

/// Whether a process runs: `Some(true)` or `Some(false)` when that can be told, `None` when it
/// cannot.
#[cfg(target_os = "linux")]
fn process_alive(pid: u32) -> Option<bool> {
    // Without /proc (a chroot, a sandbox) nothing can be told; a zombie still counts as alive,
    // which only keeps a file a little longer.
    if !Path::new("/proc/self").exists() {
        return None;
    }
    Some(Path::new(&format!("/proc/{pid}")).exists())
}

#[cfg(all(unix, not(target_os = "linux")))]
fn process_alive(pid: u32) -> Option<bool> {
    // `ps -p` is POSIX and, unlike `kill -0`, also sees other users' processes.
    let out = std::process::Command::new("ps")
        .args(["-p", &pid.to_string(), "-o", "pid="])
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    let listed = String::from_utf8_lossy(&out.stdout).trim() == pid.to_string();
    Some(listed)
}

#[cfg(not(unix))]
fn process_alive(_pid: u32) -> Option<bool> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn owner_is_read_only_from_salve_names() {
        assert_eq!(owner_of(".salve-tmp-123-AbC9xy-main.rs.tmp"), Some(123));
        assert_eq!(owner_of(".salve-tmp-123-AbC9xy-.tmp"), Some(123));
        assert_eq!(owner_of(".salve-tmp-x12-AbC9xy-main.rs.tmp"), None);
        assert_eq!(owner_of(".salve-tmp--AbC9xy-main.rs.tmp"), None);
        assert_eq!(owner_of(".salve-tmp-123-AbC9xy-main.rs"), None);
        assert_eq!(owner_of("salve-tmp-123-AbC9xy-main.rs.tmp"), None);
        assert_eq!(owner_of("main.rs"), None);
    }

    #[test]
    fn temp_names_carry_the_pid_and_a_bounded_name() -> std::io::Result<()> {
        let dir = tempfile::tempdir()?;
        let long = "é".repeat(120);
        let temp = TempName::for_target(&dir.path().join(&long))
            .builder()
            .tempfile_in(dir.path())?;
        let name = temp
            .path()
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        assert_eq!(owner_of(&name), Some(std::process::id()));
        assert!(name.len() < 160, "{name}");
        Ok(())
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn sweeps_only_files_of_dead_owners() -> std::io::Result<()> {
        let dir = tempfile::tempdir()?;
        // A child that has exited and been waited for is a pid no process holds (barring a
        // reuse within the test, which would only keep the file).
        let mut child = std::process::Command::new("true").spawn()?;
        let dead = child.id();
        child.wait()?;
        let dead_file = dir
            .path()
            .join(format!(".salve-tmp-{dead}-aaaaaa-a.rs.tmp"));
        let mine = dir
            .path()
            .join(format!(".salve-tmp-{}-bbbbbb-b.rs.tmp", std::process::id()));
        // pid 1 always runs.
        let alive = dir.path().join(".salve-tmp-1-cccccc-c.rs.tmp");
        let user = dir.path().join(format!("salve-tmp-{dead}-dddddd-d.rs.tmp"));
        let a_dir = dir.path().join(format!(".salve-tmp-{dead}-eeeeee-e.tmp"));
        for f in [&dead_file, &mine, &alive, &user] {
            fs::write(f, "x")?;
        }
        fs::create_dir(&a_dir)?;
        let removed = sweep_leftovers(dir.path());
        assert_eq!(removed, vec![dead_file.clone()]);
        assert!(!dead_file.exists());
        assert!(mine.exists() && alive.exists() && user.exists() && a_dir.exists());
        Ok(())
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_tree_sweep_reaches_every_directory_but_git_and_nested_repositories() -> std::io::Result<()>
    {
        let dir = tempfile::tempdir()?;
        let mut child = std::process::Command::new("true").spawn()?;
        let dead = child.id();
        child.wait()?;
        let name = format!(".salve-tmp-{dead}-aaaaaa-a.rs.tmp");
        let deep = dir.path().join("a/b/c");
        let nested = dir.path().join("vendor/lib");
        let git = dir.path().join(".git/objects");
        for d in [&deep, &nested.join(".git"), &git] {
            fs::create_dir_all(d)?;
        }
        for d in [dir.path(), deep.as_path(), nested.as_path(), git.as_path()] {
            fs::write(d.join(&name), "x")?;
        }
        let mut removed = sweep_tree(dir.path());
        removed.sort();
        let mut expected = vec![dir.path().join(&name), deep.join(&name)];
        expected.sort();
        assert_eq!(removed, expected);
        assert!(nested.join(&name).exists() && git.join(&name).exists());
        Ok(())
    }
}
