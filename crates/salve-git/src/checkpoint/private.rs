//! Pre-images of ignored files, kept out of every ref.
//!
//! Ignored files are ignored for a reason: `.env`, keys, local settings. A checkpoint must still
//! hold the ones salve is about to overwrite (undo brings them back), but a tree under
//! `refs/salve/catalog` would publish them with `git push --mirror` and show them to
//! `git grep <ref>`. So their bytes live in salve's own store, `<common git dir>/salve/ignored/`,
//! which no ref reaches: `objects/<sha1 of the bytes>` holds each content once, and
//! `<checkpoint commit>` lists the files of that checkpoint (`mode SP sha1 TAB path NUL`).
//! The store is shared by all worktrees, as the catalog is.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use sha1::{Digest as _, Sha1};

use crate::cmd::{split_nul, GitError};
use crate::odb::hex;
use crate::path::{nul_list, path_from_bytes, path_to_bytes};
use crate::repo::{salve_dir_in, Repo};

/// One ignored file as a checkpoint holds it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Kept {
    /// Relative to the work tree root.
    pub path: PathBuf,
    /// `100644` or `100755`.
    pub mode: u32,
    pub bytes: Vec<u8>,
}

fn store(repo: &Repo) -> Result<PathBuf, GitError> {
    let dir = salve_dir_in(&repo.common_dir()?)?.join("ignored");
    std::fs::create_dir_all(dir.join("objects"))
        .map_err(|e| GitError::io(format!("creating {}", dir.display()), e))?;
    Ok(dir)
}

/// The paths among `paths` (relative) that git ignores and does not track.
pub fn ignored_among(repo: &Repo, paths: &[PathBuf]) -> Result<Vec<PathBuf>, GitError> {
    if paths.is_empty() {
        return Ok(Vec::new());
    }
    // `check-ignore` leaves out tracked paths (an ignore rule does not apply to them); it exits
    // 1 when none is ignored.
    let out = repo
        .git()
        .args(["check-ignore", "-z", "--stdin"])
        .stdin(nul_list(paths.iter().map(PathBuf::as_path)))
        .output()?;
    match out.status.code() {
        Some(0) | Some(1) => {}
        code => {
            return Err(GitError::Failed {
                args: "check-ignore -z --stdin".to_owned(),
                code: code.unwrap_or(-1),
                stderr: String::from_utf8_lossy(&out.stderr).trim().to_owned(),
            })
        }
    }
    Ok(split_nul(&out.stdout)
        .filter(|p| !p.is_empty())
        .map(path_from_bytes)
        .collect())
}

/// Read the ignored files `paths` (relative to the root) as they are now; a path that is not a
/// regular file is left out (nothing to bring back).
pub(crate) fn read(root: &Path, paths: &[PathBuf]) -> Vec<Kept> {
    let mut kept = Vec::new();
    for path in paths {
        let full = root.join(path);
        let Ok(meta) = std::fs::symlink_metadata(&full) else {
            continue;
        };
        if !meta.is_file() {
            continue;
        }
        let Ok(bytes) = std::fs::read(&full) else {
            continue;
        };
        kept.push(Kept {
            path: path.clone(),
            mode: if is_executable(&meta) {
                0o100755
            } else {
                0o100644
            },
            bytes,
        });
    }
    kept
}

#[cfg(unix)]
fn is_executable(meta: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::PermissionsExt as _;
    meta.permissions().mode() & 0o111 != 0
}

#[cfg(not(unix))]
fn is_executable(_: &std::fs::Metadata) -> bool {
    false
}

/// Keep `files` as the ignored files of checkpoint `commit`.
pub(crate) fn save(repo: &Repo, commit: &str, files: &[Kept]) -> Result<(), GitError> {
    if files.is_empty() {
        return Ok(());
    }
    let dir = store(repo)?;
    let mut manifest = Vec::new();
    for file in files {
        let id = hex(&Sha1::digest(&file.bytes));
        let object = dir.join("objects").join(&id);
        if !object.exists() {
            write_atomic(&object, &file.bytes)?;
        }
        manifest.extend_from_slice(format!("{:o} {id}\t", file.mode).as_bytes());
        manifest.extend_from_slice(&path_to_bytes(&file.path));
        manifest.push(0);
    }
    write_atomic(&dir.join(commit), &manifest)
}

