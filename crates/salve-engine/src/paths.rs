//! Paths named by a model reply: the guard that keeps every write inside the work tree, and the
//! resolution of a slightly wrong path to the one file it can only mean.
//!
//! The guard runs before anything is read. It is lexical first (no absolute paths, no `..` that
//! climbs out of the root, nothing inside `.git`, no NUL bytes), then physical: every existing
//! component is looked at on disk, and a symlink whose target lies outside the root (or inside its
//! `.git`) rejects the path. A rejected path makes the whole reply untrustworthy; callers refuse
//! everything.
//!
//! Resolution is for files that must already exist. The exact path wins; otherwise a unique file
//! whose path ends with the requested one (a wrong or missing leading directory), otherwise a
//! unique file with the same name. Several candidates are reported, never picked from.

use std::fmt;
use std::io;
use std::path::{Component, Path, PathBuf};

/// A normalized path inside the work tree: `/`-separated, relative, no `.` or `..` components,
/// never empty.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TreePath(String);

impl TreePath {
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The last component.
    pub fn file_name(&self) -> &str {
        self.0.rsplit('/').next().unwrap_or(&self.0)
    }

    /// The path without its last component, `None` at the top of the tree.
    pub fn parent(&self) -> Option<&str> {
        self.0.rsplit_once('/').map(|(dir, _)| dir)
    }

    /// True when `self` ends with all the components of `suffix`.
    pub fn ends_with(&self, suffix: &TreePath) -> bool {
        self.0 == suffix.0
            || (self.0.len() > suffix.0.len()
                && self.0.ends_with(suffix.as_str())
                && self.0.as_bytes()[self.0.len() - suffix.0.len() - 1] == b'/')
    }

    /// The path on disk below `root`.
    pub fn under(&self, root: &Path) -> PathBuf {
        let mut out = root.to_path_buf();
        for part in self.0.split('/') {
            out.push(part);
        }
        out
    }
}

impl fmt::Display for TreePath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Why a path was rejected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Rejection {
    Empty,
    Nul,
    Absolute,
    Escapes,
    GitDir,
    /// A symlink on the way leads outside the tree (or could not be followed).
    Symlink {
        link: String,
    },
    /// A symlink on the way points inside the tree at nothing: writing through it would create
    /// its target somewhere the reply did not name.
    Dangling {
        link: String,
    },
    /// The path lies inside another repository (a submodule or a nested repository), which
    /// keeps its own history, checkpoints and record.
    OtherRepository {
        repository: String,
    },
    /// The file is a Git LFS pointer: the real file lives in LFS storage, and an edit to the
    /// pointer would leave its size and object id wrong.
    LfsPointer {
        path: String,
        size: String,
        oid: String,
    },
    /// The path is inside salve's own configuration or data folder (a home directory kept in
    /// git puts them in the work tree): an edit there could trust a repository's sections or
    /// define a provider, powers only the user grants.
    SalveOwn {
        folder: String,
    },
}

/// The words a rejection for a path inside another repository starts its reason with, so a
/// front end can point at that repository.
pub const OTHER_REPOSITORY: &str = "the path is inside the repository";

impl fmt::Display for Rejection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Rejection::Empty => f.write_str("the path is empty or names the tree's root"),
            Rejection::Nul => f.write_str("the path contains a NUL byte"),
            Rejection::Absolute => f.write_str(
                "absolute paths are not allowed; paths must be relative to the work tree",
            ),
            Rejection::Escapes => f.write_str("the path climbs out of the work tree with `..`"),
            Rejection::GitDir => f.write_str(
                "the path is inside the repository's `.git` directory \
                 (or a name a file system may take for `.git`)",
            ),
            Rejection::Symlink { link } => write!(
                f,
                "the path goes through the symlink `{link}`, which leads outside the work tree"
            ),
            Rejection::Dangling { link } => write!(
                f,
                "the path goes through the symlink `{link}`, whose target does not exist"
            ),
            Rejection::LfsPointer { path, size, oid } => write!(
                f,
                "`{path}` is a Git LFS pointer, not the file: the real `{path}` ({size} bytes, \
                 {oid}) is in LFS storage; fetch it with git-lfs and edit that, or edit the \
                 pointer by hand"
            ),
            Rejection::SalveOwn { folder } => write!(
                f,
                "the path is inside salve's own folder `{folder}` (its configuration, or the \
                 trust store of what repositories may run), which only you change"
            ),
            Rejection::OtherRepository { repository } => write!(
                f,
                "{OTHER_REPOSITORY} `{repository}` (a submodule or nested repository), which \
                 keeps its own history and undo; apply the edit from there"
            ),
        }
    }
}

