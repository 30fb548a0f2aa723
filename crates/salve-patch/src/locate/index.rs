//! The per-file line index: built once per file, shared by every hunk.
//!
//! For each comparison [`Form`] the index holds every line's hash and a table from hash to the
//! lines carrying it, built lazily the first time a rung asks for that form (most files never need
//! the canonical form). When the caller knows the lines it will look up (the lines of all hunks of
//! the file, see [`FileIndex::with_keys`]) the table holds only those keys: one sequential pass
//! over the file fills it, with a table small enough to stay in cache. A lookup of any other line
//! falls back to a table of every line, built once.
//!
//! Search seeds candidate windows from the rarest line of a pattern, so placing a hunk costs about
//! the number of occurrences of that line, not the size of the file.

use std::cell::OnceCell;

use crate::text::{hash_form, is_blank, Doc, Form};

const NIL: u32 = u32::MAX;

/// 16 bytes: `uses` is the occurrence count plus one, 0 for an empty slot (a primed key that
/// never occurs has `uses == 1`).
#[derive(Clone, Copy)]
struct Slot {
    hash: u64,
    uses: u32,
    head: u32,
}

impl Slot {
    fn used(&self) -> bool {
        self.uses > 0
    }

    fn count(&self) -> u32 {
        self.uses.saturating_sub(1)
    }
}

/// Open-addressing table from a line hash to its occurrence count and the chain of lines
/// carrying it (ascending, linked through `next`).
struct Table {
    slots: Vec<Slot>,
    next: Vec<u32>,
    mask: usize,
}

impl Table {
    /// A table of `keys` (or of every line when `keys` is `None`) over the lines' `hashes`.
    fn build(hashes: &[u64], keys: Option<&[u64]>) -> Table {
        let distinct = keys.map_or(hashes.len(), <[u64]>::len);
        // Load factor at most 3/4.
        let cap = (distinct + distinct / 3 + 1).next_power_of_two().max(16);
        let empty = Slot {
            hash: 0,
            uses: 0,
            head: NIL,
        };
        let mut t = Table {
            slots: vec![empty; cap],
            next: vec![NIL; hashes.len()],
            mask: cap - 1,
        };
        if let Some(keys) = keys {
            for &k in keys {
                let b = t.probe(k);
                t.slots[b].hash = k;
                t.slots[b].uses = 1;
            }
        }
        // Backwards, so every chain lists its lines in ascending order.
        for i in (0..hashes.len()).rev() {
            let h = hashes[i];
            let b = t.probe(h);
            let s = &mut t.slots[b];
            if !s.used() {
                if keys.is_some() {
                    continue;
                }
                s.hash = h;
                s.uses = 1;
            }
            t.next[i] = s.head;
            s.head = i as u32;
            s.uses += 1;
        }
        t
    }

    /// The slot holding `h`, or the empty slot where it would go.
    fn probe(&self, h: u64) -> usize {
        let mut b = (h as usize) & self.mask;
        loop {
            let s = &self.slots[b];
            if !s.used() || s.hash == h {
                return b;
            }
            b = (b + 1) & self.mask;
        }
    }

    fn get(&self, h: u64) -> Option<&Slot> {
        let s = &self.slots[self.probe(h)];
        s.used().then_some(s)
    }
}

/// One form of the file: line hashes plus lookups by hash.
pub struct FormIndex<'i> {
    hashes: &'i [u64],
    primed: Option<&'i Table>,
    full: &'i OnceCell<Table>,
}

impl<'i> FormIndex<'i> {
    fn table(&self, h: u64) -> (&'i Table, Option<&'i Slot>) {
        if let Some(p) = self.primed {
            if let Some(s) = p.get(h) {
                return (p, Some(s));
            }
        }
        let full = self.full.get_or_init(|| Table::build(self.hashes, None));
        (full, full.get(h))
    }

    pub fn hash(&self, line: usize) -> u64 {
        self.hashes[line]
    }

    /// Lines whose hash is `h`, ascending.
    pub fn lines(&self, h: u64) -> impl Iterator<Item = usize> + 'i {
        let (t, s) = self.table(h);
        let mut cur = s.map_or(NIL, |s| s.head);
        std::iter::from_fn(move || {
            if cur == NIL {
                return None;
            }
            let i = cur as usize;
            cur = t.next[i];
            Some(i)
        })
    }

    /// How many lines carry hash `h`, capped at `limit`.
    pub fn count(&self, h: u64, limit: usize) -> usize {
        self.table(h).1.map_or(0, |s| s.count() as usize).min(limit)
    }
}

