//! Issue 27, point 8: a name that differs from an existing file in letter case alone is
//! never a silent second file, and a refusal names the near match.

use crate::support::Tree;

fn docs_repo() -> Tree {
    let tree = Tree::git();
    tree.write("docs/Guide.md", "# Guide\n\nStart here.\n");
    tree.commit("initial");
    tree
}

#[test]
fn a_whole_file_for_a_case_twin_is_refused_and_names_it() {
    let tree = docs_repo();
    let before = tree.snapshot();
    for reply in [
        "docs/guide.md\n```markdown\n# Guide\n\nNew text.\n```\n",
        "```diff\n--- /dev/null\n+++ b/docs/guide.md\n@@ -0,0 +1 @@\n+# Guide\n```\n",
    ] {
        let run = tree.apply(reply, &[]);
        run.code(1);
        assert!(run.stdout.contains("docs/Guide.md"), "{run:?}");
        assert!(run.stdout.contains("letter case"), "{run:?}");
    }
    assert_eq!(tree.snapshot(), before);
    assert_eq!(tree.git_cmd(&["status", "--porcelain"]), "");
}

#[test]
fn a_search_replace_for_a_case_twin_names_the_near_match() {
    let tree = docs_repo();
    let reply =
        "docs/guide.md\n<<<<<<< SEARCH\nStart here.\n=======\nStart there.\n>>>>>>> REPLACE\n";
    let run = tree.apply(reply, &[]);
    run.code(1);
    assert!(
        run.stdout
            .contains("docs/Guide.md differs from it in letter case only"),
        "{run:?}"
    );
    assert_eq!(tree.read("docs/Guide.md"), "# Guide\n\nStart here.\n");
    assert_eq!(tree.git_cmd(&["status", "--porcelain"]), "");
}
