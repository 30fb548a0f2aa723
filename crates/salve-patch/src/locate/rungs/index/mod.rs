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

use crate::text::Trim as _;
use std::cell::OnceCell;

mod prefilter;
mod tables;

use prefilter::{append_candidates, candidates, key_filter, line_hashes, RawPass};
#[cfg(test)]
use prefilter::{fingerprint_at, key_fingerprint};
use tables::{chain, Known, Primed, Table, COMMON_LEN, NIL};

use crate::text::{canonical, hash_bytes, hash_form, is_blank, Doc, Form};

/// One form of the file: line hashes plus lookups by hash.
pub struct FormIndex<'i> {
    form: Form,
    doc: &'i Doc<'i>,
    primed: Option<&'i Primed>,
    data: &'i FormData,
}

impl<'i> FormIndex<'i> {
    /// Every line's hash, computed once, and only when a line outside the primed keys is looked
    /// up.
    fn all_hashes(&self) -> &'i [u64] {
        let (form, doc) = (self.form, self.doc);
        self.data.hashes.get_or_init(|| line_hashes(doc, form))
    }

    fn full(&self) -> &'i Table {
        self.data
            .full
            .get_or_init(|| Table::build(self.all_hashes(), None))
    }

    /// The hash of line `line` in this form (kept from the full table when there is one, else
    /// computed: keeping every line's hash costs more than computing the few asked for).
    pub fn hash(&self, line: usize) -> u64 {
        match self.data.hashes.get() {
            Some(h) => h[line],
            None => hash_form(self.form, self.doc.line(line)),
        }
    }

    /// Lines whose hash is `h`, ascending.
    pub fn lines(&self, h: u64) -> Box<dyn Iterator<Item = usize> + 'i> {
        if let Some(Known::Lines(found)) = self.primed.and_then(|p| p.get(h)) {
            return Box::new(found.iter().map(|&i| i as usize));
        }
        let t = self.full();
        let mut cur = t.get(h).map_or(NIL, |s| s.head);
        Box::new(std::iter::from_fn(move || {
            if cur == NIL {
                return None;
            }
            let i = cur as usize;
            cur = t.next[i];
            Some(i)
        }))
    }

    /// How many lines carry hash `h`, capped at `limit`. A key too common to be indexed counts
    /// as `limit` (at least as common as anything the caller compares it with).
    pub fn count(&self, h: u64, limit: usize) -> usize {
        match self.primed.and_then(|p| p.get(h)) {
            Some(Known::Lines(found)) => return found.len().min(limit),
            Some(Known::Unindexed) => return limit,
            None => {}
        }
        self.full()
            .get(h)
            .map_or(0, |s| s.count() as usize)
            .min(limit)
    }
}

#[derive(Default)]
struct FormData {
    hashes: OnceCell<Vec<u64>>,
    primed: OnceCell<Option<Primed>>,
    full: OnceCell<Table>,
}

/// The lines a fused pass found for the raw form (see [`FileIndex::parse_primed`]), in two
/// halves read one after the other.
pub(crate) type RawFound = (Vec<(usize, u64)>, Vec<(usize, u64)>);

/// Everything the ladder needs to know about one file, computed at most once.
pub struct FileIndex<'d, 'a> {
    /// The file indexed.
    pub doc: &'d Doc<'a>,
    keys: Vec<String>,
    /// The raw form's candidate lines, found during the split, until the raw table takes them.
    raw_found: std::cell::Cell<Option<RawFound>>,
    forms: [FormData; 4],
    nonblank: OnceCell<NonBlank>,
    tabs: OnceCell<bool>,
    scope_keys: Vec<u64>,
    /// First bytes of the expected scopes, to skip most lines without computing their key.
    scope_heads: HeadFilter,
    /// The expected scope keys over the lines that may match one (others carry [`SKIPPED`]).
    scopes_primed: OnceCell<Table>,
    /// Keys of every line, for a scope nobody announced.
    scopes_full: OnceCell<Table>,
}

/// A scope line written shorter than this must match a file line exactly (canonically); longer
/// ones may be a truncated prefix, as git's section headings are.
pub(crate) const PREFIX_SCOPE_MIN: usize = 40;

