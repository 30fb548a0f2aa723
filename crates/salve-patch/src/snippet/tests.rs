use super::merge;
use crate::report::Status;
use crate::text::Doc;

const FILE: &str = "import os\n\n\ndef a():\n    \"\"\"A.\"\"\"\n    x = 1\n    return x\n\n\ndef b():\n    \"\"\"B.\"\"\"\n    y = 2\n    return y\n\n\ndef c():\n    \"\"\"C.\"\"\"\n    z = 3\n    return z\n";

fn merged(file: &str, snippet: &str, path: &str) -> Result<String, Vec<(Status, String)>> {
    let doc = Doc::parse(file);
    merge(&doc, snippet, path)
        .map(|m| m.lines.iter().map(|l| format!("{l}\n")).collect())
        .map_err(|r| {
            r.into_iter()
                .map(|h| (h.status, h.message.unwrap_or_default()))
                .collect()
        })
}

#[test]
fn a_changed_line_inside_a_region_is_anchored_by_the_lines_around_it() {
    let s = "# ... existing code ...\ndef b():\n    \"\"\"B.\"\"\"\n    y = 20\n    return y\n\n\ndef c():\n# ... existing code ...\n";
    let out = merged(FILE, s, "m.py").unwrap();
    assert_eq!(out, FILE.replace("y = 2\n", "y = 20\n"));
}

#[test]
fn several_regions_each_replace_what_their_anchors_hold() {
    let s = "# ... existing code ...\ndef a():\n    \"\"\"A.\"\"\"\n    x = 10\n    return x\n\n\ndef b():\n# ... existing code ...\ndef c():\n    \"\"\"C.\"\"\"\n    z = 30\n    return z\n";
    let out = merged(FILE, s, "m.py").unwrap();
    assert_eq!(
        out,
        FILE.replace("x = 1\n", "x = 10\n")
            .replace("z = 3\n", "z = 30\n")
    );
}

#[test]
fn without_a_leading_marker_the_region_starts_at_line_one() {
    let s = "import os\nimport sys\n\n\ndef a():\n# ... existing code ...\n";
    let out = merged(FILE, s, "m.py").unwrap();
    assert_eq!(out, FILE.replace("import os\n", "import os\nimport sys\n"));
}

#[test]
fn a_region_that_starts_further_down_without_a_leading_marker_is_cut() {
    let s = "def b():\n    y = 20\n    return y\n# ... existing code ...\n";
    let err = merged(FILE, s, "m.py").unwrap_err();
    assert_eq!(err[0].0, Status::Truncated, "{err:?}");
}

#[test]
fn a_region_that_ends_early_without_a_trailing_marker_is_cut() {
    let s = "# ... existing code ...\ndef a():\n    \"\"\"A.\"\"\"\n    x = 10\n    return x\n";
    let err = merged(FILE, s, "m.py").unwrap_err();
    assert_eq!(err[0].0, Status::Truncated, "{err:?}");
}

#[test]
fn anchors_that_fit_several_places_are_refused_with_candidates() {
    let file = "def a():\n    return 1\n\ndef b():\n    return 1\n";
    let s = "// ...\n    return 1\n    pass\n    return 1\n// ...\n";
    let doc = Doc::parse(file);
    let err = merge(&doc, s, "m.py").unwrap_err();
    assert_eq!(err[0].status, Status::Ambiguous);
    assert_eq!(err[0].candidates.len(), 2);
}

#[test]
fn a_blank_line_or_a_brace_is_no_anchor() {
    let file = "fn a() {\n    one();\n}\n\nfn b() {\n    two();\n}\n";
    let s = "// ... existing code ...\n}\n    three();\n\n// ... existing code ...\n";
    let err = merged(file, s, "m.rs").unwrap_err();
    assert_eq!(err[0].0, Status::NotFound, "{err:?}");
}

