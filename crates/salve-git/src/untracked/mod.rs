//! The work tree's untracked files, listed in process with git's exact answer, or by git.
//!
//! A checkpoint needs `git ls-files -z --others --exclude-standard --directory
//! --no-empty-directory` (untracked, non-ignored paths, a directory with no tracked file below
//! it collapsed to `dir/` when it holds anything), then the full listing under each collapsed
//! directory. Starting git costs about a millisecond of CPU on every apply, so the listing is
//! made here, byte for byte git's (same records, same order), wherever git's rules for it are
//! modelled, and by git everywhere else. A file missed here would be missing from the
//! checkpoint and could not be brought back by undo, so anything not modelled falls back.
//!
//! Modelled (and checked against git, byte for byte, by seeded property tests: random work
//! trees in `tests/untracked/random.rs`, random patterns against `git check-ignore` in
//! `patterns_prop`):
//! `.gitignore` files at every level, `info/exclude` and the global excludes file (the XDG
//! default or `core.excludesFile` from the global or system configuration), with git's
//! precedence and pattern syntax (see `patterns` and `wildmatch`); tracked paths from the index
//! (a tracked file is never listed, a directory holding one is walked, not collapsed); nested
//! repositories made by `git init` (listed as `dir/`, not entered); `.git` entries skipped;
//! symlinks listed as files, never followed; other file kinds (fifos, sockets) not listed;
//! empty directories, and directories holding only ignored files, not listed.
//!
//! Left to git, decided before walking from what is already at hand (the environment, the
//! configuration probe kept on disk, the index salve reads anyway):
//! - a `GIT_*` environment variable other than those salve's git calls scrub or that only
//!   concern commits, editors and transport: git's test knobs and the like may change the walk;
//! - configuration: `core.excludesFile` set in the repository's own configuration or on the
//!   command line (or not an absolute or `~/` path), any `include.*`/`includeIf.*` (their
//!   conditions may change under the probe's cache), `core.ignoreCase` (case-folded matching),
//!   `core.sparseCheckout`, `index.sparse`, `core.worktree`, a bare repository, any
//!   `extensions.*` (another object format changes the index);
//! - an index this crate's reader does not take: split or sparse index, conflicts, skip-worktree,
//!   assume-unchanged or intent-to-add entries, submodules (gitlinks), unknown versions;
//! - a work tree whose `.git` is not a directory (a linked worktree, a `.git` file) or has a
//!   `commondir`;
//!
//! and, found while walking (the walk stops and git answers): a `.gitignore` that is not a
//! regular file (git will not follow a symlinked one), an ignore file holding a NUL byte or a
//! named character class (`[:alpha:]`), a `.git` in a sub-directory that is not plainly a
//! repository or plainly not one, and any directory that cannot be read.
//!
//! The untracked cache and fsmonitor index extensions only make git's walk faster; they do
//! not change its answer, and are ignored here.

mod patterns;
#[cfg(all(test, unix))]
mod patterns_prop;
#[cfg(unix)]
mod walk;
mod wildmatch;

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use crate::cmd::{split_nul, GitError};
use crate::path::{literal_pathspec, path_from_bytes};
use crate::repo::Repo;

/// Environment variables under `GIT_` that leave the listing as it is: those salve's git calls
/// scrub, those the configuration probe reads (its answer covers them), and those about
/// commits, editors, prompts, transport and tracing.
const HARMLESS: &[&str] = &[
    "GIT_CONFIG",
    "GIT_CONFIG_COUNT",
    "GIT_CONFIG_GLOBAL",
    "GIT_CONFIG_NOSYSTEM",
    "GIT_CONFIG_PARAMETERS",
    "GIT_CONFIG_SYSTEM",
    "GIT_TERMINAL_PROMPT",
    "GIT_OPTIONAL_LOCKS",
    "GIT_EDITOR",
    "GIT_SEQUENCE_EDITOR",
    "GIT_PAGER",
    "GIT_ASKPASS",
    "GIT_SSH",
    "GIT_SSH_COMMAND",
    "GIT_MERGE_AUTOEDIT",
    "GIT_REFLOG_ACTION",
    "GIT_CEILING_DIRECTORIES",
    "GIT_MERGE_VERBOSITY",
    "GIT_DIFF_OPTS",
    "GIT_EXTERNAL_DIFF",
    "GIT_FLUSH",
    "GIT_ALLOW_PROTOCOL",
    "GIT_PROTOCOL_FROM_USER",
    "GIT_NO_REPLACE_OBJECTS",
];
const HARMLESS_PREFIXES: &[&str] = &[
    "GIT_CONFIG_KEY_",
    "GIT_CONFIG_VALUE_",
    "GIT_AUTHOR_",
    "GIT_COMMITTER_",
    "GIT_TRACE",
    "GIT_PS1_",
    "GIT_SSH_",
    "GIT_SSL_",
    "GIT_HTTP_",
    "GIT_CURL_",
    "GIT_PROXY_",
    "GIT_LFS_",
];

