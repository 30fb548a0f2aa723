//! Tests of the agent tool-call JSON reader.

use crate::edit::{FileChange, Format, IssueKind, Occurrences};
use crate::parse::{extract, extract_value};

fn occurrences(c: &FileChange) -> Option<Occurrences> {
    match c {
        FileChange::Modify { hunks } => hunks[0].occurrences,
        other => panic!("not a modify: {other:?}"),
    }
}

#[test]
fn claude_code_edit_multiedit_and_write() {
    let x = extract(
        "```json\n{\"name\": \"MultiEdit\", \"input\": {\"file_path\": \"a.py\", \"edits\": [{\"old_string\": \"x = 1\", \"new_string\": \"x = 2\", \"replace_all\": true}, {\"old_string\": \"y\", \"new_string\": \"z\"}]}}\n```\n\n```json\n{\"file_path\": \"NOTES\", \"content\": \"hello\\n\"}\n```\n",
    );
    assert!(x.issues.is_empty(), "{:?}", x.issues);
    assert_eq!(x.edits.len(), 2);
    let FileChange::Modify { hunks } = &x.edits[0].change else {
        panic!()
    };
    assert_eq!(hunks[0].occurrences, Some(Occurrences::All));
    assert_eq!(hunks[1].occurrences, None);
    assert_eq!(x.edits[1].format, Format::ToolJson);
    assert_eq!(
        x.edits[1].change,
        FileChange::Replace {
            content: "hello\n".into(),
            final_newline: true
        }
    );
}

#[test]
fn gemini_expected_replacements_and_opencode_keys() {
    let x = extract("{\"file_path\": \"a.py\", \"old_string\": \"a\", \"new_string\": \"b\", \"expected_replacements\": 3}");
    assert_eq!(
        occurrences(&x.edits[0].change),
        Some(Occurrences::Exactly(3))
    );
    let x = extract("{\"file_path\": \"a.py\", \"old_string\": \"a\", \"new_string\": \"b\", \"expected_replacements\": 1}");
    assert_eq!(occurrences(&x.edits[0].change), None);
    let x = extract("{\"file_path\": \"a.py\", \"old_string\": \"a\", \"new_string\": \"b\", \"expected_replacements\": 0}");
    assert_eq!(x.issues[0].kind, IssueKind::Malformed);
    let x = extract("{\"filePath\": \"a.ts\", \"oldString\": \"a\", \"newString\": \"b\", \"replaceAll\": true}");
    assert_eq!(occurrences(&x.edits[0].change), Some(Occurrences::All));
}

#[test]
fn string_arguments_and_single_values() {
    let v: serde_json::Value = serde_json::from_str(
        "{\"function\": {\"name\": \"write_file\", \"arguments\": \"{\\\"file_path\\\": \\\"w.txt\\\", \\\"content\\\": \\\"a\\\"}\"}}",
    )
    .unwrap();
    let x = extract_value(&v);
    assert!(x.issues.is_empty(), "{:?}", x.issues);
    assert_eq!(x.edits[0].path, "w.txt");
    let x = extract_value(&serde_json::json!({"name": "x"}));
    assert_eq!(x.issues[0].kind, IssueKind::NoEdit);
}

#[test]
fn content_writes_are_checked() {
    let x =
        extract("{\"file_path\": \"a.py\", \"content\": \"def f():\\n    # rest of the code\\n\"}");
    assert_eq!(x.issues[0].kind, IssueKind::Lazy);
    let x = extract("{\"file_path\": \"a.py\", \"content\": \"<<<<<<< SEARCH\\nx\\n=======\\ny\\n>>>>>>> REPLACE\\n\"}");
    assert!(x.edits.is_empty());
    assert_eq!(x.issues[0].kind, IssueKind::Malformed);
    let x = extract("{\"file_path\": \"a.py\", \"content\": \"x = ");
    assert_eq!(x.issues[0].kind, IssueKind::Truncated);
}

#[test]
fn deleting_whole_lines_with_empty_new_text_keeps_the_next_line() {
    // `old_string` ends its lines, `new_string` is empty: those two lines go, the blank line
    // after them stays (found by the generated tests: it was removed as a third line).
    let x = extract(
        "{\"file_path\": \"a.rs\", \"old_string\": \"use a;\\nuse b;\\n\", \"new_string\": \"\"}",
    );
    let FileChange::Modify { hunks } = &x.edits[0].change else {
        panic!()
    };
    assert_eq!(hunks[0].lines.len(), 2, "{:?}", hunks[0].lines);
    let out = crate::apply_hunks("use a;\nuse b;\n\nfn x() {}\n", hunks, None);
    assert_eq!(out.new_text.as_deref(), Some("\nfn x() {}\n"));
}