/// A path that passed the guard.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Guarded {
    /// The normalized path as written.
    pub path: TreePath,
    /// Where reads and writes go: the path below the canonical root with symlinks inside the tree
    /// followed, so two spellings of one file meet at the same place.
    pub real: PathBuf,
    /// `real` relative to the root, for reports and baseline lookups.
    pub real_rel: TreePath,
}

/// Check a path lexically: the rules that need no disk access.
pub fn normalize(raw: &str) -> Result<TreePath, Rejection> {
    if raw.contains('\0') {
        return Err(Rejection::Nul);
    }
    if raw.is_empty() {
        return Err(Rejection::Empty);
    }
    if is_absolute(raw) {
        return Err(Rejection::Absolute);
    }
    let mut parts: Vec<&str> = Vec::new();
    // A backslash is a separator to Windows-minded models; splitting on it makes `..\` count.
    for part in raw.split(['/', '\\']) {
        match part {
            "" | "." => {}
            ".." => {
                if parts.pop().is_none() {
                    return Err(Rejection::Escapes);
                }
            }
            _ => {
                if is_git_dir_name(part) {
                    return Err(Rejection::GitDir);
                }
                parts.push(part);
            }
        }
    }
    if parts.is_empty() {
        return Err(Rejection::Empty);
    }
    Ok(TreePath(parts.join("/")))
}

fn is_absolute(raw: &str) -> bool {
    let bytes = raw.as_bytes();
    raw.starts_with('/')
        || raw.starts_with('\\')
        || raw == "~"
        || raw.starts_with("~/")
        || (bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':')
}

/// Names a file system may treat as `.git`, refused on every platform because a tree written on
/// Linux is checked out on macOS and Windows too (git's `verify_path` refuses the same under
/// `core.protectNTFS` and `core.protectHFS`):
/// - case-insensitive (macOS, Windows), also for Unicode letters HFS+ folds;
/// - with invisible code points HFS+ ignores (`.g\u{200c}it`);
/// - compatibility forms that read as `.git` (`．git` with a fullwidth dot, `ｇｉｔ`), folded by NFKC;
/// - NTFS: trailing dots or spaces (`.git.`, `.git `), an alternate data stream suffix
///   (`.git::$INDEX_ALLOCATION` is the directory itself, `.git:$DATA`, any `.git:name`), and the
///   8.3 short name (`GIT~1`, or a later number when `GIT~1` was taken).
fn is_git_dir_name(part: &str) -> bool {
    use unicode_normalization::UnicodeNormalization as _;
    let visible: String = part.chars().filter(|c| !is_ignorable(*c)).collect();
    let folded: String = visible.nfkc().flat_map(char::to_lowercase).collect();
    // `name:stream:type`: whatever follows the first colon names a stream of `name`.
    let name = folded.split(':').next().unwrap_or_default();
    let name = name.trim_end_matches(['.', ' ']);
    name == ".git" || is_git_short_name(name)
}

