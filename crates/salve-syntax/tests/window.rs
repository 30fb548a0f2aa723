//! The window fast path: which edits it answers, and each reason it hands an edit to the full
//! check, which then gives the verdict it always gave.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

use salve_syntax::{check, check_window, Fallback, Language, Verdict};

fn window(before: &str, after: &str) -> Result<(), Fallback> {
    check_window(Language::Python, before, after)
}

fn full(before: &str, after: &str) -> Verdict {
    check(Path::new("m.py"), before, after)
}

const CLASS: &str = "import os\n\n\nclass C:\n    \"\"\"Doc.\n\n    More.\n    \"\"\"\n\n    @property\n    def f(self):\n        x = 1\n        return x\n\n    def g(self, a):\n        if a:\n            y = (a,\n                 2)\n            return y\n        else:\n            return None\n\n\ndef main():\n    return C()\n";

#[test]
fn a_one_line_edit_in_a_body_is_answered_by_its_window() {
    let after = CLASS.replace("        x = 1\n", "        x = 2\n");
    assert_eq!(window(CLASS, &after), Ok(()));
    assert_eq!(full(CLASS, &after), Verdict::Clean);
    // Inside a docstring, inside brackets, a comment, a new statement at the end.
    for after in [
        CLASS.replace("    More.\n", "    More, and more.\n"),
        CLASS.replace("                 2)\n", "                 3)\n"),
        CLASS.replace("        x = 1\n", "        x = 1  # one\n"),
        format!("{CLASS}\n\nmain()\n"),
    ] {
        assert_eq!(window(CLASS, &after), Ok(()), "{after}");
    }
}

#[test]
fn an_error_in_the_window_is_left_to_the_full_check() {
    let after = CLASS.replace("        x = 1\n", "        x = 1 +\n");
    assert_eq!(window(CLASS, &after), Err(Fallback::WindowError));
    let Verdict::Introduced(error) = full(CLASS, &after) else {
        panic!("expected an error")
    };
    assert!(error.line >= 12, "{error}");
    // A statement dedented out of its method: the window reaches the class and its parse
    // fails, and the full check names the line.
    let after = CLASS.replace("        x = 1\n", "    x = 1\n");
    assert_eq!(window(CLASS, &after), Err(Fallback::WindowError));
    assert!(matches!(full(CLASS, &after), Verdict::Introduced(_)));
}

#[test]
fn a_decorated_definition_starts_the_window_at_its_decorator() {
    // The window starts at `@property`, so a decorator left without its function is seen.
    let after = CLASS.replace("    def f(self):\n", "    f = 1\n");
    assert_eq!(window(CLASS, &after), Err(Fallback::WindowError));
    assert!(matches!(full(CLASS, &after), Verdict::Introduced(_)));
    // Yet the method's first line is answered by the window, decorator included.
    let after = CLASS.replace("        x = 1\n", "        x = 3\n");
    assert_eq!(window(CLASS, &after), Ok(()));
}

#[test]
fn a_clause_at_the_window_start_moves_it_to_its_statement() {
    let after = CLASS.replace("            return None\n", "            return 0\n");
    assert_eq!(window(CLASS, &after), Ok(()));
    // The `if` turned into a plain statement leaves `else:` dangling: the window holds both.
    let after = CLASS.replace("        if a:\n", "        a = 1\n");
    assert_eq!(window(CLASS, &after), Err(Fallback::WindowError));
    assert!(matches!(full(CLASS, &after), Verdict::Introduced(_)));
}

#[test]
fn a_clause_after_the_window_widens_it_to_the_statement_above() {
    // `return y` is the last line before `else:`, which is less deep than the window: the
    // window grows to hold the whole `if` statement.
    let after = CLASS.replace("            return y\n", "            return y + 1\n");
    assert_eq!(window(CLASS, &after), Ok(()));
    assert_eq!(full(CLASS, &after), Verdict::Clean);
    // The body emptied: the grown window holds the `if` and sees it.
    let after = CLASS.replace("            return y\n", "");
    let after = after.replace("            y = (a,\n                 2)\n", "");
    assert_eq!(window(CLASS, &after), Err(Fallback::WindowError));
    assert!(matches!(full(CLASS, &after), Verdict::Introduced(_)));
}

