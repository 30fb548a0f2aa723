//! Indentation deltas: how the edit's indentation relates to the file's, and how to move the
//! lines the edit inserts into the file's indentation and tab/space style.
//!
//! Models shift whole blocks uniformly (one level more or less, tabs written as spaces). The
//! indent rung accepts a match only when one delta explains every non-blank line; the same delta
//! then re-indents the added lines, because the file is the truth for its own style.

use crate::edit::{HunkLine, LineKind};
use crate::locate::write::indentation;
use crate::locate::{pre_image, Placement};
use crate::text::Trim as _;
use crate::text::{indent_width, is_blank, leading_ws, strip_cr, Doc};

/// The uniform relation between pattern indentation and file indentation.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub(crate) enum Reindent {
    /// Identical indentation: inserted lines are kept as written.
    #[default]
    Same,
    /// The file has this extra prefix before every pattern line's indentation.
    Prefix(String),
    /// The pattern has this extra prefix before every file line's indentation.
    Strip(String),
    /// Widths differ by `delta` columns with tabs of `tab` columns (covers tabs written as
    /// spaces); inserted lines are rendered with tabs when `tabs`.
    Columns {
        delta: isize,
        tab: usize,
        tabs: bool,
    },
}

const TAB_WIDTHS: [usize; 3] = [4, 8, 2];
/// The level widths a tab may stand for when choosing among readings (issue 23 §4).
const LEVEL_WIDTHS: [usize; 4] = [2, 3, 4, 8];

impl Reindent {
    /// The single delta explaining every non-blank (pattern, file) pair, or `None` when the
    /// indentation differs non-uniformly. `file_tabs` tells the file's own indentation style,
    /// asked only when the pairs do not show it (it looks at every line of the file).
    pub(crate) fn infer<'x>(
        pairs: impl Iterator<Item = (&'x str, &'x str)> + Clone,
        file_tabs: impl FnOnce() -> bool,
    ) -> Option<Reindent> {
        let ws = pairs
            .filter(|(p, f)| !is_blank(p) && !is_blank(f))
            .map(|(p, f)| (leading_ws(p), leading_ws(f)));
        let mut it = ws.clone();
        let Some((p0, f0)) = it.next() else {
            return Some(Reindent::Same);
        };
        if ws.clone().all(|(p, f)| p == f) {
            return Some(Reindent::Same);
        }
        if let Some(prefix) = f0.strip_suffix(p0) {
            if ws.clone().all(|(p, f)| f.strip_suffix(p) == Some(prefix)) {
                return Some(Reindent::Prefix(prefix.to_string()));
            }
        }
        if let Some(prefix) = p0.strip_suffix(f0) {
            if ws.clone().all(|(p, f)| p.strip_suffix(f) == Some(prefix)) {
                return Some(Reindent::Strip(prefix.to_string()));
            }
        }
        let tabs_seen = ws.clone().any(|(_, f)| f.starts_with('\t'));
        let spaces_seen = ws.clone().any(|(_, f)| f.starts_with(' '));
        let tabs = if tabs_seen != spaces_seen {
            tabs_seen
        } else {
            file_tabs()
        };
        for tab in TAB_WIDTHS {
            let delta = indent_width(f0, tab) as isize - indent_width(p0, tab) as isize;
            if ws.clone().all(|(p, f)| {
                indent_width(f, tab) as isize - indent_width(p, tab) as isize == delta
            }) {
                return Some(Reindent::Columns { delta, tab, tabs });
            }
        }
        None
    }

    /// An inserted line moved into the file's indentation.
    pub(crate) fn apply(&self, line: &str) -> String {
        // A line of whitespace only carries no level: a shift leaves it as written (generators
        // and models shift only lines with code). Tabs written as spaces (or the reverse) at
        // the same width are a change of style, which it takes too.
        if is_blank(line) {
            let restyled = matches!(self, Reindent::Columns { delta: 0, .. });
            if !restyled || line.is_empty() {
                return line.to_string();
            }
        }
        let ws = leading_ws(line);
        let rest = &line[ws.len()..];
        match self {
            Reindent::Same => line.to_string(),
            Reindent::Prefix(p) => format!("{p}{line}"),
            Reindent::Strip(p) => match ws.strip_prefix(p.as_str()) {
                Some(w) => format!("{w}{rest}"),
                None => line.trim_start_ws().to_string(),
            },
            Reindent::Columns { delta, tab, tabs } => {
                let width = (indent_width(ws, *tab) as isize + delta).max(0) as usize;
                let mut out = String::with_capacity(width + rest.len());
                if *tabs {
                    out.extend(std::iter::repeat_n('\t', width / tab));
                    out.extend(std::iter::repeat_n(' ', width % tab));
                } else {
                    out.extend(std::iter::repeat_n(' ', width));
                }
                out.push_str(rest);
                out
            }
        }
    }
}

