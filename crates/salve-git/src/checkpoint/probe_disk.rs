//! The configuration probe's answer (what it allows, the files it came from), and its copy kept
//! on disk between processes.
//!
//! Asking git for its configuration is a process start, and each CLI command is a new process:
//! without this every `salve apply` would pay it. The answer is kept in salve's directory of the
//! work tree's git directory together with what it depends on: the environment git reads its
//! configuration from, and the size and modification time of every configuration file git
//! named (or would read). Any difference, a missing or unreadable cache, and git is asked again.
//! The file is a cache: written atomically, never trusted past a mismatch, and losing it only
//! costs one git process.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use sha1::{Digest as _, Sha1};

use crate::odb::hex;

pub(super) type Stamp = Vec<(PathBuf, Option<(SystemTime, u64)>)>;

/// What the configuration allows, and the files it came from.
#[derive(Clone, Debug)]
pub(crate) struct Probe {
    pub allowed: bool,
    pub attributes_file: Option<PathBuf>,
    /// Whether the untracked listing may be made in process (see `crate::untracked`).
    pub lists: bool,
    /// `core.excludesFile` as set in the global or system configuration, expanded.
    pub excludes_file: Option<PathBuf>,
    pub stamp: Stamp,
}

impl Probe {
    /// True while every file it came from is as it was.
    pub fn is_current(&self) -> bool {
        stamp(self.stamp.iter().map(|(p, _)| p.clone())) == self.stamp
    }
}

/// The size and modification time of each of `paths` (`None`: absent or unreadable).
pub(super) fn stamp(paths: impl Iterator<Item = PathBuf>) -> Stamp {
    paths
        .map(|path| {
            let seen = std::fs::metadata(&path)
                .ok()
                .and_then(|m| Some((m.modified().ok()?, m.len())));
            (path, seen)
        })
        .collect()
}

const FILE: &str = "config-probe";
const HEADER: &str = "salve-config-probe 2";

/// What git's configuration depends on besides files: a change of any of these is a new key.
const ENV: &[&str] = &[
    "HOME",
    "XDG_CONFIG_HOME",
    "PATH",
    "GIT_CONFIG",
    "GIT_CONFIG_NOSYSTEM",
    "GIT_CONFIG_SYSTEM",
    "GIT_CONFIG_GLOBAL",
    "GIT_CONFIG_COUNT",
    "GIT_CONFIG_PARAMETERS",
];

/// A key for the environment this process reads configuration under (the `GIT_CONFIG_KEY_<n>`
/// and `GIT_CONFIG_VALUE_<n>` pairs included).
fn env_key(root: &Path) -> String {
    let mut hasher = Sha1::new();
    hasher.update(root.as_os_str().as_encoded_bytes());
    let mut vars: Vec<(std::ffi::OsString, std::ffi::OsString)> = std::env::vars_os()
        .filter(|(k, _)| {
            let k = k.to_string_lossy();
            ENV.contains(&k.as_ref())
                || k.starts_with("GIT_CONFIG_KEY_")
                || k.starts_with("GIT_CONFIG_VALUE_")
        })
        .collect();
    vars.sort();
    for (k, v) in vars {
        hasher.update(b"\0");
        hasher.update(k.as_encoded_bytes());
        hasher.update(b"=");
        hasher.update(v.as_encoded_bytes());
    }
    hex(&hasher.finalize())
}

/// The probe kept in `dir` for `root`, when it is still the answer.
pub(super) fn load(dir: &Path, root: &Path) -> Option<Probe> {
    let text = std::fs::read_to_string(dir.join(FILE)).ok()?;
    let mut lines = text.lines();
    if lines.next()? != HEADER || lines.next()?.strip_prefix("key ")? != env_key(root) {
        return None;
    }
    let allowed = match lines.next()? {
        "allowed 1" => true,
        "allowed 0" => false,
        _ => return None,
    };
    let lists = match lines.next()? {
        "lists 1" => true,
        "lists 0" => false,
        _ => return None,
    };
    let mut attributes_file = None;
    let mut excludes_file = None;
    let mut stamp: Stamp = Vec::new();
    for line in lines {
        if let Some(path) = line.strip_prefix("attributes ") {
            attributes_file = Some(PathBuf::from(path));
        } else if let Some(path) = line.strip_prefix("excludes ") {
            excludes_file = Some(PathBuf::from(path));
        } else if let Some(rest) = line.strip_prefix("watch ") {
            let (seen, path) = rest.split_once(' ').and_then(|(time, rest)| {
                let (len, path) = rest.split_once(' ')?;
                Some((parse_seen(time, len)?, PathBuf::from(path)))
            })?;
            stamp.push((path, seen));
        } else {
            return None;
        }
    }
    let probe = Probe {
        allowed,
        attributes_file,
        lists,
        excludes_file,
        stamp,
    };
    probe.is_current().then_some(probe)
}

