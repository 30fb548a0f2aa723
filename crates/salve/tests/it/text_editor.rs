//! Anthropic's text editor tool calls through `salve apply` (issue 23 §7): `create` makes a new
//! file and refuses an existing one, `insert` puts its text after the line it names, and
//! `str_replace` replaces one occurrence.

use crate::apply_cli::{greet_tree, GREET};

fn call(input: serde_json::Value) -> String {
    let call = serde_json::json!({
        "type": "tool_use",
        "name": "str_replace_based_edit_tool",
        "input": input,
    });
    format!("I'll make the change.\n\n```json\n{call}\n```\n")
}

#[test]
fn insert_puts_its_lines_after_the_line_it_names() {
    let tree = greet_tree();
    let reply = call(serde_json::json!({
        "command": "insert",
        "path": "greet.py",
        "insert_line": 2,
        "new_str": "    return name\n",
    }));
    tree.apply(&reply, &[]).code(0);
    let lines: Vec<&str> = GREET.lines().collect();
    let want = format!(
        "{}\n{}\n    return name\n{}\n",
        lines[0],
        lines[1],
        lines[2..].join("\n")
    );
    assert_eq!(tree.read("greet.py"), want);
    // The same call again: its lines already stand after that line.
    let again = tree.apply(&reply, &["--json"]);
    again.code(0);
    assert_eq!(
        again.json()["outcome"],
        "already_applied",
        "{}",
        again.stdout
    );
    assert_eq!(tree.read("greet.py"), want);
}

#[test]
fn insert_at_line_zero_goes_first_and_past_the_end_is_refused() {
    let tree = greet_tree();
    let top = call(serde_json::json!({
        "command": "insert", "path": "greet.py", "insert_line": 0, "new_str": "import sys"
    }));
    tree.apply(&top, &[]).code(0);
    assert_eq!(tree.read("greet.py"), format!("import sys\n{GREET}"));
    let before = tree.snapshot();
    let past = call(serde_json::json!({
        "command": "insert", "path": "greet.py", "insert_line": 40, "new_str": "x = 1"
    }));
    let run = tree.apply(&past, &["--json"]);
    run.code(1);
    let report = run.json();
    let message = report["files"][0]["hunks"][0]["message"].as_str().unwrap();
    assert!(
        message.contains("after line 40, but the file has 7 lines"),
        "{report}"
    );
    assert_eq!(tree.snapshot(), before);
}

/// A closing brace inserted where one follows is a real edit, not one already made.
#[test]
fn inserting_a_brace_where_one_follows_is_written() {
    let tree = crate::support::Tree::git();
    tree.write("a.js", "function f() {\n  if (x) {\n    g();\n}\n")
        .commit("init");
    let reply = call(serde_json::json!({
        "command": "insert", "path": "a.js", "insert_line": 3, "new_str": "  }"
    }));
    tree.apply(&reply, &[]).code(0);
    assert_eq!(
        tree.read("a.js"),
        "function f() {\n  if (x) {\n    g();\n  }\n}\n"
    );
}

#[test]
fn insert_beside_another_edit_of_the_file_is_refused_and_nothing_written() {
    let tree = greet_tree();
    let before = tree.snapshot();
    let two = format!(
        "{}\n{}",
        call(serde_json::json!({
            "command": "str_replace", "path": "greet.py",
            "old_str": "    print(\"helo\", name)", "new_str": "    print(\"hello\", name)"
        })),
        call(serde_json::json!({
            "command": "insert", "path": "greet.py", "insert_line": 2, "new_str": "    return name"
        }))
    );
    let run = tree.apply(&two, &["--json"]);
    assert_ne!(run.code, 0, "{}", run.stdout);
    assert!(
        run.stdout
            .contains("insert` at a line number together with other edits"),
        "{}",
        run.stdout
    );
    assert_eq!(tree.snapshot(), before);
}

#[test]
fn create_makes_a_new_file_and_refuses_an_existing_one() {
    let tree = greet_tree();
    let new = call(serde_json::json!({
        "command": "create", "path": "hello.py", "file_text": "print(\"hi\")\n"
    }));
    tree.apply(&new, &[]).code(0);
    assert_eq!(tree.read("hello.py"), "print(\"hi\")\n");
    let before = tree.snapshot();
    let over = call(serde_json::json!({
        "command": "create", "path": "greet.py", "file_text": "print(\"gone\")\n"
    }));
    let run = tree.apply(&over, &[]);
    assert_ne!(run.code, 0, "{}", run.stdout);
    assert_eq!(tree.snapshot(), before);
}

#[test]
fn str_replace_replaces_its_one_occurrence() {
    let tree = greet_tree();
    let reply = call(serde_json::json!({
        "command": "str_replace", "path": "greet.py",
        "old_str": "print(\"helo\", name)", "new_str": "print(\"hello\", name)"
    }));
    tree.apply(&reply, &[]).code(0);
    assert_eq!(tree.read("greet.py"), GREET.replace("helo", "hello"));
}
