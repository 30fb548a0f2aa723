//! The elision rung: a pattern that skips unchanged lines with a `...`-style marker line
//! (`// ...`, `# ... existing code ...`, `...`).
//!
//! The pattern is cut at its markers into pieces. Every piece must be found, and exactly one
//! in-order chain of piece placements may exist; the marker then stands for the file lines
//! between its neighbours, which are kept untouched.

use crate::locate::rungs::index::FileIndex;
use crate::locate::rungs::search::{loose_fits, Fit, Span};
use crate::locate::write::reindent::Reindent;
use crate::text::{is_blank, Form};

/// Saturating count of in-order chains: 0, 1, or 2 for "more than one".
type Ways = u8;

/// Fits of a pattern whose lines flagged in `marker` are elision markers; empty when it has none
/// or a piece is missing, several when more than one chain of pieces fits. `context` says which
/// pattern lines are context (for blank-line handling inside pieces).
pub(crate) fn fits(idx: &FileIndex, pat: &[&str], context: &[bool], marker: &[bool]) -> Vec<Fit> {
    let markers: Vec<usize> = (0..pat.len()).filter(|&i| marker[i]).collect();
    if markers.is_empty() {
        return Vec::new();
    }
    // Pieces: maximal runs of non-marker lines holding at least one non-blank line.
    let mut pieces: Vec<(usize, usize)> = Vec::new();
    let mut start = 0;
    for cut in markers.iter().copied().chain(std::iter::once(pat.len())) {
        if (start..cut).any(|i| !is_blank(pat[i])) {
            pieces.push((start, cut));
        }
        start = cut + 1;
    }
    if pieces.is_empty() {
        return Vec::new();
    }
    let mut cands: Vec<Vec<Fit>> = Vec::with_capacity(pieces.len());
    for &(a, b) in &pieces {
        let found = loose_fits(idx, &pat[a..b], &context[a..b], true);
        if found.is_empty() {
            return Vec::new();
        }
        cands.push(found);
    }
    // ways[i][c]: chains of pieces 0..=i ending with candidate c of piece i.
    let mut ways: Vec<Vec<Ways>> = vec![vec![1; cands[0].len()]];
    for i in 1..cands.len() {
        let prev = &cands[i - 1];
        let pw = &ways[i - 1];
        let row = cands[i]
            .iter()
            .map(|c| {
                let s = c.range().0;
                let mut w: Ways = 0;
                for (p, &pwv) in prev.iter().zip(pw) {
                    if pwv > 0 && p.range().1 <= s {
                        w = (w + pwv).min(2);
                    }
                }
                w
            })
            .collect();
        ways.push(row);
    }
    let last = ways.len() - 1;
    let total: u32 = ways[last].iter().map(|&w| w as u32).sum();
    if total == 0 {
        return Vec::new();
    }
    // Build the chain ending at each viable last candidate (at most three, enough to report an
    // ambiguity), walking back through predecessors that are themselves viable.
    let mut out = Vec::new();
    for (c, &w) in ways[last].iter().enumerate() {
        if w == 0 {
            continue;
        }
        let mut chain = vec![c];
        for i in (0..last).rev() {
            let s = cands[i + 1][chain[chain.len() - 1]].range().0;
            let Some(p) = (0..cands[i].len())
                .rev()
                .find(|&p| ways[i][p] > 0 && cands[i][p].range().1 <= s)
            else {
                break;
            };
            chain.push(p);
        }
        chain.reverse();
        if chain.len() == pieces.len() {
            out.push(assemble(idx, pat, &pieces, &cands, &chain, marker));
        }
        if out.len() >= 3 {
            break;
        }
    }
    // A marker that is a line of the file inside the stretch it would stand for (`// ... and
    // receive it.` in a test's comments) may be quoted context, not a cut: the hunk then reads
    // as quoted with a line left out, a different place. No elision reading then.
    if out.iter().any(|f| marker_in_its_gap(idx, pat, marker, f)) {
        return Vec::new();
    }
    if total == 1 {
        out.truncate(1);
    } else if out.len() == 1 {
        // Several chains share the last piece; report the ambiguity with a second copy that
        // differs, so the caller never treats it as unique.
        let dup = out[0].clone();
        out.push(dup);
    }
    out
}

/// Whether some marker of `pat` stands as a file line, up to surrounding whitespace, among the
/// lines fit `f` gives it.
fn marker_in_its_gap(idx: &FileIndex, pat: &[&str], marker: &[bool], f: &Fit) -> bool {
    (0..pat.len()).filter(|&m| marker[m]).any(|m| {
        f.map.get(m).is_some_and(|span| {
            (span.start..span.end).any(|k| idx.doc.line(k).trim() == pat[m].trim())
        })
    })
}

