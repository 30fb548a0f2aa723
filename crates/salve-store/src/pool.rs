//! Connections kept open between uses, for long-lived processes.
//!
//! Opening the record (the file, WAL setup, pragmas, the schema read) costs as much as a
//! small write, and a long-lived process (the MCP server) writes a run per tool call. Once a
//! process asks for it ([`keep_connections_open`]), a [`Store`](crate::Store) hands its
//! connection back here when dropped, and the next open of the same database takes it, with
//! its prepared-statement cache. A connection is kept only outside a transaction, and taken
//! again only while the database file is still the one it opened (same device, inode and
//! creation time): a record deleted or replaced meanwhile is opened afresh. One-shot commands keep nothing.

use std::ops::{Deref, DerefMut};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use rusqlite::Connection;

/// At most this many idle connections are kept (one per recently used record).
const KEPT: usize = 4;

static KEEP: AtomicBool = AtomicBool::new(false);

struct Idle {
    db: PathBuf,
    file: FileId,
    conn: Connection,
}

static IDLE: Mutex<Vec<Idle>> = Mutex::new(Vec::new());

/// Keep record connections open between uses for the rest of this process.
pub fn keep_connections_open() {
    KEEP.store(true, Ordering::Relaxed);
}

/// Which file `db` is: device, inode, and creation time (an inode number is reused as soon as
/// a file is deleted; its creation time is not). `None` where the file system does not keep
/// creation times: nothing is kept then.
type FileId = (u64, u64, std::time::SystemTime);

fn file_id(db: &Path) -> Option<FileId> {
    use std::os::unix::fs::MetadataExt as _;
    let meta = std::fs::metadata(db).ok()?;
    Some((meta.dev(), meta.ino(), meta.created().ok()?))
}

/// A connection to `db` kept from an earlier use, when there is one and the file is the same.
pub(crate) fn take(db: &Path) -> Option<Pooled> {
    if !KEEP.load(Ordering::Relaxed) {
        return None;
    }
    let mut idle = IDLE.lock().ok()?;
    let at = idle.iter().position(|i| i.db == db)?;
    let found = idle.swap_remove(at);
    drop(idle);
    let file = file_id(db)?;
    (found.file == file).then(|| Pooled {
        conn: found.conn,
        db: found.db,
        file: Some(file),
    })
}

/// A connection that goes back to the pool when dropped (when keeping is on).
pub(crate) struct Pooled {
    conn: Connection,
    db: PathBuf,
    file: Option<FileId>,
}

impl Pooled {
    /// A connection just opened on `db`.
    pub(crate) fn new(conn: Connection, db: &Path) -> Pooled {
        Pooled {
            conn,
            db: db.to_path_buf(),
            file: file_id(db),
        }
    }
}

impl Deref for Pooled {
    type Target = Connection;
    fn deref(&self) -> &Connection {
        &self.conn
    }
}

impl DerefMut for Pooled {
    fn deref_mut(&mut self) -> &mut Connection {
        &mut self.conn
    }
}

impl Drop for Pooled {
    fn drop(&mut self) {
        let Some(file) = self.file else {
            return;
        };
        if !KEEP.load(Ordering::Relaxed) || !self.conn.is_autocommit() {
            return;
        }
        // The connection moves to the pool; an empty in-memory one takes its place for the
        // rest of the drop.
        let Ok(stand_in) = Connection::open_in_memory() else {
            return;
        };
        let conn = std::mem::replace(&mut self.conn, stand_in);
        if let Ok(mut idle) = IDLE.lock() {
            idle.insert(
                0,
                Idle {
                    db: std::mem::take(&mut self.db),
                    file,
                    conn,
                },
            );
            idle.truncate(KEPT);
        }
    }
}