#[test]
fn a_long_stretch_between_anchors_that_nothing_replaces_is_refused() {
    // `end();` `}` closes both functions: the region's head pairs with either, and each
    // pairing drops more than 30 lines no marker stands for.
    let body: String = (0..30).map(|i| format!("    step({i});\n")).collect();
    let file = format!(
        "fn a() {{\n    begin();\n{body}    end();\n}}\n\nfn b() {{\n    other();\n    end();\n}}\n"
    );
    let s = "// ... existing code ...\nfn a() {\n    begin();\n    middle();\n    end();\n}\n// ... existing code ...\n";
    let err = merged(&file, s, "m.rs").unwrap_err();
    assert_eq!(err[0].0, Status::NotFound, "{err:?}");
    assert!(err[0].1.contains("nothing in their place"), "{err:?}");
}

#[test]
fn a_long_stretch_between_anchors_is_refused_even_where_they_pair_one_way() {
    // The head and the tail each stand once, and so do the region's first and last lines; the
    // 30 lines between may be lines the snippet deletes or lines it left out without a marker.
    let body: String = (0..30).map(|i| format!("    step({i});\n")).collect();
    let file = format!("fn a() {{\n    begin();\n{body}    end();\n}}\n\nfn b() {{}}\n");
    let s = "// ... existing code ...\nfn a() {\n    begin();\n    middle();\n    end();\n}\n// ... existing code ...\n";
    let err = merged(&file, s, "m.rs").unwrap_err();
    assert_eq!(err[0].0, Status::NotFound, "{err:?}");
    assert!(err[0].1.contains("nothing in their place"), "{err:?}");
}

#[test]
fn regions_out_of_file_order_are_refused() {
    let s = "# ... existing code ...\ndef b():\n    \"\"\"B.\"\"\"\n    y = 20\n    return y\n\n\ndef c():\n# ... existing code ...\ndef a():\n    \"\"\"A.\"\"\"\n    x = 10\n    return x\n\n\ndef b():\n# ... existing code ...\n";
    let err = merged(FILE, s, "m.py").unwrap_err();
    assert!(err.iter().all(|e| e.0 == Status::NotFound), "{err:?}");
    assert!(err[0].1.contains("out of order"), "{err:?}");
}

#[test]
fn an_applied_snippet_changes_nothing_and_says_so() {
    let s = "# ... existing code ...\ndef b():\n    \"\"\"B.\"\"\"\n    y = 2\n    return y\n# ... existing code ...\n";
    let doc = Doc::parse(FILE);
    let m = merge(&doc, s, "m.py").unwrap();
    assert_eq!(m.reports[0].status, Status::AlreadyApplied);
    let text: String = m.lines.iter().map(|l| format!("{l}\n")).collect();
    assert_eq!(text, FILE);
}

#[test]
fn reports_say_where_and_how_each_region_was_anchored() {
    let s = "# ... existing code ...\ndef b():   \n    \"\"\"B.\"\"\"\n    y = 20\n    return y\n\n\ndef c():\n# ... existing code ...\n";
    let doc = Doc::parse(FILE);
    let m = merge(&doc, s, "m.py").unwrap();
    let msg = m.reports[0].message.clone().unwrap();
    assert!(msg.contains("file lines 10-16"), "{msg}");
    assert!(msg.contains("trailing whitespace aside"), "{msg}");
    assert!(msg.contains("changed inside"), "{msg}");
    // The anchor keeps the file's bytes, not the snippet's trailing spaces.
    assert!(m.lines.iter().any(|l| l == "def b():"));
}

#[test]
fn a_deletion_between_anchors_is_merged() {
    let s = "# ... existing code ...\ndef a():\n    \"\"\"A.\"\"\"\n    x = 1\n    return x\n\n\ndef c():\n    \"\"\"C.\"\"\"\n# ... existing code ...\n";
    let out = merged(FILE, s, "m.py").unwrap();
    assert_eq!(
        out,
        FILE.replace(
            "def b():\n    \"\"\"B.\"\"\"\n    y = 2\n    return y\n\n\n",
            ""
        )
    );
}