/// Whose indentation is tabs when a fit converts between tabs and spaces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TabSide {
    Reply,
    File,
}

/// For a [`Reindent::Columns`] fit between a reply in one style and a file in the other, whose
/// quoted lines all sit at one indentation: any tab width explains them (with its own delta),
/// and [`Reindent::infer`] took the first. The widths differ on every line one level deeper or
/// shallower (a two-space file with a tab-indented reply: 6 spaces for a nested line instead of
/// 4). The width, by the strongest evidence first:
/// - `kept`: a line the reply removes and adds back with the same text, once in spaces and once
///   in tabs (a model that quotes the old text in spaces and writes the new in tabs): the
///   spaces one of its tabs stands for;
/// - one tab is one level: the file's level width when the reply indents with tabs, the
///   reply's own when the file does (`level`, asked with the side that has tabs);
/// - the width that leaves the quoted lines unshifted (the reply only changed the style: eight
///   spaces for one tab of a Go file).
///
/// `None` keeps the fit as inferred. `Err` when the reply writes its added lines in the other
/// style than its quoted ones (`mixed`) and no line it keeps tells the width: the added lines'
/// tabs then land one way or another by a guess.
fn level_tab<'x>(
    reindent: &Reindent,
    pairs: impl Iterator<Item = (&'x str, &'x str)> + Clone,
    added: impl Iterator<Item = &'x str> + Clone,
    kept: Option<usize>,
    mixed: bool,
    level: impl FnOnce(TabSide) -> Option<usize>,
) -> Result<Option<Reindent>, LevelTabError> {
    let Reindent::Columns { tabs, .. } = *reindent else {
        return Ok(None);
    };
    let ws = pairs
        .filter(|(p, f)| !is_blank(p) && !is_blank(f))
        .map(|(p, f)| (leading_ws(p), leading_ws(f)));
    let only = |s: &str, c: char| s.chars().all(|x| x == c);
    let side = if ws.clone().all(|(p, f)| only(p, '\t') && only(f, ' ')) {
        TabSide::Reply
    } else if ws.clone().all(|(p, f)| only(p, ' ') && only(f, '\t')) {
        TabSide::File
    } else {
        return Ok(None);
    };
    let Some((p0, f0)) = ws.clone().next() else {
        return Ok(None);
    };
    let delta = |tab: usize| indent_width(f0, tab) as isize - indent_width(p0, tab) as isize;
    let fits: Vec<usize> = LEVEL_WIDTHS
        .into_iter()
        .filter(|&tab| {
            let d = delta(tab);
            ws.clone()
                .all(|(p, f)| indent_width(f, tab) as isize - indent_width(p, tab) as isize == d)
        })
        .collect();
    if fits.len() < 2 {
        return Ok(None);
    }
    let reading = |tab: usize| Reindent::Columns {
        delta: delta(tab),
        tab,
        tabs,
    };
    let tab = match kept.filter(|u| fits.contains(u)) {
        Some(u) => u,
        None if mixed => return Err(LevelTabError::Mixed),
        None => {
            let unshifted = fits.iter().copied().find(|&t| delta(t) == 0);
            match level(side).filter(|u| fits.contains(u)) {
                // One level a tab, with the reply shifted, explains the quoted lines as well as
                // the width that leaves them where they are (a tab quoting four spaces of a
                // two-space file: one level shifted by one, or two levels unshifted). Where the
                // two write an added line at different columns, which one the reply meant is
                // not shown: refused, as the levels pass refuses a shift against a rescaling.
                Some(u) if delta(u) != 0 => match unshifted {
                    Some(t)
                        if added
                            .clone()
                            .any(|l| reading(u).apply(l) != reading(t).apply(l)) =>
                    {
                        return Err(LevelTabError::ShiftOrWidth {
                            level: u,
                            unshifted: t,
                        })
                    }
                    _ => u,
                },
                Some(u) => u,
                None => match unshifted {
                    Some(t) => t,
                    None => return Ok(None),
                },
            }
        }
    };
    Ok(Some(reading(tab)))
}

