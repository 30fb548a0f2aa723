//! Whether a checkpoint's trees may be built in process: only where `git add -A` would store
//! every file's bytes unchanged, so salve's tree is byte-for-byte git's.
//!
//! git converts content on the way in when line-ending conversion is configured
//! (`core.autocrlf`) or an attributes file asks for it (`text`, `eol`, `filter`, `ident`,
//! `working-tree-encoding`); it reads the work tree differently without trusted exec bits or
//! symlinks, on case-folding or Unicode-precomposing file systems, and under extensions salve
//! does not read. Any of these, and the checkpoint goes through git as before.
//!
//! The configuration is asked of git once (`git config -l --show-origin`) and kept, in the
//! process and on disk (`probe_disk`), until one of the files it came from, or a file git would
//! read, changes: the MCP server pays for it once, and so does a series of CLI commands.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use super::probe_disk::{self, stamp, Probe};
use crate::cmd::{split_nul, GitError};
use crate::repo::Repo;

/// Words of an attributes file that may make git convert content (conservatively: a `-text`
/// counts too).
const CONVERTING: &[&str] = &["text", "eol", "crlf", "filter", "ident", "encoding"];

static MEMO: OnceLock<Mutex<Vec<(PathBuf, Probe)>>> = OnceLock::new();

/// True when the configuration and the repository-wide attributes files allow building trees
/// in process. The work tree's own `.gitattributes` files are checked by [`attributes_allow`].
pub(super) fn config_allows(repo: &Repo) -> Result<bool, GitError> {
    let memo = MEMO.get_or_init(Default::default);
    let cached = memo.lock().ok().and_then(|m| {
        m.iter()
            .find(|(r, _)| *r == repo.root)
            .map(|(_, p)| p.clone())
    });
    let probe = match cached {
        Some(probe) if probe.is_current() => probe,
        _ => {
            let kept = repo.salve_dir().ok();
            let probe = match kept
                .as_deref()
                .and_then(|d| probe_disk::load(d, &repo.root))
            {
                Some(probe) => probe,
                None => {
                    let probe = ask(repo)?;
                    if let Some(dir) = &kept {
                        probe_disk::save(dir, &repo.root, &probe);
                    }
                    probe
                }
            };
            if let Ok(mut memo) = memo.lock() {
                memo.retain(|(r, _)| *r != repo.root);
                memo.push((repo.root.clone(), probe.clone()));
            }
            probe
        }
    };
    if !probe.allowed {
        return Ok(false);
    }
    let common = repo.common_dir()?;
    let mut files = vec![
        common.join("info/attributes"),
        PathBuf::from("/etc/gitattributes"),
    ];
    files.extend(probe.attributes_file);
    Ok(files.iter().all(|f| attributes_allow(f)))
}

/// False when the attributes file at `path` exists and may ask for a conversion.
pub(super) fn attributes_allow(path: &Path) -> bool {
    match std::fs::read(path) {
        Ok(bytes) => {
            let text = String::from_utf8_lossy(&bytes).to_ascii_lowercase();
            !CONVERTING.iter().any(|word| text.contains(word))
        }
        Err(e) => e.kind() == std::io::ErrorKind::NotFound,
    }
}

fn ask(repo: &Repo) -> Result<Probe, GitError> {
    let out = repo
        .git()
        .args(["config", "-z", "-l", "--show-origin"])
        .run_bytes()?;
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let xdg = std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .or_else(|| home.as_ref().map(|h| h.join(".config")));
    let git_dir = repo.git_dir()?;
    let mut watched = vec![
        repo.common_dir()?.join("config"),
        git_dir.join("config.worktree"),
        PathBuf::from("/etc/gitconfig"),
    ];
    // git's system file is under its own prefix (`/usr/local/etc/gitconfig` for a git in
    // `/usr/local/bin`), and may appear after the probe.
    watched.extend(crate::cmd::git_prefix().map(|p| p.join("etc/gitconfig")));
    watched.extend(home.as_ref().map(|h| h.join(".gitconfig")));
    watched.extend(xdg.as_ref().map(|x| x.join("git/config")));
    let mut allowed = true;
    let mut attributes_file = xdg.as_ref().map(|x| x.join("git/attributes"));
    let mut records = split_nul(&out);
    while let (Some(origin), Some(entry)) = (records.next(), records.next()) {
        if let Some(file) = String::from_utf8_lossy(origin).strip_prefix("file:") {
            watched.push(repo.root.join(file));
        }
        let entry = String::from_utf8_lossy(entry);
        let (key, value) = entry.split_once('\n').unwrap_or((&entry, "true"));
        let raw = value.trim();
        let value = raw.to_ascii_lowercase();
        let truthy = matches!(value.as_str(), "true" | "yes" | "on" | "1");
        let falsy = matches!(value.as_str(), "false" | "no" | "off" | "0" | "");
        match key.to_ascii_lowercase().as_str() {
            "core.autocrlf" => allowed &= falsy,
            "core.filemode" | "core.symlinks" => allowed &= truthy,
            "core.ignorecase" | "core.precomposeunicode" | "core.sparsecheckout" => {
                allowed &= falsy;
            }
            "core.attributesfile" => {
                attributes_file = Some(expand_home(raw, home.as_deref()));
            }
            "extensions.worktreeconfig" => {}
            other if other.starts_with("extensions.") => allowed = false,
            _ => {}
        }
    }
    watched.sort();
    watched.dedup();
    Ok(Probe {
        allowed,
        attributes_file,
        stamp: stamp(watched.into_iter()),
    })
}

fn expand_home(path: &str, home: Option<&Path>) -> PathBuf {
    match (path.strip_prefix("~/"), home) {
        (Some(rest), Some(home)) => home.join(rest),
        _ => PathBuf::from(path),
    }
}
