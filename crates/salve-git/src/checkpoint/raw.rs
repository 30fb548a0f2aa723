//! The bytes on disk, not git's conversion of them.
//!
//! Where git converts content on the way in or out (`core.autocrlf`, `eol`, `text`, filters), a
//! tree built by `git add` holds the converted form, and `checkout-index` writes a converted
//! form back: a restore would then bring back CRLF for a file that was LF on disk, or normalize
//! a mixed-ending script. So in such repositories a checkpoint's work tree holds every regular
//! file's bytes as they are on disk (`hash-object --no-filters`), and a restore writes a blob's
//! bytes as they are. The staged state stays git's own: it is the index, not the disk.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use crate::checkpoint::probe;
use crate::cmd::{split_nul, Git, GitError};
use crate::path::path_from_bytes;
#[cfg(not(unix))]
use crate::path::path_to_bytes;
use crate::repo::Repo;

/// True when git may store or write some file of `repo` other than byte for byte.
pub(crate) fn may_convert(repo: &Repo) -> Result<bool, GitError> {
    if !probe::config_allows(repo)? {
        return Ok(true);
    }
    let listed = repo
        .git()
        .args([
            "ls-files",
            "-z",
            "--cached",
            "--others",
            "--exclude-standard",
        ])
        .args(["--", ":(glob)**/.gitattributes"])
        .run_bytes()?;
    let converting = split_nul(&listed)
        .filter(|p| !p.is_empty())
        .any(|p| !probe::attributes_allow(&repo.root.join(path_from_bytes(p))));
    Ok(converting)
}

/// `-c` arguments that turn every configured filter driver (`filter.<name>.*`) into a pass
/// through, for git commands whose converted output salve replaces by the bytes on disk.
pub(crate) fn filters_off(repo: &Repo) -> Result<Vec<String>, GitError> {
    let out = repo
        .git()
        .args([
            "config",
            "-z",
            "--name-only",
            "--get-regexp",
            r"^filter\..*\.(clean|smudge|process|required)$",
        ])
        .output()?;
    let mut names: Vec<String> = split_nul(&out.stdout)
        .filter_map(|key| {
            let key = String::from_utf8_lossy(key).trim().to_owned();
            let name = key.strip_prefix("filter.")?.rsplit_once('.')?.0.to_owned();
            Some(name)
        })
        .collect();
    names.sort();
    names.dedup();
    let mut args = Vec::new();
    for name in names {
        for (key, value) in [
            ("clean", ""),
            ("smudge", ""),
            ("process", ""),
            ("required", "false"),
        ] {
            args.push("-c".to_owned());
            args.push(format!("filter.{name}.{key}={value}"));
        }
    }
    Ok(args)
}

/// Point every regular file of the index `git` (a temporary one, built from the work tree)
/// whose bytes git's checkout would not give back (`smudge(clean(disk)) != disk`: an LF file
/// under `core.autocrlf`, a CRLF or mixed one under `eol=lf`) at a blob of its bytes on disk,
/// and return those paths. The others keep git's blob, so the tree still compares with HEAD.
pub(crate) fn rehash(repo: &Repo, git: impl Fn() -> Git) -> Result<Vec<PathBuf>, GitError> {
    let entries = regular_entries(repo, &git)?;
    // A file git stores unchanged may still be checked out converted (LF under autocrlf):
    // every file is compared with what checkout would write.
    let converted: Vec<&Entry> = entries.iter().collect();
    if converted.is_empty() {
        return Ok(Vec::new());
    }
    // What checkout would write for each, in one git process, into a scratch directory.
    let scratch = scratch_dir(repo)?;
    let differing = compare_checkout(repo, &git, &converted, &scratch);
    let _ = std::fs::remove_dir_all(&scratch);
    let differing = differing?;
    if differing.is_empty() {
        return Ok(Vec::new());
    }
    let written = hash_paths(repo, differing.iter().map(|e| e.2.as_slice()), true)?;
    let mut info = Vec::new();
    for ((mode, _, path), raw) in differing.iter().zip(&written) {
        info.extend_from_slice(format!("{mode} {raw}\t").as_bytes());
        info.extend_from_slice(path);
        info.push(0);
    }
    git()
        .args(["update-index", "-z", "--index-info"])
        .stdin(info)
        .run_bytes()?;
    Ok(differing.iter().map(|e| path_from_bytes(&e.2)).collect())
}

