//! Pattern search over the index: contiguous runs in one form, runs with blank lines ignored,
//! and the map from pattern lines to the file lines they cover.
//!
//! Every search seeds from the pattern line that is rarest in the file and verifies the rest of
//! the window by hash, so it never slides a window over every line. Searches return *all*
//! candidates; choosing between them is the caller's job.

use crate::locate::rungs::index::FileIndex;
use crate::locate::write::reindent::Reindent;
use crate::text::{hash_form, is_blank, Form};

/// The file lines `[start, end)` one pattern line covers. Empty for a pattern line the file does
/// not have (a blank line the file lacks, context dropped by context-relax); longer than one line
/// for an elision marker or a blank line standing for several.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Span {
    pub start: usize,
    pub end: usize,
}

impl Span {
    pub(crate) fn line(i: usize) -> Span {
        Span {
            start: i,
            end: i + 1,
        }
    }

    pub(crate) fn empty(at: usize) -> Span {
        Span { start: at, end: at }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.start == self.end
    }
}

/// One way a pattern fits the file: a span per pattern line and the indentation delta.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Fit {
    pub map: Vec<Span>,
    pub reindent: Reindent,
    pub form: Form,
}

impl Fit {
    /// The file range covered, `[start, end)`.
    pub(crate) fn range(&self) -> (usize, usize) {
        let start = self
            .map
            .iter()
            .filter(|s| !s.is_empty())
            .map(|s| s.start)
            .min();
        let end = self
            .map
            .iter()
            .filter(|s| !s.is_empty())
            .map(|s| s.end)
            .max();
        match (start, end) {
            (Some(s), Some(e)) => (s, e),
            _ => {
                let at = self.map.first().map_or(0, |s| s.start);
                (at, at)
            }
        }
    }
}

/// Start lines of every contiguous occurrence of `pat` compared in `form`.
pub(crate) fn contiguous(idx: &FileIndex, form: Form, pat: &[&str]) -> Vec<usize> {
    let n = pat.len();
    if n == 0 || n > idx.len() {
        return Vec::new();
    }
    let fi = idx.form(form);
    let hs: Vec<u64> = pat.iter().map(|l| hash_form(form, l)).collect();
    let Some(k) = rarest(&fi, &hs) else {
        return Vec::new();
    };
    let total = idx.len();
    let mut out = Vec::new();
    for o in fi.lines(hs[k]) {
        if o < k {
            continue;
        }
        let s = o - k;
        if s + n > total {
            break;
        }
        if (0..n).all(|i| fi.hash(s + i) == hs[i]) {
            out.push(s);
        }
    }
    out
}

/// Index of the pattern hash with the fewest occurrences, or `None` when one never occurs.
pub(crate) fn rarest(fi: &crate::locate::rungs::index::FormIndex<'_>, hs: &[u64]) -> Option<usize> {
    let mut best = (usize::MAX, 0);
    for (k, &h) in hs.iter().enumerate() {
        let c = fi.count(h, best.0);
        if c == 0 {
            return None;
        }
        if c < best.0 {
            best = (c, k);
        }
    }
    Some(best.1)
}

/// Contiguous fits in one form. For [`Form::Trim`] (the indent rung) only fits whose
/// indentation differs by one uniform delta are kept; the other forms infer a delta when there
/// is one and otherwise keep added lines as written.
pub(crate) fn contiguous_fits(idx: &FileIndex, form: Form, pat: &[&str]) -> Vec<Fit> {
    let doc = idx.doc;
    let tabs = || idx.indents_with_tabs();
    contiguous(idx, form, pat)
        .into_iter()
        .filter_map(|s| {
            let pairs = pat.iter().enumerate().map(|(i, p)| (*p, doc.line(s + i)));
            let reindent = match (form, Reindent::infer(pairs, tabs)) {
                (_, Some(r)) => r,
                (Form::Trim, None) => return None,
                (_, None) => Reindent::Same,
            };
            Some(Fit {
                map: (0..pat.len()).map(|i| Span::line(s + i)).collect(),
                reindent,
                form,
            })
        })
        .collect()
}

