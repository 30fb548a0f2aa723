//! Which lines of a file may match a key, found without hashing every line: a fingerprint read in
//! place rules most lines out; the passes over a large file run in two halves on two threads.

use crate::text::{canonical, hash_form, Doc, Form};

/// How many bits [`fingerprint`] has.
pub(super) const FINGERPRINT_BITS: u32 = 18;

/// The fingerprint a key has in `form`, for the filter: `None` when no line read in place can
/// have it (a canonical form that is not ASCII: only non-ASCII lines can match it, and those are
/// always hashed).
pub(super) fn key_fingerprint(form: Form, key: &str) -> Option<usize> {
    match form {
        Form::Canon => {
            let c = canonical(key);
            c.is_ascii().then(|| canonical_fingerprint(c.as_bytes()))
        }
        _ => Some(fingerprint(form, key)),
    }
}

/// The fingerprint of ASCII text in the canonical form: how many bytes are not whitespace, their
/// sum, and the first and last of them. Trimming and collapsing whitespace change none of these,
/// so lines whose canonical forms are equal have equal fingerprints.
fn canonical_fingerprint(t: &[u8]) -> usize {
    let (mut count, mut sum) = (0u64, 0u64);
    for &b in t {
        let kept = u64::from(!b.is_ascii_whitespace());
        count += kept;
        sum += u64::from(b) * kept;
    }
    let t = t.trim_ascii();
    let first = u64::from(t.first().copied().unwrap_or(0));
    let last = u64::from(t.last().copied().unwrap_or(0));
    fingerprint_of(sum | (first << 40) | (last << 48), count as usize)
}

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

/// Forms that compare a slice of the line (the line, or the line trimmed); the canonical form
/// rewrites the line.
fn sliced(form: Form) -> bool {
    matches!(form, Form::Raw | Form::TrimEnd | Form::Trim)
}

/// Whitespace as `str::trim` sees it, for ASCII bytes.
fn ascii_space(b: u8) -> bool {
    b == b' ' || (b'\t'..=b'\r').contains(&b)
}

/// The fingerprint of the line at `body[start..end]` as [`key_fingerprint`] gives a key equal to
/// it in `form`; `None` for a line that must be hashed whatever the keys are (a non-ASCII line in
/// the canonical form).
pub(super) fn fingerprint_at(form: Form, body: &[u8], start: usize, end: usize) -> Option<usize> {
    if sliced(form) {
        return Some(sliced_fingerprint_at(form, body, start, end));
    }
    let line = &body[start..end];
    line.is_ascii().then(|| canonical_fingerprint(line))
}

/// [`fingerprint`] of the line at `body[start..end]`, without a branch on its length for most
/// lines: the eight bytes ending where the compared slice ends are read from the body whatever
/// line they belong to, and the bytes before it shifted out. Lines whose ends the form would
/// treat in a way bytes cannot show (a lone `\r`, non-ASCII at a trimmed end) take the long way.
fn sliced_fingerprint_at(form: Form, body: &[u8], mut start: usize, mut end: usize) -> usize {
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
    tail_fingerprint(u64::from_le_bytes(w), end - start)
}

/// The fingerprint of a compared slice of `n` bytes whose last eight bytes of the body (the
/// slice's own and, when it is shorter, those before it) are `w`.
#[inline(always)]
fn tail_fingerprint(w: u64, n: usize) -> usize {
    // Two shifts, so a length of 0 shifts by 64 without overflowing.
    let tail = if n >= 8 { w } else { (w >> 1) >> (63 - 8 * n) };
    fingerprint_of(tail, n)
}

#[inline(always)]
fn fingerprint_of(tail: u64, len: usize) -> usize {
    let x = (tail ^ (len as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15))
        .wrapping_mul(0xff51_afd7_ed55_8ccd);
    (x >> (64 - FINGERPRINT_BITS)) as usize
}

/// Lines of a file at least this long are fingerprinted and hashed in two halves at once.
const SPLIT_LINES: usize = 50_000;

/// `(line, hash in form)` of every line whose fingerprint is in `filter`, in line order. A
/// large file is done in two halves on two threads: this pass and the file's split are the
/// only work that grows with the file rather than with the edit. The halves are chained, not
/// joined: a joined list cost a copy of the upper half into pages faulted for it.
pub(super) fn candidates(
    doc: &Doc,
    form: Form,
    filter: &[u64],
) -> impl ExactSizeIterator<Item = (usize, u64)> {
    let n = doc.len();
    let (lower, upper) = if n < SPLIT_LINES {
        (candidates_in(doc, form, filter, 0..n), Vec::new())
    } else {
        let mid = n / 2;
        salve_concurrent::both(
            || candidates_in(doc, form, filter, 0..mid),
            || candidates_in(doc, form, filter, mid..n),
        )
    };
    Chained {
        lower: lower.into_iter(),
        upper: upper.into_iter(),
    }
}

