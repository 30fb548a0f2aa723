//! Moving records between machines and into other tools: JSON Lines, one run per line.
//!
//! Each line is an [`ExportedRun`]: `{"salve_export": 1, "run": {...}, "patch_sets": [...],
//! "attempts": [...], "decisions": [...], "artifacts": [...], "objects": [...]}`. Artifacts carry
//! their content (UTF-8 text as is, anything else in base64) so an import needs nothing else;
//! `objects` holds the content of patch-set diffs that no named artifact already carries. The
//! shape is documented in the README and only ever grows: readers ignore fields they do not know.
//!
//! Importing is all or nothing (one transaction), verifies every content against its SHA-256,
//! and skips runs already present, so importing the same file twice changes nothing.

use std::collections::BTreeSet;
use std::io::{BufRead, Write};

use rusqlite::{params, OptionalExtension as _};
use serde::{Deserialize, Serialize};

use crate::error::{Result, StoreError};
use crate::id::ID_LEN;
use crate::model::{status, Attempt, Decision, PatchSet, Run, RunRecord};
use crate::objects::{is_sha256, sha256_hex};
use crate::record::{insert_artifact, insert_attempt, insert_decision, insert_patch_set, json};
use crate::Store;

/// The export format version written in every line.
pub const EXPORT_VERSION: u32 = 1;

/// One line of an export.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ExportedRun {
    pub salve_export: u32,
    pub run: Run,
    #[serde(default)]
    pub patch_sets: Vec<PatchSet>,
    #[serde(default)]
    pub attempts: Vec<Attempt>,
    #[serde(default)]
    pub decisions: Vec<Decision>,
    #[serde(default)]
    pub artifacts: Vec<ExportedArtifact>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub objects: Vec<ExportedObject>,
}

/// How a content is written in JSON.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Encoding {
    Utf8,
    Base64,
}

/// A named artifact with its content.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExportedArtifact {
    pub name: String,
    pub sha256: String,
    pub size: u64,
    pub encoding: Encoding,
    pub content: String,
}

/// A content referenced by a patch set but by no named artifact.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExportedObject {
    pub sha256: String,
    pub encoding: Encoding,
    pub content: String,
}

/// What an import did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ImportStats {
    pub imported: usize,
    /// Runs already present (same id), left as they were.
    pub skipped: usize,
}

fn encode(bytes: &[u8]) -> (Encoding, String) {
    match std::str::from_utf8(bytes) {
        Ok(text) => (Encoding::Utf8, text.to_owned()),
        Err(_) => (Encoding::Base64, base64_encode(bytes)),
    }
}

fn decode(encoding: Encoding, content: &str) -> Option<Vec<u8>> {
    match encoding {
        Encoding::Utf8 => Some(content.as_bytes().to_vec()),
        Encoding::Base64 => base64_decode(content),
    }
}

impl Store {
    /// Write the runs `ids` (in the order given) as JSON Lines.
    pub fn export(&self, ids: &[String], out: &mut dyn Write) -> Result<()> {
        for id in ids {
            let line = self.exported(id)?;
            let text = serde_json::to_string(&line)
                .map_err(|e| StoreError::Invalid(format!("encoding run {id}: {e}")))?;
            writeln!(out, "{text}").map_err(|e| StoreError::io("writing the export", e))?;
        }
        Ok(())
    }

    /// Every run id, oldest first.
    pub fn all_ids(&self) -> Result<Vec<String>> {
        self.strings("SELECT id FROM runs ORDER BY id")
    }

    /// The export line of one run.
    pub fn exported(&self, id: &str) -> Result<ExportedRun> {
        let RunRecord {
            run,
            patch_sets,
            attempts,
            decisions,
            artifacts,
        } = self.record(id)?;
        let mut carried = BTreeSet::new();
        let mut out_artifacts = Vec::with_capacity(artifacts.len());
        for a in artifacts {
            let (encoding, content) = encode(&self.content(&a.sha256)?);
            carried.insert(a.sha256.clone());
            out_artifacts.push(ExportedArtifact {
                name: a.name,
                sha256: a.sha256,
                size: a.size,
                encoding,
                content,
            });
        }
        let mut objects = Vec::new();
        for sha in patch_sets.iter().filter_map(|p| p.diff_sha256.as_ref()) {
            if carried.insert(sha.clone()) {
                let (encoding, content) = encode(&self.content(sha)?);
                objects.push(ExportedObject {
                    sha256: sha.clone(),
                    encoding,
                    content,
                });
            }
        }
        Ok(ExportedRun {
            salve_export: EXPORT_VERSION,
            run,
            patch_sets,
            attempts,
            decisions,
            artifacts: out_artifacts,
            objects,
        })
    }