/// `git~N`, the 8.3 short name NTFS may give `.git`.
fn is_git_short_name(name: &str) -> bool {
    name.strip_prefix("git~")
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// Code points HFS+ drops from names when comparing them (the list git's `is_hfs_dotgit` skips),
/// plus the zero-width space, which no careful user puts in a directory name.
fn is_ignorable(c: char) -> bool {
    matches!(c,
        '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{206A}'..='\u{206F}' | '\u{FEFF}')
}

/// The full guard: lexical rules, then every existing component checked on disk below `root`
/// (which must be canonical).
pub fn guard(root: &Path, raw: &str) -> Result<Guarded, Rejection> {
    let path = normalize(raw)?;
    let parts: Vec<&str> = path.as_str().split('/').collect();
    let mut current = root.to_path_buf();
    for (i, part) in parts.iter().enumerate() {
        let next = current.join(part);
        match std::fs::symlink_metadata(&next) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let link = parts[..=i].join("/");
                let target =
                    std::fs::canonicalize(&next).map_err(|_| dangling(root, &next, &link))?;
                let rel = target
                    .strip_prefix(root)
                    .map_err(|_| Rejection::Symlink { link })?;
                if rel.components().any(|c| match c {
                    Component::Normal(name) => is_git_dir_name(&name.to_string_lossy()),
                    _ => false,
                }) {
                    return Err(Rejection::GitDir);
                }
                current = target;
            }
            Ok(meta) => {
                // Every directory on the way (not the root) must belong to this repository.
                if meta.is_dir() && i + 1 < parts.len() && next.join(".git").exists() {
                    return Err(Rejection::OtherRepository {
                        repository: relative(root, &next)
                            .map_or_else(|| parts[..=i].join("/"), |p| p.to_string()),
                    });
                }
                current = next;
            }
            Err(_) => {
                // Nothing exists from here on, so no symlink can redirect the rest.
                current = next;
                for rest in &parts[i + 1..] {
                    current.push(rest);
                }
                break;
            }
        }
    }
    let real_rel = relative(root, &current).ok_or(Rejection::Symlink {
        link: path.to_string(),
    })?;
    if let Some(folder) = own_folder_holding(root, &current) {
        return Err(Rejection::SalveOwn { folder });
    }
    if let Some((size, oid)) = lfs_pointer(&current) {
        return Err(Rejection::LfsPointer {
            path: path.to_string(),
            size,
            oid,
        });
    }
    Ok(Guarded {
        path,
        real: current,
        real_rel,
    })
}

/// salve's own folder (`$XDG_CONFIG_HOME/salve`, `$XDG_DATA_HOME/salve`, or their defaults
/// under `$HOME`) that holds `real`, when one lies inside the work tree at `root`, named
/// relative to it.
fn own_folder_holding(root: &Path, real: &Path) -> Option<String> {
    own_folders()
        .into_iter()
        .find(|f| f.starts_with(root) && real.starts_with(f))
        .and_then(|f| relative(root, &f).map(|r| r.to_string()))
}

/// salve's own folders, canonical, from the process environment as the configuration reads
/// it. Every path an edit names passes here, so they are resolved once per value of the three
/// variables, not on every call.
fn own_folders() -> Vec<PathBuf> {
    type Cached = (Vec<Option<std::ffi::OsString>>, Vec<PathBuf>);
    static CACHE: std::sync::Mutex<Option<Cached>> = std::sync::Mutex::new(None);
    let key: Vec<_> = ["HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME"]
        .iter()
        .map(std::env::var_os)
        .collect();
    let mut cache = CACHE
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some((seen, folders)) = cache.as_ref() {
        if *seen == key {
            return folders.clone();
        }
    }
    let var = |k: usize| {
        key[k]
            .clone()
            .map(PathBuf::from)
            .filter(|p| p.is_absolute())
    };
    let home = var(0);
    let folder = |xdg: usize, fallback: &[&str]| {
        var(xdg)
            .or_else(|| {
                home.as_ref()
                    .map(|h| fallback.iter().fold(h.clone(), |p, f| p.join(f)))
            })
            .map(|base| canonical_prefix(&base.join("salve")))
    };
    let folders: Vec<PathBuf> = [folder(1, &[".config"]), folder(2, &[".local", "share"])]
        .into_iter()
        .flatten()
        .collect();
    *cache = Some((key, folders.clone()));
    folders
}

