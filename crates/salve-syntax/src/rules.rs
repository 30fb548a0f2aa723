//! Errors the grammars let through. tree-sitter's grammars are made to be forgiving for
//! editors, and two of the mistakes this crate exists to catch pass them without an `ERROR`
//! node:
//! - **Python indentation.** The Python grammar puts a statement indented one step too deep, or
//!   dedented to a depth no enclosing block has, into the nearest block, and an empty body
//!   (`def f():` followed by a dedented line) is a `block` with no statement. Python refuses all
//!   three. The rule, on the tree: the statements of a block that start their lines share one
//!   indentation, deeper than the line of the statement that opens the block; a module's start
//!   at column 0; a block holds at least one statement. Comments are free, as in Python.
//! - **Typographic characters in identifiers.** The JavaScript, TypeScript and Rust grammars
//!   read `“x”` (curly quotes) as an identifier, because their identifier pattern excludes
//!   punctuation by listing ASCII only. No language here allows curly quotes, primes, dashes or
//!   no-break spaces in an identifier, so a name holding one is an error.

use tree_sitter::Node;

use crate::{ErrorKind, Language};

/// The first error of the kinds above in a tree that has no `ERROR` node, with the node it is
/// at.
pub(crate) fn first_violation<'t>(
    language: Language,
    root: Node<'t>,
    text: &str,
) -> Option<(Node<'t>, ErrorKind)> {
    let typographic = typographic_identifier(root, text);
    let indentation = match language {
        Language::Python => python_indentation(root, text),
        _ => None,
    };
    // Whichever comes first in the text.
    match (typographic, indentation) {
        (Some(a), Some(b)) => Some(if a.0.start_byte() <= b.0.start_byte() {
            a
        } else {
            b
        }),
        (a, b) => a.or(b),
    }
}

/// Characters that never belong in an identifier: typographic quotes, primes, dashes, the
/// ellipsis and the no-break space, as word processors and chat renderers write them.
fn is_typographic(c: char) -> bool {
    matches!(c,
        '\u{00A0}' | '\u{00AB}' | '\u{00BB}' | '\u{2010}'..='\u{2015}' | '\u{2018}'..='\u{201F}'
        | '\u{2026}' | '\u{2032}'..='\u{2037}' | '\u{2039}' | '\u{203A}' | '\u{FF02}' | '\u{FF07}')
}

/// The leaf holding the first typographic character inside `node`: in an `ERROR` node, the
/// likeliest culprit, and a better place to point at than the statement's first token.
pub(crate) fn typographic_leaf<'t>(node: Node<'t>, text: &str) -> Option<Node<'t>> {
    let span = text.get(node.byte_range())?;
    let (at, c) = span.char_indices().find(|(_, c)| is_typographic(*c))?;
    let at = node.start_byte() + at;
    node.descendant_for_byte_range(at, at + c.len_utf8())
}

fn typographic_identifier<'t>(root: Node<'t>, text: &str) -> Option<(Node<'t>, ErrorKind)> {
    if text.is_ascii() {
        return None;
    }
    text.char_indices()
        .filter(|(_, c)| is_typographic(*c))
        .find_map(|(at, c)| {
            let leaf = root.descendant_for_byte_range(at, at + c.len_utf8())?;
            leaf.kind().ends_with("identifier").then(|| {
                let token = text.get(leaf.byte_range()).unwrap_or("").to_owned();
                (leaf, ErrorKind::Unexpected(token))
            })
        })
}

/// Width of leading whitespace, with tabs to the next multiple of `tab`.
fn width(indent: &str, tab: usize) -> usize {
    indent.chars().fold(0, |w, c| match c {
        '\t' => (w / tab + 1) * tab,
        _ => w + 1,
    })
}

/// Indentation widths (tabs of 8, tabs of 1) of the line `node` starts, when it is the first
/// thing on that line; `None` when something precedes it there.
fn line_indent(node: Node<'_>, text: &str) -> Option<(usize, usize)> {
    let start = node.start_byte();
    let line_start = text.get(..start)?.rfind('\n').map_or(0, |i| i + 1);
    let indent = text.get(line_start..start)?;
    indent
        .chars()
        .all(|c| matches!(c, ' ' | '\t' | '\x0c'))
        .then(|| (width(indent, 8), width(indent, 1)))
}

/// The indentation of the line on which `node` starts, first on its line or not.
fn start_line_indent(node: Node<'_>, text: &str) -> (usize, usize) {
    let start = node.start_byte();
    let line_start = text
        .get(..start)
        .and_then(|t| t.rfind('\n'))
        .map_or(0, |i| i + 1);
    let line = text.get(line_start..start).unwrap_or("");
    let indent: String = line.chars().take_while(|c| c.is_whitespace()).collect();
    (width(&indent, 8), width(&indent, 1))
}

/// Differs under both readings of a tab, so Python refuses it whichever way it counts.
fn differs(a: (usize, usize), b: (usize, usize)) -> bool {
    a.0 != b.0 && a.1 != b.1
}

fn not_deeper(a: (usize, usize), than: (usize, usize)) -> bool {
    a.0 <= than.0 && a.1 <= than.1
}

fn python_indentation<'t>(root: Node<'t>, text: &str) -> Option<(Node<'t>, ErrorKind)> {
    let mut cursor = root.walk();
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        if let Some(found) = python_block(node, text) {
            return Some(found);
        }
        // Children pushed in reverse: the first is looked at first.
        let children: Vec<Node<'t>> = node.named_children(&mut cursor).collect();
        stack.extend(children.into_iter().rev());
    }
    None
}

/// The first indentation error among the statements of `node`, when it is a module or a block.
fn python_block<'t>(node: Node<'t>, text: &str) -> Option<(Node<'t>, ErrorKind)> {
    let is_module = node.kind() == "module";
    if !is_module && node.kind() != "block" {
        return None;
    }
    let mut cursor = node.walk();
    let statements: Vec<Node<'t>> = node
        .named_children(&mut cursor)
        .filter(|c| !c.is_extra())
        .collect();
    let unexpected = |n: Node<'t>, why: &str| {
        let token = text.get(n.byte_range()).unwrap_or("");
        let first = token.lines().next().unwrap_or("").trim();
        Some((
            n,
            ErrorKind::Indentation(format!(
                "{why}: `{}`",
                first.chars().take(40).collect::<String>()
            )),
        ))
    };
    if statements.is_empty() {
        if is_module {
            return None;
        }
        let header = node.parent().unwrap_or(node);
        return unexpected(header, "expected an indented block after");
    }
    let header = (!is_module).then(|| start_line_indent(node.parent().unwrap_or(node), text));
    let mut first: Option<(usize, usize)> = None;
    for statement in statements {
        let Some(indent) = line_indent(statement, text) else {
            continue;
        };
        match first {
            None => {
                if is_module && differs(indent, (0, 0)) {
                    // The grammar closes blocks at any dedent, so this may be a line dedented
                    // to a depth no enclosing block has, or one indented for no block.
                    return unexpected(statement, "indentation matches no enclosing block");
                }
                if header.is_some_and(|h| not_deeper(indent, h)) {
                    return unexpected(statement, "expected an indented block before");
                }
                first = Some(indent);
            }
            Some(expected) if differs(indent, expected) => {
                let why = if indent.0 > expected.0 {
                    "unexpected indent"
                } else {
                    "unindent does not match any outer indentation level"
                };
                return unexpected(statement, why);
            }
            Some(_) => {}
        }
    }
    None
}