fn parse_seen(time: &str, len: &str) -> Option<Option<(SystemTime, u64)>> {
    if time == "-" {
        return Some(None);
    }
    let (secs, nanos) = time.split_once('.')?;
    let at = UNIX_EPOCH + Duration::new(secs.parse().ok()?, nanos.parse().ok()?);
    Some(Some((at, len.parse().ok()?)))
}

/// Keep `probe` in `dir` for `root`. Best effort: a cache that cannot be written is asked for
/// again next time.
pub(super) fn save(dir: &Path, root: &Path, probe: &Probe) {
    let Some(text) = render(root, probe) else {
        return;
    };
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let temp = dir.join(format!("{FILE}.tmp-{}-{nanos}", std::process::id()));
    let written = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&temp)
        .and_then(|mut f| f.write_all(text.as_bytes()))
        .and_then(|()| std::fs::rename(&temp, dir.join(FILE)));
    if written.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
}

fn render(root: &Path, probe: &Probe) -> Option<String> {
    let mut text = format!(
        "{HEADER}\nkey {}\nallowed {}\nlists {}\n",
        env_key(root),
        u8::from(probe.allowed),
        u8::from(probe.lists)
    );
    let line_safe = |p: &Path| p.to_str().filter(|s| !s.contains('\n')).map(str::to_owned);
    if let Some(path) = &probe.attributes_file {
        text.push_str(&format!("attributes {}\n", line_safe(path)?));
    }
    if let Some(path) = &probe.excludes_file {
        text.push_str(&format!("excludes {}\n", line_safe(path)?));
    }
    for (path, seen) in &probe.stamp {
        let path = line_safe(path)?;
        match seen {
            Some((at, len)) => {
                let since = at.duration_since(UNIX_EPOCH).ok()?;
                text.push_str(&format!(
                    "watch {}.{} {len} {path}\n",
                    since.as_secs(),
                    since.subsec_nanos()
                ));
            }
            None => text.push_str(&format!("watch - - {path}\n")),
        }
    }
    Some(text)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    fn probe_of(files: &[PathBuf], allowed: bool) -> Probe {
        let stamp = files
            .iter()
            .map(|p| {
                let seen = std::fs::metadata(p)
                    .ok()
                    .map(|m| (m.modified().unwrap(), m.len()));
                (p.clone(), seen)
            })
            .collect();
        Probe {
            allowed,
            attributes_file: Some(PathBuf::from("/nowhere/attributes")),
            lists: !allowed,
            excludes_file: Some(PathBuf::from("/nowhere/ignore")),
            stamp,
        }
    }

    #[test]
    fn a_kept_probe_holds_until_a_watched_file_or_the_work_tree_differs() {
        let temp = tempfile::tempdir().unwrap();
        let (dir, root) = (temp.path(), Path::new("/some/tree"));
        let config = dir.join("config");
        std::fs::write(&config, "[core]\n").unwrap();
        let absent = dir.join("absent");
        save(
            dir,
            root,
            &probe_of(&[config.clone(), absent.clone()], false),
        );
        let loaded = load(dir, root).expect("the probe just kept");
        assert!(!loaded.allowed);
        assert!(loaded.lists);
        assert_eq!(loaded.excludes_file, Some(PathBuf::from("/nowhere/ignore")));
        assert_eq!(
            loaded.attributes_file,
            Some(PathBuf::from("/nowhere/attributes"))
        );
        assert_eq!(loaded.stamp.len(), 2);
        assert!(
            load(dir, Path::new("/other/tree")).is_none(),
            "another tree"
        );

        std::fs::write(&absent, "[core]\n\tautocrlf = true\n").unwrap();
        assert!(load(dir, root).is_none(), "a watched file appeared");
        save(
            dir,
            root,
            &probe_of(&[config.clone(), absent.clone()], true),
        );
        assert!(load(dir, root).is_some_and(|p| p.allowed));
        std::fs::write(&config, "[core]\n\tfilemode = false\n").unwrap();
        assert!(load(dir, root).is_none(), "a watched file changed");

        std::fs::write(dir.join(FILE), "salve-config-probe 2\nkey x\nallowed 2\n").unwrap();
        assert!(load(dir, root).is_none(), "garbage is not a probe");
        let leftovers: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().contains(".tmp-"))
            .collect();
        assert!(leftovers.is_empty(), "no temporary file is left");
    }
}
