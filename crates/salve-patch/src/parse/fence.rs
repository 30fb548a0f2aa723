//! Lexing Markdown fences: the opening line (up to three spaces, three or more backticks or
//! tildes, an info string), the line that closes it, and the language word of the info string.
//! aider's tag fences (`<source>`, `<code>`, `<pre>`, `<codeblock>`, `<sourcecode>`, alone on
//! their line, closed by the matching end tag alone on its line) are lexed as fences too.
//!
//! Pure line lexing with no view of the reply, so both the wrapper reader and the
//! SEARCH/REPLACE reader (whose blocks may hold fences of their own) use it.

use crate::text::Trim as _;

/// An opening fence line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Fence {
    pub indent: usize,
    pub ch: u8,
    pub len: usize,
    pub info: String,
    /// The tag of an aider tag fence (`source` for `<source>`), closed by `</source>`.
    pub tag: Option<&'static str>,
}

/// aider's tag fences.
const TAGS: &[&str] = &["source", "code", "pre", "codeblock", "sourcecode"];

/// An aider tag fence: `<source>` alone on its line. An info word may follow, inside the tag
/// (`<source python>`) or after it (`<source>python`, as aider writes it).
fn tag_open(line: &str) -> Option<Fence> {
    let t = line.trim_ws();
    let (inner, after) = t.strip_prefix('<')?.split_once('>')?;
    // After the tag: one word at most, so `<code>x</code>` on one line is not a fence.
    if after.contains(['<', '>', ' ']) {
        return None;
    }
    let (name, info) = match inner.split_once(' ') {
        Some((name, info)) if after.is_empty() => (name, info),
        Some(_) => return None,
        None => (inner, after),
    };
    let tag = TAGS.iter().find(|g| **g == name)?;
    // `<pre>word` and `<code>word` are HTML more often than a fence.
    if !after.is_empty() && matches!(*tag, "pre" | "code") {
        return None;
    }
    Some(Fence {
        indent: 0,
        ch: b'<',
        len: 0,
        info: info.trim_ws().to_string(),
        tag: Some(tag),
    })
}

/// Reads an opening fence: up to three spaces, then three or more backticks or tildes, then an
/// info string (which may not hold a backtick in a backtick fence).
pub(crate) fn fence_open(line: &str) -> Option<Fence> {
    if line.trim_start_ws().starts_with('<') {
        return tag_open(line);
    }
    let indent = line.bytes().take_while(|&b| b == b' ').count();
    if indent > 3 {
        return None;
    }
    let rest = line.get(indent..)?;
    let ch = *rest.as_bytes().first()?;
    if ch != b'`' && ch != b'~' {
        return None;
    }
    let len = rest.bytes().take_while(|&b| b == ch).count();
    if len < 3 {
        return None;
    }
    let info = rest.get(len..)?.trim_ws();
    if ch == b'`' && info.contains('`') {
        return None;
    }
    Some(Fence {
        indent,
        ch,
        len,
        info: info.to_string(),
        tag: None,
    })
}

/// True when `line` closes `f`: the same character, at least as many, indented no deeper than
/// the opener (so a diff context line ` ``` ` inside a column-0 fence is content), nothing after.
pub(crate) fn is_fence_close(line: &str, f: &Fence) -> bool {
    if let Some(tag) = f.tag {
        let t = line.trim_ws();
        return t.len() == tag.len() + 3
            && t.starts_with("</")
            && t.ends_with('>')
            && &t[2..t.len() - 1] == tag;
    }
    let indent = line.bytes().take_while(|&b| b == b' ').count();
    if indent > f.indent {
        return false;
    }
    let Some(rest) = line.get(indent..) else {
        return false;
    };
    let n = rest.bytes().take_while(|&b| b == f.ch).count();
    n >= f.len && rest.get(n..).is_some_and(|r| r.trim_ws().is_empty())
}

/// True for the fence languages that mark a diff (```` ```diff ````, ```` ```patch ````, ...).
pub(crate) fn is_diff_lang(lang: &str) -> bool {
    matches!(lang, "diff" | "patch" | "udiff" | "git-diff")
}

/// The language word of an info string (`rust` in `rust src/lib.rs` or `rust:src/lib.rs`).
pub(crate) fn lang_of(info: &str) -> String {
    let first = info.split_whitespace().next().unwrap_or("");
    first.split(':').next().unwrap_or("").to_ascii_lowercase()
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn fence_openers() {
        let f = fence_open("```diff").unwrap();
        assert_eq!(
            (f.indent, f.ch, f.len, f.info.as_str()),
            (0, b'`', 3, "diff")
        );
        let f = fence_open("  ````rust src/lib.rs").unwrap();
        assert_eq!(
            (f.indent, f.len, f.info.as_str()),
            (2, 4, "rust src/lib.rs")
        );
        assert_eq!(fence_open("~~~").map(|f| f.ch), Some(b'~'));
        assert!(fence_open("``").is_none());
        assert!(fence_open("    ```").is_none());
        assert!(fence_open("```a`b").is_none());
        assert!(fence_open("text ```").is_none());
    }

    #[test]
    fn fence_closers() {
        let f = fence_open("````").unwrap();
        assert!(is_fence_close("````", &f));
        assert!(is_fence_close("`````  ", &f));
        assert!(!is_fence_close("```", &f));
        assert!(!is_fence_close("````rust", &f));
        let f = fence_open("```").unwrap();
        assert!(!is_fence_close(" ```", &f));
        assert!(!is_fence_close("~~~", &f));
        let f = fence_open("  ```").unwrap();
        assert!(is_fence_close(" ```", &f));
    }

    #[test]
    fn aider_tag_fences() {
        for tag in ["source", "code", "pre", "codeblock", "sourcecode"] {
            let f = fence_open(&format!("<{tag}>")).unwrap();
            assert!(is_fence_close(&format!("</{tag}>"), &f));
            assert!(!is_fence_close("```", &f));
            assert!(!is_fence_close("</other>", &f));
        }
        assert_eq!(fence_open("<source python>").unwrap().info, "python");
        assert!(fence_open("<sources>").is_none());
        assert!(fence_open("<source>x</source>").is_none());
        let f = fence_open("<source>python").unwrap();
        assert_eq!((f.tag, f.info.as_str()), (Some("source"), "python"));
        assert!(fence_open("<code>two words</code>").is_none());
        assert!(fence_open("<source python>rust").is_none());
        assert!(fence_open("<pre>hello").is_none());
        let f = fence_open("``````").unwrap();
        assert_eq!(f.len, 6);
        assert!(!is_fence_close("```", &f));
    }

    #[test]
    fn lang_words() {
        assert_eq!(lang_of("Rust src/x.rs"), "rust");
        assert_eq!(lang_of("rust:src/x.rs"), "rust");
        assert_eq!(lang_of(""), "");
    }
}