/// The ignored files checkpoint `commit` holds (none for a checkpoint that held none, or one
/// of an older salve, which kept them in its tree).
pub fn load(repo: &Repo, commit: &str) -> Result<Vec<Kept>, GitError> {
    let dir = salve_dir_in(&repo.common_dir()?)?.join("ignored");
    let manifest = match std::fs::read(dir.join(commit)) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(GitError::io(format!("reading {}", dir.display()), e)),
    };
    let mut kept = Vec::new();
    for record in split_nul(&manifest).filter(|r| !r.is_empty()) {
        let Some(tab) = record.iter().position(|b| *b == b'\t') else {
            continue;
        };
        let head = String::from_utf8_lossy(&record[..tab]);
        let Some((mode, id)) = head.split_once(' ') else {
            continue;
        };
        let object = dir.join("objects").join(id);
        let bytes = std::fs::read(&object)
            .map_err(|e| GitError::io(format!("reading {}", object.display()), e))?;
        kept.push(Kept {
            path: path_from_bytes(&record[tab + 1..]),
            mode: u32::from_str_radix(mode, 8).unwrap_or(0o100644),
            bytes,
        });
    }
    Ok(kept)
}

/// Forget the ignored files of the checkpoints `commits` (dropped), and every content no
/// remaining checkpoint of the store names.
pub(crate) fn forget(repo: &Repo, commits: &[String]) -> Result<(), GitError> {
    let dir = salve_dir_in(&repo.common_dir()?)?.join("ignored");
    if !dir.exists() {
        return Ok(());
    }
    for commit in commits {
        let _ = std::fs::remove_file(dir.join(commit));
    }
    let mut named = std::collections::HashSet::new();
    let entries = std::fs::read_dir(&dir)
        .map_err(|e| GitError::io(format!("reading {}", dir.display()), e))?;
    for entry in entries.filter_map(Result::ok) {
        if entry.file_type().is_ok_and(|t| t.is_file()) {
            let manifest = std::fs::read(entry.path()).unwrap_or_default();
            for record in split_nul(&manifest) {
                let head = record.split(|b| *b == b'\t').next().unwrap_or_default();
                if let Some(id) = head.split(|b| *b == b' ').nth(1) {
                    named.insert(String::from_utf8_lossy(id).into_owned());
                }
            }
        }
    }
    if let Ok(objects) = std::fs::read_dir(dir.join("objects")) {
        for object in objects.filter_map(Result::ok) {
            if !named.contains(&*object.file_name().to_string_lossy()) {
                let _ = std::fs::remove_file(object.path());
            }
        }
    }
    Ok(())
}

/// Write `kept` back where it was, atomically and with its mode; `true` when the bytes on disk
/// were different (or missing).
pub(crate) fn put_back(root: &Path, kept: &Kept) -> Result<bool, GitError> {
    let full = root.join(&kept.path);
    if std::fs::read(&full).is_ok_and(|b| b == kept.bytes) {
        return Ok(false);
    }
    if let Some(parent) = full.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|e| GitError::io(format!("creating {}", parent.display()), e))?;
    }
    write_atomic(&full, &kept.bytes)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = if kept.mode == 0o100755 { 0o755 } else { 0o644 };
        std::fs::set_permissions(&full, std::fs::Permissions::from_mode(mode))
            .map_err(|e| GitError::io(format!("setting the mode of {}", full.display()), e))?;
    }
    Ok(true)
}

fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), GitError> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    // The name the engine's writers use for their temporary files, so a leftover is swept.
    let temp = dir.join(format!(
        ".salve-tmp-{}-ignord-{name}.tmp",
        std::process::id()
    ));
    let written = std::fs::File::create(&temp)
        .and_then(|mut f| f.write_all(bytes).and_then(|()| f.sync_all()))
        .and_then(|()| std::fs::rename(&temp, path));
    if let Err(e) = written {
        let _ = std::fs::remove_file(&temp);
        return Err(GitError::io(format!("writing {}", path.display()), e));
    }
    Ok(())
}

/// The git blob id of `bytes` in `repo` (no filters).
pub(crate) fn blob_id(repo: &Repo, bytes: &[u8]) -> Result<String, GitError> {
    repo.git()
        .args(["hash-object", "--no-filters", "--stdin"])
        .stdin(bytes.to_vec())
        .run()
}
