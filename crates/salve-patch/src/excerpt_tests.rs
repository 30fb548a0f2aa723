#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::*;
use crate::report::{LineRange, Status};

fn cand(start: usize, end: usize) -> Candidate {
    Candidate::new(LineRange { start, end }, 0.5, String::new())
}

/// The scope and excerpt of one candidate at `start..=end` of `text`.
fn described(text: &str, path: &str, start: usize, end: usize) -> Candidate {
    let mut hunk = HunkReport::new(0, Status::NotFound);
    hunk.candidates.push(cand(start, end));
    describe_candidates(std::slice::from_mut(&mut hunk), text, path);
    hunk.candidates.remove(0)
}

fn scope(text: &str, path: &str, start: usize, end: usize) -> Option<String> {
    described(text, path, start, end).scope.map(|s| s.text)
}

const PY: &str = "\
import os

class Invoice:
    # totals
    def total(self):
        x = 1
        if x:
            return x

        return 0

def helper():
    pass
";

#[test]
fn python_methods_and_classes() {
    // Inside `if x:`, the `if` is passed over for the method.
    assert_eq!(scope(PY, "a.py", 8, 8).as_deref(), Some("def total(self):"));
    let c = described(PY, "a.py", 6, 6);
    assert_eq!(c.scope.unwrap().line, 5);
    // The method head itself sits in the class.
    assert_eq!(scope(PY, "a.py", 5, 6).as_deref(), Some("class Invoice:"));
    assert_eq!(scope(PY, "a.py", 13, 13).as_deref(), Some("def helper():"));
    // Top-level code has no scope.
    assert_eq!(scope(PY, "a.py", 1, 1), None);
}

const RS: &str = "\
impl<T: Clone> Stack<T> {
    pub(crate) async fn push(&mut self, v: T) {
        for x in self.items() {
            #[cfg(test)]
            touch(x);
        }
    }
}
";

#[test]
fn rust_generic_impls_and_modifiers() {
    assert_eq!(
        scope(RS, "s.rs", 5, 5).as_deref(),
        Some("pub(crate) async fn push(&mut self, v: T) {")
    );
    assert_eq!(
        scope(RS, "s.rs", 2, 2).as_deref(),
        Some("impl<T: Clone> Stack<T> {")
    );
}

const C: &str = "\
#include <stdio.h>

static int
count(const char *s)
{
#ifdef DEBUG
    puts(s);
#endif
    if (s) {
        return 1;
    }
    return 0;
}
";

#[test]
fn c_functions_with_the_brace_on_its_own_line() {
    // The preprocessor lines at column 0 and the `if` do not hide the function.
    assert_eq!(
        scope(C, "c.c", 10, 10).as_deref(),
        Some("count(const char *s)")
    );
    assert_eq!(
        scope(C, "c.c", 7, 7).as_deref(),
        Some("count(const char *s)")
    );
}

const JS: &str = "\
export default class View {
  render() {
    if (this.ok) {
      draw();
    }
  }
}
";

#[test]
fn javascript_methods_and_classes() {
    assert_eq!(scope(JS, "v.js", 4, 4).as_deref(), Some("render() {"));
    assert_eq!(
        scope(JS, "v.js", 2, 2).as_deref(),
        Some("export default class View {")
    );
}

#[test]
fn markdown_headings_not_comments() {
    let md = "# Title\n\ntext\n\n## Install\n\nrun it\n";
    assert_eq!(scope(md, "README.md", 7, 7).as_deref(), Some("## Install"));
    assert_eq!(scope(md, "README.md", 3, 3).as_deref(), Some("# Title"));
    // `#` lines in code are comments, not headings.
    let sh = "# setup\nfoo() {\n  bar\n}\n";
    assert_eq!(scope(sh, "x.sh", 3, 3).as_deref(), Some("foo() {"));
    assert_eq!(scope("#tag\ntext\n", "n.md", 2, 2), None);
}

#[test]
fn excerpt_numbers_context_and_span() {
    let c = described(PY, "a.py", 6, 7);
    let numbers: Vec<usize> = c.excerpt.iter().map(|l| l.line).collect();
    assert_eq!(numbers, [4, 5, 6, 7, 8, 9]);
    assert_eq!(c.excerpt[2].text, "        x = 1");
    let text = numbered(&c);
    assert_eq!(
        text,
        "  4 |     # totals\n  5 |     def total(self):\n> 6 |         x = 1\n\
         > 7 |         if x:\n  8 |             return x\n  9 |\n"
    );
    // At the file's edges the context is what there is.
    let first = described(PY, "a.py", 1, 1);
    assert_eq!(first.excerpt.first().unwrap().line, 1);
    assert_eq!(first.excerpt.len(), 3);
    let last = described(PY, "a.py", 13, 13);
    assert_eq!(last.excerpt.last().unwrap().line, 13);
}

#[test]
fn long_excerpts_keep_head_and_tail() {
    let text: String = (1..=60).map(|i| format!("line {i}\r\n")).collect();
    let c = described(&text, "t.txt", 10, 40);
    assert_eq!(c.excerpt.len(), MAX_EXCERPT);
    assert_eq!(c.excerpt.first().unwrap().line, 8);
    assert_eq!(c.excerpt.last().unwrap().line, 42);
    assert_eq!(c.excerpt[0].text, "line 8", "no carriage return");
    let text = numbered(&c);
    assert!(text.contains("   ⋮\n"), "{text}");
    assert!(text.contains("> 40 | line 40\n"), "{text}");
}

#[test]
fn long_lines_are_cut() {
    let long = "x".repeat(500);
    let c = described(&format!("{long}\n"), "t.txt", 1, 1);
    let text = &c.excerpt[0].text;
    assert_eq!(
        text,
        &format!("{}… 300 more characters", "x".repeat(MAX_LINE_CHARS))
    );
}

#[test]
fn out_of_range_candidates_are_clamped() {
    let c = described("a\nb\n", "t.txt", 5, 9);
    assert_eq!(c.excerpt.iter().map(|l| l.line).collect::<Vec<_>>(), [1, 2]);
    let empty = described("", "t.txt", 1, 1);
    assert!(empty.excerpt.is_empty());
    assert_eq!(empty.scope, None);
}