    /// Read JSON Lines written by [`export`](Self::export) and add the runs not yet present.
    /// Nothing is imported when any line is bad.
    pub fn import(&mut self, input: &mut dyn BufRead) -> Result<ImportStats> {
        let mut runs = Vec::new();
        for (i, line) in input.lines().enumerate() {
            let line = line.map_err(|e| StoreError::io("reading the import", e))?;
            if line.trim().is_empty() {
                continue;
            }
            let bad = |message: String| StoreError::Import {
                line: i + 1,
                message,
            };
            let run: ExportedRun = serde_json::from_str(&line).map_err(|e| bad(e.to_string()))?;
            let contents = validate(&run).map_err(bad)?;
            runs.push((run, contents));
        }
        // Large contents first: an object without a row is harmless (gc removes it), a row
        // without its object is not. Small ones go in with the rows (see `contents`).
        let mut kept = Vec::new();
        for (_, contents) in &runs {
            for bytes in contents {
                kept.push(self.prepare_content(bytes)?);
            }
        }
        self.in_transaction(|tx| {
            let mut stats = ImportStats::default();
            for content in &kept {
                crate::contents::keep(tx, content)?;
            }
            for (line, _) in &runs {
                let r = &line.run;
                let exists = tx
                    .query_row("SELECT 1 FROM runs WHERE id = ?1", [&r.id], |_| Ok(()))
                    .optional()?
                    .is_some();
                if exists {
                    stats.skipped += 1;
                    continue;
                }
                let to_sql = |e: StoreError| rusqlite::Error::ToSqlConversionFailure(Box::new(e));
                let command = json(&r.command).map_err(to_sql)?;
                let budgets = r.budgets.as_ref().map(json).transpose().map_err(to_sql)?;
                // No pid: a run still marked running here reads as interrupted, since the
                // process that owned it belongs to another machine or another time.
                tx.execute(
                    "INSERT INTO runs (id, kind, command, baseline, checkpoint, started_ms, \
                     ended_ms, status, message, budgets, files, added, removed, rewound_by) \
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
                    params![
                        r.id,
                        r.kind.as_str(),
                        command,
                        r.baseline,
                        r.checkpoint,
                        r.started_at.0,
                        r.ended_at.map(|t| t.0),
                        r.status,
                        r.message,
                        budgets,
                        r.files as i64,
                        r.added as i64,
                        r.removed as i64,
                        r.rewound_by
                    ],
                )?;
                for p in &line.patch_sets {
                    insert_patch_set(tx, &r.id, p.seq, p)?;
                }
                for a in &line.attempts {
                    insert_attempt(tx, &r.id, a.seq, a)?;
                }
                for d in &line.decisions {
                    insert_decision(tx, &r.id, d.seq, d)?;
                }
                for a in &line.artifacts {
                    insert_artifact(
                        tx,
                        &r.id,
                        &crate::model::Artifact {
                            name: a.name.clone(),
                            sha256: a.sha256.clone(),
                            size: a.size,
                        },
                    )?;
                }
                stats.imported += 1;
            }
            Ok(stats)
        })
    }
}

/// Check one line and decode its contents.
fn validate(line: &ExportedRun) -> std::result::Result<Vec<Vec<u8>>, String> {
    if line.salve_export == 0 || line.salve_export > EXPORT_VERSION {
        return Err(format!(
            "export format {} is not one this salve reads (1 to {EXPORT_VERSION})",
            line.salve_export
        ));
    }
    let id = &line.run.id;
    if id.len() != ID_LEN || !id.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
        return Err(format!("`{id}` is not a run id"));
    }
    if line.run.status.trim().is_empty()
        || line.run.status == status::RUNNING && line.run.ended_at.is_some()
    {
        return Err(format!("run {id} has an impossible status"));
    }
    let mut contents = Vec::new();
    let mut known = BTreeSet::new();
    let pieces = line
        .artifacts
        .iter()
        .map(|a| (&a.sha256, a.encoding, &a.content, Some(a.size)))
        .chain(
            line.objects
                .iter()
                .map(|o| (&o.sha256, o.encoding, &o.content, None)),
        );
    for (sha, encoding, content, size) in pieces {
        if !is_sha256(sha) {
            return Err(format!("`{sha}` is not a SHA-256"));
        }
        let bytes = decode(encoding, content).ok_or_else(|| format!("bad base64 for {sha}"))?;
        if sha256_hex(&bytes) != *sha || size.is_some_and(|s| s != bytes.len() as u64) {
            return Err(format!("the content given for {sha} does not match it"));
        }
        known.insert(sha.clone());
        contents.push(bytes);
    }
    for p in &line.patch_sets {
        if let Some(sha) = &p.diff_sha256 {
            if !known.contains(sha) {
                return Err(format!(
                    "patch set {} names diff {sha}, not included",
                    p.seq
                ));
            }
        }
    }
    Ok(contents)
}

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

fn base64_encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(B64[(n >> (18 - 6 * i) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

fn base64_decode(text: &str) -> Option<Vec<u8>> {
    let text = text.trim_end_matches('=');
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let mut acc = 0u32;
    let mut bits = 0;
    for c in text.bytes() {
        let v = B64.iter().position(|&b| b == c)? as u32;
        acc = acc << 6 | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits & 0xff) as u8);
        }
    }
    Some(out)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn base64_round_trips() {
        for data in [
            &b""[..],
            b"f",
            b"fo",
            b"foo",
            b"foob",
            b"\xff\x00\xfe binary",
        ] {
            let enc = base64_encode(data);
            assert_eq!(base64_decode(&enc).as_deref(), Some(data), "{enc}");
        }
        assert_eq!(base64_encode(b"foobar"), "Zm9vYmFy");
        assert_eq!(base64_encode(b"fo"), "Zm8=");
        assert_eq!(base64_decode("Zm8!"), None);
    }
}