/// The key of a line the head filter rules out; a real key equal to it only costs a check.
const SKIPPED: u64 = 0;

/// How many leading canonical bytes [`HeadFilter`] looks at.
const HEAD: usize = 4;

/// A bit set over hashed [`HEAD`]-byte prefixes: a line whose prefix is not in it cannot equal
/// or start with any of the expected scopes. False positives only cost the full key.
struct HeadFilter {
    bits: Vec<u64>,
}

impl HeadFilter {
    const BITS: u32 = 12;

    fn slot(head: &[u8]) -> usize {
        let mut w = [0u8; 4];
        w[..head.len()].copy_from_slice(head);
        (u32::from_le_bytes(w).wrapping_mul(0x9e37_79b1) >> (32 - Self::BITS)) as usize
    }

    fn new<'s>(scopes: impl Iterator<Item = &'s [u8]>) -> Self {
        let mut bits = vec![0u64; (1 << Self::BITS) / 64];
        for sc in scopes {
            if let Some(h) = sc.get(..HEAD) {
                let k = Self::slot(h);
                bits[k / 64] |= 1 << (k % 64);
            }
        }
        HeadFilter { bits }
    }

    /// `false` only when `line` surely matches none of the scopes. The canonical form of a line
    /// whose trimmed start is [`HEAD`] + 1 printable ASCII bytes with no double space begins with
    /// those same [`HEAD`] bytes (the extra byte keeps a combining mark from changing the last
    /// one); scopes shorter than [`HEAD`] only match lines that fail that test.
    fn may_match(&self, line: &str) -> bool {
        let t = line.trim_ascii_start().as_bytes();
        let Some(head) = t.get(..=HEAD) else {
            return true;
        };
        let plain = head.iter().all(|&c| (b' '..0x7f).contains(&c))
            && !head[..HEAD].windows(2).any(|w| w == b"  ");
        if !plain {
            return true;
        }
        let k = Self::slot(&head[..HEAD]);
        self.bits[k / 64] & (1 << (k % 64)) != 0
    }
}

/// Scope-line lookups: every line's canonical form hashed over at most its first
/// [`PREFIX_SCOPE_MIN`] bytes. A line equal to a short scope, or starting with a long one, shares
/// that key, so one table answers both; it is built once, the first time a hunk's scope is
/// resolved, so resolving costs the hits, not the file.
fn scope_key(canon: &[u8]) -> u64 {
    hash_bytes(&canon[..canon.len().min(PREFIX_SCOPE_MIN)])
}

/// [`scope_key`] of `canonical(line)` without building the canonical line when it is ASCII
/// (almost always): there the canonical form is the trimmed line with whitespace runs collapsed
/// to one space, and only its first bytes matter.
fn line_scope_key(line: &str) -> u64 {
    if !line.is_ascii() {
        return scope_key(canonical(line).as_bytes());
    }
    let t = line.trim_ascii().as_bytes();
    let head = &t[..t.len().min(PREFIX_SCOPE_MIN)];
    // Usually nothing in the prefix needs collapsing, and the prefix is its own canonical form.
    // Branch-free passes: a control byte (tabs and every other whitespace but a space are among
    // them; the slow path sorts them out), or two spaces in a row.
    let mut collapse = head.iter().fold(false, |a, &c| a | (c < b' '));
    collapse |= head
        .windows(2)
        .fold(false, |a, w| a | ((w[0] == b' ') & (w[1] == b' ')));
    if !collapse {
        return hash_bytes(head);
    }
    let mut buf = [0u8; PREFIX_SCOPE_MIN];
    let mut n = 0;
    let mut space = false;
    for &c in t {
        if c.is_ascii_whitespace() {
            space = true;
            continue;
        }
        if space {
            buf[n] = b' ';
            n += 1;
            space = false;
            if n == buf.len() {
                break;
            }
        }
        buf[n] = c;
        n += 1;
        if n == buf.len() {
            break;
        }
    }
    hash_bytes(&buf[..n])
}

