//! Paths as replies write them: diff header paths (quoted with C escapes, `a/`/`b/` prefixes,
//! timestamps), and free-standing path lines or fence info strings that name the file a
//! SEARCH/REPLACE or whole-file block belongs to.
//!
//! Path lines are recognised conservatively, because a false positive turns a code sample into a
//! whole-file replacement: the line must look like a path (a `/` or a file extension, no spaces
//! unless quoted or backticked) after common decorations are removed.

use crate::text::Trim as _;

/// Extension-less file names that are common enough to be named alone on a line.
const KNOWN_NAMES: &[&str] = &[
    "Makefile",
    "GNUmakefile",
    "makefile",
    "Dockerfile",
    "Containerfile",
    "Rakefile",
    "Gemfile",
    "Justfile",
    "justfile",
    "Procfile",
    "Vagrantfile",
    "Jenkinsfile",
    "LICENSE",
    "COPYING",
];

/// Labels a model puts before a path.
const LABELS: &[&str] = &["file:", "path:", "filename:", "file path:", "filepath:"];

/// Characters that never appear in a path a model names on its own line.
const NOT_IN_PATH: &[char] = &[
    '`', '<', '>', '|', '*', '?', '"', '[', ']', '{', '}', '(', ')', '=', ',', ';', '$', '!', '&',
];

fn has_extension(base: &str) -> bool {
    let Some((stem, ext)) = base.rsplit_once('.') else {
        return false;
    };
    (1..=12).contains(&ext.len())
        && ext
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        && ext.chars().any(|c| c.is_ascii_alphabetic())
        && (!stem.is_empty() || base.starts_with('.'))
        && !stem.ends_with('.')
}

/// Whether `t` (already stripped of decorations) looks like a file path.
pub(crate) fn is_path_like(t: &str, allow_spaces: bool) -> bool {
    is_name_like(t, allow_spaces) && {
        let base = t.rsplit(['/', '\\']).next().unwrap_or(t);
        t.contains('/') || has_extension(base) || KNOWN_NAMES.contains(&base)
    }
}

/// Whether `t` could name a file at all: the weaker test used where the block itself proves an
/// edit is meant (a SEARCH/REPLACE block, a script), so `compile` or `configure` qualify.
fn is_name_like(t: &str, allow_spaces: bool) -> bool {
    if t.is_empty() || t.len() > 260 || t.contains(NOT_IN_PATH) || t.contains("://") {
        return false;
    }
    if !allow_spaces && t.contains(char::is_whitespace) {
        return false;
    }
    if t.starts_with(['-', '+', '@', '#', '%', '.'])
        && !t.starts_with("./")
        && !t.starts_with("../")
    {
        // Dot files (`.gitignore`) are fine; `-x`, `+y`, `@@` are diff syntax.
        if !(t.starts_with('.') && t.len() > 1 && !t.starts_with("..")) {
            return false;
        }
    }
    if t.ends_with(['/', '\\', ':']) {
        return false;
    }
    let base = t.rsplit(['/', '\\']).next().unwrap_or(t);
    base.chars().any(|c| c.is_alphanumeric())
}

/// Whether `t` may be a path with the characters web frameworks put in file names
/// (`src/app/(marketing)/page.tsx`, `[id]`, `+page.svelte`, `[...slug].vue`, `$id.tsx`), or
/// with spaces, `;`, `,` or `=`: a directory and a file name with an extension (or a well-known
/// name), no space before the first `/` (a sentence is not a directory), nothing that is never
/// in a path. Such a line is a path only when the tree confirms it (the engine decides).
fn is_loose_path(t: &str) -> bool {
    let Some((first, _)) = t.split_once('/') else {
        return false;
    };
    let base = t.rsplit('/').next().unwrap_or(t);
    !t.is_empty()
        && t.len() <= 260
        && !t.contains(['`', '<', '>', '|', '*', '?', '"', '{', '}'])
        && !t.contains("://")
        && !t.contains(", ")
        && !t.starts_with(['-', '+', '@', '#', '/'])
        && !first.contains(char::is_whitespace)
        && !first.is_empty()
        && (has_extension(base) || KNOWN_NAMES.contains(&base))
}