#[test]
fn gemini_function_call_allow_multiple_and_continue_filepath() {
    let x = extract("{\"functionCall\": {\"name\": \"replace\", \"args\": {\"file_path\": \"a.py\", \"old_string\": \"a\", \"new_string\": \"b\", \"allow_multiple\": true}}}");
    assert!(x.issues.is_empty(), "{:?}", x.issues);
    assert_eq!(x.edits[0].path, "a.py");
    assert_eq!(occurrences(&x.edits[0].change), Some(Occurrences::All));
    let x = extract("{\"filepath\": \"src/a.ts\", \"old_string\": \"a\", \"new_string\": \"b\"}");
    assert!(x.issues.is_empty(), "{:?}", x.issues);
    assert_eq!(x.edits[0].path, "src/a.ts");
}

#[test]
fn text_editor_create_is_a_new_file_and_json_content_is_exact() {
    let v = serde_json::json!({"command": "create", "path": "n.py", "file_text": "a = 1\r\nb = 2"});
    let x = extract_value(&v);
    assert_eq!(
        x.edits[0].change,
        FileChange::Create {
            content: "a = 1\r\nb = 2".into(),
            final_newline: false
        }
    );
    // A write without the create command replaces (or creates) the file, with the string's own
    // bytes: no final newline the string lacks.
    let v = serde_json::json!({"path": "n.py", "content": "a = 1\nb = 2"});
    let x = extract_value(&v);
    assert_eq!(
        x.edits[0].change,
        FileChange::Replace {
            content: "a = 1\nb = 2".into(),
            final_newline: false
        }
    );
}

#[test]
fn cursor_edit_file_code_edit_is_a_snippet() {
    let call = serde_json::json!({
        "target_file": "src/a.py",
        "instructions": "I change the return value",
        "code_edit": "# ... existing code ...\ndef f():\n    return 2\n# ... existing code ...\n",
    });
    for x in [
        extract_value(&call),
        extract_value(&serde_json::json!({"name": "edit_file", "arguments": call.to_string()})),
        extract(&format!("```json\n{call}\n```\n")),
    ] {
        assert!(x.issues.is_empty(), "{:?}", x.issues);
        assert_eq!(x.edits.len(), 1);
        assert_eq!(x.edits[0].path, "src/a.py");
        assert_eq!(x.edits[0].format, Format::Snippet);
        let FileChange::Replace { content, .. } = &x.edits[0].change else {
            panic!("{:?}", x.edits[0].change);
        };
        assert!(content.starts_with("# ... existing code ...\ndef f():"));
    }
}

#[test]
fn text_editor_insert_is_a_pure_insertion_after_its_line() {
    use crate::edit::{Anchor, LineKind};
    let v = serde_json::json!({"command": "insert", "path": "a.py", "insert_line": 2, "new_str": "c = 3\nd = 4\n"});
    let x = extract_value(&v);
    assert!(x.issues.is_empty(), "{:?}", x.issues);
    let FileChange::Modify { hunks } = &x.edits[0].change else {
        panic!("{:?}", x.edits)
    };
    assert_eq!(hunks[0].anchor, Anchor::AfterLine(2));
    let added: Vec<(&LineKind, &str)> = hunks[0]
        .lines
        .iter()
        .map(|l| (&l.kind, l.text.as_str()))
        .collect();
    assert_eq!(
        added,
        [(&LineKind::Add, "c = 3"), (&LineKind::Add, "d = 4")]
    );
    // The newer tool's `insert_text` key reads the same.
    let v = serde_json::json!({"command": "insert", "path": "a.py", "insert_line": 0, "insert_text": "# top"});
    let x = extract_value(&v);
    let FileChange::Modify { hunks } = &x.edits[0].change else {
        panic!("{:?}", x.edits)
    };
    assert_eq!(hunks[0].anchor, Anchor::AfterLine(0));
}

#[test]
fn text_editor_insert_without_a_line_or_text_or_beside_other_edits_is_malformed() {
    for v in [
        serde_json::json!({"command": "insert", "path": "a.py", "new_str": "x"}),
        serde_json::json!({"command": "insert", "path": "a.py", "insert_line": -1, "new_str": "x"}),
        serde_json::json!({"command": "insert", "path": "a.py", "insert_line": "3", "new_str": "x"}),
        serde_json::json!({"command": "insert", "path": "a.py", "insert_line": 3}),
        serde_json::json!([
            {"command": "str_replace", "path": "a.py", "old_str": "a", "new_str": "b"},
            {"command": "insert", "path": "a.py", "insert_line": 3, "new_str": "x"}
        ]),
    ] {
        let x = extract_value(&v);
        assert!(x.edits.is_empty(), "{v}: {:?}", x.edits);
        assert_eq!(x.issues.len(), 1, "{v}: {:?}", x.issues);
        assert_eq!(x.issues[0].kind, IssueKind::Malformed, "{v}");
    }
    // Another file's edit beside an insert is fine.
    let x = extract_value(&serde_json::json!([
        {"command": "str_replace", "path": "b.py", "old_str": "a", "new_str": "b"},
        {"command": "insert", "path": "a.py", "insert_line": 3, "new_str": "x"}
    ]));
    assert!(x.issues.is_empty(), "{:?}", x.issues);
    assert_eq!(x.edits.len(), 2);
}