/// `keys` split into those long enough in `form` to have their lines collected (see
/// [`COMMON_LEN`]) and the rest.
fn long_keys(keys: &[String], form: Form) -> (Vec<&String>, Vec<&String>) {
    keys.iter()
        .partition(|k| form.apply(k).trim_ws().len() >= COMMON_LEN)
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
    /// An index of `doc`; every table is built on first use.
    pub fn new(doc: &'d Doc<'a>) -> Self {
        Self::with_keys(doc, Vec::new())
    }

    /// An index that expects lookups of these lines (in any form); others still work, at the
    /// price of indexing every line once.
    pub fn with_keys(doc: &'d Doc<'a>, keys: Vec<String>) -> Self {
        FileIndex {
            doc,
            keys,
            raw_found: std::cell::Cell::new(None),
            forms: Default::default(),
            nonblank: OnceCell::new(),
            tabs: OnceCell::new(),
            scope_keys: Vec::new(),
            scope_heads: HeadFilter::new(std::iter::empty()),
            scopes_primed: OnceCell::new(),
            scopes_full: OnceCell::new(),
        }
    }

    /// The number of lines.
    pub fn len(&self) -> usize {
        self.doc.len()
    }

    /// True for a file without lines.
    pub fn is_empty(&self) -> bool {
        self.doc.is_empty()
    }

    /// The line-hash index of one [`Form`], built on first use.
    pub fn form(&self, form: Form) -> FormIndex<'_> {
        let data = &self.forms[form.index()];
        let doc = self.doc;
        // Only the lines that may equal a key are hashed: a fingerprint rules the rest out.
        let primed = data.primed.get_or_init(|| {
            if self.keys.is_empty() || u32::try_from(doc.len()).is_err() {
                return None;
            }
            let (long, short) = long_keys(&self.keys, form);
            let hash = |keys: Vec<&String>| {
                let mut out: Vec<u64> = keys.iter().map(|k| hash_form(form, k)).collect();
                out.sort_unstable();
                out.dedup();
                out
            };
            let found = match form {
                Form::Raw => self.raw_found.take(),
                _ => None,
            };
            Some(match found {
                Some((lower, upper)) => {
                    let maybe = lower.into_iter().chain(upper);
                    Primed::build(&hash(long), &hash(short), maybe)
                }
                None => {
                    let filter = key_filter(form, &long);
                    let maybe = candidates(doc, form, &filter);
                    Primed::build(&hash(long), &hash(short), maybe.into_iter())
                }
            })
        });
        FormIndex {
            form,
            doc,
            primed: primed.as_ref(),
            data,
        }
    }

    /// Splits `text` into lines and, while the split reads them, finds the lines the raw form
    /// of `keys` may equal: the fingerprint pass fused with the split, so a clean patch reads
    /// the file's bytes once. Give the lines found to [`FileIndex::with_found`] of an index with
    /// the same keys; they are the lines the raw table would find after the split.
    pub(crate) fn parse_primed<'t>(text: &'t str, keys: &[String]) -> (Doc<'t>, Option<RawFound>) {
        if keys.is_empty() {
            return (Doc::parse(text), None);
        }
        let (long, _) = long_keys(keys, Form::Raw);
        let filter = key_filter(Form::Raw, &long);
        let body = Doc::body_of(text);
        let mut lower = RawPass::new(body, &filter);
        let mut upper = RawPass::new(body, &filter);
        let doc = Doc::parse_visiting(
            text,
            &mut |s, first| lower.visit(s, first),
            &mut |s, first| upper.visit(s, first),
        );
        let n = doc.len();
        if doc.starts32().is_none() || u32::try_from(n).is_err() || n == 0 {
            return (doc, None);
        }
        let (mut lower, mut upper) = (lower.found, upper.found);
        // The last line goes the general way: it may end without a newline (a pass shows it
        // only when one ends it).
        for half in [&mut lower, &mut upper] {
            if half.last().is_some_and(|&(i, _)| i == n - 1) {
                half.pop();
            }
        }
        append_candidates(&doc, Form::Raw, &filter, n - 1..n, &mut upper);
        (doc, Some((lower, upper)))
    }

    /// The raw form's candidate lines found by [`FileIndex::parse_primed`] with this index's
    /// keys, so the raw table needs no pass of its own.
    pub(crate) fn with_found(self, found: Option<RawFound>) -> Self {
        self.raw_found.set(found);
        self
    }

    /// The non-blank lines, built on first use.
    pub fn nonblank(&self) -> &NonBlank {
        self.nonblank.get_or_init(|| {
            let doc = self.doc;
            let mut lines = Vec::new();
            let mut pos = Vec::with_capacity(doc.len());
            for (i, line) in doc.lines().enumerate() {
                pos.push(lines.len() as u32);
                if !is_blank(line) {
                    lines.push(i as u32);
                }
            }
            NonBlank { lines, pos }
        })
    }

    /// Lines whose canonical form may equal the canonical scope `sc`, or start with it when `sc`
    /// is at least [`PREFIX_SCOPE_MIN`] bytes long; ascending. A superset: callers still compare
    /// the text.
    pub fn scope_lines(&self, sc: &str) -> Vec<usize> {
        let key = scope_key(sc.as_bytes());
        let doc = self.doc;
        if !self.scope_keys.is_empty() {
            let table = self.scopes_primed.get_or_init(|| {
                let keys: Vec<u64> = doc
                    .lines()
                    .map(|line| {
                        if self.scope_heads.may_match(line) {
                            line_scope_key(line)
                        } else {
                            SKIPPED
                        }
                    })
                    .collect();
                Table::build(&keys, Some(&self.scope_keys))
            });
            if let Some(slot) = table.get(key) {
                return chain(table, slot);
            }
        }
        let table = self.scopes_full.get_or_init(|| {
            let keys: Vec<u64> = doc.lines().map(line_scope_key).collect();
            Table::build(&keys, None)
        });
        table
            .get(key)
            .map_or_else(Vec::new, |slot| chain(table, slot))
    }

    /// Expect scope lookups of these scopes (as written): the scope table then holds only their
    /// keys. Others still work, at the price of a table of every line.
    pub fn with_scopes<'s>(mut self, scopes: impl IntoIterator<Item = &'s str>) -> Self {
        let canon: Vec<String> = scopes
            .into_iter()
            .map(|s| canonical(s).into_owned())
            .filter(|s| !s.is_empty())
            .collect();
        let mut keys: Vec<u64> = canon.iter().map(|s| scope_key(s.as_bytes())).collect();
        keys.sort_unstable();
        keys.dedup();
        self.scope_keys = keys;
        self.scope_heads = HeadFilter::new(canon.iter().map(|s| s.as_bytes()));
        self
    }

    /// Whether the file indents with tabs (cached [`Doc::indents_with_tabs`]).
    pub fn indents_with_tabs(&self) -> bool {
        *self.tabs.get_or_init(|| self.doc.indents_with_tabs())
    }
}