#[test]
fn a_clause_after_the_window_falls_back_after_a_few_widenings() {
    let mut text = String::new();
    for depth in 0..5 {
        text += &format!("{}if c{depth}:\n", "    ".repeat(depth));
    }
    text += &format!("{}x = 1\n", "    ".repeat(5));
    for depth in (0..5).rev() {
        text += &format!(
            "{}else:\n{}pass\n",
            "    ".repeat(depth),
            "    ".repeat(depth + 1)
        );
    }
    let after = text.replace("x = 1", "x = 2");
    assert_eq!(window(&text, &after), Err(Fallback::ClauseAfter));
    assert_eq!(full(&text, &after), Verdict::Clean);
}

#[test]
fn an_unsure_lexer_falls_back() {
    // Python 3.12 reads the same quote inside a field; older Pythons end the string there.
    let before = "x = f\"{d[\"k\"]}\"\ny = 1\n";
    assert_eq!(
        window(before, "x = f\"{d[\"k\"]}\"\ny = 2\n"),
        Err(Fallback::Lexer)
    );
    // A string left open by the edit.
    let before = "a = 1\nb = 2\n";
    assert_eq!(window(before, "a = 1\nb = '2\n"), Err(Fallback::Lexer));
    assert!(matches!(
        full(before, "a = 1\nb = '2\n"),
        Verdict::Introduced(_)
    ));
}

#[test]
fn tabs_where_the_window_measures_fall_back() {
    let before = "def f():\n\tx = 1\n\treturn x\n";
    let after = before.replace("x = 1", "x = 2");
    assert_eq!(window(before, &after), Err(Fallback::Tabs));
    assert_eq!(full(before, &after), Verdict::Clean);
}

#[test]
fn an_end_that_is_no_statement_start_before_the_edit_falls_back() {
    // Before, lines 2 and 3 are inside a string; after, the string is gone and `"""` opens
    // one that never ends. The window would end at `y = 1`, which starts no line before.
    let before = "x = \"\"\"\ny = 1\n\"\"\"\nz = 2\n";
    let after = "x = 1\ny = 1\n\"\"\"\nz = 2\n";
    assert_eq!(window(before, after), Err(Fallback::Bounds));
    assert!(matches!(full(before, after), Verdict::Introduced(_)));
}

#[test]
fn a_window_of_the_whole_file_or_of_no_statement_falls_back() {
    assert_eq!(window("x = 1\n", "x = 2\n"), Err(Fallback::WholeFile));
    // Only a comment changed before the first statement: no statement to parse.
    let before = "# a\nx = 1\n";
    assert_eq!(window(before, "# b\nx = 1\n"), Err(Fallback::NoStatement));
    assert_eq!(full(before, "# b\nx = 1\n"), Verdict::Clean);
}

#[test]
fn equal_texts_and_other_languages_are_not_windowed() {
    assert_eq!(window(CLASS, CLASS), Err(Fallback::Unchanged));
    assert_eq!(
        check_window(Language::Rust, "fn a() {}\n", "fn b() {}\n"),
        Err(Fallback::NotPython)
    );
}

/// A file whose text before was already broken elsewhere: the window may answer clean (the
/// full check would not have judged it either, so no error is hidden).
#[test]
fn a_file_broken_elsewhere_is_not_judged_either_way() {
    let before = "def f():\n    x = 1\n    return x\n\n\ndef g(:\n    pass\n";
    let after = before.replace("x = 1", "x = 2");
    assert_eq!(window(before, &after), Ok(()));
    assert!(salve_syntax::first_error(Language::Python, before)
        .unwrap()
        .is_some());
    assert_eq!(full(before, &after), Verdict::Clean);
}

#[test]
fn a_bracket_left_open_to_the_end_of_the_file_falls_back() {
    let after = CLASS.replace("        x = 1\n", "        x = (1\n");
    assert_eq!(window(CLASS, &after), Err(Fallback::Bounds));
    assert!(matches!(full(CLASS, &after), Verdict::Introduced(_)));
}
