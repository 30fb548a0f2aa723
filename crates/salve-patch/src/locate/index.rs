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

use super::evidence::PREFIX_SCOPE_MIN;
use crate::text::{canonical, hash_bytes, hash_form, is_blank, Doc, Form};

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

/// The lines carrying each of a known set of keys, in one flat array: for a hunk's lines, a
/// pass over the file fills it and nothing is kept per file line.
struct Primed {
    slots: Vec<KeySlot>,
    lines: Vec<u32>,
    mask: usize,
}

/// One key: its hash, and where its lines sit in [`Primed::lines`].
#[derive(Clone, Copy)]
struct KeySlot {
    hash: u64,
    used: bool,
    /// The key's lines were collected; otherwise the key is too common to be worth it.
    indexed: bool,
    start: u32,
    count: u32,
}

/// What [`Primed`] knows of a hash.
enum Known<'p> {
    Lines(&'p [u32]),
    /// A key whose lines were not collected (see [`COMMON_LEN`]).
    Unindexed,
}

/// Raw keys this short once trimmed (blank lines, braces, `**`) occur all over most files:
/// never the rarest line of a pattern, so their lines are not collected, which keeps most of a
/// file's lines from being hashed at all.
const COMMON_LEN: usize = 4;

impl Primed {
    /// `keys` (distinct) looked up in `lines`: `(line, hash)` pairs in ascending line order. Lines
    /// whose hash is not a key are skipped; callers may leave out lines that surely are not.
    /// `unindexed` keys are known but their lines not collected.
    fn build(keys: &[u64], unindexed: &[u64], lines: impl Iterator<Item = (usize, u64)>) -> Primed {
        let all = keys.len() + unindexed.len();
        let cap = (all + all / 3 + 1).next_power_of_two().max(16);
        let empty = KeySlot {
            hash: 0,
            used: false,
            indexed: false,
            start: 0,
            count: 0,
        };
        let mut p = Primed {
            slots: vec![empty; cap],
            lines: Vec::new(),
            mask: cap - 1,
        };
        for (&k, indexed) in keys
            .iter()
            .map(|k| (k, true))
            .chain(unindexed.iter().map(|k| (k, false)))
        {
            let b = p.probe(k);
            p.slots[b].hash = k;
            p.slots[b].used = true;
            p.slots[b].indexed = indexed;
        }
        let mut hits: Vec<(u32, u32)> = Vec::with_capacity(lines.size_hint().0);
        for (i, h) in lines {
            let b = p.probe(h);
            if p.slots[b].indexed {
                p.slots[b].count += 1;
                hits.push((b as u32, i as u32));
            }
        }
        let mut next = 0u32;
        for s in &mut p.slots {
            s.start = next;
            next += s.count;
        }
        let mut fill: Vec<u32> = p.slots.iter().map(|s| s.start).collect();
        p.lines = vec![0; next as usize];
        // `hits` is in line order, so each key's lines come out ascending.
        for (b, i) in hits {
            let at = &mut fill[b as usize];
            p.lines[*at as usize] = i;
            *at += 1;
        }
        p
    }

    fn probe(&self, h: u64) -> usize {
        let mut b = (h as usize) & self.mask;
        loop {
            let s = &self.slots[b];
            if !s.used || s.hash == h {
                return b;
            }
            b = (b + 1) & self.mask;
        }
    }

    /// What is known of key `h`; `None` when `h` is not a key.
    fn get(&self, h: u64) -> Option<Known<'_>> {
        let s = &self.slots[self.probe(h)];
        match (s.used, s.indexed) {
            (false, _) => None,
            (true, false) => Some(Known::Unindexed),
            (true, true) => Some(Known::Lines(
                &self.lines[s.start as usize..(s.start + s.count) as usize],
            )),
        }
    }
}

/// How many bits [`raw_fingerprint`] has.
const FINGERPRINT_BITS: u32 = 18;

/// A cheap fingerprint of a line compared in `form` (one of the [`sliced`] forms): the length
/// and last eight bytes of what the form compares. Equal lines have equal fingerprints, so a
/// line whose fingerprint no key has is not hashed at all.
fn fingerprint(form: Form, line: &str) -> usize {
    let t = form.apply(line);
    let b = t.as_bytes();
    let n = b.len().min(8);
    let mut w = [0u8; 8];
    w[..n].copy_from_slice(&b[b.len() - n..]);
    fingerprint_of(u64::from_le_bytes(w), b.len())
}

/// Forms that compare a slice of the line (the line, or the line trimmed), whose fingerprints
/// can be read in place; the canonical form rewrites the line.
fn sliced(form: Form) -> bool {
    matches!(form, Form::Raw | Form::TrimEnd | Form::Trim)
}

