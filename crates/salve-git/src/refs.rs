//! Reading and compare-and-swap of refs stored as files, without a git process.
//!
//! A checkpoint reads HEAD and the catalog ref and moves the catalog ref; each git process for
//! that costs milliseconds. Refs stored as files are simple: a loose file `refs/...` holding an
//! id, else a line of `packed-refs`. Moving one follows git's own protocol: create
//! `<ref>.lock` exclusively (a concurrent git or salve waits or fails on it), check the current
//! value, write the new one into the lock and rename it over the ref. Anything unusual (a
//! reftable store, a symbolic ref where an id is expected) answers "unknown", and the caller
//! asks git instead.

use std::io::Write as _;
use std::path::Path;

use crate::cmd::GitError;

/// What a ref holds, as far as the files tell.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Value {
    /// An object id.
    Id(String),
    /// Another ref (`ref: refs/heads/main`), for HEAD.
    Symbolic(String),
    /// No such ref.
    Absent,
    /// The files cannot say; ask git.
    Unknown,
}

/// The value of `name` (`refs/...`, or `HEAD` relative to a work tree's git directory) in
/// `dir`, falling back to `common`'s `packed-refs` for refs that are not loose.
pub(crate) fn read(dir: &Path, common: &Path, name: &str) -> Value {
    if common.join("reftable").exists() {
        return Value::Unknown;
    }
    match std::fs::read(dir.join(name)) {
        Ok(bytes) => return parse_loose(&bytes),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        // A directory where the ref would be, or an unreadable file.
        Err(_) => return Value::Unknown,
    }
    match std::fs::read(common.join("packed-refs")) {
        Ok(packed) => find_packed(&packed, name),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Value::Absent,
        Err(_) => Value::Unknown,
    }
}

fn parse_loose(bytes: &[u8]) -> Value {
    let text = String::from_utf8_lossy(bytes);
    let text = text.trim();
    if let Some(target) = text.strip_prefix("ref:") {
        return Value::Symbolic(target.trim().to_owned());
    }
    if is_id(text) {
        Value::Id(text.to_owned())
    } else {
        Value::Unknown
    }
}

fn find_packed(packed: &[u8], name: &str) -> Value {
    for line in String::from_utf8_lossy(packed).lines() {
        if line.starts_with('#') || line.starts_with('^') {
            continue;
        }
        if let Some((id, refname)) = line.split_once(' ') {
            if refname == name {
                return if is_id(id) {
                    Value::Id(id.to_owned())
                } else {
                    Value::Unknown
                };
            }
        }
    }
    Value::Absent
}

fn is_id(text: &str) -> bool {
    matches!(text.len(), 40 | 64) && text.bytes().all(|b| b.is_ascii_hexdigit())
}

/// The outcome of [`swap`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Swap {
    Done,
    /// The ref was not at the expected value, or another writer held its lock.
    Lost,
    /// The files cannot be trusted here; ask git.
    Unknown,
}

/// Point the ref `name` of `common` at `new` if it is at `old` now (`None`: absent).
pub(crate) fn swap(common: &Path, name: &str, old: Option<&str>, new: &str) -> Swap {
    let path = common.join(name);
    let lock = common.join(format!("{name}.lock"));
    if let Some(parent) = path.parent() {
        if std::fs::create_dir_all(parent).is_err() {
            return Swap::Unknown;
        }
    }
    let mut file = match std::fs::File::options()
        .write(true)
        .create_new(true)
        .open(&lock)
    {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => return Swap::Lost,
        Err(_) => return Swap::Unknown,
    };
    let outcome = (|| {
        let current = match read(common, common, name) {
            Value::Id(id) => Some(id),
            Value::Absent => None,
            Value::Symbolic(_) | Value::Unknown => return Ok(Swap::Unknown),
        };
        if current.as_deref() != old {
            return Ok(Swap::Lost);
        }
        file.write_all(format!("{new}\n").as_bytes())?;
        drop(file);
        std::fs::rename(&lock, &path)?;
        Ok::<_, std::io::Error>(Swap::Done)
    })();
    match outcome {
        Ok(Swap::Done) => Swap::Done,
        Ok(other) => {
            let _ = std::fs::remove_file(&lock);
            other
        }
        Err(_) => {
            let _ = std::fs::remove_file(&lock);
            Swap::Unknown
        }
    }
}

/// [`GitError`] for a ref the files could not move.
pub(crate) fn lost(name: &str) -> GitError {
    GitError::Failed {
        args: format!("update-ref {name} (in process)"),
        code: 1,
        stderr: format!("{name} changed while salve was writing it"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_loose_packed_and_symbolic_refs() {
        let id = "a".repeat(40);
        assert_eq!(
            parse_loose(format!("{id}\n").as_bytes()),
            Value::Id(id.clone())
        );
        assert_eq!(
            parse_loose(b"ref: refs/heads/main\n"),
            Value::Symbolic("refs/heads/main".into())
        );
        let packed = format!(
            "# pack-refs with: peeled fully-peeled sorted\n{id} refs/salve/catalog\n^{id}\n"
        );
        assert_eq!(
            find_packed(packed.as_bytes(), "refs/salve/catalog"),
            Value::Id(id)
        );
        assert_eq!(
            find_packed(packed.as_bytes(), "refs/heads/x"),
            Value::Absent
        );
    }
}
