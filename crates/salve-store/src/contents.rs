//! Where a run's artifact bytes are kept: small ones in the database, large ones as files.
//!
//! An apply's artifacts (its report and its diff) are a few hundred bytes. As objects (see
//! [`crate::objects`]) each cost a new file, an fsync and a rename before the row naming it
//! could be committed: on every apply, two file creations and two fsyncs that a reply of a
//! changed line does not need. Contents up to [`INLINE_MAX`] bytes are rows of the `contents`
//! table instead, written in the same transaction as the rows that name them: a row never
//! names content that is not there, and neither outlives the other, whatever is cut short.
//!
//! Readers ask [`Store::content`], which looks in the table first and then among the objects,
//! so records written before schema version 6 (every artifact an object) read as they did.
//! Both places are checked against the name: bytes whose SHA-256 differs are reported corrupt.

use rusqlite::{Connection, OptionalExtension as _};

use crate::error::{Result, StoreError};
use crate::objects::sha256_hex;
use crate::Store;

/// Contents up to this size are kept in the database; larger ones are objects, so the
/// write-ahead log stays within a run's usual pages (see `schema::WAL_PAGES`).
pub(crate) const INLINE_MAX: usize = 16 * 1024;

/// Bytes to keep, named by their SHA-256, and whether they go in the database.
pub(crate) struct Content<'a> {
    pub sha256: String,
    pub bytes: &'a [u8],
    pub inline: bool,
}

impl Store {
    /// Name `bytes` by their SHA-256 and, when they are too large for the database, store them
    /// as an object now, before any row names them. Small contents are written by [`keep`] in
    /// the transaction of the rows that name them.
    pub(crate) fn prepare_content<'a>(&self, bytes: &'a [u8]) -> Result<Content<'a>> {
        if bytes.len() <= INLINE_MAX {
            return Ok(Content {
                sha256: sha256_hex(bytes),
                bytes,
                inline: true,
            });
        }
        Ok(Content {
            sha256: self.objects.put(bytes)?,
            bytes,
            inline: false,
        })
    }

    /// The bytes named `sha256`, from the database or the objects, checked against the name.
    pub fn content(&self, sha256: &str) -> Result<Vec<u8>> {
        let kept: Option<Vec<u8>> = self
            .conn
            .prepare_cached("SELECT bytes FROM contents WHERE sha256 = ?1")
            .and_then(|mut stmt| stmt.query_row([sha256], |r| r.get(0)).optional())
            .map_err(|e| self.sql(e))?;
        let Some(bytes) = kept else {
            return self.objects.get(sha256);
        };
        if sha256_hex(&bytes) != sha256 {
            return Err(StoreError::Invalid(format!(
                "the content {sha256} in {} is corrupt: its bytes do not match its name",
                self.layout.db.display()
            )));
        }
        Ok(bytes)
    }
}

/// How [`keep`] writes a content row.
pub(crate) const KEEP: &str = "INSERT OR IGNORE INTO contents (sha256, bytes) VALUES (?1, ?2)";

/// Write `content` in the current transaction when it belongs in the database.
pub(crate) fn keep(tx: &Connection, content: &Content<'_>) -> rusqlite::Result<()> {
    if content.inline {
        tx.prepare_cached(KEEP)?
            .execute(rusqlite::params![content.sha256, content.bytes])?;
    }
    Ok(())
}

/// Delete the contents no artifact or patch set names; returns how many rows went, their
/// bytes, and how many rows stay.
/// No grace period is needed, unlike objects: a content row is written in the transaction of
/// the row naming it, so no writer can be between the two.
pub(crate) fn collect(conn: &Connection) -> rusqlite::Result<(usize, u64, usize)> {
    const UNNAMED: &str = "sha256 NOT IN (SELECT sha256 FROM artifacts UNION \
         SELECT diff_sha256 FROM patch_sets WHERE diff_sha256 IS NOT NULL)";
    let bytes: i64 = conn.query_row(
        &format!("SELECT coalesce(sum(length(bytes)), 0) FROM contents WHERE {UNNAMED}"),
        [],
        |r| r.get(0),
    )?;
    let rows = conn.execute(&format!("DELETE FROM contents WHERE {UNNAMED}"), [])?;
    let kept: i64 = conn.query_row("SELECT count(*) FROM contents", [], |r| r.get(0))?;
    Ok((
        rows,
        u64::try_from(bytes).unwrap_or(0),
        usize::try_from(kept).unwrap_or(0),
    ))
}