#[test]
fn rst_comment_markers_keep_the_rest_of_the_file() {
    let people: String = (0..40).map(|i| format!("* Person {i}\n")).collect();
    let file = format!("Authors\n=======\n\n{people}");
    let s = ".. existing code\n* Person 38\n* Person 39\n* Person 40\n";
    let out = merged(&file, s, "AUTHORS.rst").unwrap();
    assert_eq!(out, format!("{file}* Person 40\n"));
}

#[test]
fn one_unchanged_line_anchors_only_where_it_stands_once() {
    let s = "# ... existing code ...\ndef b():\n    y = 20\n    return y\n\n\ndef c():\n# ... existing code ...\n";
    let out = merged(FILE, s, "m.py").unwrap();
    assert_eq!(
        out,
        FILE.replace("    \"\"\"B.\"\"\"\n    y = 2\n", "    y = 20\n")
    );
    let s = "# ... existing code ...\n    return y\n    # done\n\n\ndef c():\n# ... existing code ...\n";
    assert!(merged(FILE, s, "m.py").is_ok());
    let twice = "def a():\n    return 1\n\ndef b():\n    return 1\n";
    let s = "# ...\n    return 1\n    pass\n\ndef b():\n# ...\n";
    let err = merged(twice, s, "m.py").unwrap_err();
    assert_eq!(err[0].0, Status::Ambiguous, "{err:?}");
    assert!(err[0].1.contains("stands at 2 places"), "{err:?}");
}

#[test]
fn an_added_block_like_the_next_one_is_refused_not_merged_over_it() {
    // The cheaper reading (ending on the one line before) has the shorter tail anchor: no
    // reading is best on every count, so this stays refused.
    // The region adds a block that ends like the file's next block: its last lines run on
    // there, but the place meant ends on the one line before; both places are kept as
    // candidates, so the snippet is refused rather than merged over the next block.
    let file = "fn clone(v: V) -> V {\n    if v.a() {\n        return v.a_copy();\n    }\n\n    if v.b() {\n        let copy = v.b_copy();\n        return copy;\n    }\n    v\n}\n";
    let s = "// ... existing code ...\nfn clone(v: V) -> V {\n    if v.a() {\n        let copy = v.a_copy();\n        copy.mark();\n        return copy;\n    }\n// ... existing code ...\n";
    let err = merged(file, s, "m.rs").unwrap_err();
    assert_eq!(err[0].0, Status::Ambiguous, "{err:?}");
}

#[test]
fn one_line_between_markers_that_stands_as_it_is_is_refused() {
    // `cp` alone stands in the file; the blank line the snippet shows before it may be all
    // that is left of the lines it deletes, so the region says nothing certain.
    let file = "mkdir out\n\nls -l target/\n\ncp target/app out/\ntar czf out.tgz out\n";
    let s = "# ... existing code ...\n\ncp target/app out/\n# ... existing code ...\n";
    let err = merged(file, s, "x.sh").unwrap_err();
    assert_eq!(err[0].0, Status::NotFound, "{err:?}");
    let s = "# ... existing code ...\n\ncp target/app out/\ntar czf out.tgz out\n";
    assert_eq!(merged(file, s, "x.sh").unwrap(), file);
}

#[test]
fn blank_lines_after_the_last_marker_say_how_the_file_ends() {
    let file = "#include <a.h>\n#ifdef X\n#include <b.h>\n\n#endif\n";
    let s =
        "// ... existing code ...\n#include <a.h>\n#include <b.h>\n// ... existing code ...\n\n";
    let err = merged(file, s, "x.c").unwrap_err();
    assert_eq!(err[0].0, Status::NotFound, "{err:?}");
    let s = "// ... existing code ...\n#include <a.h>\n#ifdef X\n#include <b.h>\n// ... existing code ...\n";
    assert_eq!(merged(file, s, "x.c").unwrap(), file);
}

