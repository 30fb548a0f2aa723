//! Where a Jupyter notebook keeps its cells' text, as byte spans of the file, so an edit of a
//! cell can rewrite that one JSON value and keep every other byte of the file (its indentation,
//! key order and escapes) as it was.
//!
//! The reader is deliberately small: it walks the JSON without building it, records the
//! `source` value of every object in the top-level `cells` array, and gives up (`None`) on
//! anything it does not understand, so an unusual file is left to the ordinary text path.

use std::ops::Range;

/// One cell's `source`: a JSON string, or an array of JSON strings (nbformat's usual layout,
/// one string per line).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Source {
    /// The whole value, brackets or quotes included.
    pub(crate) span: Range<usize>,
    /// Each string of the value, quotes included; one for a plain string.
    pub(crate) parts: Vec<Range<usize>>,
    /// True when the value is an array.
    pub(crate) array: bool,
    /// The text the parts decode to, joined.
    pub(crate) text: String,
    /// The cell is a code cell (`"cell_type": "code"`).
    pub(crate) code: bool,
}

/// Every cell's source, in file order; `None` when `text` is not a notebook this reader can
/// follow (no `cells` array, a cell without a readable `source`, malformed JSON).
pub(crate) fn read(text: &str) -> Option<Vec<Source>> {
    let mut s = Scan {
        b: text.as_bytes(),
        i: 0,
    };
    s.ws();
    // A byte-order mark is not JSON, and nbformat never writes one.
    s.eat(b'{')?;
    let mut cells = None;
    s.members(|s, key| {
        if key == "cells" {
            cells = Some(s.cells(text)?);
            Some(())
        } else {
            s.value()
        }
    })?;
    s.ws();
    (s.i == s.b.len()).then_some(())?;
    cells
}

struct Scan<'a> {
    b: &'a [u8],
    i: usize,
}

