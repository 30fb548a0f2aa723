//! Replay cassettes: recorded replies that answer without a network, keyed by a hash of the
//! normalized prompt, so runs are reproducible in CI and the bundled example needs no model.
//!
//! A cassette is JSON Lines, one [`Entry`] per line:
//!
//! ```text
//! {"prompt_hash":"<sha256 hex>","reply":"...","provider":"claude","model":"..."}
//! ```
//!
//! The prompt is normalized before hashing ([`normalize`]: `\r\n` to `\n`, trailing whitespace
//! of every line and blank lines at both ends removed), so a cassette survives an editor's
//! whitespace fixes but not a change of content. For a follow-up the hashed text is the whole
//! conversation ([`Request::flatten`]). When a hash appears twice the later line wins, so
//! recording again over a cassette updates it. [`Recording`] wraps any provider and appends an
//! entry for each reply it returns; replies are redacted before they are written.

use std::fs::OpenOptions;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::provider::{Failure, FailureKind, Meta, Provider, ProviderKind, Reply, Request};
use crate::secret::redact;

/// One recorded reply.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    pub prompt_hash: String,
    pub reply: String,
    /// The provider that gave the reply when it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
}

/// The prompt as it is hashed; see the module docs.
pub fn normalize(prompt: &str) -> String {
    let lines: Vec<&str> = prompt
        .split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l).trim_end())
        .collect();
    let first = lines.iter().position(|l| !l.is_empty()).unwrap_or(0);
    let last = lines
        .iter()
        .rposition(|l| !l.is_empty())
        .map_or(0, |i| i + 1);
    lines.get(first..last).unwrap_or(&[]).join("\n")
}

/// The key of `request` in a cassette: SHA-256 of the normalized, flattened prompt, in hex.
pub fn prompt_hash(request: &Request) -> String {
    let digest = Sha256::digest(normalize(&request.flatten()).as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// Read a cassette. A missing file or a line that is not an entry is a configuration failure.
pub fn load(path: &Path) -> Result<Vec<Entry>, Failure> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        Failure::new(
            FailureKind::Config,
            format!("cannot read the cassette {}: {e}", path.display()),
        )
    })?;
    let mut entries = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let entry: Entry = serde_json::from_str(line).map_err(|e| {
            Failure::new(
                FailureKind::Config,
                format!("cassette {} line {}: {e}", path.display(), i + 1),
            )
        })?;
        entries.push(entry);
    }
    Ok(entries)
}

/// Answers from a cassette.
#[derive(Clone, Debug)]
pub struct ReplayProvider {
    name: String,
    path: PathBuf,
}

impl ReplayProvider {
    pub fn new(name: impl Into<String>, path: impl Into<PathBuf>) -> ReplayProvider {
        ReplayProvider {
            name: name.into(),
            path: path.into(),
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Provider for ReplayProvider {
    fn name(&self) -> &str {
        &self.name
    }

    fn kind(&self) -> ProviderKind {
        ProviderKind::Replay
    }

    fn complete(&self, request: &Request) -> Result<Reply, Failure> {
        let start = Instant::now();
        let hash = prompt_hash(request);
        let entries = load(&self.path)?;
        let Some(entry) = entries.into_iter().rev().find(|e| e.prompt_hash == hash) else {
            return Err(Failure::new(
                FailureKind::ReplayMiss,
                format!(
                    "the cassette {} has no reply for this prompt (hash {}); record one with --record",
                    self.path.display(),
                    &hash[..12]
                ),
            ));
        };
        Ok(Reply {
            text: entry.reply,
            meta: Meta::new(&self.name, ProviderKind::Replay, entry.model.as_deref()).timed(start),
        })
    }
}

/// Any provider, with every reply it returns appended to a cassette.
pub struct Recording {
    inner: Arc<dyn Provider>,
    path: PathBuf,
    // One writer at a time, so lines never interleave.
    lock: Mutex<()>,
}

impl Recording {
    /// Wrap `inner`. The cassette (and its directory) is created now, so a path that cannot be
    /// written fails before any model is paid for.
    pub fn new(inner: Arc<dyn Provider>, path: impl Into<PathBuf>) -> std::io::Result<Recording> {
        let path = path.into();
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)?;
        }
        OpenOptions::new().create(true).append(true).open(&path)?;
        Ok(Recording {
            inner,
            path,
            lock: Mutex::new(()),
        })
    }

    fn append(&self, entry: &Entry) -> std::io::Result<()> {
        let _guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        let mut line = serde_json::to_string(entry).map_err(std::io::Error::other)?;
        line.push('\n');
        let mut file = OpenOptions::new().append(true).open(&self.path)?;
        file.write_all(line.as_bytes())
    }
}

impl Provider for Recording {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn kind(&self) -> ProviderKind {
        self.inner.kind()
    }

    fn model(&self) -> Option<&str> {
        self.inner.model()
    }

    fn complete(&self, request: &Request) -> Result<Reply, Failure> {
        self.complete_observed(request, &mut |_| {})
    }

    fn complete_observed(
        &self,
        request: &Request,
        notice: &mut dyn FnMut(&str),
    ) -> Result<Reply, Failure> {
        let reply = self.inner.complete_observed(request, notice)?;
        let entry = Entry {
            prompt_hash: prompt_hash(request),
            reply: redact(&reply.text),
            provider: Some(reply.meta.provider.clone()),
            model: reply.meta.model.clone(),
        };
        self.append(&entry).map_err(|e| {
            Failure::new(
                FailureKind::Config,
                format!("cannot append to the cassette {}: {e}", self.path.display()),
            )
        })?;
        Ok(reply)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalization_ignores_whitespace_at_line_ends_and_around() {
        assert_eq!(normalize("\n\n a  \r\nb\t\n\n"), " a\nb");
        let a = Request::new("fix the bug\r\n");
        let b = Request::new("\nfix the bug   \n\n");
        assert_eq!(prompt_hash(&a), prompt_hash(&b));
        assert_ne!(prompt_hash(&a), prompt_hash(&Request::new("fix the bugs")));
        assert_eq!(prompt_hash(&a).len(), 64);
    }
}