/// Removes one layer of `**x**`, `__x__`, `` `x` ``, `"x"`, `'x'`, `*x*`; true when a quoting
/// layer (which may hold spaces) was removed.
fn strip_decoration(t: &str) -> Option<(&str, bool)> {
    for (open, close, quoting) in [
        ("**", "**", false),
        ("__", "__", false),
        ("`", "`", true),
        ("\"", "\"", true),
        ("'", "'", true),
        ("*", "*", false),
        ("<path>", "</path>", true),
        ("<file>", "</file>", true),
    ] {
        if t.len() >= open.len() + close.len() {
            if let Some(inner) = t.strip_prefix(open).and_then(|x| x.strip_suffix(close)) {
                return Some((inner.trim_ws(), quoting));
            }
        }
    }
    None
}

fn strip_label(t: &str) -> &str {
    for label in LABELS {
        if t.len() > label.len()
            && t.is_char_boundary(label.len())
            && t[..label.len()].eq_ignore_ascii_case(label)
        {
            return t[label.len()..].trim_start_ws();
        }
    }
    t
}

/// The strict path named by a line such as `src/lib.rs`, `src/lib.rs:`, `**src/lib.rs**`,
/// `` `src/lib.rs` ``, `File: src/lib.rs`, `### src/lib.rs` or `<path>src/lib.rs</path>`.
#[cfg(test)]
fn path_from_line(line: &str) -> Option<String> {
    path_candidate(line).filter(|c| c.strict).map(|c| c.path)
}

/// A path named by a line, and whether it passes the strict test (a `/`, an extension or a
/// well-known name) or only the weak one (a single plausible file name).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct PathLine {
    pub path: String,
    pub strict: bool,
    /// A path with characters a path line rarely holds (see [`is_loose_path`]): a path only
    /// where the work tree confirms it, so a whole file under it waits for the engine.
    pub loose: bool,
}

/// False only for a line that [`path_candidate`] cannot read as a strict path: a strict path
/// holds a `/`, an extension (a `.`) or is a well-known name, all of which would be in the line
/// itself. Costs a byte scan where the full reading costs some 800 instructions a line, and
/// most lines of a diff of code have neither a `/` nor a `.`.
pub(crate) fn may_name_strict_path(line: &str) -> bool {
    memchr::memchr2(b'/', b'.', line.as_bytes()).is_some()
        || line.contains("ile")
        || line.contains("LICENSE")
        || line.contains("COPYING")
}

/// The path a line names, strict or weak; see [`path_from_line`] for the accepted forms.
pub(crate) fn path_candidate(line: &str) -> Option<PathLine> {
    let mut t = line.trim_ws();
    if t.is_empty() || t.len() > 300 {
        return None;
    }
    if let Some(rest) = t.strip_prefix('#') {
        let rest = rest.trim_start_matches('#');
        if rest.starts_with(' ') {
            t = rest.trim_ws();
        }
    }
    for bullet in ["- ", "* ", "+ "] {
        if let Some(rest) = t.strip_prefix(bullet) {
            t = rest.trim_ws();
            break;
        }
    }
    t = strip_label(t);
    let mut quoted = false;
    let mut colon = false;
    for _ in 0..4 {
        if let Some(x) = t.strip_suffix(':') {
            colon = true;
            t = x.trim_ws();
        }
        t = strip_label(t);
        match strip_decoration(t) {
            Some((inner, q)) => {
                t = inner;
                quoted |= q;
            }
            None => break,
        }
    }
    if !is_name_like(t, quoted) {
        return is_loose_path(t).then(|| PathLine {
            path: t.to_string(),
            strict: false,
            loose: true,
        });
    }
    let strict = is_path_like(t, quoted);
    // `Change:` is prose; a weak name must stand alone, or be quoted (`` `CHANGES`: ``).
    (strict || !colon || quoted).then(|| PathLine {
        path: t.to_string(),
        strict,
        loose: false,
    })
}

/// The one file path a prose line names in backticks (`` Update `src/lib.rs` like this: ``), as
/// a weak candidate: only an edit format that needs a path and proves its intent uses it.
pub(crate) fn prose_path(line: &str) -> Option<PathLine> {
    if line.len() > 400 {
        return None;
    }
    let mut found: Option<&str> = None;
    for (k, span) in line.split('`').enumerate() {
        if k % 2 == 1 && is_path_like(span, false) {
            match found {
                Some(f) if f != span => return None,
                _ => found = Some(span),
            }
        }
    }
    found.map(|p| PathLine {
        path: p.to_string(),
        strict: false,
        loose: false,
    })
}