#[test]
fn a_region_standing_whole_may_also_delete_what_lies_between_its_ends() {
    // The region's last two lines stand right after its first three, and again after the
    // block that follows: already in place, or that block deleted. It is refused.
    let file = "fn f() {\n    for k in keys {\n        if k.is_empty() {\n            drop(k);\n        }\n    }\n    if done {\n        log();\n        }\n    }\n}\n";
    let s = "// ... existing code ...\n        if k.is_empty() {\n            drop(k);\n        }\n    }\n// ... existing code ...\n";
    let err = merged(file, s, "m.rs").unwrap_err();
    assert_eq!(err[0].0, Status::Ambiguous, "{err:?}");
}

#[test]
fn blank_lines_changed_beside_a_marker_with_a_one_line_anchor_are_refused() {
    // The file has four blank lines before `import io`, the snippet three: either the marker
    // keeps the fourth or the snippet removes it, and one changed line after a one-line anchor
    // says nothing of which.
    let file = "\"\"\"Doc.\"\"\"\n\n\n\n\nimport io\nimport sys\n\nX = 1\n";
    let s = "# ... existing code ...\n\n\n\nimport io\nimport json\nimport sys\n\nX = 1\n";
    let err = merged(file, s, "m.py").unwrap_err();
    assert_eq!(err[0].0, Status::NotFound, "{err:?}");
    assert!(err[0].1.contains("blank line(s)"), "{err:?}");
    // With the line before the blank lines shown, it merges.
    let s =
        "\"\"\"Doc.\"\"\"\n\n\n\n\nimport io\nimport json\nimport sys\n# ... existing code ...\n";
    let out = merged(file, s, "m.py").unwrap();
    assert_eq!(out, file.replace("import io\n", "import io\nimport json\n"));
}

#[test]
fn braces_beside_a_blank_line_before_a_marker_anchor_nothing() {
    // The region's context after its new lines was the blank line, left out beside the marker;
    // its last lines are braces that close the new block and also the file's next one: merged
    // there, the `if a` block would be lost.
    let file = "fn f() {\n    let url = u();\n\n    if a {\n        if b {\n            c();\n        }\n    }\n\n    done();\n}\n";
    let s = "// ... existing code ...\n    let url = u();\n    if d {\n        if e {\n            g();\n        }\n    }\n\n// ... existing code ...\n";
    let err = merged(file, s, "m.rs").unwrap_err();
    assert_eq!(err[0].0, Status::NotFound, "{err:?}");
    assert!(err[0].1.contains("blank line(s)"), "{err:?}");
}

#[test]
fn a_region_standing_whole_before_a_repeat_of_its_last_line_is_refused() {
    // `env: A` and `- os: osx` stand together, and `- os: osx` again two entries on: the
    // region changes nothing, or it deletes the entry between. It is refused.
    let file = "matrix:\n  - os: linux\n    env: A\n  - os: osx\n    env: B\n  - os: osx\n    env: C\nafter: 1\n";
    let s = "# ... existing code ...\n    env: A\n  - os: osx\n# ... existing code ...\n";
    let err = merged(file, s, ".travis.yml").unwrap_err();
    assert_eq!(err[0].0, Status::Ambiguous, "{err:?}");
}

#[test]
fn a_reading_best_on_every_count_settles_anchors_that_fit_twice() {
    // The region's last two lines stand after `if x` and again after `if y`. Ending at the
    // first changes one line and spans four, with anchors as long as the other's: it is placed.
    let file = "fn a() {\n    if x {\n        return;\n    }\n    step_one();\n    if y {\n        return;\n    }\n    step_two();\n}\n";
    let s = "// ... existing code ...\nfn a() {\n    if x {\n        log();\n        return;\n    }\n// ... existing code ...\n";
    let out = merged(file, s, "m.rs").unwrap();
    assert_eq!(
        out,
        file.replacen("        return;\n", "        log();\n        return;\n", 1)
    );
}

