//! Tests of the Cline/Roo XML tool-call reader.

use crate::edit::{FileChange, Format, IssueKind};
use crate::parse::extract;

fn hunks(c: &FileChange) -> usize {
    match c {
        FileChange::Modify { hunks } => hunks.len(),
        other => panic!("not a modify: {other:?}"),
    }
}

#[test]
fn roo_apply_diff_with_several_blocks_and_hints() {
    let x = extract(
        "Fixing it.\n\n<apply_diff>\n<path>src/app.py</path>\n<diff>\n<<<<<<< SEARCH\n:start_line:3\n-------\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n\n<<<<<<< SEARCH\n:start_line:9\n-------\n```\ny = 1\n=======\n```\ny = 3\n>>>>>>> REPLACE\n</diff>\n</apply_diff>\n",
    );
    assert!(x.issues.is_empty(), "{:?}", x.issues);
    assert_eq!(x.edits.len(), 1);
    assert_eq!(x.edits[0].path, "src/app.py");
    assert_eq!(x.edits[0].format, Format::ToolXml);
    assert_eq!(hunks(&x.edits[0].change), 2);
    let FileChange::Modify { hunks } = &x.edits[0].change else {
        panic!()
    };
    assert_eq!(hunks[0].old_start, Some(3));
}

#[test]
fn cline_replace_in_file_markers() {
    let x = extract(
        "<replace_in_file>\n<path>src\\lib\\a.ts</path>\n<diff>\n------- SEARCH\nconst a = 1;\n=======\nconst a = 2;\n+++++++ REPLACE\n</diff>\n</replace_in_file>\n",
    );
    assert!(x.issues.is_empty(), "{:?}", x.issues);
    assert_eq!(x.edits[0].path, "src/lib/a.ts");
}

#[test]
fn write_to_file_is_a_whole_file() {
    let x = extract(
        "<write_to_file>\n<path>CHANGES</path>\n<content>\nv2: fixed\n</content>\n<line_count>1</line_count>\n</write_to_file>\n",
    );
    assert!(x.issues.is_empty(), "{:?}", x.issues);
    assert_eq!(
        x.edits[0].change,
        FileChange::Replace {
            content: "v2: fixed\n".into(),
            final_newline: true
        }
    );
}

#[test]
fn write_to_file_with_edit_syntax_is_malformed() {
    let x = extract(
        "<write_to_file>\n<path>a.py</path>\n<content>\n<<< SEARCH\nx\n</content>\n</write_to_file>\n",
    );
    assert!(x.edits.is_empty());
    assert_eq!(x.issues[0].kind, IssueKind::Malformed);
    assert!(x.issues[0].message.contains("line 4"), "{:?}", x.issues);
}

#[test]
fn stray_text_in_a_diff_and_missing_path_are_named() {
    let x = extract(
        "<apply_diff>\n<path>a.py</path>\n<diff>\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n...\n</diff>\n</apply_diff>\n",
    );
    assert_eq!(x.issues.len(), 1, "{:?}", x.issues);
    assert!(x.issues[0].message.starts_with("line 9:"), "{:?}", x.issues);
    let x = extract("<apply_diff>\n<diff>\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n</diff>\n</apply_diff>\n");
    assert_eq!(x.issues[0].path, None);
    assert_eq!(x.issues[0].kind, IssueKind::Malformed);
}

#[test]
fn cut_call_is_truncated() {
    let x = extract("<apply_diff>\n<path>a.py</path>\n<diff>\n<<<<<<< SEARCH\nx\n");
    assert_eq!(x.issues[0].kind, IssueKind::Truncated);
    assert_eq!(x.issues[0].path.as_deref(), Some("a.py"));
}

#[test]
fn roo_multi_file_args() {
    let x = extract(
        "<apply_diff>\n<args>\n<file>\n<path>a.py</path>\n<diff>\n<content><![CDATA[\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n]]></content>\n<start_line>4</start_line>\n</diff>\n</file>\n<file>\n<path>b.py</path>\n<diff>\n<content>\n<<<<<<< SEARCH\np\n=======\nq\n>>>>>>> REPLACE\n</content>\n</diff>\n</file>\n</args>\n</apply_diff>\n",
    );
    assert!(x.issues.is_empty(), "{:?}", x.issues);
    assert_eq!(x.edits.len(), 2);
    let FileChange::Modify { hunks } = &x.edits[0].change else {
        panic!()
    };
    assert_eq!(hunks[0].old_start, Some(4));
}

#[test]
fn fenced_tool_call() {
    let x = extract(
        "```xml\n<apply_diff>\n<path>r.md</path>\n<diff>\n<<<<<<< SEARCH\n```js\na\n=======\n```js\nb\n>>>>>>> REPLACE\n</diff>\n</apply_diff>\n```\n",
    );
    assert!(x.issues.is_empty(), "{:?}", x.issues);
    assert_eq!(x.edits.len(), 1);
}

#[test]
fn a_write_shorter_than_its_own_line_count_is_truncated() {
    let call = |n: usize| {
        format!("<write_to_file>\n<path>notes.md</path>\n<content>\n# Notes\n\n- one\n</content>\n<line_count>{n}</line_count>\n</write_to_file>\n")
    };
    let x = extract(&call(40));
    assert!(x.edits.is_empty(), "{:?}", x.edits);
    assert_eq!(x.issues[0].kind, IssueKind::Truncated, "{:?}", x.issues);
    assert!(x.issues[0].message.contains("40 lines"), "{:?}", x.issues);
    // Its own count, or one too large on the other side, is written.
    for n in [3, 2] {
        let x = extract(&call(n));
        assert!(x.issues.is_empty(), "{n}: {:?}", x.issues);
        assert_eq!(x.edits.len(), 1);
    }
}

#[test]
fn cursor_edit_file_in_both_xml_forms_is_a_snippet() {
    let body = "// ... existing code ...\nfn f() -> u8 {\n    2\n}\n// ... existing code ...\n";
    for reply in [
        format!("<edit_file>\n<target_file>src/a.rs</target_file>\n<instructions>Return 2.</instructions>\n<code_edit>\n{body}</code_edit>\n</edit_file>\n"),
        format!("<function_calls>\n<invoke name=\"edit_file\">\n<parameter name=\"target_file\">src/a.rs</parameter>\n<parameter name=\"instructions\">Return 2.</parameter>\n<parameter name=\"code_edit\">{body}</parameter>\n</invoke>\n</function_calls>\n"),
    ] {
        assert!(crate::parse::looks_like_edit(&reply), "{reply}");
        let x = extract(&reply);
        assert!(x.issues.is_empty(), "{:?}", x.issues);
        assert_eq!(x.edits.len(), 1, "{reply}");
        assert_eq!(x.edits[0].path, "src/a.rs");
        assert_eq!(x.edits[0].format, Format::Snippet);
        let FileChange::Replace { content, .. } = &x.edits[0].change else {
            panic!("{:?}", x.edits[0].change);
        };
        assert_eq!(content, body);
    }
    let x = extract("<edit_file>\n<target_file>a.rs</target_file>\n</edit_file>\n");
    assert_eq!(x.issues[0].kind, IssueKind::Malformed);
}