/// The path named in a fence info string: ```` ```rust src/lib.rs ````, ```` ```src/lib.rs ````,
/// ```` ```rust:src/lib.rs ```` or ```` ```rust title="src/lib.rs" ````.
pub(crate) fn path_from_info(info: &str) -> Option<String> {
    for tok in info.split_whitespace() {
        let mut tok = tok;
        for key in ["path=", "file=", "filename=", "title="] {
            if let Some(rest) = tok.strip_prefix(key) {
                tok = rest;
            }
        }
        let tok = tok.trim_matches(['"', '\'', '`']);
        let tok = tok.split_once(':').map_or(tok, |(_, after)| after);
        if is_path_like(tok, false) {
            return Some(tok.to_string());
        }
    }
    None
}

/// Reads a C-quoted path (`"a/with space\tand \303\251"`) at the start of `s`. Returns the path
/// and the text after the closing quote.
pub(crate) fn unquote_c(s: &str) -> Option<(String, &str)> {
    let body = s.strip_prefix('"')?;
    let bytes = body.as_bytes();
    let mut out: Vec<u8> = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                let rest = body.get(i + 1..).unwrap_or("");
                return Some((String::from_utf8_lossy(&out).into_owned(), rest));
            }
            b'\\' => {
                let c = *bytes.get(i + 1)?;
                i += 2;
                match c {
                    b'n' => out.push(b'\n'),
                    b't' => out.push(b'\t'),
                    b'r' => out.push(b'\r'),
                    b'a' => out.push(7),
                    b'b' => out.push(8),
                    b'f' => out.push(12),
                    b'v' => out.push(11),
                    b'0'..=b'7' => {
                        let mut v = u32::from(c - b'0');
                        let mut k = 0;
                        while k < 2 && i < bytes.len() && (b'0'..=b'7').contains(&bytes[i]) {
                            v = v * 8 + u32::from(bytes[i] - b'0');
                            i += 1;
                            k += 1;
                        }
                        out.push((v & 0xff) as u8);
                    }
                    other => out.push(other),
                }
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    None
}

/// Splits the text after `diff --git ` into its two paths (prefixes still on).
pub(crate) fn git_header_paths(rest: &str) -> (Option<String>, Option<String>) {
    let rest = rest.trim_ws();
    if rest.starts_with('"') {
        let Some((a, after)) = unquote_c(rest) else {
            return (None, None);
        };
        let after = after.trim_ws();
        let b = if after.starts_with('"') {
            unquote_c(after).map(|(b, _)| b)
        } else {
            Some(after.to_string()).filter(|b| !b.is_empty())
        };
        return (Some(a), b);
    }
    if let Some(q) = rest.find(" \"") {
        let a = rest.get(..q).map(str::to_string);
        let b = rest.get(q + 1..).and_then(unquote_c).map(|(b, _)| b);
        return (a, b);
    }
    // `a/P b/P`: the two halves are the same path, so split in the middle when that holds.
    let n = rest.len();
    if n % 2 == 1 {
        let half = n / 2;
        if let (Some(a), Some(b)) = (rest.get(..half), rest.get(half + 1..)) {
            if rest.as_bytes().get(half) == Some(&b' ') && a.get(2..) == b.get(2..) {
                return (Some(a.to_string()), Some(b.to_string()));
            }
        }
    }
    if let Some(k) = rest.rfind(" b/") {
        return (
            rest.get(..k).map(str::to_string),
            rest.get(k + 1..).map(str::to_string),
        );
    }
    match rest.split_once(' ') {
        Some((a, b)) => (Some(a.to_string()), Some(b.trim_ws().to_string())),
        None => (Some(rest.to_string()), None),
    }
}

/// True for a `YYYY-MM-DD HH:MM:SS[.frac] [+-]ZZZZ` (or similar) timestamp.
fn looks_like_timestamp(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() >= 10
        && b[..4].iter().all(u8::is_ascii_digit)
        && b[4] == b'-'
        && b[5..7].iter().all(u8::is_ascii_digit)
        && b[7] == b'-'
        && b[8..10].iter().all(u8::is_ascii_digit)
}