#[test]
fn blank_lines_beside_a_marker_as_the_file_has_them_keep_a_one_line_anchor() {
    // Two blank lines between functions, shown as the file has them: `def b():` alone
    // anchors the region's start.
    let s = "# ... existing code ...\n\n\ndef b():\n    \"\"\"Bee.\"\"\"\n    y = 2\n    return y\n\n\n# ... existing code ...\n";
    let out = merged(FILE, s, "m.py").unwrap();
    assert_eq!(out, FILE.replace("\"\"\"B.\"\"\"", "\"\"\"Bee.\"\"\""));
}

#[test]
fn a_blank_line_beside_a_marker_where_the_file_has_none_is_refused_unless_the_marker_asks_for_it() {
    // The snippet's blank line after `Delimiter;` stands in the file only after three lines the
    // merge would have to remove: keeping them would write what the snippet does not say.
    let file = "use a::B;\nuse c::D;\nuse e::F;\nuse std::g;\nuse std::h;\n\nfn main() {}\n";
    let s = "// ... existing code ...\nuse a::B;\nuse x::Y;\nuse c::D;\nuse e::F;\n\n// ... existing code ...\n";
    let err = merged(file, s, "lib.rs").unwrap_err();
    assert_eq!(err[0].0, Status::NotFound, "{err:?}");
    // The same shape beside a reST comment marker: its blank line is the comment's syntax.
    let file = "Authors\n=======\n\n* Ann <a@x.org>\n* Bob <b@x.org>\n* Cy <c@x.org>\n";
    let s = ".. existing code\n\n* Bob <b@x.org>\n* Cy <c@x.org>\n* Dee <d@x.org>\n";
    let out = merged(file, s, "AUTHORS.rst").unwrap();
    assert_eq!(out, format!("{file}* Dee <d@x.org>\n"));
}

#[test]
fn one_place_read_two_ways_takes_the_reading_that_only_adds() {
    // `return ERR;` `}` and a blank line stand after both `if` blocks. Read from the first,
    // the region replaces the `if b` block with the new one (three lines removed); read from
    // the second, it adds the new block after it. Both end on the same line; the second
    // changes fewer lines with anchors as long: it is placed.
    let file = "fn open(fd: i32) -> i32 {\n    if a(fd) {\n        close(fd);\n        return ERR;\n    }\n\n    if b(fd) {\n        close(fd);\n        return ERR;\n    }\n\n    OK\n}\n\nfn next() {}\n";
    let s = "// ... existing code ...\n        return ERR;\n    }\n\n    if check(fd) {\n        return BAD;\n    }\n\n    OK\n}\n// ... existing code ...\n";
    let out = merged(file, s, "m.rs").unwrap();
    assert_eq!(
        out,
        file.replace(
            "    }\n\n    OK\n",
            "    }\n\n    if check(fd) {\n        return BAD;\n    }\n\n    OK\n"
        )
    );
}

#[test]
fn a_run_of_like_lines_read_one_line_shorter_is_refused() {
    // `<br>` stands three times in a row: the region's last `<br>` lines end at any of them,
    // and no count says how many of the file's the snippet keeps.
    let file = "<div>\n  <img src=\"logo.svg\">\n</div>\n<br>\n<br>\n<br>\n<p>Text</p>\n";
    let s = "<!-- ... existing code ... -->\n  <img src=\"logo.svg\">\n</div>\n<p>New</p>\n<br>\n<br>\n<br>\n<!-- ... existing code ... -->\n";
    let err = merged(file, s, "a.html").unwrap_err();
    assert_eq!(err[0].0, Status::Ambiguous, "{err:?}");
}