fn assemble(
    idx: &FileIndex,
    pat: &[&str],
    pieces: &[(usize, usize)],
    cands: &[Vec<Fit>],
    chain: &[usize],
    marker: &[bool],
) -> Fit {
    let mut map: Vec<Option<Span>> = vec![None; pat.len()];
    let mut ranges = Vec::new();
    for (pi, &(a, b)) in pieces.iter().enumerate() {
        let fit = &cands[pi][chain[pi]];
        for (k, s) in fit.map.iter().enumerate() {
            map[a + k] = Some(*s);
        }
        ranges.push((a, b, fit.range()));
    }
    // Markers and blank-only stretches between pieces cover the gap; before the first piece or
    // after the last they cover nothing.
    let first = ranges[0].2 .0;
    let last_end = ranges[ranges.len() - 1].2 .1;
    let mut i = 0;
    while i < pat.len() {
        if map[i].is_some() {
            i += 1;
            continue;
        }
        let mut j = i;
        while j < pat.len() && map[j].is_none() {
            j += 1;
        }
        let prev = ranges.iter().rev().find(|r| r.1 <= i).map(|r| r.2 .1);
        let next = ranges.iter().find(|r| r.0 >= j).map(|r| r.2 .0);
        let (gs, ge) = match (prev, next) {
            (Some(p), Some(n)) => (p, n),
            (None, _) => (first, first),
            (Some(_), None) => (last_end, last_end),
        };
        // The gap goes to the first marker of the stretch; other lines of the stretch are
        // empty at its edges.
        let first_marker = (i..j).find(|&k| marker[k]);
        for (k, slot) in map.iter_mut().enumerate().take(j).skip(i) {
            *slot = Some(match first_marker {
                Some(m) if m == k => Span { start: gs, end: ge },
                Some(m) if k > m => Span::empty(ge),
                _ => Span::empty(gs),
            });
        }
        i = j;
    }
    let map: Vec<Span> = map
        .into_iter()
        .map(|s| s.unwrap_or(Span::empty(first)))
        .collect();
    let doc = idx.doc;
    let pairs = map
        .iter()
        .zip(pat)
        .filter(|(s, _)| s.end == s.start + 1)
        .map(|(s, p)| (*p, doc.line(s.start)));
    let reindent = Reindent::infer(pairs, || idx.indents_with_tabs()).unwrap_or_default();
    Fit {
        map,
        reindent,
        form: Form::Canon,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use crate::placeholder::is_marker;
    use crate::text::Doc;

    #[test]
    fn recognises_markers() {
        for m in [
            "...",
            "    // ...",
            "# ... existing code ...",
            "// ... rest unchanged ...",
            "\u{2026}",
            "/* ... */",
            "<!-- ... -->",
            "[...]",
            "    [\u{2026}]",
            "// [... existing code ...]",
            "    # (unchanged)",
            "// rest of the code unchanged",
        ] {
            assert!(is_marker(m), "{m}");
        }
        for m in [
            "foo(...)",
            "let x = ...;",
            "// see ...foo()",
            "..=5",
            "[...items]",
            "[...a, ...b]",
            "[[...]]",
            "\t\t\t...options",
            "    ...json,",
            "/* the value is left unchanged when parsing fails */",
        ] {
            assert!(!is_marker(m), "{m}");
        }
    }

    #[test]
    fn a_marker_covers_the_gap_between_unique_pieces() {
        let doc = Doc::parse("fn a() {\n  x();\n  y();\n  z();\n}\nfn b() {\n  w();\n}\n");
        let idx = FileIndex::new(&doc);
        let pat = ["fn a() {", "  // ...", "  z();", "}"];
        let fits = fits(&idx, &pat, &[true; 4], &[false, true, false, false]);
        assert_eq!(fits.len(), 1);
        assert_eq!(fits[0].map[1], Span { start: 1, end: 3 });
        assert_eq!(fits[0].map[2], Span::line(3));
    }

    #[test]
    fn a_worded_marker_covers_the_gap() {
        let doc = Doc::parse("def a():\n    x = 1\n    y = 2\n    return x\n");
        let idx = FileIndex::new(&doc);
        let pat = ["def a():", "    # (unchanged)", "    return x"];
        let fits = fits(&idx, &pat, &[true; 3], &[false, true, false]);
        assert_eq!(fits.len(), 1);
        assert_eq!(fits[0].map[1], Span { start: 1, end: 3 });
    }

    #[test]
    fn a_marker_the_file_has_inside_its_gap_is_no_cut() {
        // `// ... and receive it.` is the file's comment; quoted with `send()` left out, the
        // hunk is context, not a cut over `send()`, the blank and that comment.
        let doc = Doc::parse("let d = 1;\nsend();\n\n// ... and receive it.\nrecv();\n");
        let idx = FileIndex::new(&doc);
        let pat = ["let d = 1;", "", "// ... and receive it.", "recv();"];
        let marker = [false, false, true, false];
        assert!(fits(&idx, &pat, &[true; 4], &marker).is_empty());
        // Without that comment in the file, the marker cuts.
        let doc = Doc::parse("let d = 1;\nsend();\n\nrecv();\n");
        let idx = FileIndex::new(&doc);
        assert_eq!(fits(&idx, &pat, &[true; 4], &marker).len(), 1);
    }

    #[test]
    fn several_chains_are_ambiguous() {
        let doc = Doc::parse("head\na\nend\nb\nend\n");
        let idx = FileIndex::new(&doc);
        let pat = ["head", "...", "end"];
        assert!(fits(&idx, &pat, &[true; 3], &[false, true, false]).len() > 1);
    }
}