/// The path of a `---`/`+++` line (text after the marker): unquoted, with a tab- or
/// space-separated timestamp removed. `None` for `/dev/null` and empty paths.
pub(crate) fn diff_line_path(raw: &str) -> Option<String> {
    let raw = raw.trim_start_ws();
    let path = if raw.starts_with('"') {
        unquote_c(raw)?.0
    } else {
        let p = raw.split('\t').next().unwrap_or("").trim_end_ws();
        // `+++ b/x 2024-01-01 10:00:00.000 +0000` written with spaces instead of a tab.
        let cut = p
            .match_indices(' ')
            .map(|(k, _)| k)
            .find(|&k| p.get(k + 1..).is_some_and(looks_like_timestamp));
        let p = cut.and_then(|k| p.get(..k)).unwrap_or(p).trim_end_ws();
        p.to_string()
    };
    (path != "/dev/null" && !path.is_empty()).then_some(path)
}

/// Removes git's `a/` and `b/` prefixes when the pair uses them (a side that is `/dev/null`,
/// i.e. `None`, does not count against it).
pub(crate) fn strip_ab(
    old: Option<String>,
    new: Option<String>,
) -> (Option<String>, Option<String>) {
    let old_ok = old.as_deref().is_none_or(|p| p.starts_with("a/"));
    let new_ok = new.as_deref().is_none_or(|p| p.starts_with("b/"));
    if old_ok && new_ok && (old.is_some() || new.is_some()) {
        let cut = |p: Option<String>| p.map(|p| p.get(2..).unwrap_or("").to_string());
        (cut(old), cut(new))
    } else {
        (old, new)
    }
}

