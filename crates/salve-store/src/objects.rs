//! Content-addressed artifacts: `objects/<first 2 hex>/<other 62 hex>` of the SHA-256 of the
//! bytes, like git's loose objects.
//!
//! A write goes to a temporary file in the same directory, is flushed to disk, then renamed over
//! the final name, so a reader (or a crash) sees the whole object or none. Content already stored
//! is not written again; its modification time is refreshed instead, because `salve gc` spares
//! recent objects to avoid racing a writer that has stored an object but not yet recorded it.

use std::fs::{self, File};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::SystemTime;

use sha2::{Digest, Sha256};

use crate::error::{Result, StoreError};

/// Prefix of temporary files; `salve gc` removes stale ones.
pub(crate) const TEMP_PREFIX: &str = "tmp-";

/// A file found in the object directory.
#[derive(Clone, Debug)]
pub(crate) struct StoredFile {
    /// The object's name; `None` for a temporary file.
    pub sha: Option<String>,
    pub path: PathBuf,
    pub mtime: Option<SystemTime>,
}

/// The object directory.
#[derive(Clone, Debug)]
pub struct Objects {
    dir: PathBuf,
}

/// The SHA-256 of `bytes` as 64 lowercase hex digits.
pub fn sha256_hex(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let mut out = String::with_capacity(64);
    for b in digest {
        out.push(char::from(HEX[usize::from(b >> 4)]));
        out.push(char::from(HEX[usize::from(b & 15)]));
    }
    out
}

const HEX: &[u8; 16] = b"0123456789abcdef";

/// Whether `text` is a well-formed object name; anything else never reaches the file system.
pub fn is_sha256(text: &str) -> bool {
    text.len() == 64 && text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

impl Objects {
    pub fn new(dir: impl Into<PathBuf>) -> Objects {
        Objects { dir: dir.into() }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Where the object named `sha` lives (whether or not it exists).
    pub fn path(&self, sha: &str) -> Result<PathBuf> {
        if !is_sha256(sha) {
            return Err(StoreError::Invalid(format!("`{sha}` is not a SHA-256")));
        }
        Ok(self.dir.join(&sha[..2]).join(&sha[2..]))
    }

    /// Store `bytes`; returns their SHA-256. Stores each content once.
    pub fn put(&self, bytes: &[u8]) -> Result<String> {
        let sha = sha256_hex(bytes);
        let path = self.path(&sha)?;
        if fs::metadata(&path).is_ok_and(|m| m.len() == bytes.len() as u64) {
            // Refreshing the time is best effort: failing it only narrows gc's grace period.
            let _ = File::options()
                .append(true)
                .open(&path)
                .and_then(|f| f.set_modified(SystemTime::now()));
            return Ok(sha);
        }
        let parent = path
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_else(|| self.dir.clone());
        fs::create_dir_all(&parent)
            .map_err(|e| StoreError::io(format!("creating {}", parent.display()), e))?;
        let temp = parent.join(temp_name());
        let written = (|| {
            let mut f = File::options().write(true).create_new(true).open(&temp)?;
            f.write_all(bytes)?;
            f.sync_all()?;
            fs::rename(&temp, &path)
        })();
        if let Err(e) = written {
            let _ = fs::remove_file(&temp);
            return Err(StoreError::io(format!("writing {}", path.display()), e));
        }
        Ok(sha)
    }

    /// The bytes of the object named `sha`, checked against their name.
    pub fn get(&self, sha: &str) -> Result<Vec<u8>> {
        let path = self.path(sha)?;
        let bytes = match fs::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(StoreError::MissingObject(sha.to_owned()))
            }
            Err(e) => return Err(StoreError::io(format!("reading {}", path.display()), e)),
        };
        if sha256_hex(&bytes) != sha {
            return Err(StoreError::Invalid(format!(
                "object {} is corrupt: its content does not match its name",
                path.display()
            )));
        }
        Ok(bytes)
    }

    pub fn contains(&self, sha: &str) -> bool {
        self.path(sha).is_ok_and(|p| p.is_file())
    }

    /// Every stored object and every temporary file left by an interrupted write.
    pub(crate) fn scan(&self) -> Result<Vec<StoredFile>> {
        let mut out = Vec::new();
        let top = match fs::read_dir(&self.dir) {
            Ok(rd) => rd,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(out),
            Err(e) => return Err(StoreError::io(format!("listing {}", self.dir.display()), e)),
        };
        for fan in top.flatten() {
            let fan_name = fan.file_name().to_string_lossy().into_owned();
            if !fan.path().is_dir() {
                continue;
            }
            let rd = fs::read_dir(fan.path())
                .map_err(|e| StoreError::io(format!("listing {}", fan.path().display()), e))?;
            for entry in rd.flatten() {
                let name = entry.file_name().to_string_lossy().into_owned();
                let mtime = entry.metadata().ok().and_then(|m| m.modified().ok());
                let sha = format!("{fan_name}{name}");
                let id = if name.starts_with(TEMP_PREFIX) {
                    None
                } else if is_sha256(&sha) {
                    Some(sha)
                } else {
                    // Not ours; leave it alone.
                    continue;
                };
                out.push(StoredFile {
                    sha: id,
                    path: entry.path(),
                    mtime,
                });
            }
        }
        Ok(out)
    }
}

fn temp_name() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    format!(
        "{TEMP_PREFIX}{}-{}-{nanos}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    )
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn same_content_is_stored_once() {
        let tmp = tempfile::tempdir().unwrap();
        let objects = Objects::new(tmp.path().join("objects"));
        let a = objects.put(b"hello\n").unwrap();
        let b = objects.put(b"hello\n").unwrap();
        assert_eq!(a, b);
        assert_eq!(
            a,
            "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03"
        );
        let files = objects.scan().unwrap();
        assert_eq!(files.len(), 1);
        assert_eq!(files[0].sha.as_deref(), Some(a.as_str()));
        assert_eq!(objects.get(&a).unwrap(), b"hello\n");
        assert!(objects
            .path(&a)
            .unwrap()
            .ends_with(format!("58/{}", &a[2..])));
    }

    #[test]
    fn bad_names_and_corruption_are_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let objects = Objects::new(tmp.path());
        assert!(objects.get("../../etc/passwd").is_err());
        let sha = objects.put(b"data").unwrap();
        fs::write(objects.path(&sha).unwrap(), b"tampered").unwrap();
        let err = objects.get(&sha).unwrap_err();
        assert!(err.to_string().contains("corrupt"), "{err}");
        let missing = sha256_hex(b"never stored");
        assert!(matches!(
            objects.get(&missing),
            Err(StoreError::MissingObject(_))
        ));
    }
}
