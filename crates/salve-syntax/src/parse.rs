//! Parsing one text and finding its first error. tree-sitter always returns a tree; errors show
//! as `ERROR` nodes (text it could not place) and zero-width `MISSING` nodes (a token it had to
//! invent), and every ancestor of one knows it holds one, so the first is found by descending
//! only into subtrees that have errors.

use tree_sitter::{Node, Parser, Tree};

use crate::{rules, ErrorKind, Language, SyntaxError};

/// The parser gave no tree: the grammar could not be loaded (an ABI mismatch).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NoTree;

/// Longest token quoted in a message, in characters.
const MAX_TOKEN_CHARS: usize = 40;

/// The first syntax error of `text` read as `language`, or `None` when it parses cleanly.
pub fn first_error(language: Language, text: &str) -> Result<Option<SyntaxError>, NoTree> {
    if let Some(found) = crate::data::first_error(language, text) {
        return Ok(found);
    }
    let tree = parse(language, text, None)?;
    Ok(error_in(language, &tree, text))
}

/// [`first_error`] of `after`, the text `before` became by an edit: parsed incrementally when
/// this process kept the tree of `before` (see `reuse`). The answer is [`first_error`]'s: an
/// error found that way is looked for again by a fresh parse, which has the last word.
pub(crate) fn first_error_after(
    language: Language,
    before: &str,
    after: &str,
) -> Result<Option<SyntaxError>, NoTree> {
    if let Some(found) = crate::data::first_error(language, after) {
        return Ok(found);
    }
    let old = crate::reuse::edited_tree(language, before, after);
    let reused = old.is_some();
    let tree = parse(language, after, old.as_ref())?;
    crate::reuse::keep(language, after, &tree);
    match error_in(language, &tree, after) {
        Some(_) if reused => first_error(language, after),
        found => Ok(found),
    }
}

pub(crate) fn parse(language: Language, text: &str, old: Option<&Tree>) -> Result<Tree, NoTree> {
    let grammar = language.grammar().ok_or(NoTree)?;
    let mut parser = Parser::new();
    parser.set_language(&grammar).map_err(|_| NoTree)?;
    parser.parse(text, old).ok_or(NoTree)
}

/// The first error in `tree`, the parse of `text`.
pub(crate) fn error_in(language: Language, tree: &Tree, text: &str) -> Option<SyntaxError> {
    let root = tree.root_node();
    let (at, kind) = if root.has_error() {
        let node = first_error_node(root);
        if node.is_missing() {
            (node, ErrorKind::Missing(node.kind().to_owned()))
        } else {
            let leaf = rules::typographic_leaf(node, text).unwrap_or_else(|| first_leaf(node));
            (leaf, ErrorKind::Unexpected(quote(leaf, text)))
        }
    } else {
        rules::first_violation(language, root, text)?
    };
    let (line, column) = position(at, text);
    Some(SyntaxError {
        language,
        line,
        column,
        kind,
    })
}

/// The first `ERROR` or `MISSING` node under `node` (which has an error), in text order, and
/// the innermost one there: error recovery can wrap everything from the top of the file in one
/// `ERROR` node, with the tokens it could not place in another inside it.
fn first_error_node(node: Node<'_>) -> Node<'_> {
    let mut node = node;
    loop {
        if node.is_missing() {
            return node;
        }
        let mut cursor = node.walk();
        let next = node.children(&mut cursor).find(|c| c.has_error());
        match next {
            Some(child) => node = child,
            // No child holds it: the node itself is where the parser gave up.
            None => return node,
        }
    }
}

/// The first leaf of `node` that has text and is not a comment (the token the parser stumbled
/// on).
fn first_leaf(node: Node<'_>) -> Node<'_> {
    let mut node = node;
    loop {
        let mut cursor = node.walk();
        let next = node
            .children(&mut cursor)
            .find(|c| c.end_byte() > c.start_byte() && !c.is_extra());
        match next {
            Some(child) => node = child,
            None => return node,
        }
    }
}

/// The node's text, its first line only, cut to [`MAX_TOKEN_CHARS`].
fn quote(node: Node<'_>, text: &str) -> String {
    let token = text.get(node.start_byte()..node.end_byte()).unwrap_or("");
    let first_line = token.lines().next().unwrap_or("").trim();
    let mut out: String = first_line.chars().take(MAX_TOKEN_CHARS).collect();
    if first_line.chars().count() > MAX_TOKEN_CHARS {
        out.push('…');
    }
    out
}

/// 1-based line and character column of the node's start.
fn position(node: Node<'_>, text: &str) -> (usize, usize) {
    let point = node.start_position();
    let start = node.start_byte();
    let line_start = start.saturating_sub(point.column);
    let column = text
        .get(line_start..start)
        .map_or(point.column, |s| s.chars().count());
    (point.row + 1, column + 1)
}
