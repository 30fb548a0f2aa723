//! Whole-file replacements: filling `...` placeholders from the file and rendering new content
//! in the file's own line-ending style.
//!
//! A model that rewrites a whole file sometimes skips unchanged stretches with a marker line
//! (`# ...`). Each marker is filled with the file lines between its neighbours, found by the same
//! rules as the elision rung: the neighbours must place in exactly one way, else the file is
//! refused rather than lose the skipped code.

use super::elision::{self, is_marker};
use super::index::FileIndex;
use super::search::loose_fits;
use crate::text::{hash_form, is_blank, strip_cr, Doc, Eol, Form};

/// How many non-blank neighbour lines a marker may use on each side before giving up.
const MAX_NEIGHBOURS: usize = 3;

/// Split `content` into lines (one trailing `\n` is not a line) and fill its placeholders from
/// `source`.
pub fn fill_placeholders(source: &Doc, content: &str) -> Result<Vec<String>, String> {
    let body = content.strip_suffix('\n').unwrap_or(content);
    let lines: Vec<&str> = if body.is_empty() && content.is_empty() {
        Vec::new()
    } else {
        body.split('\n').map(strip_cr).collect()
    };
    let idx = FileIndex::new(source);
    let canon = idx.form(Form::Canon);
    let markers: Vec<usize> = (0..lines.len())
        .filter(|&i| is_marker(lines[i]) && canon.count(hash_form(Form::Canon, lines[i]), 1) == 0)
        .collect();
    let mut out: Vec<String> = Vec::with_capacity(lines.len());
    let mut prev_cut = 0;
    for (mi, &m) in markers.iter().enumerate() {
        let seg_start = if mi == 0 { 0 } else { markers[mi - 1] + 1 };
        let seg_end = markers.get(mi + 1).copied().unwrap_or(lines.len());
        let gap = fill_one(&idx, &lines, m, seg_start, seg_end).ok_or_else(|| {
            format!(
                "the placeholder `{}` at line {} of the new content could not be filled in: the lines around it do not match exactly one place in the file; write those lines out in full",
                lines[m].trim(),
                m + 1
            )
        })?;
        out.extend(lines[prev_cut..m].iter().map(|s| s.to_string()));
        out.extend((gap.0..gap.1).map(|k| source.line(k).to_string()));
        prev_cut = m + 1;
    }
    out.extend(lines[prev_cut..].iter().map(|s| s.to_string()));
    Ok(out)
}

/// Start of the slice holding the `k` non-blank lines before `m` (not before `lo`).
fn back(lines: &[&str], m: usize, lo: usize, k: usize) -> Option<usize> {
    let mut seen = 0;
    let mut i = m;
    while i > lo {
        i -= 1;
        if !is_blank(lines[i]) {
            seen += 1;
            if seen == k {
                return Some(i);
            }
        }
    }
    None
}

/// End of the slice holding the `k` non-blank lines after `m` (not past `hi`).
fn forward(lines: &[&str], m: usize, hi: usize, k: usize) -> Option<usize> {
    let mut seen = 0;
    for (i, line) in lines.iter().enumerate().take(hi).skip(m + 1) {
        if !is_blank(line) {
            seen += 1;
            if seen == k {
                return Some(i + 1);
            }
        }
    }
    None
}

/// The source lines `[start, end)` the marker at `m` stands for.
fn fill_one(
    idx: &FileIndex,
    lines: &[&str],
    m: usize,
    lo: usize,
    hi: usize,
) -> Option<(usize, usize)> {
    let n = idx.len();
    for k in 1..=MAX_NEIGHBOURS {
        let before = back(lines, m, lo, k);
        let after = forward(lines, m, hi, k);
        let fits = match (before, after) {
            (None, None) => return None,
            (None, Some(e)) => {
                let pat = &lines[m + 1..e];
                let f = loose_fits(idx, pat, &vec![true; pat.len()], true);
                f.iter().map(|f| (0, f.range().0)).collect::<Vec<_>>()
            }
            (Some(s), None) => {
                let pat = &lines[s..m];
                let f = loose_fits(idx, pat, &vec![true; pat.len()], true);
                f.iter().map(|f| (f.range().1, n)).collect()
            }
            (Some(s), Some(e)) => {
                let pat = &lines[s..e];
                let marks: Vec<bool> = (s..e).map(|k| k == m).collect();
                let f = elision::fits(idx, pat, &vec![true; pat.len()], &marks);
                f.iter()
                    .map(|f| (f.map[m - s].start, f.map[m - s].end))
                    .collect()
            }
        };
        match fits.len() {
            0 => return None,
            1 => return Some(fits[0]),
            _ => {
                // Several places: more neighbours may tell them apart, unless none are left.
                let more_before = before.is_some_and(|s| back(lines, s, lo, 1).is_some());
                let more_after = after.is_some_and(|e| forward(lines, e - 1, hi, 1).is_some());
                if !more_before && !more_after {
                    return None;
                }
            }
        }
    }
    None
}

/// `lines` rendered as a file body in `source`'s style: lines equal to a source line keep that
/// line's ending, other lines take the dominant one, and the last line ends with a newline
/// exactly when `final_newline`.
pub fn render_like(source: &Doc, lines: &[String], final_newline: bool) -> String {
    let old: Vec<&str> = (0..source.len()).map(|i| source.line(i)).collect();
    let new: Vec<&str> = lines.iter().map(String::as_str).collect();
    let mut eols: Vec<Eol> = vec![source.dominant; new.len()];
    for d in similar::capture_diff_slices(similar::Algorithm::Myers, &old, &new) {
        if let similar::DiffOp::Equal {
            old_index,
            new_index,
            len,
        } = d
        {
            for k in 0..len {
                let e = source.lines[old_index + k].eol;
                eols[new_index + k] = if e == Eol::None { source.dominant } else { e };
            }
        }
    }
    let mut out = String::with_capacity(lines.iter().map(|l| l.len() + 2).sum());
    for (i, l) in lines.iter().enumerate() {
        out.push_str(l);
        if i + 1 < lines.len() || final_newline {
            out.push_str(eols[i].as_str());
        }
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn fills_a_placeholder_between_unique_neighbours() {
        let src = Doc::parse(
            "[package]\nname = \"x\"\nversion = \"1\"\nbuild = \"b.rs\"\nedition = \"2018\"\n",
        );
        let lines = fill_placeholders(
            &src,
            "[package]\n# ...\nbuild = \"b.rs\"\nedition = \"2021\"\n",
        )
        .unwrap();
        assert_eq!(
            lines,
            vec![
                "[package]",
                "name = \"x\"",
                "version = \"1\"",
                "build = \"b.rs\"",
                "edition = \"2021\""
            ]
        );
    }

    #[test]
    fn refuses_a_placeholder_it_cannot_place() {
        let src = Doc::parse("a\nx\nb\na\ny\nb\n");
        assert!(fill_placeholders(&src, "a\n...\nb\nc\n").is_err());
    }

    #[test]
    fn keeps_line_endings_of_unchanged_lines() {
        let src = Doc::parse("a\r\nb\nc\r\n");
        let out = render_like(&src, &["a".into(), "B".into(), "c".into()], true);
        assert_eq!(out, "a\r\nB\r\nc\r\n");
    }
}