#[test]
fn a_long_stretch_after_a_one_line_anchor_is_refused_even_where_it_pairs_one_way() {
    // The region adds `<hr>` before the heading; `<hr>` also stands once near the top, so read
    // as an anchor it pairs one way with the heading, over 20 lines the snippet never meant to
    // delete. One line is too little to say so.
    let body: String = (0..20).map(|i| format!("<p>para {i}</p>\n")).collect();
    let file = format!("<h1>Top</h1>\n<hr>\n{body}\n<h2>Features</h2>\n<p>end</p>\n");
    let s = "<!-- ... existing code ... -->\n<hr>\n\n<h2>Features</h2>\n<!-- ... existing code ... -->\n";
    let err = merged(&file, s, "a.html").unwrap_err();
    assert!(err[0].1.contains("nothing in their place"), "{err:?}");
}

#[test]
fn a_region_ending_the_file_drops_the_blank_lines_after_its_last_line() {
    // No marker after the region: it ends the file. The file's one trailing blank line is
    // all that stands after the region's last line, and it goes, as in a whole file.
    let file = "# T\n\n## A\n\ntext a\n\n## L\n\nlicense.\n\n";
    let s = "<!-- ... existing code ... -->\n## A\n\ntext a2\n\n## L\n\nlicense.\n";
    let out = merged(file, s, "R.md").unwrap();
    assert_eq!(out, "# T\n\n## A\n\ntext a2\n\n## L\n\nlicense.\n");
    // A line with text after it is still a cut.
    let file = "# T\n\n## A\n\ntext a\n\n## L\n\nlicense.\n\nmore.\n";
    let err = merged(file, s, "R.md").unwrap_err();
    assert_eq!(err[0].0, Status::Truncated, "{err:?}");
    // A last region the file holds as it is, but for the blank lines after it.
    let file = "# T\n\nintro\n\n## A\n\ntext a\n\nmid\n\n## L\n\nlicense.\n\n\n";
    let s = "# T\n\nintro\n\n## A\n\ntext a2\n\nmid\n<!-- ... existing code ... -->\n## L\n\nlicense.\n";
    let out = merged(file, s, "R.md").unwrap();
    assert_eq!(
        out,
        "# T\n\nintro\n\n## A\n\ntext a2\n\nmid\n\n## L\n\nlicense.\n"
    );
}

#[test]
fn the_one_reading_with_three_lines_of_context_at_both_ends_is_placed() {
    // The region's last line, `<br>`, also stands right after the changed line: read to there,
    // the region ends one line into its own tail and adds `<br>` `<p>x</p>` again. That
    // reading spans fewer lines, so no count settles it; the other holds the three unchanged
    // lines at both ends, whole, and is the only one that does.
    let file = "<p>intro</p>\n<p>a</p>\n<p>b</p>\n<p>c</p>\n<br>\n<p>x</p>\n<br>\n<p>end</p>\n";
    let s = "<!-- ... existing code ... -->\n<p>intro</p>\n<p>a</p>\n<p>b</p>\n<p>C</p>\n<br>\n<p>x</p>\n<br>\n<!-- ... existing code ... -->\n";
    let out = merged(file, s, "a.html").unwrap();
    assert_eq!(out, file.replace("<p>c</p>\n", "<p>C</p>\n"));
    // A blank line the snippet shows beside the marker, as the file has it, is context too.
    let file = "<p>intro</p>\n\n<p>a</p>\n<p>b</p>\n<p>c</p>\n<br>\n<p>x</p>\n<br>\n<p>end</p>\n";
    let s = "<!-- ... existing code ... -->\n\n<p>a</p>\n<p>b</p>\n<p>C</p>\n<br>\n<p>x</p>\n<br>\n<!-- ... existing code ... -->\n";
    let out = merged(file, s, "a.html").unwrap();
    assert_eq!(out, file.replace("<p>c</p>\n", "<p>C</p>\n"));
}