/// Why [`level_tab`] cannot choose a tab width.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LevelTabError {
    /// The added lines are in the other style than the quoted ones and no kept line tells the
    /// width.
    Mixed,
    /// One level a tab with a shift, and `unshifted` columns a tab without one, both explain
    /// the quoted lines and write an added line differently.
    ShiftOrWidth { level: usize, unshifted: usize },
}

/// The spaces one tab stands for in the lines the hunk removes and adds back with the same text,
/// one side in spaces and the other in tabs, when they agree.
fn kept_width(lines: &[HunkLine]) -> Option<usize> {
    let removed: std::collections::HashMap<&str, &str> = lines
        .iter()
        .filter(|l| l.kind != LineKind::Add)
        .map(|l| strip_cr(&l.text))
        .filter(|t| !is_blank(t))
        .map(|t| (t.trim_ws(), t))
        .collect();
    let mut width = None;
    for l in lines.iter().filter(|l| l.kind == LineKind::Add) {
        let t = strip_cr(&l.text);
        let Some(&old) = removed.get(t.trim_ws()) else {
            continue;
        };
        let (spaces, tabs) = match (indentation::uses_tabs(old), indentation::uses_tabs(t)) {
            (Some(false), Some(true)) => (leading_ws(old), leading_ws(t)),
            (Some(true), Some(false)) => (leading_ws(t), leading_ws(old)),
            _ => continue,
        };
        if !spaces.chars().all(|c| c == ' ') || !tabs.chars().all(|c| c == '\t') {
            continue;
        }
        if !spaces.len().is_multiple_of(tabs.len()) {
            return None;
        }
        let u = spaces.len() / tabs.len();
        if width.is_some_and(|w| w != u) {
            return None;
        }
        width = Some(u);
    }
    width
}

/// Whether the reply writes its added lines in the other style than its quoted ones: tabs
/// where every indented quoted line has spaces, or the reverse.
fn mixed_reply(lines: &[HunkLine]) -> bool {
    let styles = |add: bool| {
        lines
            .iter()
            .filter(move |l| (l.kind == LineKind::Add) == add)
            .filter_map(|l| indentation::uses_tabs(strip_cr(&l.text)))
    };
    let quoted: Vec<bool> = styles(false).collect();
    let Some(&first) = quoted.first() else {
        return false;
    };
    quoted.iter().all(|&t| t == first) && styles(true).any(|t| t != first)
}

/// The placement with its tab width chosen by levels ([`level_tab`]), when that changes it; an
/// error when the reply mixes styles and its width is a guess. Asked for every placed hunk, it
/// looks at the file only for a fit between styles.
pub(crate) fn by_levels(
    doc: &Doc,
    lines: &[HunkLine],
    p: &Placement,
) -> Result<Option<Placement>, String> {
    if !matches!(p.fit.reindent, Reindent::Columns { .. }) {
        return Ok(None);
    }
    let (pre, _) = pre_image(lines);
    let pairs = pre
        .iter()
        .zip(&p.fit.map)
        .filter(|(_, span)| span.end == span.start + 1 && span.start < doc.len())
        .map(|(text, span)| (*text, doc.line(span.start)));
    let level = |side| match side {
        // One tab of the reply is one level of the file.
        TabSide::Reply => {
            let (s, e) = p.range();
            indentation::space_unit(doc, s, e)
        }
        // One tab of the file is one level of the reply. A step of 8 may be one level of 8 or
        // two of 4 (a line at column 0 before one at 8): it tells none, and the quoted lines
        // decide.
        TabSide::File => {
            indentation::step(lines.iter().map(|l| strip_cr(&l.text))).filter(|&w| w < 8)
        }
    };
    let mixed = mixed_reply(lines);
    let kept = if mixed { kept_width(lines) } else { None };
    let added = lines
        .iter()
        .filter(|l| l.kind == LineKind::Add)
        .map(|l| strip_cr(&l.text));
    let tuned =
        level_tab(&p.fit.reindent, pairs, added, kept, mixed, level).map_err(|e| match e {
            LevelTabError::Mixed => "the lines this hunk quotes are indented in one style and its \
             added lines in the other, and how many spaces one tab stands for is not shown (no \
             line is quoted and written again with the same text); write the quoted and the \
             added lines in one style"
                .to_owned(),
            LevelTabError::ShiftOrWidth { level, unshifted } => format!(
                "the lines this hunk quotes all stand at one depth, written in the other style \
             (tabs or spaces) than the file's, so one tab may be one level of {level} spaces \
             with the hunk shifted, or {unshifted} spaces with it unshifted; its added lines \
             land at different columns under the two readings; quote a line at another depth \
             or write the hunk in the file's own style"
            ),
        })?;
    Ok(tuned.filter(|t| *t != p.fit.reindent).map(|t| {
        let mut p = p.clone();
        p.fit.reindent = t;
        p
    }))
}