/// Two lists read one after the other, with a known length (which `Iterator::chain` does not
/// give: the table built from them sizes its buffer by it).
struct Chained<T> {
    lower: std::vec::IntoIter<T>,
    upper: std::vec::IntoIter<T>,
}

impl<T> Iterator for Chained<T> {
    type Item = T;

    fn next(&mut self) -> Option<T> {
        self.lower.next().or_else(|| self.upper.next())
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.lower.len() + self.upper.len();
        (n, Some(n))
    }
}

impl<T> ExactSizeIterator for Chained<T> {}

/// Lines looked at per batch of [`candidates_in`]: its buffer of line numbers stays on the
/// stack and in cache.
const BATCH: usize = 1024;

fn candidates_in(
    doc: &Doc,
    form: Form,
    filter: &[u64],
    lines: std::ops::Range<usize>,
) -> Vec<(usize, u64)> {
    let mut out = Vec::new();
    let mut rest = lines;
    if form == Form::Raw {
        if let Some(starts) = doc.starts32() {
            rest = raw_candidates_in(doc, starts, filter, rest, &mut out);
        }
    }
    general_candidates_in(doc, form, filter, rest, &mut out);
    out
}

/// [`candidates_in`] in the raw form (the one a clean patch needs), over the 32-bit line starts
/// read directly: a line ends just before the next one starts, so the pass costs a fraction of
/// [`Doc::span`] per line. Gives the lines of `lines` it leaves to the general pass: the file's
/// last line, which may have no newline.
fn raw_candidates_in(
    doc: &Doc,
    starts: &[u32],
    filter: &[u64],
    lines: std::ops::Range<usize>,
    out: &mut Vec<(usize, u64)>,
) -> std::ops::Range<usize> {
    let body = doc.body.as_bytes();
    let inner = lines.end.min(starts.len().saturating_sub(1));
    let mut through = [0u32; BATCH];
    let mut first = lines.start;
    while first < inner {
        let last = (first + BATCH).min(inner);
        let mut n = 0;
        let pairs = starts[first..last].iter().zip(&starts[first + 1..=last]);
        for (k, (&start, &next)) in pairs.enumerate() {
            let (f, _) = raw_line_at(body, start as usize, next as usize);
            through[n] = k as u32;
            n += ((filter[f / 64] >> (f % 64)) & 1) as usize;
        }
        out.extend(through[..n].iter().map(|&k| {
            let i = first + k as usize;
            (i, hash_form(Form::Raw, doc.line(i)))
        }));
        first = last;
    }
    first.max(lines.start)..lines.end
}

/// The raw fingerprint of the line that starts at `start` and ends before the newline that
/// precedes `next`, and where its content ends (before a CRLF's `\r`, as `Doc::span` has it).
#[inline(always)]
fn raw_line_at(body: &[u8], start: usize, next: usize) -> (usize, usize) {
    let end = next - 1;
    if end > start && body[end - 1] == b'\r' {
        (
            sliced_fingerprint_at(Form::Raw, body, start, end - 1),
            end - 1,
        )
    } else if end < 8 {
        (sliced_fingerprint_at(Form::Raw, body, start, end), end)
    } else {
        // `sliced_fingerprint_at`'s common case, inlined: the line does not end in `\r`, and
        // eight bytes end where it does.
        let mut w = [0u8; 8];
        w.copy_from_slice(&body[end - 8..end]);
        (tail_fingerprint(u64::from_le_bytes(w), end - start), end)
    }
}

/// The raw form's pass fused with the split ([`crate::text::Doc::parse_visiting`]): shown the
/// lines of one half as the split finds them, it keeps `(line, hash)` of those whose
/// fingerprint is in the filter, as [`candidates`] does after the split (one pass over the
/// text's bytes instead of two).
pub(super) struct RawPass<'t> {
    body: &'t str,
    filter: &'t [u64],
    pub(super) found: Vec<(usize, u64)>,
}

impl<'t> RawPass<'t> {
    pub(super) fn new(body: &'t str, filter: &'t [u64]) -> Self {
        RawPass {
            body,
            filter,
            found: Vec::new(),
        }
    }

    /// See [`crate::text::Visit`].
    pub(super) fn visit(&mut self, starts: &[u32], first: usize) {
        let body = self.body.as_bytes();
        for (k, pair) in starts.windows(2).enumerate() {
            let start = pair[0] as usize;
            let (f, end) = raw_line_at(body, start, pair[1] as usize);
            if (self.filter[f / 64] >> (f % 64)) & 1 == 1 {
                let h = hash_form(Form::Raw, self.body.get(start..end).unwrap_or(""));
                self.found.push((first + k, h));
            }
        }
    }
}

