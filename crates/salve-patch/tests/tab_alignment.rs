//! Added lines a reply indents with spaces for a tab-indented file, at a width between two tab
//! levels: tabs to the last level and spaces after, or fewer tabs and alignment spaces. The
//! file's own lines decide when they can (generator counterexample, issue 14 §5).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use salve_patch::{apply_hunks, Hunk, HunkLine, LineKind, Status};

fn hunk(body: &str) -> Hunk {
    let lines = body
        .lines()
        .map(|l| {
            let (k, t) = l.split_at(1);
            let kind = match k {
                "-" => LineKind::Remove,
                "+" => LineKind::Add,
                _ => LineKind::Context,
            };
            HunkLine::new(kind, t)
        })
        .collect();
    Hunk {
        lines,
        ..Hunk::default()
    }
}

/// The reply at four spaces a tab: `head = rt;` two levels deep, an added declaration at
/// eighteen columns.
const HUNK: &str = "         head = rt;\n+                  *rt, *lf;\n         pshift -= 2;";

#[test]
fn a_width_between_levels_refuses_where_the_file_aligns_after_tabs() {
    // Line 5 has one tab and fourteen alignment spaces: eighteen columns could be `\t` and
    // fourteen spaces as there, or four tabs and two spaces.
    let file = "void f() {\n\tif (a) {\n\t\thead = rt;\n\t\tpshift -= 2;\n\t              *x, *y;\n\t}\n}\n";
    let out = apply_hunks(file, &[hunk(HUNK)], None);
    assert_ne!(out.status, Status::Applied, "{:#?}", out.hunks);
    assert_eq!(out.new_text, None);
    let message = out.hunks[0].message.clone().unwrap_or_default();
    assert!(
        message.contains("how many tabs it takes is unclear"),
        "{message}"
    );
    assert!(message.contains("(line 5)"), "{message}");
}

#[test]
fn a_width_between_levels_takes_tabs_then_spaces_where_the_file_never_aligns() {
    let file = "void f() {\n\tif (a) {\n\t\thead = rt;\n\t\tpshift -= 2;\n\t}\n}\n";
    let out = apply_hunks(file, &[hunk(HUNK)], None);
    assert_eq!(out.status, Status::Applied, "{:#?}", out.hunks);
    let want =
        "void f() {\n\tif (a) {\n\t\thead = rt;\n\t\t\t\t  *rt, *lf;\n\t\tpshift -= 2;\n\t}\n}\n";
    assert_eq!(out.new_text.as_deref(), Some(want));
}