#[test]
fn whole_context_settles_nothing_where_it_is_short_or_stands_twice() {
    let block = "<p>intro</p>\n<p>a</p>\n<p>b</p>\n<p>c</p>\n<br>\n<p>x</p>\n<br>\n";
    let file = format!("{block}<p>end</p>\n");
    // Two lines of context before the change: neither reading has three at both ends.
    let s = "<!-- ... existing code ... -->\n<p>a</p>\n<p>b</p>\n<p>C</p>\n<br>\n<p>x</p>\n<br>\n<!-- ... existing code ... -->\n";
    let err = merged(&file, s, "a.html").unwrap_err();
    assert_eq!(err[0].0, Status::Ambiguous, "{err:?}");
    // Three lines at both ends, but at two places.
    let file = format!("{block}{block}<p>end</p>\n");
    let s = "<!-- ... existing code ... -->\n<p>intro</p>\n<p>a</p>\n<p>b</p>\n<p>C</p>\n<br>\n<p>x</p>\n<br>\n<!-- ... existing code ... -->\n";
    let err = merged(&file, s, "a.html").unwrap_err();
    assert_eq!(err[0].0, Status::Ambiguous, "{err:?}");
}

#[test]
fn a_reading_that_adds_the_lines_beside_a_repeated_first_line_again_is_no_rival() {
    // The region's first line stands again inside its span: read from there with that one
    // line as its anchor, it only adds lines, `a();` and `b();` beside themselves.
    let file =
        "start();\nif (ok) {\n    a();\n    b();\n    c();\nif (ok) {\n    d();\n}\nend();\n";
    let s = "// ... existing code ...\nif (ok) {\n    a();\n    b();\n    c2();\nif (ok) {\n    d();\n}\n// ... existing code ...\n";
    let out = merged(file, s, "a.js").unwrap();
    assert_eq!(out, file.replace("c();", "c2();"));
}

#[test]
fn a_reading_that_only_adds_with_two_lines_at_each_end_still_weighs() {
    // The same shape, but the lines after the repeated one stand there too (`a();`): read from
    // there, two lines anchor it, as a model that gave two lines of context would have it.
    let file =
        "start();\nif (ok) {\n    a();\n    b();\n    c();\nif (ok) {\n    a();\n}\nend();\n";
    let s = "// ... existing code ...\nif (ok) {\n    a();\n    b();\n    c2();\nif (ok) {\n    a();\n}\n// ... existing code ...\n";
    let err = merged(file, s, "a.js").unwrap_err();
    assert_eq!(err[0].0, Status::Ambiguous, "{err:?}");
}

const SHADOWED: &str = "// ... existing code ...\nif (ok) {\n    a();\n    b();\n    c2();\nif (ok) {\n    d();\n}\n// ... existing code ...\nalpha();\nbeta();\ngamma();\n// ... existing code ...\n";

#[test]
fn a_reading_left_out_that_cannot_stand_in_the_snippets_order_does_not_stop_settling() {
    // The second region stands whole near the end; its first two lines stand at the top too,
    // a reading not looked at, but one that would come before the first region.
    let file = "alpha();\nbeta();\nstart();\nif (ok) {\n    a();\n    b();\n    c();\nif (ok) {\n    d();\n}\nend();\nalpha();\nbeta();\ngamma();\ndone();\n";
    let out = merged(file, SHADOWED, "a.js").unwrap();
    assert_eq!(out, file.replace("c();", "c2();"));
}

#[test]
fn a_reading_left_out_that_could_follow_the_region_before_still_stops_settling() {
    // The same, but the second pair of `alpha(); beta();` follows the first region: the
    // reading left out could be the one meant, so the first region is not settled by counts.
    let file = "start();\nif (ok) {\n    a();\n    b();\n    c();\nif (ok) {\n    d();\n}\nalpha();\nbeta();\nend();\nalpha();\nbeta();\ngamma();\ndone();\n";
    let err = merged(file, SHADOWED, "a.js").unwrap_err();
    assert!(err.iter().any(|e| e.0 == Status::Ambiguous), "{err:?}");
}

