//! A small, conservative Python line lexer: for each physical line, whether it starts a logical
//! line (no string, bracket or backslash continuation is open before it), and if so its
//! indentation and what it begins with. It knows strings with every prefix (`r`, `b`, `u`, `f`
//! and their combinations, any case), triple quotes, escapes, comments, brackets and backslash
//! continuation, and f-string replacement fields of the kind every Python 3 reads alike.
//!
//! It is used only to find where an edit's window may start and end (see `window`), and every
//! doubt is an answer of its own, [`Unsure`], which sends the check to the full parse: a field
//! holding a quote, a backslash or a comment (Python 3.12 allows what older Pythons refuse), a
//! string opened by an unknown prefix, a single-quoted string left open at the end of its line,
//! a backslash in code that does not end its line, a bracket closed that was never opened.

/// The lexer could not be sure of what it read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Unsure;

/// Where the lexer is between two characters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Code,
    /// Inside a string opened by `quote` (once or three times); `fmt` for an f-string.
    Str {
        quote: u8,
        triple: bool,
        fmt: bool,
    },
    /// Inside a replacement field of an f-string, `depth` brackets deep (the field's `{` is 1).
    Field {
        quote: u8,
        triple: bool,
        depth: u32,
    },
    /// Inside a plain string opened by `inner` in such a field.
    Nested {
        quote: u8,
        triple: bool,
        depth: u32,
        inner: u8,
    },
}

/// The lexer's state at a line boundary.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Lexer {
    mode: Mode,
    /// Open brackets in code.
    depth: u32,
    /// The last line ended with a backslash in code.
    joined: bool,
}

/// What a physical line is to Python.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Line {
    /// Inside a string, a bracket or after a backslash: part of an earlier logical line.
    Continued,
    /// Only blanks or a comment, outside any string or bracket: no logical line at all.
    Blank,
    /// The start of a logical line.
    Logical(Start),
}

/// The start of a logical line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Start {
    /// Its indentation in columns; `None` when it holds a tab or a form feed, whose width
    /// Python reads in two ways.
    pub(crate) indent: Option<usize>,
    /// It begins a clause of the statement before it (`else`, `elif`, `except`, `finally`,
    /// or `case`, whatever follows that word).
    pub(crate) clause: bool,
    /// It is a decorator (`@`).
    pub(crate) decorator: bool,
}

const CLAUSES: [&[u8]; 5] = [b"else", b"elif", b"except", b"finally", b"case"];

fn is_word(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80
}

impl Lexer {
    /// The state at the start of a file.
    pub(crate) fn new() -> Lexer {
        Lexer {
            mode: Mode::Code,
            depth: 0,
            joined: false,
        }
    }

    /// Nothing is open: the next line starts a logical line (or is blank).
    pub(crate) fn is_clean(&self) -> bool {
        self.mode == Mode::Code && self.depth == 0 && !self.joined
    }

    /// Read one physical line (with or without its `\n`), telling what it is.
    pub(crate) fn line(&mut self, line: &[u8]) -> Result<Line, Unsure> {
        let kind = if self.is_clean() {
            classify(line)?
        } else {
            Line::Continued
        };
        self.joined = false;
        let body = line.strip_suffix(b"\n").unwrap_or(line);
        let body = body.strip_suffix(b"\r").unwrap_or(body);
        // A lone carriage return ends a line for Python, not for this lexer.
        if body.contains(&b'\r') {
            return Err(Unsure);
        }
        let mut i = 0;
        while i < body.len() {
            i = match self.mode {
                Mode::Code => self.code(body, i)?,
                Mode::Str { quote, triple, fmt } => self.string(body, i, quote, triple, fmt)?,
                Mode::Field {
                    quote,
                    triple,
                    depth,
                } => self.field(body, i, quote, triple, depth)?,
                Mode::Nested {
                    quote,
                    triple,
                    depth,
                    inner,
                } => self
                    .nested(body[i], quote, triple, depth, inner)
                    .map(|()| i + 1)?,
            };
        }
        match self.mode {
            Mode::Str { triple: false, .. } if !self.joined && line.ends_with(b"\n") => Err(Unsure),
            Mode::Field { .. } | Mode::Nested { .. } if line.ends_with(b"\n") => Err(Unsure),
            _ => Ok(kind),
        }
    }