/// The fingerprint filter of `keys` in `form`: one bit for each fingerprint a key has.
pub(super) fn key_filter(form: Form, keys: &[&String]) -> Vec<u64> {
    let mut filter = vec![0u64; (1 << FINGERPRINT_BITS) / 64];
    for f in keys.iter().filter_map(|k| key_fingerprint(form, k)) {
        filter[f / 64] |= 1 << (f % 64);
    }
    filter
}

/// Lines of `doc` in `lines` whose fingerprint in `form` is in `filter`, hashed, appended to
/// `out` (the general pass, for the lines a fused pass was not shown).
pub(super) fn append_candidates(
    doc: &Doc,
    form: Form,
    filter: &[u64],
    lines: std::ops::Range<usize>,
    out: &mut Vec<(usize, u64)>,
) {
    general_candidates_in(doc, form, filter, lines, out);
}

/// [`candidates_in`] through [`Doc::spans_in`], for every form, appended to `out`.
fn general_candidates_in(
    doc: &Doc,
    form: Form,
    filter: &[u64],
    lines: std::ops::Range<usize>,
    out: &mut Vec<(usize, u64)>,
) {
    // Branch-free: every line's number is written, and the count moves on only for those the
    // filter lets through.
    let body = doc.body.as_bytes();
    let mut through = [0u32; BATCH];
    let mut first = lines.start;
    while first < lines.end {
        let last = (first + BATCH).min(lines.end);
        let mut n = 0;
        for (k, (start, end)) in doc.spans_in(first..last).enumerate() {
            let pass = match fingerprint_at(form, body, start, end) {
                Some(f) => (filter[f / 64] >> (f % 64)) & 1,
                None => 1,
            };
            through[n] = k as u32;
            n += pass as usize;
        }
        out.extend(through[..n].iter().map(|&k| {
            let i = first + k as usize;
            (i, hash_form(form, doc.line(i)))
        }));
        first = last;
    }
}

/// Every line's hash in `form`, for the table of every line (needed only when a line no hunk
/// has is looked up); a large file in two halves at once.
pub(super) fn line_hashes(doc: &Doc, form: Form) -> Vec<u64> {
    let hash = |lines: std::ops::Range<usize>| -> Vec<u64> {
        lines.map(|i| hash_form(form, doc.line(i))).collect()
    };
    let n = doc.len();
    if n < SPLIT_LINES {
        return hash(0..n);
    }
    let mid = n / 2;
    let (mut lower, upper) = salve_concurrent::both(|| hash(0..mid), || hash(mid..n));
    lower.extend(upper);
    lower
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The raw pass over the line starts lets through exactly the lines the general pass does,
    /// with the same hashes: random texts of short, long, blank, CRLF and lone-`\r` lines, with
    /// and without a final newline, some non-ASCII, against random filters.
    #[test]
    fn raw_pass_over_starts_agrees_with_the_general_pass() {
        let seed = 1313u64;
        eprintln!("seed {seed}");
        let mut rng = crate::test_rng::SeededRng::new(seed);
        let mut next = move |n: u64| rng.below_u64(n);
        let pieces = [
            "x",
            "ab",
            "return rc;",
            "\u{e9}t\u{e9}",
            " ",
            "\t",
            "\r",
            "}",
            "12345678",
        ];
        for case in 0..3_000 {
            let mut text = String::new();
            for _ in 0..next(60) {
                for _ in 0..next(6) {
                    text.push_str(pieces[next(pieces.len() as u64) as usize]);
                }
                text.push_str(["\n", "\r\n", "\r\r\n"][next(3) as usize]);
            }
            if next(2) == 0 {
                text.push_str(pieces[next(pieces.len() as u64) as usize]);
            }
            let doc = Doc::parse(&text);
            // Random bits, and the fingerprints of some of the text's own lines.
            let mut filter = vec![0u64; (1 << FINGERPRINT_BITS) / 64];
            for _ in 0..next(30_000) {
                let f = next(1 << FINGERPRINT_BITS) as usize;
                filter[f / 64] |= 1 << (f % 64);
            }
            for line in doc.lines().filter(|_| next(2) == 0) {
                if let Some(f) = key_fingerprint(Form::Raw, line) {
                    filter[f / 64] |= 1 << (f % 64);
                }
            }
            let n = doc.len();
            let (a, b) = (next(n as u64 + 1) as usize, next(n as u64 + 1) as usize);
            for range in [0..n, a.min(b)..a.max(b)] {
                let got = candidates_in(&doc, Form::Raw, &filter, range.clone());
                let mut want = Vec::new();
                general_candidates_in(&doc, Form::Raw, &filter, range.clone(), &mut want);
                assert_eq!(got, want, "seed {seed} case {case} {range:?} {text:?}");
            }
        }
    }
}