#[cfg(test)]
#[path = "fused_tests.rs"]
mod fused_tests;

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn finds_all_lines_with_a_hash_in_order() {
        let doc = Doc::parse("alpha\nbeta\nalpha\ngamma\nalpha\n");
        for idx in [
            FileIndex::new(&doc),
            FileIndex::with_keys(&doc, vec!["alpha".into(), "zzzz".into()]),
        ] {
            let f = idx.form(Form::Raw);
            let h = hash_form(Form::Raw, "alpha");
            assert_eq!(f.lines(h).collect::<Vec<_>>(), vec![0, 2, 4]);
            assert_eq!(f.count(h, 2), 2);
            assert_eq!(f.count(hash_form(Form::Raw, "zzzz"), 9), 0);
            // A line outside the keys still resolves (through the full table).
            assert_eq!(
                f.lines(hash_form(Form::Raw, "gamma")).collect::<Vec<_>>(),
                vec![3]
            );
        }
    }

    #[test]
    fn common_short_keys_count_as_common_and_still_find_their_lines() {
        let doc = Doc::parse("}\nalpha\n}\n\n}\n");
        let idx = FileIndex::with_keys(&doc, vec!["}".into(), "alpha".into(), "".into()]);
        let f = idx.form(Form::Raw);
        let brace = hash_form(Form::Raw, "}");
        // Not counted: as common as the cap asked for, never fewer.
        assert_eq!(f.count(brace, 5), 5);
        assert_eq!(f.count(hash_form(Form::Raw, "alpha"), 5), 1);
        // Asked for its lines anyway (a pattern of nothing but such lines), they are all there.
        assert_eq!(f.lines(brace).collect::<Vec<_>>(), vec![0, 2, 4]);
        assert_eq!(
            f.lines(hash_form(Form::Raw, "")).collect::<Vec<_>>(),
            vec![3]
        );
    }

    #[test]
    fn scope_keys_agree_with_the_canonical_form() {
        let long = "static int   sqlite3VdbeMemSetStr(Mem *pMem, const char *z, i64 n)";
        for line in [
            "  fn run() {\r",
            "\tint\t\tx  =  1;  ",
            long,
            "x                                                   y",
            "let s = \u{201c}quoted\u{201d};",
            "",
        ] {
            assert_eq!(
                line_scope_key(line),
                scope_key(canonical(line).as_bytes()),
                "{line:?}"
            );
        }
        let src = format!("{long}\n  fn run() {{\nfn run() {{}}\n{long} {{\n");
        let doc = Doc::parse(&src);
        let idx = FileIndex::new(&doc).with_scopes(["fn run() {"]);
        // A long scope finds the lines it prefixes; a short one the lines equal to it.
        let sc = canonical(&long[..50]);
        assert_eq!(idx.scope_lines(&sc), vec![0, 3]);
        assert!(idx.scope_lines("fn run() {").contains(&1));
        assert!(idx.scope_lines("nowhere").is_empty());
        // Lines the head filter may not rule out: tabs, double spaces, Unicode, short lines.
        for line in ["\tfn  run() {", "fn\u{a0}run() {", "fn", "fn  run() {"] {
            let src = format!("{line}\nother line here\n");
            let doc = Doc::parse(&src);
            let sc = canonical(line);
            let idx = FileIndex::new(&doc).with_scopes([line]);
            assert_eq!(idx.scope_lines(&sc), vec![0], "{line:?}");
        }
    }

    #[test]
    fn fingerprints_read_in_place_agree_with_the_line() {
        let text = "a\nbc\n\n12345678\n1234567\n123456789\r\nx\r\r\n\u{e9}t\u{e9}\n  }\nend  \t\n\t\tlead and trail  \n \u{a0}nbsp\u{a0}\nvt\u{b}\n\u{b}  x\n  \u{2003}em\n       \nx  =  \"q\";\nlast";
        let doc = Doc::parse(text);
        for form in Form::ALL {
            for (i, (start, end)) in doc.spans().enumerate() {
                let line = doc.line(i);
                match fingerprint_at(form, doc.body.as_bytes(), start, end) {
                    Some(f) => assert_eq!(
                        Some(f),
                        key_fingerprint(form, line),
                        "{form:?} line {i} {line:?}"
                    ),
                    // Only a non-ASCII line may go unfingerprinted (it is always hashed).
                    None => assert!(form == Form::Canon && !line.is_ascii(), "{line:?}"),
                }
            }
        }
    }

    #[test]
    fn lines_canonically_equal_share_a_fingerprint() {
        let same = [
            "x = \"q\";",
            "  x  =  \"q\";\t",
            "x =\t\"q\"; ",
            "x = \u{201c}q\u{201d};",
        ];
        let doc = Doc::parse("  x  =  \"q\";\t\n");
        let (start, end) = doc.spans().next().unwrap();
        let at = fingerprint_at(Form::Canon, doc.body.as_bytes(), start, end);
        for key in same {
            assert_eq!(key_fingerprint(Form::Canon, key), at, "{key:?}");
        }
    }

    #[test]
    fn loose_sliced_forms_find_the_same_lines_as_a_scan() {
        let text = "fn a() {\n    let x = 1;  \n\tlet x = 1;\nlet x = 1;\r\n}\n";
        let doc = Doc::parse(text);
        let keys = vec!["let x = 1;".to_string(), "  let x = 1; ".to_string()];
        let idx = FileIndex::with_keys(&doc, keys.clone());
        for form in [Form::TrimEnd, Form::Trim] {
            let f = idx.form(form);
            for k in &keys {
                let h = hash_form(form, k);
                let scan: Vec<usize> = (0..doc.len())
                    .filter(|&i| hash_form(form, doc.line(i)) == h)
                    .collect();
                assert_eq!(f.lines(h).collect::<Vec<_>>(), scan, "{form:?} {k:?}");
                assert_eq!(f.count(h, 99), scan.len());
            }
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