/// The untracked listing: git's `--directory --no-empty-directory` records (a directory ends
/// in `/`), in git's order, and a way to the full listing below the collapsed directories.
#[derive(Debug)]
pub struct Listing {
    pub top: Vec<Vec<u8>>,
    /// Everything below the collapsed directories, when walked in process; `None`: ask git.
    below: Option<Vec<Vec<u8>>>,
}

impl Listing {
    /// Whether the listing was made in process.
    pub fn in_process(&self) -> bool {
        self.below.is_some()
    }

    /// What `git ls-files -z --others --exclude-standard -- <roots>` lists, for collapsed
    /// directories `roots` of [`Listing::top`], in git's order.
    pub fn below(&self, repo: &Repo, roots: &[PathBuf]) -> Result<Vec<Vec<u8>>, GitError> {
        use std::os::unix::ffi::OsStrExt as _;
        let Some(below) = &self.below else {
            let mut out = Vec::new();
            // Argument lists have a length limit; a few hundred roots per call stays far below.
            for chunk in roots.chunks(256) {
                let listing = repo
                    .git()
                    .args(["ls-files", "-z", "--others", "--exclude-standard", "--"])
                    .args(chunk.iter().map(|p| path_from_bytes(&literal_pathspec(p))))
                    .run_bytes()?;
                out.extend(split_nul(&listing).map(<[u8]>::to_vec));
            }
            return Ok(out);
        };
        let roots: HashSet<&[u8]> = roots.iter().map(|r| r.as_os_str().as_bytes()).collect();
        Ok(below
            .iter()
            .filter(|record| {
                record
                    .iter()
                    .enumerate()
                    .any(|(i, b)| *b == b'/' && roots.contains(&record[..i]))
            })
            .cloned()
            .collect())
    }
}

/// The untracked listing of `repo`: in process where modelled, else by git.
pub fn list(repo: &Repo) -> Result<Listing, GitError> {
    match in_process(repo)? {
        Some(listing) => Ok(listing),
        None => by_git(repo),
    }
}

/// The listing as git gives it (one git process; [`Listing::below`] runs more).
pub fn by_git(repo: &Repo) -> Result<Listing, GitError> {
    let listing = repo
        .git()
        .args([
            "ls-files",
            "-z",
            "--others",
            "--exclude-standard",
            "--directory",
            "--no-empty-directory",
        ])
        .run_bytes()?;
    Ok(Listing {
        top: split_nul(&listing).map(<[u8]>::to_vec).collect(),
        below: None,
    })
}

/// Untracked, non-ignored files anywhere in the work tree whose name starts with `prefix`
/// (what `git ls-files --others --exclude-standard -- ':(glob)**/<prefix>*'` lists).
pub fn files_named(repo: &Repo, prefix: &str) -> Result<Vec<PathBuf>, GitError> {
    let named = |record: &[u8]| {
        let name_at = record.iter().rposition(|b| *b == b'/').map_or(0, |i| i + 1);
        !record.ends_with(b"/") && record[name_at..].starts_with(prefix.as_bytes())
    };
    if let Some(listing) = in_process(repo)? {
        let below = listing.below.iter().flatten();
        return Ok(listing
            .top
            .iter()
            .chain(below)
            .filter(|r| named(r))
            .map(|r| path_from_bytes(r))
            .collect());
    }
    let pattern = format!(":(glob)**/{prefix}*");
    let listed = repo
        .git()
        .args(["ls-files", "--others", "--exclude-standard", "-z", "--"])
        .arg(&pattern)
        .run_bytes()?;
    Ok(split_nul(&listed).map(path_from_bytes).collect())
}