/// `path` with its longest existing ancestor made canonical (symlinks followed), the rest as
/// written: a folder that does not exist yet is still compared where it would be.
pub(crate) fn canonical_prefix(path: &Path) -> PathBuf {
    let mut rest = Vec::new();
    let mut at = path;
    loop {
        if let Ok(real) = std::fs::canonicalize(at) {
            return rest.iter().rev().fold(real, |p, part| p.join(part));
        }
        match (at.parent(), at.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_os_string());
                at = parent;
            }
            _ => return path.to_path_buf(),
        }
    }
}

/// The size and object id a Git LFS pointer file at `path` names, when it is one (a small file
/// in the pointer format; see the LFS specification).
fn lfs_pointer(path: &Path) -> Option<(String, String)> {
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() || meta.len() > 1024 {
        return None;
    }
    let text = std::fs::read_to_string(path).ok()?;
    let mut lines = text.lines();
    if !lines
        .next()?
        .starts_with("version https://git-lfs.github.com/spec/")
    {
        return None;
    }
    let (mut size, mut oid) = (None, None);
    for line in lines {
        if let Some(v) = line.strip_prefix("size ") {
            size = Some(v.trim().to_owned());
        } else if let Some(v) = line.strip_prefix("oid ") {
            oid = Some(v.trim().to_owned());
        }
    }
    Some((size?, oid?))
}

/// Why a symlink that cannot be followed is refused: one whose target, read lexically, stays
/// in the tree is dangling; any other leads out.
fn dangling(root: &Path, link_path: &Path, link: &str) -> Rejection {
    let outside = Rejection::Symlink {
        link: link.to_owned(),
    };
    let Ok(target) = std::fs::read_link(link_path) else {
        return outside;
    };
    let base = link_path.parent().unwrap_or(root);
    let mut resolved = if target.is_absolute() {
        PathBuf::new()
    } else {
        base.to_path_buf()
    };
    for part in target.components() {
        match part {
            Component::ParentDir => {
                resolved.pop();
            }
            Component::CurDir => {}
            other => resolved.push(other),
        }
    }
    match resolved.strip_prefix(root) {
        Ok(rel) if !rel.as_os_str().is_empty() && !rel.starts_with(".git") => Rejection::Dangling {
            link: link.to_owned(),
        },
        _ => outside,
    }
}

fn relative(root: &Path, path: &Path) -> Option<TreePath> {
    let rel = path.strip_prefix(root).ok()?;
    let parts: Vec<String> = rel
        .components()
        .map(|c| match c {
            Component::Normal(name) => Some(name.to_string_lossy().into_owned()),
            _ => None,
        })
        .collect::<Option<_>>()?;
    if parts.is_empty() {
        return None;
    }
    Some(TreePath(parts.join("/")))
}

/// The canonical form of the work tree root.
pub fn canonical_root(dir: &Path) -> io::Result<PathBuf> {
    let root = std::fs::canonicalize(dir)?;
    if !root.is_dir() {
        return Err(io::Error::new(
            io::ErrorKind::NotADirectory,
            format!("{} is not a directory", dir.display()),
        ));
    }
    Ok(root)
}

/// Where a requested path led.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Resolution {
    /// The file is at the requested path.
    Exact,
    /// No file at the requested path, but exactly one file it can mean.
    Moved(TreePath),
    /// Several files it could mean.
    Ambiguous(Vec<TreePath>),
    /// Nothing it could mean.
    Missing,
}

/// How far resolution may go from the requested path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reach {
    /// Exact, then a unique path suffix, then a unique file name.
    Name,
    /// Exact, then a unique path suffix of at least two components.
    Suffix,
}

/// Resolve `requested` to an existing file. `files` lists the tree's files; it is called only
/// when the exact path does not exist.
pub fn resolve<'a>(
    root: &Path,
    requested: &TreePath,
    reach: Reach,
    files: impl FnOnce() -> &'a [TreePath],
) -> Resolution {
    if requested.under(root).is_file() {
        return Resolution::Exact;
    }
    let files = files();
    let by_suffix: Vec<&TreePath> = files
        .iter()
        .filter(|f| f.ends_with(requested) && *f != requested)
        .collect();
    let min_parts = if reach == Reach::Suffix { 2 } else { 1 };
    if requested.as_str().split('/').count() >= min_parts {
        if let Some(res) = pick(&by_suffix) {
            return res;
        }
    }
    if reach == Reach::Name && requested.parent().is_some() {
        let by_name: Vec<&TreePath> = files
            .iter()
            .filter(|f| f.file_name() == requested.file_name())
            .collect();
        if let Some(res) = pick(&by_name) {
            return res;
        }
    }
    Resolution::Missing
}