#[cfg(test)]
#[path = "paths_prop.rs"]
mod prop;

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn path_lines_with_decorations() {
        for (line, want) in [
            ("src/lib.rs", "src/lib.rs"),
            ("src/lib.rs:", "src/lib.rs"),
            ("**src/lib.rs**", "src/lib.rs"),
            ("`src/lib.rs`", "src/lib.rs"),
            ("`src/lib.rs`:", "src/lib.rs"),
            ("**`src/lib.rs`**", "src/lib.rs"),
            ("File: src/lib.rs", "src/lib.rs"),
            ("### src/lib.rs", "src/lib.rs"),
            ("<path>src/lib.rs</path>", "src/lib.rs"),
            ("`docs/my file.md`", "docs/my file.md"),
            ("Cargo.toml", "Cargo.toml"),
            ("complete/_rg", "complete/_rg"),
            (".gitignore", ".gitignore"),
            ("Makefile", "Makefile"),
            ("- crates/a/b.rs", "crates/a/b.rs"),
        ] {
            assert_eq!(path_from_line(line).as_deref(), Some(want), "{line}");
        }
    }

    #[test]
    fn prose_is_not_a_path() {
        for line in [
            "Here is the change:",
            "docs/my file.md",
            "Summary:",
            "e.g.",
            "v1.2.3",
            "```rust",
            "--- a/x",
            "@@ -1 +1 @@",
            "https://example.com/a.html",
            "fn main() {",
            "...",
            "",
            "Updated `src/lib.rs`:",
        ] {
            assert_eq!(path_from_line(line), None, "{line}");
        }
    }

    #[test]
    fn weak_path_candidates() {
        let c = path_candidate("compile").unwrap();
        assert_eq!((c.path.as_str(), c.strict), ("compile", false));
        let c = path_candidate("`src/a.rs`").unwrap();
        assert!(c.strict);
        assert_eq!(path_candidate("Here is the change:"), None);
        assert_eq!(path_candidate("Change:"), None);
        let c = path_candidate("`CHANGES`:").unwrap();
        assert_eq!((c.path.as_str(), c.strict), ("CHANGES", false));
        assert_eq!(path_candidate("---"), None);
        assert_eq!(path_candidate("```"), None);
    }

    #[test]
    fn web_framework_paths_are_loose_candidates() {
        for line in [
            "src/app/(marketing)/about/page.tsx",
            "src/routes/blog/[slug]/+page.svelte",
            "pages/[...slug].vue",
            "app/routes/$id.tsx",
            "docs/My Notes/read me.md",
            "**src/app/[id]/page.tsx**",
            "conf/a;b=c.ini",
        ] {
            let c = path_candidate(line).unwrap_or_else(|| panic!("{line}"));
            assert!(c.loose && !c.strict, "{line}");
        }
        for line in [
            "Changes to src/app.ts",
            "Here is src/app.ts, changed:",
            "https://x.org/a.html",
            "src/app/page",
        ] {
            assert!(path_candidate(line).is_none_or(|c| !c.loose), "{line}");
        }
    }

    #[test]
    fn prose_paths() {
        let c = prose_path("Update `src/lib.rs` like this:").unwrap();
        assert_eq!((c.path.as_str(), c.strict), ("src/lib.rs", false));
        assert_eq!(prose_path("Both `a.rs` and `b.rs` change:"), None);
        assert_eq!(prose_path("Run `cargo test` after."), None);
        assert!(prose_path("In `a.rs`, keep `a.rs` short").is_some());
    }

    #[test]
    fn info_string_paths() {
        assert_eq!(
            path_from_info("rust src/lib.rs").as_deref(),
            Some("src/lib.rs")
        );
        assert_eq!(path_from_info("src/lib.rs").as_deref(), Some("src/lib.rs"));
        assert_eq!(
            path_from_info("rust:src/lib.rs").as_deref(),
            Some("src/lib.rs")
        );
        assert_eq!(
            path_from_info("rust title=\"a/b.rs\"").as_deref(),
            Some("a/b.rs")
        );
        assert_eq!(path_from_info("rust"), None);
        assert_eq!(path_from_info("diff"), None);
        assert_eq!(path_from_info(""), None);
    }

    #[test]
    fn c_quoted_paths() {
        let (p, rest) = unquote_c(r#""a/sp ace\t\303\251\"q" tail"#).unwrap();
        assert_eq!(p, "a/sp ace\té\"q");
        assert_eq!(rest, " tail");
        assert!(unquote_c(r#""unterminated"#).is_none());
        assert!(unquote_c(r#""bad\"#).is_none());
    }

    #[test]
    fn git_header_path_pairs() {
        assert_eq!(
            git_header_paths("a/x y.rs b/x y.rs"),
            (Some("a/x y.rs".into()), Some("b/x y.rs".into()))
        );
        assert_eq!(
            git_header_paths("a/old.rs b/new.rs"),
            (Some("a/old.rs".into()), Some("b/new.rs".into()))
        );
        assert_eq!(
            git_header_paths(r#""a/q\"x" "b/q\"x""#),
            (Some("a/q\"x".into()), Some("b/q\"x".into()))
        );
        assert_eq!(
            git_header_paths("/tmp/x /tmp/x"),
            (Some("/tmp/x".into()), Some("/tmp/x".into()))
        );
    }

    #[test]
    fn diff_line_paths() {
        assert_eq!(
            diff_line_path("a/x.rs\t2024-01-01 10:00:00").as_deref(),
            Some("a/x.rs")
        );
        assert_eq!(
            diff_line_path("b/x.rs 2024-01-01 10:00:00.000000000 +0000").as_deref(),
            Some("b/x.rs")
        );
        assert_eq!(diff_line_path("/dev/null"), None);
        assert_eq!(diff_line_path("\"b/a b\"").as_deref(), Some("b/a b"));
        assert_eq!(
            diff_line_path("b/with space.rs").as_deref(),
            Some("b/with space.rs")
        );
    }

    #[test]
    fn ab_prefixes() {
        assert_eq!(
            strip_ab(Some("a/x".into()), Some("b/x".into())),
            (Some("x".into()), Some("x".into()))
        );
        assert_eq!(strip_ab(None, Some("b/x".into())), (None, Some("x".into())));
        assert_eq!(
            strip_ab(Some("x".into()), Some("x".into())),
            (Some("x".into()), Some("x".into()))
        );
        assert_eq!(
            strip_ab(Some("a/x".into()), Some("a/x".into())),
            (Some("a/x".into()), Some("a/x".into()))
        );
    }
}
