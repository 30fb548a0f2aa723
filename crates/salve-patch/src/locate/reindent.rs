//! Indentation deltas: how the edit's indentation relates to the file's, and how to move the
//! lines the edit inserts into the file's indentation and tab/space style.
//!
//! Models shift whole blocks uniformly (one level more or less, tabs written as spaces). The
//! indent rung accepts a match only when one delta explains every non-blank line; the same delta
//! then re-indents the added lines, because the file is the truth for its own style.

use crate::text::{indent_width, is_blank, leading_ws};

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
                None => line.trim_start().to_string(),
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
    fn non_uniform_delta_is_rejected() {
        assert_eq!(infer(&[("a", "  a"), ("b", "    b")]), None);
    }
}