#[derive(Default)]
struct FormData {
    hashes: OnceCell<Vec<u64>>,
    primed: OnceCell<Option<Table>>,
    full: OnceCell<Table>,
}

/// Everything the ladder needs to know about one file, computed at most once.
pub struct FileIndex<'d, 'a> {
    pub doc: &'d Doc<'a>,
    keys: Vec<String>,
    forms: [FormData; 4],
    nonblank: OnceCell<NonBlank>,
    tabs: OnceCell<bool>,
}

/// The file with blank lines left out, for the blank-lines rung.
pub struct NonBlank {
    /// File line of each non-blank line.
    pub lines: Vec<u32>,
    /// For each file line, its position among the non-blank lines (or the position of the next
    /// non-blank line when it is blank).
    pub pos: Vec<u32>,
}

impl<'d, 'a> FileIndex<'d, 'a> {
    pub fn new(doc: &'d Doc<'a>) -> Self {
        Self::with_keys(doc, Vec::new())
    }

    /// An index that expects lookups of these lines (in any form); others still work, at the
    /// price of indexing every line once.
    pub fn with_keys(doc: &'d Doc<'a>, keys: Vec<String>) -> Self {
        FileIndex {
            doc,
            keys,
            forms: Default::default(),
            nonblank: OnceCell::new(),
            tabs: OnceCell::new(),
        }
    }

    pub fn len(&self) -> usize {
        self.doc.len()
    }

    pub fn is_empty(&self) -> bool {
        self.doc.is_empty()
    }

    pub fn form(&self, form: Form) -> FormIndex<'_> {
        let data = &self.forms[form.index()];
        let doc = self.doc;
        let hashes = data.hashes.get_or_init(|| {
            (0..doc.len())
                .map(|i| hash_form(form, doc.line(i)))
                .collect()
        });
        let primed = data.primed.get_or_init(|| {
            if self.keys.is_empty() {
                return None;
            }
            let mut keys: Vec<u64> = self.keys.iter().map(|k| hash_form(form, k)).collect();
            keys.sort_unstable();
            keys.dedup();
            Some(Table::build(hashes, Some(&keys)))
        });
        FormIndex {
            hashes,
            primed: primed.as_ref(),
            full: &data.full,
        }
    }

    pub fn nonblank(&self) -> &NonBlank {
        self.nonblank.get_or_init(|| {
            let doc = self.doc;
            let mut lines = Vec::new();
            let mut pos = Vec::with_capacity(doc.len());
            for i in 0..doc.len() {
                pos.push(lines.len() as u32);
                if !is_blank(doc.line(i)) {
                    lines.push(i as u32);
                }
            }
            NonBlank { lines, pos }
        })
    }

    pub fn indents_with_tabs(&self) -> bool {
        *self.tabs.get_or_init(|| self.doc.indents_with_tabs())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn finds_all_lines_with_a_hash_in_order() {
        let doc = Doc::parse("a\nb\na\nc\na\n");
        for idx in [
            FileIndex::new(&doc),
            FileIndex::with_keys(&doc, vec!["a".into(), "zz".into()]),
        ] {
            let f = idx.form(Form::Raw);
            let h = hash_form(Form::Raw, "a");
            assert_eq!(f.lines(h).collect::<Vec<_>>(), vec![0, 2, 4]);
            assert_eq!(f.count(h, 2), 2);
            assert_eq!(f.count(hash_form(Form::Raw, "zz"), 9), 0);
            // A line outside the keys still resolves (through the full table).
            assert_eq!(
                f.lines(hash_form(Form::Raw, "c")).collect::<Vec<_>>(),
                vec![3]
            );
        }
    }

    #[test]
    fn nonblank_projection() {
        let doc = Doc::parse("a\n\n  \nb\n");
        let idx = FileIndex::new(&doc);
        let nb = idx.nonblank();
        assert_eq!(nb.lines, vec![0, 3]);
        assert_eq!(nb.pos, vec![0, 1, 1, 1]);
    }
}