/// Whitespace as `str::trim` sees it, for ASCII bytes.
fn ascii_space(b: u8) -> bool {
    b == b' ' || (b'\t'..=b'\r').contains(&b)
}

/// [`fingerprint`] of the line at `body[start..end]`, without a branch on its length for most
/// lines: the eight bytes ending where the compared slice ends are read from the body whatever
/// line they belong to, and the bytes before it shifted out. Lines whose ends the form would
/// treat in a way bytes cannot show (a lone `\r`, non-ASCII at a trimmed end) take the long way.
fn fingerprint_at(form: Form, body: &[u8], mut start: usize, mut end: usize) -> usize {
    let slow = |start: usize, end: usize| {
        fingerprint(form, std::str::from_utf8(&body[start..end]).unwrap_or(""))
    };
    match form {
        Form::Raw => {
            if end > start && body[end - 1] == b'\r' {
                return slow(start, end);
            }
        }
        _ => {
            let (s0, e0) = (start, end);
            while end > start && ascii_space(body[end - 1]) {
                end -= 1;
            }
            if form == Form::Trim {
                while start < end && ascii_space(body[start]) {
                    start += 1;
                }
            }
            let edge = |i: usize| body.get(i).is_some_and(|&b| b >= 0x80);
            if end > start && (edge(end - 1) || (form == Form::Trim && edge(start))) {
                return slow(s0, e0);
            }
        }
    }
    if end < 8 {
        return slow(start, end);
    }
    let mut w = [0u8; 8];
    w.copy_from_slice(&body[end - 8..end]);
    let w = u64::from_le_bytes(w);
    let n = end - start;
    // Two shifts, so a length of 0 shifts by 64 without overflowing.
    let tail = if n >= 8 { w } else { (w >> 1) >> (63 - 8 * n) };
    fingerprint_of(tail, n)
}

fn fingerprint_of(tail: u64, len: usize) -> usize {
    let x = (tail ^ (len as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15))
        .wrapping_mul(0xff51_afd7_ed55_8ccd);
    (x >> (64 - FINGERPRINT_BITS)) as usize
}

/// Lines of a file at least this long are fingerprinted and hashed in two halves at once.
const SPLIT_LINES: usize = 50_000;

/// `(line, hash in form)` of every line whose fingerprint is in `filter`, in line order. A
/// large file is done in two halves on two threads: this pass and the file's split are the
/// only work that grows with the file rather than with the edit.
fn candidates(doc: &Doc, form: Form, filter: &[u64]) -> Vec<(usize, u64)> {
    let n = doc.len();
    if n < SPLIT_LINES {
        return candidates_in(doc, form, filter, 0..n);
    }
    let mid = n / 2;
    std::thread::scope(|scope| {
        let upper = || candidates_in(doc, form, filter, mid..n);
        match std::thread::Builder::new().spawn_scoped(scope, upper) {
            Ok(job) => {
                let mut out = candidates_in(doc, form, filter, 0..mid);
                let rest = job
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
                // Into the larger of the two, which usually has the room already.
                if out.capacity() - out.len() >= rest.len() {
                    out.extend(rest);
                    out
                } else {
                    let mut all = Vec::with_capacity(out.len() + rest.len());
                    all.extend(out);
                    all.extend(rest);
                    all
                }
            }
            Err(_) => candidates_in(doc, form, filter, 0..n),
        }
    })
}

fn candidates_in(
    doc: &Doc,
    form: Form,
    filter: &[u64],
    lines: std::ops::Range<usize>,
) -> Vec<(usize, u64)> {
    // Branch-free: every line's index is written, and the count moves on only for those the
    // filter lets through.
    let body = doc.body.as_bytes();
    let first = lines.start;
    let mut through = vec![0u32; lines.len() + 1];
    let mut n = 0;
    for (k, (start, end)) in doc.spans_in(lines).enumerate() {
        let f = fingerprint_at(form, body, start, end);
        through[n] = k as u32;
        n += ((filter[f / 64] >> (f % 64)) & 1) as usize;
    }
    // Room for the other half too: the lower half's list is extended with it.
    let mut out = Vec::with_capacity(n * 2 + 16);
    out.extend(through[..n].iter().map(|&k| {
        let i = first + k as usize;
        (i, hash_form(form, doc.line(i)))
    }));
    out
}

