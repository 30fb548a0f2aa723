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
//! read, changes (and HEAD, where an `includeIf "onbranch:..."` includes a file by the branch
//! checked out): the MCP server pays for it once, and so does a series of CLI commands.

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
    let probe = current(repo)?;
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

/// What the configuration says about listing untracked files in process: `None` when it uses
/// something that listing does not model (see `crate::untracked`), else the `core.excludesFile`
/// set globally, if any.
pub(crate) fn listing(repo: &Repo) -> Result<Option<Option<PathBuf>>, GitError> {
    let probe = current(repo)?;
    Ok(probe.lists.then_some(probe.excludes_file))
}

/// The probe for `repo`: this process's, the one kept on disk, or git's answer.
fn current(repo: &Repo) -> Result<Probe, GitError> {
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
    Ok(probe)
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
    let mut lists = Lists::new(repo, home.as_deref())?;
    let mut records = split_nul(&out);
    while let (Some(origin), Some(entry)) = (records.next(), records.next()) {
        let origin = String::from_utf8_lossy(origin);
        let file = origin.strip_prefix("file:").map(|f| repo.root.join(f));
        if let Some(file) = &file {
            watched.push(file.clone());
        }
        lists.see(file.as_deref(), &entry_text(entry));
        let entry = String::from_utf8_lossy(entry);
        let (key, value) = entry.split_once('\n').unwrap_or((&entry, "true"));
        let raw = value.trim();
        let value = raw.to_ascii_lowercase();
        let truthy = matches!(value.as_str(), "true" | "yes" | "on" | "1");
        let falsy = matches!(value.as_str(), "false" | "no" | "off" | "0" | "");
        let key = key.to_ascii_lowercase();
        if key.starts_with("includeif.onbranch:") {
            // A file included by the branch checked out: switching branches changes the
            // configuration without changing any file it names, only HEAD.
            watched.push(git_dir.join("HEAD"));
        }
        match key.as_str() {
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
        lists: lists.allowed,
        excludes_file: lists.excludes_file,
        stamp: stamp(watched.into_iter()),
    })
}

fn entry_text(entry: &[u8]) -> String {
    String::from_utf8_lossy(entry).into_owned()
}

/// The configuration as the untracked listing sees it (see `crate::untracked` for why each
/// key makes it leave the listing to git).
struct Lists {
    allowed: bool,
    excludes_file: Option<PathBuf>,
    /// The repository's own configuration files: an excludes file set there is left to git.
    local: Vec<PathBuf>,
    home: Option<PathBuf>,
}

impl Lists {
    fn new(repo: &Repo, home: Option<&Path>) -> Result<Lists, GitError> {
        Ok(Lists {
            allowed: true,
            excludes_file: None,
            local: vec![
                repo.common_dir()?.join("config"),
                repo.git_dir()?.join("config.worktree"),
            ],
            home: home.map(Path::to_path_buf),
        })
    }

    /// One `key\nvalue` entry of `git config -z -l`, from `file` (`None`: not a file, such as
    /// the command line).
    fn see(&mut self, file: Option<&Path>, entry: &str) {
        let (key, value) = entry.split_once('\n').unwrap_or((entry, "true"));
        let key = key.to_ascii_lowercase();
        let falsy = matches!(
            value.trim().to_ascii_lowercase().as_str(),
            "false" | "no" | "off" | "0" | ""
        );
        match key.as_str() {
            "core.excludesfile" => {
                let local = file.is_none_or(|f| self.local.iter().any(|l| same_file(l, f)));
                let path = match (value.strip_prefix("~/"), &self.home) {
                    (Some(rest), Some(home)) => Some(home.join(rest)),
                    _ if value.starts_with('/') => Some(PathBuf::from(value)),
                    _ => None,
                };
                match path {
                    Some(path) if !local => self.excludes_file = Some(path),
                    _ => self.allowed = false,
                }
            }
            "core.ignorecase"
            | "core.sparsecheckout"
            | "core.precomposeunicode"
            | "core.bare"
            | "index.sparse" => self.allowed &= falsy,
            "core.worktree" => self.allowed = false,
            "extensions.worktreeconfig" => {}
            other => {
                if other.starts_with("include.")
                    || other.starts_with("includeif.")
                    || other.starts_with("extensions.")
                {
                    self.allowed = false;
                }
            }
        }
    }
}

fn same_file(a: &Path, b: &Path) -> bool {
    a == b || matches!((a.canonicalize(), b.canonicalize()), (Ok(x), Ok(y)) if x == y)
}

fn expand_home(path: &str, home: Option<&Path>) -> PathBuf {
    match (path.strip_prefix("~/"), home) {
        (Some(rest), Some(home)) => home.join(rest),
        _ => PathBuf::from(path),
    }
}