/// The listing made in process, or `None` where git must make it (see the module docs).
#[cfg(unix)]
pub fn in_process(repo: &Repo) -> Result<Option<Listing>, GitError> {
    if !environment_allows() {
        return Ok(None);
    }
    let dot_git = repo.root.join(".git");
    let plain = std::fs::symlink_metadata(&dot_git).is_ok_and(|m| m.is_dir())
        && std::fs::symlink_metadata(dot_git.join("commondir")).is_err();
    if !plain {
        return Ok(None);
    }
    let Some(excludes_file) = crate::checkpoint::probe::listing(repo)? else {
        return Ok(None);
    };
    let Some(index) = crate::index::read(&dot_git.join("index")) else {
        return Ok(None);
    };
    Ok(walk_with(&repo.root, &dot_git, excludes_file, &index))
}

#[cfg(not(unix))]
pub fn in_process(_repo: &Repo) -> Result<Option<Listing>, GitError> {
    Ok(None)
}

#[cfg(unix)]
fn walk_with(
    root: &Path,
    dot_git: &Path,
    excludes_file: Option<PathBuf>,
    index: &crate::index::Index,
) -> Option<Listing> {
    let mut outer = Vec::new();
    // git consults info/exclude before the global file.
    for file in [
        Some(dot_git.join("info/exclude")),
        global_file(excludes_file),
    ]
    .into_iter()
    .flatten()
    {
        if let Some(list) = outer_list(&file).ok()? {
            outer.push(list);
        }
    }
    let files: HashSet<&[u8]> = index.entries.iter().map(|e| e.path.as_slice()).collect();
    let mut dirs: HashSet<&[u8]> = HashSet::new();
    for entry in &index.entries {
        for (i, b) in entry.path.iter().enumerate() {
            if *b == b'/' {
                dirs.insert(&entry.path[..i]);
            }
        }
    }
    let walk = walk::Walk {
        root,
        files,
        dirs,
        stack: patterns::Stack {
            outer,
            dirs: Vec::new(),
        },
    };
    let mut found = walk.run().ok()?;
    found.top.sort();
    found.below.sort();
    Some(Listing {
        top: found.top,
        below: Some(found.below),
    })
}

/// The global excludes file git reads: `core.excludesFile`, else `$XDG_CONFIG_HOME/git/ignore`
/// (when set and not empty), else `$HOME/.config/git/ignore`.
fn global_file(configured: Option<PathBuf>) -> Option<PathBuf> {
    if configured.is_some() {
        return configured;
    }
    match std::env::var_os("XDG_CONFIG_HOME") {
        Some(xdg) if !xdg.is_empty() => Some(PathBuf::from(xdg).join("git/ignore")),
        _ => std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config/git/ignore")),
    }
}

/// An ignore file outside the work tree (followed if a symlink, as git does): `Ok(None)` when
/// absent, `Err` when present but not something this model reads.
fn outer_list(file: &Path) -> Result<Option<patterns::List>, patterns::Unmodelled> {
    match std::fs::metadata(file) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Ok(meta) if meta.is_file() => {
            let bytes = std::fs::read(file).map_err(|_| patterns::Unmodelled)?;
            patterns::List::parse(b"", &bytes).map(Some)
        }
        _ => Err(patterns::Unmodelled),
    }
}

fn environment_allows() -> bool {
    std::env::vars_os().all(|(key, _)| {
        let key = key.to_string_lossy();
        !key.starts_with("GIT_")
            || crate::cmd::SCRUBBED_VARS.contains(&key.as_ref())
            || HARMLESS.contains(&key.as_ref())
            || HARMLESS_PREFIXES.iter().any(|p| key.starts_with(p))
    })
}