/// An index entry: mode, blob, path.
type Entry = (String, String, Vec<u8>);

/// The regular files of the index `git` that are regular files on disk.
fn regular_entries(repo: &Repo, git: &impl Fn() -> Git) -> Result<Vec<Entry>, GitError> {
    let staged = git().args(["ls-files", "-z", "-s"]).run_bytes()?;
    let mut entries = Vec::new();
    for record in split_nul(&staged).filter(|r| !r.is_empty()) {
        let Some(tab) = record.iter().position(|b| *b == b'\t') else {
            continue;
        };
        let head = String::from_utf8_lossy(&record[..tab]).into_owned();
        let mut fields = head.split(' ');
        let (Some(mode), Some(oid)) = (fields.next(), fields.next()) else {
            continue;
        };
        let path = &record[tab + 1..];
        let regular = mode == "100644" || mode == "100755";
        // `--stdin-paths` and `--batch` read lines: a name with a newline keeps git's form.
        if regular
            && !path.contains(&b'\n')
            && std::fs::symlink_metadata(repo.root.join(path_from_bytes(path)))
                .is_ok_and(|m| m.is_file())
        {
            entries.push((mode.to_owned(), oid.to_owned(), path.to_vec()));
        }
    }
    Ok(entries)
}

/// The blob ids of the files at `paths` as they are on disk, written to the store on `write`.
fn hash_paths<'a>(
    repo: &Repo,
    paths: impl Iterator<Item = &'a [u8]>,
    write: bool,
) -> Result<Vec<String>, GitError> {
    let mut input = Vec::new();
    for path in paths {
        input.extend_from_slice(path);
        input.push(b'\n');
    }
    if input.is_empty() {
        return Ok(Vec::new());
    }
    let flags: &[&str] = if write { &["-w"] } else { &[] };
    let out = repo
        .git()
        .arg("hash-object")
        .args(flags)
        .args(["--no-filters", "--stdin-paths"])
        .stdin(input)
        .run()?;
    Ok(out.lines().map(str::to_owned).collect())
}

/// A fresh directory in salve's part of the git directory (on the work tree's file system).
fn scratch_dir(repo: &Repo) -> Result<PathBuf, GitError> {
    static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = repo
        .salve_dir()?
        .join(format!("checkout-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir)
        .map_err(|e| GitError::io(format!("creating {}", dir.display()), e))?;
    Ok(dir)
}

/// The entries whose checkout (into `scratch`) is not the bytes on disk.
fn compare_checkout<'a>(
    repo: &Repo,
    git: &impl Fn() -> Git,
    entries: &[&'a Entry],
    scratch: &Path,
) -> Result<Vec<&'a Entry>, GitError> {
    let mut prefix = scratch.as_os_str().to_owned();
    prefix.push("/");
    let mut prefix_arg = std::ffi::OsString::from("--prefix=");
    prefix_arg.push(&prefix);
    let mut input = Vec::new();
    for (_, _, path) in entries {
        input.extend_from_slice(path);
        input.push(0);
    }
    git()
        .args(["checkout-index", "-f", "-z", "--stdin"])
        .arg(prefix_arg)
        .stdin(input)
        .run_bytes()?;
    Ok(entries
        .iter()
        .filter(|(_, _, path)| {
            let rel = path_from_bytes(path);
            let disk = std::fs::read(repo.root.join(&rel)).ok();
            let out = std::fs::read(scratch.join(&rel)).ok();
            disk.is_none() || disk != out
        })
        .copied()
        .collect())
}

/// One file to write: its path, mode and blob.
pub(crate) struct Blob<'a> {
    pub path: &'a Path,
    pub mode: u32,
    pub oid: &'a str,
}

