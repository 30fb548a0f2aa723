//! Whole-file replacements: filling elision gaps from the file and rendering new content in the
//! file's own line-ending style.
//!
//! A model that rewrites a whole file sometimes skips unchanged stretches with a gap line (`...`,
//! `# ...`, `// ... existing code ...`, see [`is_gap`]). Each gap is filled with the file lines
//! between its neighbours, found by the same rules as the elision rung: the neighbours must place
//! in exactly one way, and the gaps must fill in file order, else the file is refused
//! ([`Status::NotFound`] or [`Status::Ambiguous`]) rather than lose the skipped code.
//! A placeholder that ends the content stands for the rest of the file only when it says so in
//! words (`# ... rest of the file unchanged ...`), and only where the rest's first line is
//! certain ([`rest`](crate::locate::whole::rest)); a bare `...` there says the file was cut short, and is
//! refused. Other placeholders (`/* rest of file */`, or any at the head of the content) are the
//! parser's to refuse as lazy.

pub(crate) mod cut;
pub(crate) mod fill_guard;
pub(crate) mod rest;

use crate::locate::rungs::elision;
use crate::locate::rungs::index::FileIndex;
use crate::locate::rungs::search::loose_fits;
use crate::placeholder::{is_gap_at, says_rest};
use crate::report::Status;
use crate::text::{has_words, is_blank, strip_cr, Doc, Eol};
use fill_guard::{in_place, repeats};
use rest::Miss;

/// How many non-blank neighbour lines a gap may use on each side before giving up.
const MAX_NEIGHBOURS: usize = 3;

/// The gaps of whole-file content `lines` ([`is_gap_at`]), except a line that is the file's own
/// line in its place ([`in_place`]): a sentence that reads like a placeholder (`(works as
/// before.)` in a changelog, `// ... unless this impl also applies, then inference fails.`), or
/// a grammar comment `// ...`, standing in `source` beside the same line as in the content.
pub(crate) fn gaps(source: &Doc, lines: &[&str], dots_are_code: bool) -> Vec<usize> {
    (0..lines.len())
        .filter(|&i| is_gap_at(lines, i, dots_are_code) && !in_place(source, lines, i))
        .collect()
}

/// Why a gap could not be filled: [`Status::NotFound`] or [`Status::Ambiguous`], and a message
/// for the model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct FillError {
    pub status: Status,
    pub message: String,
}

/// Split `content` into lines (one trailing `\n` is not a line) and fill its gaps from `source`.
#[cfg(test)]
pub(crate) fn fill_placeholders(
    source: &Doc,
    content: &str,
    dots_are_code: bool,
) -> Result<Vec<String>, FillError> {
    fill_placeholders_noting(source, content, dots_are_code).map(|(lines, _)| lines)
}

/// [`fill_placeholders`], also saying whether the content had a gap to fill: content that
/// stands for some of the file's lines with placeholders says every line it leaves out
/// (see `cut::check`).
pub(crate) fn fill_placeholders_noting(
    source: &Doc,
    content: &str,
    dots_are_code: bool,
) -> Result<(Vec<String>, bool), FillError> {
    let body = content.strip_suffix('\n').unwrap_or(content);
    let lines: Vec<&str> = if body.is_empty() && content.is_empty() {
        Vec::new()
    } else {
        body.split('\n').map(strip_cr).collect()
    };
    let gaps = gaps(source, &lines, dots_are_code);
    if gaps.is_empty() {
        return Ok((lines.iter().map(|s| s.to_string()).collect(), false));
    }
    let idx = FileIndex::new(source);
    let mut out: Vec<String> = Vec::with_capacity(lines.len());
    let mut prev_cut = 0;
    let mut filled_to = 0;
    let mut rest_filled = false;
    for (gi, &m) in gaps.iter().enumerate() {
        let seg_start = if gi == 0 { 0 } else { gaps[gi - 1] + 1 };
        let seg_end = gaps.get(gi + 1).copied().unwrap_or(lines.len());
        let fail = |status: Status, why: &str| FillError {
            status,
            message: unfilled(lines[m], m, why),
        };
        let filled = if says_rest(&lines[m + 1..], lines[m]) {
            rest_filled = true;
            rest::resume(&idx, &lines, m, seg_start, filled_to).map(|r| (r, source.len()))
        } else {
            fill_one(&idx, &lines, m, seg_start, seg_end)
        };
        let gap = filled.map_err(|miss| {
            let (status, why) = miss.reason();
            fail(status, why)
        })?;
        if gap.0 < filled_to {
            // Gaps out of order would repeat or reorder the file's lines.
            return Err(fail(
                Status::Ambiguous,
                "it stands for lines before those of an earlier placeholder",
            ));
        }
        if repeats(source, gap.0, gap.1, &lines, &gaps) {
            return Err(fail(
                Status::Ambiguous,
                "the file lines it would stand for include lines the content already has around it",
            ));
        }
        filled_to = gap.1;
        out.extend(lines[prev_cut..m].iter().map(|s| s.to_string()));
        if gap.0 == gap.1 && holds_line(source, lines[m]) {
            // Standing for no lines at all, in a file that uses the same line as content (a
            // grammar comment `// ...`): the content's own line, added, not a gap.
            out.push(lines[m].to_string());
        }
        out.extend((gap.0..gap.1).map(|k| source.line(k).to_string()));
        prev_cut = m + 1;
    }
    out.extend(lines[prev_cut..].iter().map(|s| s.to_string()));
    let unchanged =
        out.len() == source.len() && out.iter().enumerate().all(|(i, l)| l == source.line(i));
    if rest_filled && unchanged {
        // The kept lines are the file's own: whatever the reply meant to change lies in the
        // lines the placeholders stand for, so filling them in would apply nothing of it.
        return Err(FillError {
            status: Status::NotFound,
            message: "the whole-file content keeps only lines the file already has, and its placeholders stand for the rest: the change it was meant to make is not in it; write the changed lines out in full".into(),
        });
    }
    Ok((out, true))
}

