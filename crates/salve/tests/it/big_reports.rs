//! Reports stay readable whatever the reply: a refusal of thousands of hunks, an ambiguous edit
//! in a megabyte-long minified line, or a reply naming hundreds of files prints a bounded
//! report that says what it left out, as text and as JSON.

use crate::support::Tree;

fn repo(files: &[(&str, &str)]) -> Tree {
    let tree = Tree::git();
    for (path, content) in files {
        tree.write(path, content);
    }
    tree.commit("init");
    tree
}

/// A 5 MB one-line minified file where the quoted text occurs everywhere: each candidate used
/// to quote the whole line (15.7 MB of output).
#[test]
fn an_ambiguous_edit_in_a_minified_line_prints_a_short_report() {
    let line = "function f(a){return a+1};".repeat(200_000);
    let tree = repo(&[("min.js", &format!("{line}\n"))]);
    let reply = "min.js\n```\n<<<<<<< SEARCH\nfunction f(a){return a+1};\n=======\nfunction f(a){return a+2};\n>>>>>>> REPLACE\n```\n";

    let text = tree.apply(reply, &["--check"]);
    text.code(1);
    assert!(text.stdout.len() < 8_000, "{} bytes", text.stdout.len());
    assert!(text.stdout.contains("ambiguous"), "{}", text.stdout);
    assert!(
        text.stdout.contains(" more characters"),
        "the cut lines say so: {}",
        text.stdout
    );
    assert!(
        text.stdout.contains("more candidates not shown"),
        "{}",
        text.stdout
    );

    let json = tree.apply(reply, &["--check", "--json"]);
    json.code(1);
    assert!(json.stdout.len() < 10_000, "{} bytes", json.stdout.len());
    let report = json.json();
    let hunk = &report["files"][0]["hunks"][0];
    assert_eq!(hunk["status"], "ambiguous");
    assert_eq!(hunk["candidates"].as_array().unwrap().len(), 3);
    assert!(hunk["candidates_omitted"].as_u64().unwrap() > 0, "{hunk}");
    for cand in hunk["candidates"].as_array().unwrap() {
        let diff = cand["diff"].as_str().unwrap();
        assert!(diff.chars().count() < 400, "{diff}");
        for line in cand["excerpt"].as_array().unwrap() {
            let text = line["text"].as_str().unwrap();
            assert!(text.chars().count() < 300, "{text}");
            assert!(text.ends_with(" more characters"), "{text}");
        }
    }
}

/// Thousands of hunks that fit nowhere: the text shows a few and counts the rest; the JSON keeps
/// one entry per hunk but details only the first failures.
#[test]
fn a_refusal_of_thousands_of_hunks_is_summarised() {
    const HUNKS: usize = 5_000;
    let lines: String = (0..2 * HUNKS).map(|i| format!("line {i}\n")).collect();
    let tree = repo(&[("big.txt", &lines)]);
    let mut reply = String::from("--- a/big.txt\n+++ b/big.txt\n");
    for i in 0..HUNKS {
        reply.push_str(&format!(
            "@@ -{0},1 +{0},1 @@\n-nope {i}\n+yes {i}\n",
            2 * i + 1
        ));
    }

    let text = tree.apply(&reply, &["--check"]);
    text.code(1);
    assert!(text.stdout.len() < 20_000, "{} bytes", text.stdout.len());
    assert!(
        text.stdout.contains("more hunks not shown: 4960 not found"),
        "{}",
        text.stdout
    );
    assert!(
        text.stdout
            .contains("the first 25 failed hunks are told in detail; 4975 more"),
        "{}",
        text.stdout
    );

    let json = tree.apply(&reply, &["--check", "--json"]);
    json.code(1);
    let report = json.json();
    let hunks = report["files"][0]["hunks"].as_array().unwrap();
    assert_eq!(hunks.len(), HUNKS, "one entry per hunk");
    assert_eq!(report["details_omitted"], HUNKS - 25);
    let detailed = hunks.iter().filter(|h| h.get("message").is_some()).count();
    assert_eq!(detailed, 25);
    assert!(hunks.iter().all(|h| h["status"] == "not_found"));
    assert!(
        json.stdout.len() < 150 * HUNKS,
        "{} bytes for {HUNKS} hunks",
        json.stdout.len()
    );
}

/// A reply naming hundreds of files: the text lists the first hundred and counts the others.
#[test]
fn a_reply_naming_hundreds_of_files_is_summarised() {
    let tree = repo(&[("keep.txt", "x\n")]);
    let reply: String = (0..150)
        .map(|i| format!("--- a/f{i}.txt\n+++ b/f{i}.txt\n@@ -1 +1 @@\n-old\n+new\n"))
        .collect();
    let text = tree.apply(&reply, &["--check"]);
    text.code(1);
    assert!(
        text.stdout
            .contains("… 50 more files not shown: 50 not found"),
        "{}",
        text.stdout
    );
    assert_eq!(text.stdout.matches(".txt: not found").count(), 100);
}