/// Two tests with the same set-up and tear-down lines, a helper long enough between them that
/// reading the region from the first test's start to the second test's end loses a long stretch
/// (a reading left out that could stand in order: the region's readings are not all weighed).
fn two_tests(list_setup: &str, helper: usize) -> String {
    let fields: String = (0..helper).map(|i| format!("\tu.f{i} = {i};\n")).collect();
    let helper = if helper == 0 {
        String::new()
    } else {
        format!("function user(name) {{\n\tconst u = {{name}};\n{fields}\treturn u;\n}}\n\n")
    };
    format!(
        "test('list', async t => {{\n\tconst s = await start();\n{list_setup}\tconst response = await page.fetch('/users');\n\tconst body = await response.json();\n\tt.is(response.status, 200);\n\tt.is(body.length, 3);\n\n\tawait s.close();\n}});\n\n{helper}test('load', async t => {{\n\tconst s = await start();\n\tawait page.goto(s.url);\n\tawait page.load();\n\n\tt.pass();\n\n\tawait s.close();\n}});\n\nfunction id() {{\n\treturn next();\n}}\n"
    )
}

const SHARED_SETUP: &str = "\tawait page.goto(s.url);\n\tawait page.load();\n\n";

#[test]
fn a_region_that_fits_two_tests_alike_is_not_settled_by_the_cheaper_one() {
    // The `list` test is rewritten between the lines every test has; the `load` test, whose
    // one line is cheaper to replace and whose span is shorter, was taken by the counts while
    // the second region fitting one way left it to them alone: a wrong write.
    let file = two_tests(SHARED_SETUP, 14);
    let s = "// ... existing code ...\n\tawait page.goto(s.url);\n\tawait page.load();\n\n\tconst result = await page.fetch('/users?all=1');\n\tconst users = await result.json();\n\tt.is(result.status, 200);\n\tt.is(users.length, 4);\n\tt.is(users[3].name, 'root');\n\n\tawait s.close();\n});\n// ... existing code ...\nfunction id() {\n\treturn next() + 1;\n}\n";
    assert!(
        partial(&file, s),
        "the shape: a reading left out that could stand in order"
    );
    let doc = Doc::parse(&file);
    let err = merge(&doc, s, "t.js").unwrap_err();
    assert_eq!(err[0].status, Status::Ambiguous, "{err:?}");
    assert_eq!(err[0].candidates.len(), 2, "{err:?}");
    // Close together, the two tests also read as one span, and every reading is weighed: the
    // counts still pick `load`, and the snippet is refused the same way.
    let near = two_tests(SHARED_SETUP, 0);
    assert!(!partial(&near, s));
    let err = merged(&near, s, "t.js").unwrap_err();
    assert_eq!(err[0].0, Status::Ambiguous, "{err:?}");
}

/// Whether some region of `snippet` has a reading left out that could stand in order.
fn partial(file: &str, snippet: &str) -> bool {
    let doc = Doc::parse(file);
    let regions = super::marker::regions(snippet, "t.js");
    let found: Vec<_> = regions
        .iter()
        .map(|r| super::anchor::placements(&doc, r).unwrap())
        .collect();
    let options: Vec<_> = found.iter().map(|f| f.places.clone()).collect();
    let left_out: Vec<_> = found.iter().map(|f| f.left_out.clone()).collect();
    super::chain::any_in_order(&options, &left_out)
}

#[test]
fn a_region_whose_anchors_are_longer_at_one_test_is_still_settled_by_its_counts() {
    // The `list` test has no blank line after its set-up: the region's three first lines stand
    // only at `load`, and that reading is also the cheaper and shorter one.
    let file = two_tests("\tawait page.goto(s.url);\n\tawait page.load();\n", 14);
    let s = "// ... existing code ...\n\tawait page.goto(s.url);\n\tawait page.load();\n\n\tt.true(page.ready);\n\n\tawait s.close();\n});\n// ... existing code ...\n";
    assert!(
        partial(&file, s),
        "the shape: only the counts of one region settle"
    );
    let out = merged(&file, s, "t.js").unwrap();
    assert_eq!(out, file.replace("\tt.pass();", "\tt.true(page.ready);"));
}