/// The files among `files` whose path differs from `requested` in letter case alone: on a
/// case-insensitive file system they are the same file, and a model that writes one usually
/// means the other.
pub fn case_twins(files: &[TreePath], requested: &TreePath) -> Vec<TreePath> {
    let wanted = requested.as_str().to_lowercase();
    files
        .iter()
        .filter(|f| *f != requested && f.as_str().to_lowercase() == wanted)
        .cloned()
        .collect()
}

fn pick(found: &[&TreePath]) -> Option<Resolution> {
    match found {
        [] => None,
        [one] => Some(Resolution::Moved((*one).clone())),
        many => Some(Resolution::Ambiguous(
            many.iter().map(|p| (*p).clone()).collect(),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(raw: &str) -> String {
        match normalize(raw) {
            Ok(p) => p.to_string(),
            Err(e) => format!("rejected: {e:?}"),
        }
    }

    #[test]
    fn lexical_rules() {
        assert_eq!(ok("src/lib.rs"), "src/lib.rs");
        assert_eq!(ok("./src//lib.rs"), "src/lib.rs");
        assert_eq!(ok("crates/../Cargo.toml"), "Cargo.toml");
        assert_eq!(ok("/etc/passwd"), "rejected: Absolute");
        assert_eq!(ok("C:\\x"), "rejected: Absolute");
        assert_eq!(ok("~/x"), "rejected: Absolute");
        assert_eq!(ok("../x"), "rejected: Escapes");
        assert_eq!(ok("crates/../../x"), "rejected: Escapes");
        assert_eq!(ok("a\\..\\..\\x"), "rejected: Escapes");
        assert_eq!(ok(".git/config"), "rejected: GitDir");
        assert_eq!(ok("crates/../.git/config"), "rejected: GitDir");
        assert_eq!(ok("sub/.GIT/hooks/x"), "rejected: GitDir");
        assert_eq!(ok(".git./config"), "rejected: GitDir");
        assert_eq!(ok(".g\u{200c}it/config"), "rejected: GitDir");
        assert_eq!(ok("GIT~1/config"), "rejected: GitDir");
        assert_eq!(ok("a\0b"), "rejected: Nul");
        assert_eq!(ok(""), "rejected: Empty");
        assert_eq!(ok("a/.."), "rejected: Empty");
        assert_eq!(ok(".github/workflows/ci.yml"), ".github/workflows/ci.yml");
        assert_eq!(ok(".gitignore"), ".gitignore");
    }

    #[test]
    fn every_spelling_of_dot_git_is_rejected() {
        for raw in [
            ".git::$INDEX_ALLOCATION/config",
            ".git:$DATA/config",
            ".GIT::$index_allocation/hooks/post-checkout",
            ".git:stream",
            ".git.:$DATA/config",
            ".git. . /config",
            ".git /config",
            "git~1/config",
            "Git~2/config",
            "GIT~1::$INDEX_ALLOCATION/config",
            "\u{FF0E}git/config",
            "\u{FF0E}\u{FF27}\u{FF29}\u{FF34}/config",
            "\u{FE52}git/config",
            ".g\u{200d}i\u{206f}t\u{feff}/config",
            ".\u{200e}GIT\u{202e}/config",
            "sub/.git::$INDEX_ALLOCATION/x",
            "sub\\.git:$DATA\\config",
        ] {
            assert_eq!(ok(raw), "rejected: GitDir", "{raw:?}");
        }
        for fine in [
            ".github/x",
            ".gitmodules",
            ".git-blame-ignore-revs",
            "git/x",
            "git~/x",
            "git~1a/x",
            "x.git/y",
            "\u{FF0E}github/x",
        ] {
            assert_eq!(ok(fine), fine, "{fine:?}");
        }
    }

    #[test]
    fn suffix_match_respects_components() {
        let p = |s: &str| TreePath(s.to_owned());
        assert!(p("crates/a/src/lib.rs").ends_with(&p("src/lib.rs")));
        assert!(!p("crates/a/xsrc/lib.rs").ends_with(&p("src/lib.rs")));
        assert!(p("lib.rs").ends_with(&p("lib.rs")));
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_out_of_the_tree_are_rejected() -> io::Result<()> {
        let outside = tempfile::tempdir()?;
        let tree = tempfile::tempdir()?;
        let root = canonical_root(tree.path())?;
        std::fs::create_dir(root.join("real"))?;
        std::fs::write(root.join("real/f.txt"), "x\n")?;
        std::os::unix::fs::symlink(outside.path(), root.join("out"))?;
        std::os::unix::fs::symlink(root.join("real"), root.join("inside"))?;
        std::fs::create_dir(root.join(".git"))?;
        std::os::unix::fs::symlink(root.join(".git"), root.join("g"))?;
        std::os::unix::fs::symlink(root.join("missing"), root.join("dangling"))?;

        assert_eq!(
            guard(&root, "out/evil.sh"),
            Err(Rejection::Symlink { link: "out".into() })
        );
        assert_eq!(guard(&root, "g/config"), Err(Rejection::GitDir));
        assert_eq!(
            guard(&root, "dangling/x"),
            Err(Rejection::Dangling {
                link: "dangling".into()
            })
        );
        std::os::unix::fs::symlink(outside.path().join("gone"), root.join("away"))?;
        assert_eq!(
            guard(&root, "away/x"),
            Err(Rejection::Symlink {
                link: "away".into()
            })
        );
        std::fs::create_dir_all(root.join("vendor/lib/.git"))?;
        assert_eq!(
            guard(&root, "vendor/lib/src/a.rs"),
            Err(Rejection::OtherRepository {
                repository: "vendor/lib".into()
            })
        );
        let g = guard(&root, "inside/f.txt").map_err(|e| io::Error::other(e.to_string()))?;
        assert_eq!(g.real_rel.as_str(), "real/f.txt");
        assert_eq!(g.path.as_str(), "inside/f.txt");
        let new = guard(&root, "new/dir/f.txt").map_err(|e| io::Error::other(e.to_string()))?;
        assert_eq!(new.real, root.join("new/dir/f.txt"));
        Ok(())
    }

    #[test]
    fn resolution_prefers_exact_then_suffix_then_name() -> io::Result<()> {
        let tree = tempfile::tempdir()?;
        let root = canonical_root(tree.path())?;
        let files: Vec<TreePath> = ["a/src/lib.rs", "b/src/main.rs", "b/util.rs", "c/util.rs"]
            .iter()
            .map(|s| TreePath((*s).to_owned()))
            .collect();
        for f in &files {
            let path = f.under(&root);
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent)?;
            }
            std::fs::write(path, "x\n")?;
        }
        let p = |s: &str| TreePath(s.to_owned());
        let list = || files.as_slice();
        assert_eq!(
            resolve(&root, &p("a/src/lib.rs"), Reach::Name, list),
            Resolution::Exact
        );
        assert_eq!(
            resolve(&root, &p("src/lib.rs"), Reach::Name, list),
            Resolution::Moved(p("a/src/lib.rs"))
        );
        assert_eq!(
            resolve(&root, &p("x/main.rs"), Reach::Name, list),
            Resolution::Moved(p("b/src/main.rs"))
        );
        assert_eq!(
            resolve(&root, &p("x/main.rs"), Reach::Suffix, list),
            Resolution::Missing
        );
        assert_eq!(
            resolve(&root, &p("util.rs"), Reach::Name, list),
            Resolution::Ambiguous(vec![p("b/util.rs"), p("c/util.rs")])
        );
        assert_eq!(
            resolve(&root, &p("nope.rs"), Reach::Name, list),
            Resolution::Missing
        );
        Ok(())
    }
}