    /// One step in code from `i`; the index after what was read.
    fn code(&mut self, body: &[u8], i: usize) -> Result<usize, Unsure> {
        let c = body[i];
        match c {
            b'#' => Ok(body.len()),
            b'\\' => {
                // Only a line-ending backslash joins lines.
                if i + 1 == body.len() {
                    self.joined = true;
                    Ok(body.len())
                } else {
                    Err(Unsure)
                }
            }
            b'(' | b'[' | b'{' => {
                self.depth += 1;
                Ok(i + 1)
            }
            b')' | b']' | b'}' => {
                self.depth = self.depth.checked_sub(1).ok_or(Unsure)?;
                Ok(i + 1)
            }
            b'\'' | b'"' => Ok(self.open(body, i, false)),
            c if is_word(c) => {
                let end = i + body[i..].iter().take_while(|&&c| is_word(c)).count();
                match body.get(end) {
                    Some(b'\'' | b'"') => {
                        let prefix = body[i..end].to_ascii_lowercase();
                        if !matches!(
                            prefix.as_slice(),
                            b"r" | b"u" | b"b" | b"f" | b"br" | b"rb" | b"fr" | b"rf"
                        ) {
                            return Err(Unsure);
                        }
                        Ok(self.open(body, end, prefix.contains(&b'f')))
                    }
                    _ => Ok(end),
                }
            }
            _ => Ok(i + 1),
        }
    }

    /// Open the string whose quote is at `i`.
    fn open(&mut self, body: &[u8], i: usize, fmt: bool) -> usize {
        let quote = body[i];
        let triple = body.get(i + 1) == Some(&quote) && body.get(i + 2) == Some(&quote);
        self.mode = Mode::Str { quote, triple, fmt };
        if triple {
            i + 3
        } else {
            i + 1
        }
    }

    fn string(
        &mut self,
        body: &[u8],
        i: usize,
        quote: u8,
        triple: bool,
        fmt: bool,
    ) -> Result<usize, Unsure> {
        let c = body[i];
        if c == b'\\' {
            // Escapes the next character, even in a raw string (where both stay); at the end
            // of the line, the line break.
            self.joined = i + 1 == body.len();
            return Ok(i + 2);
        }
        if c == quote {
            if !triple {
                self.mode = Mode::Code;
                return Ok(i + 1);
            }
            if body.get(i + 1) == Some(&quote) && body.get(i + 2) == Some(&quote) {
                self.mode = Mode::Code;
                return Ok(i + 3);
            }
            return Ok(i + 1);
        }
        if fmt && (c == b'{' || c == b'}') {
            if body.get(i + 1) == Some(&c) {
                return Ok(i + 2);
            }
            if c == b'}' {
                return Err(Unsure);
            }
            self.mode = Mode::Field {
                quote,
                triple,
                depth: 1,
            };
        }
        Ok(i + 1)
    }

    fn field(
        &mut self,
        body: &[u8],
        i: usize,
        quote: u8,
        triple: bool,
        depth: u32,
    ) -> Result<usize, Unsure> {
        let depth = match body[i] {
            // A string in a field: every Python reads it alike when its quote differs from the
            // f-string's and it is one plain line (Python 3.12 reads more, older ones refuse).
            q @ (b'\'' | b'"') if q != quote && body.get(i + 1..i + 3) != Some(&[q, q]) => {
                self.mode = Mode::Nested {
                    quote,
                    triple,
                    depth,
                    inner: q,
                };
                return Ok(i + 1);
            }
            b'\'' | b'"' | b'\\' | b'#' => return Err(Unsure),
            b'(' | b'[' | b'{' => depth + 1,
            b')' | b']' | b'}' => depth - 1,
            _ => depth,
        };
        self.mode = if depth == 0 {
            Mode::Str {
                quote,
                triple,
                fmt: true,
            }
        } else {
            Mode::Field {
                quote,
                triple,
                depth,
            }
        };
        Ok(i + 1)
    }
}

