//! The per-file line index: built once per file, shared by every hunk.
//!
//! For each comparison [`Form`] the index holds every line's hash and a chained hash table from
//! hash to the lines carrying it, built lazily the first time a rung asks for that form (most
//! files never need the canonical form). Search seeds candidate windows from the rarest line of a
//! pattern, so placing a hunk costs about the number of occurrences of that line, not the size of
//! the file.

use std::cell::OnceCell;

use crate::text::{hash_form, is_blank, Doc, Form};

/// Lines of one form, hashed, with a chained table from hash to line numbers.
pub struct FormIndex {
    hashes: Vec<u64>,
    head: Vec<u32>,
    next: Vec<u32>,
    mask: usize,
}

const NIL: u32 = u32::MAX;

impl FormIndex {
    fn build(hashes: Vec<u64>) -> FormIndex {
        let cap = (hashes.len() * 2).next_power_of_two().max(16);
        let mask = cap - 1;
        let mut head = vec![NIL; cap];
        let mut next = vec![NIL; hashes.len()];
        // Insert backwards so every chain lists its lines in ascending order.
        for i in (0..hashes.len()).rev() {
            let b = bucket(hashes[i], mask);
            next[i] = head[b];
            head[b] = i as u32;
        }
        FormIndex {
            hashes,
            head,
            next,
            mask,
        }
    }

    pub fn hash(&self, line: usize) -> u64 {
        self.hashes[line]
    }

    /// Lines whose hash is `h`, ascending.
    pub fn lines(&self, h: u64) -> impl Iterator<Item = usize> + '_ {
        let mut cur = self.head[bucket(h, self.mask)];
        std::iter::from_fn(move || {
            while cur != NIL {
                let i = cur as usize;
                cur = self.next[i];
                if self.hashes[i] == h {
                    return Some(i);
                }
            }
            None
        })
    }

    /// How many lines carry hash `h`, counting no further than `limit`.
    pub fn count(&self, h: u64, limit: usize) -> usize {
        self.lines(h).take(limit).count()
    }
}

fn bucket(h: u64, mask: usize) -> usize {
    (h as usize) & mask
}

/// Everything the ladder needs to know about one file, computed at most once.
pub struct FileIndex<'d, 'a> {
    pub doc: &'d Doc<'a>,
    forms: [OnceCell<FormIndex>; 4],
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
        FileIndex {
            doc,
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

    pub fn form(&self, form: Form) -> &FormIndex {
        self.forms[form.index()].get_or_init(|| {
            let doc = self.doc;
            let hashes = (0..doc.len())
                .map(|i| hash_form(form, doc.line(i)))
                .collect();
            FormIndex::build(hashes)
        })
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
mod tests {
    use super::*;

    #[test]
    fn finds_all_lines_with_a_hash_in_order() {
        let doc = Doc::parse("a\nb\na\nc\na\n");
        let idx = FileIndex::new(&doc);
        let f = idx.form(Form::Raw);
        let h = hash_form(Form::Raw, "a");
        assert_eq!(f.lines(h).collect::<Vec<_>>(), vec![0, 2, 4]);
        assert_eq!(f.count(h, 2), 2);
        assert_eq!(f.count(hash_form(Form::Raw, "zz"), 9), 0);
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