/// Fits found with the strictest form that finds any, contiguous first, then with blank lines
/// ignored when `blanks` is set.
///
/// See `strictest` for why the forms between exact and canonical are often never indexed.
pub(crate) fn loose_fits(
    idx: &FileIndex,
    pat: &[&str],
    context: &[bool],
    blanks: bool,
) -> Vec<Fit> {
    let fits = strictest(
        Form::Raw,
        &[Form::TrimEnd, Form::Trim],
        Form::Canon,
        |f| contiguous_fits(idx, f, pat),
        Vec::is_empty,
    );
    if !fits.is_empty() || !blanks {
        return fits;
    }
    strictest(
        Form::TrimEnd,
        &[Form::Trim],
        Form::Canon,
        |f| blankless_fits(idx, f, pat, context),
        Vec::is_empty,
    )
}

/// The result of the strictest form that finds something (`none` says what is nothing): `first`,
/// then `middle` in order, then `loosest`; when none does, the loosest's. Lines equal in one form
/// are equal in every looser one, so after `first` the loosest form is asked: when it finds
/// nothing, the forms between (and the work of indexing the file in them) are skipped.
pub(crate) fn strictest<T>(
    first: Form,
    middle: &[Form],
    loosest: Form,
    mut find: impl FnMut(Form) -> T,
    none: impl Fn(&T) -> bool,
) -> T {
    let r = find(first);
    if !none(&r) {
        return r;
    }
    let last = find(loosest);
    if none(&last) {
        return last;
    }
    for &f in middle {
        let r = find(f);
        if !none(&r) {
            return r;
        }
    }
    last
}

/// Fits of `pat` where blank lines, in the pattern or in the file, are ignored: the non-blank
/// lines must be consecutive non-blank lines of the file. `context[i]` says whether pattern line
/// `i` is context (context blank lines may stand for several file blank lines).
pub(crate) fn blankless_fits(
    idx: &FileIndex,
    form: Form,
    pat: &[&str],
    context: &[bool],
) -> Vec<Fit> {
    let keys: Vec<usize> = (0..pat.len()).filter(|&i| !is_blank(pat[i])).collect();
    if keys.is_empty() {
        return Vec::new();
    }
    let fi = idx.form(form);
    let hs: Vec<u64> = keys.iter().map(|&i| hash_form(form, pat[i])).collect();
    let Some(k) = rarest(&fi, &hs) else {
        return Vec::new();
    };
    let nb = idx.nonblank();
    let m = keys.len();
    let doc = idx.doc;
    let tabs = || idx.indents_with_tabs();
    let mut out = Vec::new();
    for o in fi.lines(hs[k]) {
        let p = nb.pos[o] as usize;
        if p < k || p - k + m > nb.lines.len() {
            continue;
        }
        let base = p - k;
        if !(0..m).all(|i| fi.hash(nb.lines[base + i] as usize) == hs[i]) {
            continue;
        }
        let files: Vec<usize> = (0..m).map(|i| nb.lines[base + i] as usize).collect();
        let map = blank_map(idx, pat.len(), &keys, &files, context);
        let pairs = keys
            .iter()
            .zip(&files)
            .map(|(&i, &f)| (pat[i], doc.line(f)));
        let reindent = match (form, Reindent::infer(pairs, tabs)) {
            (_, Some(r)) => r,
            (Form::Trim, None) => continue,
            (_, None) => Reindent::Same,
        };
        out.push(Fit {
            map,
            reindent,
            form,
        });
    }
    out
}