/// Write each blob's bytes to its path as they are (no smudge, no line-ending conversion),
/// atomically, with its mode; a symlink blob becomes a symlink.
pub(crate) fn write(repo: &Repo, blobs: &[Blob<'_>]) -> Result<(), GitError> {
    for blob in blobs {
        let bytes = repo
            .git()
            .args(["cat-file", "blob", blob.oid])
            .run_bytes()?;
        let full = repo.root.join(blob.path);
        if let Some(parent) = full.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| GitError::io(format!("creating {}", parent.display()), e))?;
        }
        put(&full, blob.mode, &bytes)
            .map_err(|e| GitError::io(format!("writing {}", full.display()), e))?;
    }
    Ok(())
}

fn put(full: &Path, mode: u32, bytes: &[u8]) -> std::io::Result<()> {
    let dir = full.parent().unwrap_or(Path::new("."));
    let name = full
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let temp: PathBuf = dir.join(format!(
        ".salve-tmp-{}-rawout-{name}.tmp",
        std::process::id()
    ));
    let _ = std::fs::remove_file(&temp);
    let made = if mode == 0o120000 {
        make_symlink(&path_from_bytes(bytes), &temp)
    } else {
        std::fs::File::create(&temp).and_then(|mut f| {
            f.write_all(bytes)?;
            f.sync_all()?;
            set_mode(&temp, mode)
        })
    };
    let done = made.and_then(|()| std::fs::rename(&temp, full));
    if done.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    done
}

#[cfg(unix)]
fn make_symlink(target: &Path, at: &Path) -> std::io::Result<()> {
    std::os::unix::fs::symlink(target, at)
}

#[cfg(not(unix))]
fn make_symlink(target: &Path, at: &Path) -> std::io::Result<()> {
    std::fs::write(at, path_to_bytes(target))
}

#[cfg(unix)]
fn set_mode(path: &Path, mode: u32) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt as _;
    let bits = if mode == 0o100755 { 0o755 } else { 0o644 };
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(bits))
}

#[cfg(not(unix))]
fn set_mode(_: &Path, _: u32) -> std::io::Result<()> {
    Ok(())
}

/// Where the list of a checkpoint's files stored as their bytes on disk is kept: beside the
/// ignored files' store, keyed by checkpoint commit, NUL-separated paths.
fn list_path(repo: &Repo, commit: &str) -> Result<PathBuf, GitError> {
    let dir = crate::repo::salve_dir_in(&repo.common_dir()?)?.join("raw");
    std::fs::create_dir_all(&dir)
        .map_err(|e| GitError::io(format!("creating {}", dir.display()), e))?;
    Ok(dir.join(commit))
}

/// Record that checkpoint `commit` holds `paths` as their bytes on disk.
pub(crate) fn save_list(repo: &Repo, commit: &str, paths: &[PathBuf]) -> Result<(), GitError> {
    if paths.is_empty() {
        return Ok(());
    }
    let path = list_path(repo, commit)?;
    std::fs::write(
        &path,
        crate::path::nul_list(paths.iter().map(PathBuf::as_path)),
    )
    .map_err(|e| GitError::io(format!("writing {}", path.display()), e))
}

/// The files checkpoint `commit` holds as their bytes on disk (none when it kept no list).
pub(crate) fn load_list(repo: &Repo, commit: &str) -> Result<Vec<PathBuf>, GitError> {
    let path = list_path(repo, commit)?;
    match std::fs::read(&path) {
        Ok(bytes) => Ok(split_nul(&bytes)
            .filter(|p| !p.is_empty())
            .map(path_from_bytes)
            .collect()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
        Err(e) => Err(GitError::io(format!("reading {}", path.display()), e)),
    }
}

/// Forget the lists of dropped checkpoints; failing to is harmless.
pub(crate) fn forget(repo: &Repo, commits: &[String]) {
    for commit in commits {
        if let Ok(path) = list_path(repo, commit) {
            let _ = std::fs::remove_file(path);
        }
    }
}