/// Whether `source` has `line` (trimmed) as one of its lines.
fn holds_line(source: &Doc, line: &str) -> bool {
    let want = line.trim();
    (0..source.len()).any(|k| source.line(k).trim() == want)
}

/// The message for the gap `line` at index `m` that could not be filled, and why.
fn unfilled(line: &str, m: usize, why: &str) -> String {
    format!(
        "the placeholder `{}` at line {} of the new content could not be filled in from the file: {why}; write those lines out in full",
        line.trim(),
        m + 1
    )
}

/// Start of the slice holding the (up to) `k` non-blank lines before `m`, not before `lo`;
/// `None` when there is none.
fn back(lines: &[&str], m: usize, lo: usize, k: usize) -> Option<usize> {
    let mut found = None;
    let mut seen = 0;
    let mut i = m;
    while i > lo && seen < k {
        i -= 1;
        if !is_blank(lines[i]) {
            seen += 1;
            found = Some(i);
        }
    }
    found
}

/// End of the slice holding the (up to) `k` non-blank lines after `m`, not past `hi`; `None`
/// when there is none.
fn forward(lines: &[&str], m: usize, hi: usize, k: usize) -> Option<usize> {
    let mut found = None;
    let mut seen = 0;
    for (i, line) in lines.iter().enumerate().take(hi).skip(m + 1) {
        if seen == k {
            break;
        }
        if !is_blank(line) {
            seen += 1;
            found = Some(i + 1);
        }
    }
    found
}

/// A closing line without its trailing comma or semicolon, trimmed: `},` and `}` are one line
/// to an edit that adds an element after the last one.
fn bare_close(line: &str) -> &str {
    line.trim().trim_end_matches([',', ';']).trim_end()
}

/// How many places at or after `from` the lines `next` (punctuation only) fit when a trailing
/// comma or semicolon is ignored. A gap placed by such lines alone may end at the wrong closing
/// line, silently dropping the block between the two: `},` after the gap matches the first
/// block's `},` while the model meant the second block's `}`, which its edit turned into `},`.
fn closing_fits(source: &Doc, next: &[&str], from: usize) -> usize {
    if next.is_empty() || next.iter().any(|l| has_words(l)) {
        return 0;
    }
    let want: Vec<&str> = next.iter().map(|l| bare_close(l)).collect();
    (from..source.len().saturating_sub(want.len() - 1))
        .filter(|&i| {
            want.iter()
                .enumerate()
                .all(|(k, w)| bare_close(source.line(i + k)) == *w)
        })
        .count()
}