/// Every line's hash in `form`; a large file in two halves at once (a loose form hashes a
/// rewritten copy of every line).
fn line_hashes(doc: &Doc, form: Form) -> Vec<u64> {
    let n = doc.len();
    let mut out = vec![0u64; n];
    let fill = |part: &mut [u64], first: usize| {
        for (k, slot) in part.iter_mut().enumerate() {
            *slot = hash_form(form, doc.line(first + k));
        }
    };
    if n < SPLIT_LINES {
        fill(&mut out, 0);
        return out;
    }
    let mid = n / 2;
    let (lower, upper) = out.split_at_mut(mid);
    let split = std::thread::scope(|scope| {
        let job = std::thread::Builder::new()
            .spawn_scoped(scope, || fill(upper, mid))
            .ok()?;
        fill(lower, 0);
        job.join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        Some(())
    });
    if split.is_none() {
        fill(&mut out, 0);
    }
    out
}

/// One form of the file: line hashes plus lookups by hash.
pub struct FormIndex<'i> {
    form: Form,
    doc: &'i Doc<'i>,
    /// Every line's hash; `None` for [`Form::Raw`], whose hashes are cheaper to compute again
    /// than to keep.
    hashes: Option<&'i [u64]>,
    primed: Option<&'i Primed>,
    data: &'i FormData,
}

impl<'i> FormIndex<'i> {
    /// Every line's hash, computed once (for [`Form::Raw`], only when a line outside the primed
    /// keys is looked up).
    fn all_hashes(&self) -> &'i [u64] {
        let (form, doc) = (self.form, self.doc);
        self.data.hashes.get_or_init(|| line_hashes(doc, form))
    }

    fn full(&self) -> &'i Table {
        self.data
            .full
            .get_or_init(|| Table::build(self.all_hashes(), None))
    }

    pub fn hash(&self, line: usize) -> u64 {
        match self.hashes {
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

/// Every line on a slot's chain, ascending.
fn chain(t: &Table, slot: &Slot) -> Vec<usize> {
    let mut out = Vec::new();
    let mut cur = slot.head;
    while cur != NIL {
        out.push(cur as usize);
        cur = t.next[cur as usize];
    }
    out
}

#[derive(Default)]
struct FormData {
    hashes: OnceCell<Vec<u64>>,
    primed: OnceCell<Option<Primed>>,
    full: OnceCell<Table>,
}

/// Everything the ladder needs to know about one file, computed at most once.
pub struct FileIndex<'d, 'a> {
    pub doc: &'d Doc<'a>,
    keys: Vec<String>,
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
            scope_keys: Vec::new(),
            scope_heads: HeadFilter::new(std::iter::empty()),
            scopes_primed: OnceCell::new(),
            scopes_full: OnceCell::new(),
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
        // A form that compares a slice of each line keeps no per-line hashes: computing one
        // again costs less than keeping all of them.
        let hashes = (!sliced(form)).then(|| {
            data.hashes
                .get_or_init(|| line_hashes(doc, form))
                .as_slice()
        });
        let primed = data.primed.get_or_init(|| {
            if self.keys.is_empty() || u32::try_from(doc.len()).is_err() {
                return None;
            }
            let distinct = |keys: &mut Vec<u64>| {
                keys.sort_unstable();
                keys.dedup();
            };
            Some(match hashes {
                Some(h) => {
                    let mut keys: Vec<u64> = self.keys.iter().map(|k| hash_form(form, k)).collect();
                    distinct(&mut keys);
                    Primed::build(&keys, &[], h.iter().copied().enumerate())
                }
                None => {
                    let (long, short): (Vec<&String>, Vec<&String>) = self
                        .keys
                        .iter()
                        .partition(|k| form.apply(k).trim().len() >= COMMON_LEN);
                    let mut filter = vec![0u64; (1 << FINGERPRINT_BITS) / 64];
                    for k in &long {
                        let f = fingerprint(form, k);
                        filter[f / 64] |= 1 << (f % 64);
                    }
                    let hash = |keys: Vec<&String>| {
                        let mut out: Vec<u64> = keys.iter().map(|k| hash_form(form, k)).collect();
                        distinct(&mut out);
                        out
                    };
                    let maybe = candidates(doc, form, &filter);
                    Primed::build(&hash(long), &hash(short), maybe.into_iter())
                }
            })
        });
        FormIndex {
            form,
            doc,
            hashes,
            primed: primed.as_ref(),
            data,
        }
    }

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
        let text = "a\nbc\n\n12345678\n1234567\n123456789\r\nx\r\r\n\u{e9}t\u{e9}\n  }\nend  \t\n\t\tlead and trail  \n \u{a0}nbsp\u{a0}\nvt\u{b}\n\u{b}  x\n  \u{2003}em\n       \nlast";
        let doc = Doc::parse(text);
        for form in [Form::Raw, Form::TrimEnd, Form::Trim] {
            for (i, (start, end)) in doc.spans().enumerate() {
                assert_eq!(
                    fingerprint_at(form, doc.body.as_bytes(), start, end),
                    fingerprint(form, doc.line(i)),
                    "{form:?} line {i} {:?}",
                    doc.line(i)
                );
            }
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