impl Scan<'_> {
    fn ws(&mut self) {
        while self.b.get(self.i).is_some_and(u8::is_ascii_whitespace) {
            self.i += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    fn eat(&mut self, c: u8) -> Option<()> {
        (self.peek()? == c).then(|| self.i += 1)
    }

    /// A string token, quotes included.
    fn string(&mut self) -> Option<Range<usize>> {
        let start = self.i;
        self.eat(b'"')?;
        loop {
            match self.peek()? {
                b'"' => {
                    self.i += 1;
                    return Some(start..self.i);
                }
                b'\\' => self.i += 2,
                _ => self.i += 1,
            }
        }
    }

    /// The members of an object whose `{` has been read, each handed to `f` with its decoded
    /// key and the scanner just before its value; up to and including the `}`.
    fn members(&mut self, mut f: impl FnMut(&mut Self, String) -> Option<()>) -> Option<()> {
        self.ws();
        if self.eat(b'}').is_some() {
            return Some(());
        }
        loop {
            self.ws();
            let key = self.string()?;
            let key: String = serde_json::from_slice(&self.b[key]).ok()?;
            self.ws();
            self.eat(b':')?;
            self.ws();
            f(self, key)?;
            self.ws();
            match self.peek()? {
                b',' => self.i += 1,
                b'}' => {
                    self.i += 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    /// The elements of an array whose `[` has been read, each handed to `f` with the scanner
    /// on it; up to and including the `]`.
    fn elements(&mut self, mut f: impl FnMut(&mut Self) -> Option<()>) -> Option<()> {
        self.ws();
        if self.eat(b']').is_some() {
            return Some(());
        }
        loop {
            self.ws();
            f(self)?;
            self.ws();
            match self.peek()? {
                b',' => self.i += 1,
                b']' => {
                    self.i += 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    /// Skips any value.
    fn value(&mut self) -> Option<()> {
        match self.peek()? {
            b'"' => self.string().map(|_| ()),
            b'{' => {
                self.i += 1;
                self.members(|s, _| s.value())
            }
            b'[' => {
                self.i += 1;
                self.elements(Self::value)
            }
            _ => {
                let start = self.i;
                while self
                    .peek()
                    .is_some_and(|c| !matches!(c, b',' | b']' | b'}') && !c.is_ascii_whitespace())
                {
                    self.i += 1;
                }
                (self.i > start).then_some(())
            }
        }
    }

    fn cells(&mut self, text: &str) -> Option<Vec<Source>> {
        self.eat(b'[')?;
        let mut out = Vec::new();
        self.elements(|s| {
            s.eat(b'{')?;
            let mut source = None;
            let mut code = false;
            s.members(|s, key| match key.as_str() {
                "source" => {
                    source = Some(s.source(text)?);
                    Some(())
                }
                "cell_type" => {
                    let at = s.i;
                    s.value()?;
                    code = text.get(at..s.i) == Some("\"code\"");
                    Some(())
                }
                _ => s.value(),
            })?;
            let mut source: Source = source?;
            source.code = code;
            out.push(source);
            Some(())
        })?;
        Some(out)
    }

    fn source(&mut self, text: &str) -> Option<Source> {
        let start = self.i;
        let array = self.peek()? == b'[';
        let mut parts = Vec::new();
        if array {
            self.i += 1;
            self.elements(|s| {
                parts.push(s.string()?);
                Some(())
            })?;
        } else {
            parts.push(self.string()?);
        }
        let mut joined = String::new();
        for p in &parts {
            joined.push_str(&serde_json::from_str::<String>(text.get(p.clone())?).ok()?);
        }
        Some(Source {
            span: start..self.i,
            parts,
            array,
            text: joined,
            code: false,
        })
    }
}

/// `new` written as the value `old` was: a string stays a string; an array is one string per
/// line, laid out with the array's own line breaks and indentation (or, for an empty array,
/// with those of `like`, another cell's array). Non-ASCII characters are escaped when the file
/// escapes them (`ascii`).
pub(crate) fn encode(
    text: &str,
    old: &Source,
    like: Option<&Source>,
    new: &str,
    ascii: bool,
) -> String {
    let quote = |s: &str| escape(s, ascii);
    if !old.array {
        return quote(new);
    }
    if new.is_empty() {
        return "[]".to_owned();
    }
    let (open, sep, close) = layout(text, old)
        .or_else(|| like.and_then(|l| layout(text, l)))
        .unwrap_or_else(|| (String::new(), ", ".to_owned(), String::new()));
    let lines: Vec<String> = new.split_inclusive('\n').map(quote).collect();
    format!("[{open}{}{close}]", lines.join(&sep))
}

/// What an array writes after `[`, between two elements and before `]`.
fn layout(text: &str, a: &Source) -> Option<(String, String, String)> {
    let first = a.parts.first()?;
    let last = a.parts.last()?;
    let open = text.get(a.span.start + 1..first.start)?;
    let close = text.get(last.end..a.span.end - 1)?;
    let sep = match a.parts.get(1) {
        Some(second) => text.get(first.end..second.start)?.to_owned(),
        None if open.contains('\n') => format!(",{open}"),
        None => ", ".to_owned(),
    };
    Some((open.to_owned(), sep, close.to_owned()))
}

/// A JSON string for `s`, as Python's `json.dumps` writes it (Jupyter's writer): quotes,
/// backslashes and control characters escaped, and non-ASCII escaped only when `ascii`.
fn escape(s: &str, ascii: bool) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 || (ascii && !c.is_ascii()) => {
                let mut units = [0u16; 2];
                for u in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{u:04x}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// True when the file writes non-ASCII characters as `\u` escapes (Python's default,
/// `ensure_ascii`) rather than as themselves: it holds an escape of one and no raw one.
pub(crate) fn escapes_non_ascii(text: &str) -> bool {
    let raw = !text.is_ascii();
    let escaped = text.match_indices("\\u").any(|(i, _)| {
        text.get(i + 2..i + 6)
            .and_then(|h| u32::from_str_radix(h, 16).ok())
            .is_some_and(|v| v >= 0x80)
            && !text[..i].ends_with('\\')
    });
    escaped && !raw
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    const NB: &str = "{\n \"cells\": [\n  {\n   \"cell_type\": \"code\",\n   \"metadata\": {\"a\": [1, 2.5e3, null, true]},\n   \"source\": [\n    \"x = \\\"1\\\"\\n\",\n    \"y = 2\"\n   ]\n  },\n  {\"cell_type\": \"markdown\", \"source\": \"# T\\u00e9\"}\n ],\n \"nbformat\": 4\n}\n";

    #[test]
    fn reads_sources_as_arrays_and_strings() {
        let cells = read(NB).unwrap();
        assert_eq!(cells.len(), 2);
        assert_eq!(cells[0].text, "x = \"1\"\ny = 2");
        assert!(cells[0].array);
        assert_eq!(cells[0].parts.len(), 2);
        assert_eq!(cells[1].text, "# Té");
        assert!(!cells[1].array);
        assert!(cells[0].code && !cells[1].code);
    }

    #[test]
    fn writes_an_array_in_its_own_layout() {
        let cells = read(NB).unwrap();
        let s = &cells[0];
        assert_eq!(
            encode(NB, s, None, "x = \"1\"\ny = 2", false),
            &NB[s.span.clone()]
        );
        let three = encode(NB, s, None, "a\tb\nc\\d\n\u{1}", false);
        assert_eq!(
            three,
            "[\n    \"a\\tb\\n\",\n    \"c\\\\d\\n\",\n    \"\\u0001\"\n   ]"
        );
        assert_eq!(encode(NB, s, None, "", false), "[]");
        assert_eq!(
            encode(NB, &cells[1], None, "é 😀", true),
            "\"\\u00e9 \\ud83d\\ude00\""
        );
    }

    #[test]
    fn gives_up_on_what_is_not_a_notebook() {
        assert!(read("{\"cells\": [{\"source\": 3}]}").is_none());
        assert!(read("{\"cells\": [{\"source\": [\"a\"]}]").is_none());
        assert!(read("[1, 2]").is_none());
        assert!(read("{\"metadata\": {}}").is_none());
        assert!(read("{\"cells\": [{\"source\": [\"a\"]}]} x").is_none());
    }

    #[test]
    fn tells_escaping_files_from_raw_ones() {
        assert!(escapes_non_ascii("\"caf\\u00e9\""));
        assert!(!escapes_non_ascii("\"café \\u00e9\""));
        assert!(!escapes_non_ascii("\"\\\\u00e9\""));
        assert!(!escapes_non_ascii("\"a\\u0001\""));
    }
}