/// The source lines `[start, end)` the gap at `m` stands for. Its neighbours are taken from the
/// content between the previous gap (`lo`) and the next one (`hi`). A gap with content on one
/// side only reaches to the start or end of the file, so that is allowed only for a gap with
/// nothing but blank lines between it and that end of the content.
fn fill_one(
    idx: &FileIndex,
    lines: &[&str],
    m: usize,
    lo: usize,
    hi: usize,
) -> Result<(usize, usize), Miss> {
    let at_top = (0..m).all(|k| is_blank(lines[k]));
    let at_bottom = (m + 1..lines.len()).all(|k| is_blank(lines[k]));
    for k in 1..=MAX_NEIGHBOURS {
        let before = back(lines, m, lo, k);
        let after = forward(lines, m, hi, k);
        let fits = match (before, after) {
            (None, Some(e)) if at_top => {
                let pat = &lines[m + 1..e];
                let f = loose_fits(idx, pat, &vec![true; pat.len()], true);
                f.iter().map(|f| (0, f.range().0)).collect::<Vec<_>>()
            }
            // A whole file that keeps its head and ends in "rest unchanged" is cut short: what
            // the model meant for the rest is unknown (DESIGN.md §3.1), so it is not guessed.
            (Some(_), None) if at_bottom => return Err(Miss::CutShort),
            (Some(s), Some(e)) => {
                let pat = &lines[s..e];
                let marks: Vec<bool> = (s..e).map(|k| k == m).collect();
                let f = elision::fits(idx, pat, &vec![true; pat.len()], &marks);
                let fills: Vec<(usize, usize)> = f
                    .iter()
                    .map(|f| (f.map[m - s].start, f.map[m - s].end))
                    .collect();
                // The gap ends at the first place its next lines fit; when they fit again
                // further on, the gap could as well reach there: that is a guess, not a fill.
                let next = &lines[m + 1..e];
                let again = loose_fits(idx, next, &vec![true; next.len()], true);
                let reaches = |(start, _): (usize, usize)| {
                    again.iter().filter(|g| g.range().0 >= start).count()
                };
                let closes = |(start, _): (usize, usize)| closing_fits(idx.doc, next, start);
                if fills.iter().any(|&g| reaches(g) > 1 || closes(g) > 1) {
                    vec![(0, 0); 2] // counted as several places
                } else {
                    fills
                }
            }
            _ => return Err(Miss::NoNeighbours),
        };
        match fits.len() {
            // More neighbours may reach lines the edit changed; several places stay several.
            0 if k > 1 => return Err(Miss::Ambiguous),
            0 => return Err(Miss::NotFound),
            1 => return Ok(fits[0]),
            _ => {
                // Several places: more neighbours may tell them apart, unless none are left.
                let more_before = before.is_some_and(|s| back(lines, s, lo, 1).is_some());
                let more_after = after.is_some_and(|e| forward(lines, e - 1, hi, 1).is_some());
                if !more_before && !more_after {
                    return Err(Miss::Ambiguous);
                }
            }
        }
    }
    Err(Miss::Ambiguous)
}