/// Spans for a pattern whose non-blank lines `keys` sit on file lines `files`: blank pattern
/// lines take the file's blank lines next to them one for one; a blank context line absorbs
/// extra file blank lines; blank pattern lines the file lacks get empty spans.
fn blank_map(
    idx: &FileIndex,
    n: usize,
    keys: &[usize],
    files: &[usize],
    context: &[bool],
) -> Vec<Span> {
    let doc = idx.doc;
    let blank = |f: usize| is_blank(doc.line(f));
    let mut map = vec![Span::empty(0); n];
    for (&k, &f) in keys.iter().zip(files) {
        map[k] = Span::line(f);
    }
    // Leading blanks: nearest first, walking up.
    let (k0, f0) = (keys[0], files[0]);
    let mut f = f0;
    for k in (0..k0).rev() {
        if f > 0 && blank(f - 1) {
            f -= 1;
            map[k] = Span::line(f);
        } else {
            map[k] = Span::empty(f);
        }
    }
    // Between key lines.
    for w in 0..keys.len().saturating_sub(1) {
        let (ka, kb) = (keys[w], keys[w + 1]);
        let (fa, fb) = (files[w], files[w + 1]);
        let mut f = fa + 1;
        let mut last_ctx: Option<usize> = None;
        for (k, ctx) in context.iter().enumerate().take(kb).skip(ka + 1) {
            if f < fb {
                map[k] = Span::line(f);
                f += 1;
                if *ctx {
                    last_ctx = Some(k);
                }
            } else {
                map[k] = Span::empty(fb);
            }
        }
        if f < fb {
            if let Some(k) = last_ctx {
                // Extra file blank lines belong to the pattern's last blank context line, so
                // lines inserted around them keep their place.
                map[k].end = fb;
                let shift = fb - f;
                for s in map.iter_mut().take(kb).skip(k + 1) {
                    s.start += shift;
                    s.end += shift;
                }
            }
        }
    }
    // Trailing blanks: nearest first, walking down.
    let (kl, fl) = (keys[keys.len() - 1], files[files.len() - 1]);
    let mut f = fl + 1;
    for s in map.iter_mut().take(n).skip(kl + 1) {
        if f < doc.len() && blank(f) {
            *s = Span::line(f);
            f += 1;
        } else {
            *s = Span::empty(f);
        }
    }
    map
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use crate::text::Doc;

    #[test]
    fn contiguous_finds_every_occurrence() {
        let doc = Doc::parse("a\nb\nc\na\nb\n");
        let idx = FileIndex::new(&doc);
        assert_eq!(contiguous(&idx, Form::Raw, &["a", "b"]), vec![0, 3]);
        assert_eq!(contiguous(&idx, Form::Raw, &["b", "c"]), vec![1]);
        assert!(contiguous(&idx, Form::Raw, &["c", "b"]).is_empty());
        assert!(contiguous(&idx, Form::Raw, &["b", "x"]).is_empty());
    }

    #[test]
    fn indent_form_requires_a_uniform_delta() {
        let doc = Doc::parse("fn f() {\n    a();\n    b();\n}\n");
        let idx = FileIndex::new(&doc);
        let fits = contiguous_fits(&idx, Form::Trim, &["a();", "b();"]);
        assert_eq!(fits.len(), 1);
        assert_eq!(fits[0].reindent, Reindent::Prefix("    ".into()));
        assert!(contiguous_fits(&idx, Form::Trim, &["a();", "  b();"]).is_empty());
    }

    #[test]
    fn blankless_maps_missing_and_extra_blank_lines() {
        let doc = Doc::parse("a\n\n\nb\nc\n");
        let idx = FileIndex::new(&doc);
        // Pattern has one blank between a and b (file has two) and one between b and c (file
        // has none).
        let pat = ["a", "", "b", "", "c"];
        let fits = blankless_fits(&idx, Form::TrimEnd, &pat, &[true; 5]);
        assert_eq!(fits.len(), 1);
        let m = &fits[0].map;
        assert_eq!(m[0], Span::line(0));
        assert_eq!(m[1], Span { start: 1, end: 3 });
        assert_eq!(m[2], Span::line(3));
        assert_eq!(m[3], Span::empty(4));
        assert_eq!(m[4], Span::line(4));
        assert_eq!(fits[0].range(), (0, 5));
    }
}