impl Lexer {
    /// One character of a string nested in a field.
    fn nested(
        &mut self,
        c: u8,
        quote: u8,
        triple: bool,
        depth: u32,
        inner: u8,
    ) -> Result<(), Unsure> {
        if c == b'\\' || c == quote {
            return Err(Unsure);
        }
        if c == inner {
            self.mode = Mode::Field {
                quote,
                triple,
                depth,
            };
        }
        Ok(())
    }
}

/// What a line that starts outside everything is. A line that starts with a backslash joins
/// nothing to an indentation of its own: where its statement sits is the grammar's guess.
fn classify(line: &[u8]) -> Result<Line, Unsure> {
    let lead = line
        .iter()
        .take_while(|&&c| matches!(c, b' ' | b'\t' | b'\x0c'))
        .count();
    let rest = &line[lead..];
    if rest.first() == Some(&b'#') || rest.iter().all(|&c| matches!(c, b'\n' | b'\r')) {
        return Ok(Line::Blank);
    }
    if rest.first() == Some(&b'\\') {
        return Err(Unsure);
    }
    let indent = line[..lead].iter().all(|&c| c == b' ').then_some(lead);
    let word_len = rest.iter().take_while(|&&c| is_word(c)).count();
    Ok(Line::Logical(Start {
        indent,
        clause: CLAUSES.contains(&&rest[..word_len]),
        decorator: rest.first() == Some(&b'@'),
    }))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Result<Vec<char>, Unsure> {
        let mut lexer = Lexer::new();
        text.split_inclusive('\n')
            .map(|l| {
                Ok(match lexer.line(l.as_bytes())? {
                    Line::Continued => 'c',
                    Line::Blank => 'b',
                    Line::Logical(s) if s.clause => 'k',
                    Line::Logical(s) if s.decorator => '@',
                    Line::Logical(_) => 'L',
                })
            })
            .collect()
    }

    #[test]
    fn strings_brackets_and_backslashes_continue_lines() {
        let text = "x = '''a\n# no\n''' + rb'\\'' + f\"{a['k']!r}\" if 0 else 1\n";
        assert_eq!(kinds(text).unwrap(), vec!['L', 'c', 'c']);
        let text = "x = '''a\n# no\n''' + rb'\\'' + f\"{a[k]!r:>{w}}\"\n  # c\ny = (1,\n2) \\\n + 3\n@d\nelse:\n";
        assert_eq!(
            kinds(text).unwrap(),
            vec!['L', 'c', 'c', 'b', 'L', 'c', 'c', '@', 'k']
        );
        let text = "s = \"a\\\nb\"\nt = 1\n";
        assert_eq!(kinds(text).unwrap(), vec!['L', 'c', 'L']);
    }

    #[test]
    fn doubts_are_unsure() {
        for text in [
            "x = 'open\ny = 1\n",
            "x = 1 \\ y\n",
            "x = )\n",
            "x = t'hi'\n",
            "x = f'{a}}'\n",
            "x = f'{'a'}'\n",
            "x = f'{\"a'\"}'\n",
            "x = f'{\"a\\n\"}'\n",
            "x = f'{\"\"\"a\"\"\"}'\n",
            "x = f'''{a\n}'''\n",
            "if x:\n\\\n    y = 2\n",
        ] {
            assert_eq!(kinds(text), Err(Unsure), "{text}");
        }
        assert_eq!(kinds("x = f'{{a}}' + F'{a:{b}}'\n").unwrap(), vec!['L']);
        assert_eq!(
            kinds("x = f\"{', '.join(a)}\" + f'{d[\"k\"]:>{w}}'\ny = 1\n").unwrap(),
            vec!['L', 'L']
        );
    }

    #[test]
    fn tabs_leave_the_indent_unknown() {
        let mut lexer = Lexer::new();
        let Line::Logical(start) = lexer.line(b"\tx = 1\n").unwrap() else {
            panic!("a logical line")
        };
        assert_eq!(start.indent, None);
        let Line::Logical(start) = lexer.line(b"    x = 1\r\n").unwrap() else {
            panic!("a logical line")
        };
        assert_eq!(start.indent, Some(4));
    }
}