/// `lines` rendered as a file body in `source`'s style: lines equal to a source line keep that
/// line's ending, other lines take the dominant one, and the last line ends with a newline
/// exactly when `final_newline`.
pub(crate) fn render_like(source: &Doc, lines: &[String], final_newline: bool) -> String {
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
                let e = source.eol(old_index + k);
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
    use crate::placeholder::is_gap;

    #[test]
    fn fills_a_placeholder_between_unique_neighbours() {
        let src = Doc::parse(
            "[package]\nname = \"x\"\nversion = \"1\"\nbuild = \"b.rs\"\nedition = \"2018\"\n",
        );
        let lines = fill_placeholders(
            &src,
            "[package]\n# ...\nbuild = \"b.rs\"\nedition = \"2021\"\n",
            false,
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
        let e = fill_placeholders(&src, "a\n...\nb\nc\n", false).unwrap_err();
        assert_eq!(e.status, Status::Ambiguous, "{e:?}");
        assert!(e.message.contains("`...` at line 2"), "{e:?}");
        let e = fill_placeholders(&src, "a\n// ...\nzz\n", false).unwrap_err();
        assert_eq!(e.status, Status::NotFound, "{e:?}");
    }

    #[test]
    fn a_sentence_that_reads_like_a_placeholder_in_its_place_is_content() {
        let src =
            Doc::parse("# Log\n\n- Moved to clap 3.\n  (works as before.)\n\n## 1.0\n\n- First.\n");
        let content =
            "# Log\n\n- Moved to clap 3.\n  (works as before.)\n\n## 1.1\n\n## 1.0\n\n- First.\n";
        let out = fill_placeholders(&src, content, false).unwrap();
        assert_eq!(out.join("\n") + "\n", content);
        // The same words between lines that do not stand around them in the file: a gap.
        let lines = ["# Log", "(rest as before.)", "- First."];
        assert_eq!(gaps(&src, &lines, false), vec![1]);
    }

    #[test]
    fn a_gap_line_standing_for_nothing_in_a_file_that_has_it_is_content() {
        // The file uses `// ...` lines; the content adds one more between adjacent lines.
        let src = Doc::parse("a {\n    // ...\n}\nb {\n    x();\n}\n");
        let content = "a {\n    // ...\n}\nb {\n    // ...\n    x();\n}\n";
        let out = fill_placeholders(&src, content, false).unwrap();
        assert_eq!(out.join("\n") + "\n", content);
    }

    #[test]
    fn a_dotted_comment_with_words_in_its_place_is_content() {
        // The file's own `// ... unless ...` comment, with the lines after it deleted: content,
        // not a gap that would bring them back.
        let src = Doc::parse("impl A for T {}\n\n// ... unless this impl also applies.\nstruct B;\nimpl A for B {}\n\nmod tests {}\n");
        let content = "impl A for T {}\n\n// ... unless this impl also applies.\n\nmod tests {}\n";
        let out = fill_placeholders(&src, content, false).unwrap();
        assert_eq!(out.join("\n") + "\n", content);
        // Bare dots where the file has none stay a gap.
        let lines = ["impl A for T {}", "", "// ...", "", "mod tests {}"];
        assert_eq!(gaps(&src, &lines, false), vec![2]);
        // Bare dots the file has in that place are its own line.
        let src = Doc::parse("/* grammar:\n// a = b\n// ...\n// c = d\n*/\n");
        let lines = ["/* grammar:", "// a = b", "// ...", "// c = d", "*/"];
        assert!(gaps(&src, &lines, false).is_empty());
    }

    #[test]
    fn gap_shapes() {
        for g in [
            "...",
            "  // ...",
            "# ... existing code ...",
            "/* ... */",
            "<!-- ... -->",
            "\u{2026}",
        ] {
            assert!(is_gap(g, false), "{g}");
        }
        for c in ["...rest,", "  ...defaults,", "x = ...", "// rest unchanged"] {
            assert!(!is_gap(c, false), "{c}");
        }
        // Python's Ellipsis is code; a commented gap is still a gap there.
        assert!(!is_gap("    ...", true));
        assert!(is_gap("    # ...", true));
    }

    #[test]
    fn a_worded_placeholder_between_unique_neighbours_is_filled() {
        let src = Doc::parse("head\nx\ny\nmid\nz\n");
        let lines = fill_placeholders(&src, "head\n// rest of the code unchanged\nmid\nZ\n", false)
            .unwrap();
        assert_eq!(lines, ["head", "x", "y", "mid", "Z"]);
        // At the head it says the file was cut short: no gap, the parser's to refuse.
        let content = ["// rest of the code unchanged", "HEAD"];
        assert!(!is_gap_at(&content, 0, false));
        // At the end, only words that say the rest is unchanged make it a gap (filled from the
        // file by `rest`, or refused there); other words say the content stops.
        let content = ["HEAD", "[rest of file unchanged]", ""];
        assert!(is_gap_at(&content, 1, false));
        let content = ["HEAD", "// rest of the code"];
        assert!(!is_gap_at(&content, 1, false));
    }

    #[test]
    fn a_gap_whose_next_lines_fit_again_further_on_is_not_guessed() {
        // `}` after the gap fits twice below `a {`: the gap could end at either.
        let src = Doc::parse("a {\n  x\n}\nb {\n  y\n}\nc\n");
        let e = fill_placeholders(&src, "a {\n...\n}\nnew\nc\n", false).unwrap_err();
        assert_eq!(e.status, Status::Ambiguous, "{e:?}");
        // With a next line that fits once, it is filled.
        let lines = fill_placeholders(&src, "a {\n...\n}\nb {\n  Y\n}\nc\n", false).unwrap();
        assert_eq!(lines, ["a {", "  x", "}", "b {", "  Y", "}", "c"]);
    }

    #[test]
    fn a_gap_is_not_placed_by_punctuation_alone() {
        // The reply changed the second block's `}` into `},` and added a block after it; by its
        // `},` alone the gap would end at the first block's `},` and drop the second block.
        let src = Doc::parse("a: {\n  x,\n  y\n},\nb: {\n  z\n}\n");
        let e = fill_placeholders(&src, "a: {\n  x,\n  ...\n},\nc: {\n  w\n}\n", false);
        assert!(e.is_err(), "{e:?}");
        // With the line after the `},` in the file, the gap is filled.
        let lines =
            fill_placeholders(&src, "a: {\n  x,\n  ...\n},\nb: {\n  Z\n}\n", false).unwrap();
        assert_eq!(lines, ["a: {", "  x,", "  y", "},", "b: {", "  Z", "}"]);
    }

    #[test]
    fn a_gap_with_content_on_one_side_reaches_the_end_only_at_the_end() {
        let src = Doc::parse("a\nb\nc\nd\n");
        // A trailing gap is a file cut short: refused, not filled with the rest of the file.
        let e = fill_placeholders(&src, "A\nb\n...\n", false).unwrap_err();
        assert_eq!(e.status, Status::NotFound, "{e:?}");
        // A leading gap keeps the start.
        let lines = fill_placeholders(&src, "...\nc\nD\n", false).unwrap();
        assert_eq!(lines, ["a", "b", "c", "D"]);
        // Two gaps with nothing between them: the second has nothing of its own to place by
        // (taken as "the rest of the file" it would repeat lines).
        let e = fill_placeholders(&src, "a\n...\n\n...\nd\n", false).unwrap_err();
        assert_eq!(e.status, Status::NotFound, "{e:?}");
    }

    #[test]
    fn a_trailing_rest_unchanged_is_filled_when_where_it_begins_is_certain() {
        let src = Doc::parse("a = 1\nb\nc\nd\n");
        let text = "a = 2\nb\nc\n# ... rest unchanged ...\n";
        let lines = fill_placeholders(&src, text, false).unwrap();
        assert_eq!(lines, ["a = 2", "b", "c", "d"]);
        // A bare `...` there says only that the content stops.
        let e = fill_placeholders(&src, "a = 2\nb\nc\n...\n", false).unwrap_err();
        assert!(e.message.contains("cut short"), "{e:?}");
        // The line before it was changed: replaced or added, the rest's start is unknown.
        let e = fill_placeholders(&src, "a = 1\nB\n# rest unchanged\n", false).unwrap_err();
        assert_eq!(e.status, Status::NotFound, "{e:?}");
        // Only the file's own lines are kept: the change would be in what it stands for.
        let e = fill_placeholders(&src, "a = 1\nb\n# rest unchanged\n", false).unwrap_err();
        assert!(e.message.contains("not in it"), "{e:?}");
    }

    #[test]
    fn a_rest_after_a_middle_gap_begins_after_that_gap() {
        let src = Doc::parse("a\nb\nc\nd\ne\nf\ng\n");
        let text = "a\n...\nc\nd = 1\ne\nf\n# rest of the file unchanged\n";
        let lines = fill_placeholders(&src, text, false).unwrap();
        assert_eq!(lines, ["a", "b", "c", "d = 1", "e", "f", "g"]);
        // The rest's anchor must lie after the middle gap's lines: `a` is only before them.
        let text = "a\n...\nc\nd\n...\nf\nG\nx\na\n# rest unchanged\n";
        assert!(fill_placeholders(&src, text, false).is_err());
    }

    #[test]
    fn gaps_must_fill_in_file_order() {
        let src = Doc::parse("a\nb\nc\nd\ne\nf\n");
        let lines = fill_placeholders(&src, "a\n...\nc\nd\n...\nf\n", false).unwrap();
        assert_eq!(lines, ["a", "b", "c", "d", "e", "f"]);
        // The second gap would stand for lines before the first one's: refused, not repeated.
        let e = fill_placeholders(&src, "d\n...\nf\na\n...\nc\n", false).unwrap_err();
        assert_eq!(e.status, Status::Ambiguous, "{e:?}");
    }

    #[test]
    fn javascript_spread_and_python_ellipsis_are_content() {
        let src = Doc::parse("const c = {\n  port: 1,\n};\n");
        let lines = fill_placeholders(&src, "const c = {\n  ...defaults,\n  port: 1,\n};\n", false)
            .unwrap();
        assert_eq!(lines[1], "  ...defaults,");
        let src = Doc::parse("class A:\n    pass\n");
        let lines = fill_placeholders(&src, "class A:\n    ...\n", true).unwrap();
        assert_eq!(lines, ["class A:", "    ..."]);
    }

    #[test]
    fn keeps_line_endings_of_unchanged_lines() {
        let src = Doc::parse("a\r\nb\nc\r\n");
        let out = render_like(&src, &["a".into(), "B".into(), "c".into()], true);
        assert_eq!(out, "a\r\nB\r\nc\r\n");
    }
}
