//! Paths as git prints them (raw bytes, `/`-separated, relative to the work tree root) and back.
//!
//! File names may hold spaces, newlines or bytes that are not UTF-8; salve passes them to git on
//! stdin with `-z` and reads them with `-z`, so they survive exactly on Unix. Elsewhere they go
//! through lossy UTF-8, which is the best the platform's `OsStr` allows without `unsafe`.

use std::path::{Path, PathBuf};

/// A path from git's `-z` output.
pub fn path_from_bytes(bytes: &[u8]) -> PathBuf {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        PathBuf::from(std::ffi::OsStr::from_bytes(bytes))
    }
    #[cfg(not(unix))]
    {
        PathBuf::from(String::from_utf8_lossy(bytes).into_owned())
    }
}

/// The bytes git expects for a work-tree-relative path (`/`-separated).
pub fn path_to_bytes(path: &Path) -> Vec<u8> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        path.as_os_str().as_bytes().to_vec()
    }
    #[cfg(not(unix))]
    {
        path.to_string_lossy().replace('\\', "/").into_bytes()
    }
}

/// NUL-terminated paths for `--stdin -z` or `--pathspec-file-nul`.
pub fn nul_list<'a>(paths: impl IntoIterator<Item = &'a Path>) -> Vec<u8> {
    nul_terminated(paths.into_iter().map(path_to_bytes))
}

/// Each record followed by a NUL, for git's `-z` style inputs.
pub fn nul_terminated(records: impl IntoIterator<Item = Vec<u8>>) -> Vec<u8> {
    let mut out = Vec::new();
    for record in records {
        out.extend_from_slice(&record);
        out.push(0);
    }
    out
}

/// A pathspec matching exactly `path`, whatever characters it holds.
pub fn literal_pathspec(path: &Path) -> Vec<u8> {
    let mut spec = b":(literal)".to_vec();
    spec.extend_from_slice(&path_to_bytes(path));
    spec
}

/// A pathspec excluding exactly `path` (and everything under it when it is a directory).
pub fn exclude_pathspec(path: &Path) -> Vec<u8> {
    let mut spec = b":(exclude,literal)".to_vec();
    spec.extend_from_slice(&path_to_bytes(path));
    spec
}