/// Refuse a hunk whose fit shifts the quoted lines (a prefix added or stripped, a delta in
/// columns) while an added line is indented with a character none of the quoted lines uses:
/// tabs among a quote in spaces, or the reverse (a model that quotes the old text in spaces and
/// writes the new in tabs). The shift was measured in the quoted lines' style; how wide the
/// added line's tabs are, and so where it lands, is not shown. Unshifted fits keep such lines
/// as written, and later passes convert them by what the file and the reply show.
pub(crate) fn check_added_style(lines: &[HunkLine], p: &Placement) -> Result<(), String> {
    if matches!(
        p.fit.reindent,
        Reindent::Same | Reindent::Columns { delta: 0, .. }
    ) || !mixed_reply(lines)
    {
        return Ok(());
    }
    Err(
        "the added lines are indented in the other style (tabs or spaces) than the lines the \
         hunk quotes, which stand at other widths than the file's, so how the added lines' \
         indentation maps onto the file's cannot be told; write the quoted and the added lines \
         in one style"
            .to_owned(),
    )
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    fn infer(pairs: &[(&'static str, &'static str)]) -> Option<Reindent> {
        Reindent::infer(pairs.iter().copied(), || false)
    }

    #[test]
    fn same_and_prefix_and_strip() {
        assert_eq!(infer(&[("  a", "  a"), ("", "x")]), Some(Reindent::Same));
        let r = infer(&[("a", "    a"), ("  b", "      b")]).unwrap();
        assert_eq!(r, Reindent::Prefix("    ".into()));
        assert_eq!(r.apply("  c"), "      c");
        let r = infer(&[("\t\ta", "\ta"), ("\t\t\tb", "\t\tb")]).unwrap();
        assert_eq!(r, Reindent::Strip("\t".into()));
        assert_eq!(r.apply("\t\tc"), "\tc");
    }

    #[test]
    fn tabs_written_as_spaces_come_back_as_tabs() {
        let r = infer(&[("    a", "\ta"), ("        b", "\t\tb")]).unwrap();
        assert_eq!(
            r,
            Reindent::Columns {
                delta: 0,
                tab: 4,
                tabs: true
            }
        );
        assert_eq!(r.apply("        c"), "\t\tc");
        assert_eq!(r.apply(""), "");
        // A line of whitespace only was written in the same style as the others.
        assert_eq!(r.apply("        "), "\t\t");
    }

    #[test]
    fn one_tab_is_one_level_of_the_other_side() {
        let one = [("\treturn 1;", "  return 1;")];
        let r = infer(&one).unwrap();
        // A two-space file: the reply's tab is two columns, its nested line four spaces.
        let tuned = level_tab(
            &r,
            one.iter().copied(),
            ["\t\treturn 0;"].into_iter(),
            None,
            false,
            |_| Some(2),
        )
        .unwrap()
        .unwrap();
        assert_eq!(tuned.apply("\t\treturn 0;"), "    return 0;");
        // Quoted a level deeper than the file has it: still one file level per tab.
        let deep = [("\t\treturn 1;", "  return 1;")];
        let r = infer(&deep).unwrap();
        let tuned = level_tab(
            &r,
            deep.iter().copied(),
            ["\t\t\treturn 0;"].into_iter(),
            None,
            false,
            |_| Some(2),
        )
        .unwrap()
        .unwrap();
        assert_eq!(tuned.apply("\t\t\treturn 0;"), "    return 0;");
        // A Go file quoted with eight spaces a level: two tabs for a nested line, not three.
        let go = [("        return n", "\treturn n")];
        let r = Reindent::infer(go.iter().copied(), || true).unwrap();
        let tuned = level_tab(
            &r,
            go.iter().copied(),
            ["                return 0"].into_iter(),
            None,
            false,
            |_| None,
        )
        .unwrap()
        .unwrap();
        assert_eq!(tuned.apply("                return 0"), "\t\treturn 0");
        // Nothing tells the level: the width that keeps the quoted lines where they are.
        let two = [("  x", "\tx")];
        let r = Reindent::infer(two.iter().copied(), || true).unwrap();
        let tuned = level_tab(
            &r,
            two.iter().copied(),
            ["\t\ty"].into_iter(),
            None,
            false,
            |_| None,
        )
        .unwrap()
        .unwrap();
        assert_eq!(tuned.apply("\t\ty"), "\t\ty");
        assert_eq!(tuned.apply("    y"), "\t\ty");
        // Two quoted levels pin the width: nothing to choose.
        let pinned = [("\ta", "  a"), ("\t\tb", "    b")];
        let r = infer(&pinned).unwrap();
        assert_eq!(
            level_tab(
                &r,
                pinned.iter().copied(),
                std::iter::empty(),
                None,
                false,
                |_| Some(4)
            ),
            Ok(None)
        );
        // Quoted in spaces, written in tabs: a line kept with the same text tells the width;
        // without one, refused.
        let quoted = [("    @returns x", "\t@returns x")];
        let r = Reindent::infer(quoted.iter().copied(), || true).unwrap();
        let tuned = level_tab(
            &r,
            quoted.iter().copied(),
            std::iter::empty(),
            Some(2),
            true,
            |_| None,
        )
        .unwrap()
        .unwrap();
        assert_eq!(tuned.apply("\t\t@returns x"), "\t@returns x");
        assert!(level_tab(
            &r,
            quoted.iter().copied(),
            std::iter::empty(),
            None,
            true,
            |_| None
        )
        .is_err());
    }

    #[test]
    fn one_tab_quoting_two_levels_is_a_shift_or_a_width() {
        // A two-space file; the reply quotes a line at four spaces with one tab. One tab may be
        // one level (two spaces) with the hunk shifted by a level, or four spaces unshifted.
        let quoted = [("\tx = 1;", "    x = 1;")];
        let r = infer(&quoted).unwrap();
        let level = |_| Some(2);
        // A line at column 0 lands at 2 or at 0: refused.
        let err = level_tab(
            &r,
            quoted.iter().copied(),
            ["int y;"].into_iter(),
            None,
            false,
            level,
        );
        assert_eq!(
            err,
            Err(LevelTabError::ShiftOrWidth {
                level: 2,
                unshifted: 4
            })
        );
        // A line two tabs deep lands at 6 or at 8: refused too.
        let deep = ["\t\ty = 2;"].into_iter();
        assert!(level_tab(&r, quoted.iter().copied(), deep, None, false, level).is_err());
        // Added lines at the quoted depth land alike: the level reading stands.
        let same = ["\ty = 2;", ""].into_iter();
        let tuned = level_tab(&r, quoted.iter().copied(), same, None, false, level)
            .unwrap()
            .unwrap();
        assert_eq!(tuned.apply("\ty = 2;"), "    y = 2;");
    }

    #[test]
    fn a_line_written_again_tells_the_spaces_per_tab() {
        let lines = [
            HunkLine::new(LineKind::Remove, "    n += 1"),
            HunkLine::new(LineKind::Add, "\t\tif x {"),
            HunkLine::new(LineKind::Add, "\t\tn += 1"),
        ];
        assert_eq!(kept_width(&lines), Some(2));
        assert!(mixed_reply(&lines));
        assert!(!mixed_reply(&lines[1..]));
        // Tabs then alignment spaces (a list under a doc comment) are the quoted lines' tabs.
        let aligned = [
            HunkLine::new(LineKind::Context, "\t\t/**"),
            HunkLine::new(
                LineKind::Add,
                "\t\t - After `prefixUrl` and `input` are joined",
            ),
        ];
        assert!(!mixed_reply(&aligned));
    }

    #[test]
    fn non_uniform_delta_is_rejected() {
        assert_eq!(infer(&[("a", "  a"), ("b", "    b")]), None);
    }
}
