//! Added lines whose `+` was lost, read from a reply as the engine reads it (generator
//! counterexample, issue 14 §5).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use salve_patch::{apply_hunks, extract, FileChange, Status};

const FILE: &str = "mod m {\n    impl T {\n        fn f() {\n            x();\n            if a {\n                b();\n                c();\n            }\n            d();\n        }\n    }\n}\n";

#[test]
fn a_lost_plus_brace_is_not_matched_to_a_shallower_brace_by_a_loose_rung() {
    // `+            }` lost its `+`: as written it is a context brace one column short, which
    // the file lacks between the changes; context-relax, leaving the last lines out, matched it
    // to the function's shallower `}` and deleted the `if`'s brace. The header's counts fit the
    // reading with the brace added, which places exactly.
    let reply = "--- a/a.rs\n+++ b/a.rs\n@@ -4,9 +4,9 @@\n             x();\n             if a {\n                 b();\n-                c();\n-            }\n-            d();\n+                c2();\n            }\n+            d2();\n         }\n     }\n }\n";
    let x = extract(reply);
    assert!(x.issues.is_empty(), "{:?}", x.issues);
    let Some(FileChange::Modify { hunks }) = x.edits.into_iter().next().map(|e| e.change) else {
        panic!("no modify edit")
    };
    let out = apply_hunks(FILE, &hunks, None);
    assert_eq!(out.status, Status::Applied, "{:#?}", out.hunks);
    let want = FILE.replace("c();", "c2();").replace("d();", "d2();");
    assert_eq!(out.new_text.as_deref(), Some(want.as_str()));
}
