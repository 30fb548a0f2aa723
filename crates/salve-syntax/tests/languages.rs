//! Per language: a clean file broken by an edit is caught with the error's line; an edit of a
//! file that was already broken is not judged; a clean edit of a clean file passes.

use std::path::Path;

use salve_syntax::{check, ErrorKind, Unchecked, Verdict, MAX_CHECKED_BYTES};

struct Case {
    path: &'static str,
    clean: &'static str,
    /// `clean` edited so that it still parses.
    clean_edit: &'static str,
    /// `clean` edited into a syntax error.
    broken: &'static str,
    /// The line of the first error in `broken`.
    error_line: usize,
}

fn assert_case(case: &Case) {
    let path = Path::new(case.path);
    assert_eq!(
        check(path, case.clean, case.clean),
        Verdict::Clean,
        "{}",
        case.path
    );
    assert_eq!(
        check(path, case.clean, case.clean_edit),
        Verdict::Clean,
        "{}",
        case.path
    );
    match check(path, case.clean, case.broken) {
        Verdict::Introduced(e) => assert_eq!(e.line, case.error_line, "{}: {e}", case.path),
        other => panic!("{}: expected an introduced error, got {other:?}", case.path),
    }
    // Broken before and after: not judged, whatever the edit did.
    assert_eq!(
        check(path, case.broken, case.broken),
        Verdict::AlreadyBroken,
        "{}",
        case.path
    );
    // Broken before, clean after: the edit fixed it.
    assert_eq!(
        check(path, case.broken, case.clean),
        Verdict::Clean,
        "{}",
        case.path
    );
}

#[test]
fn python_indentation_and_quotes() {
    assert_case(&Case {
        path: "src/app.py",
        clean: "def f(x):\n    if x:\n        return 1\n    return 2\n",
        clean_edit: "def f(x):\n    if x:\n        y = 3\n        return y\n    return 2\n",
        broken: "def f(x):\n    if x:\n        return 1\n      return 2\n",
        error_line: 4,
    });
    assert_case(&Case {
        path: "app.pyi",
        clean: "GREETING = 'hi'\n",
        clean_edit: "GREETING = 'hello'\n",
        broken: "GREETING = \u{201c}hi\u{201d}\n",
        error_line: 1,
    });
}

#[test]
fn javascript_curly_quotes() {
    assert_case(&Case {
        path: "web/index.js",
        clean: "function greet(name) {\n  return 'hi ' + name;\n}\n",
        clean_edit: "function greet(name) {\n  return `hi ${name}`;\n}\n",
        broken: "function greet(name) {\n  return \u{2018}hi \u{2019} + name;\n}\n",
        error_line: 2,
    });
}

#[test]
fn typescript_and_tsx() {
    assert_case(&Case {
        path: "src/a.ts",
        clean: "export function add(a: number, b: number): number {\n  return a + b;\n}\n",
        clean_edit: "export function add(a: number, b: number): number {\n  const c: number = a + b;\n  return c;\n}\n",
        broken: "export function add(a: number, b: number): number {\n  return a + (b;\n}\n",
        error_line: 2,
    });
    assert_case(&Case {
        path: "src/App.tsx",
        clean: "export const App = (p: { n: number }) => <div>{p.n}</div>;\n",
        clean_edit: "export const App = (p: { n: number }) => <span>{p.n}</span>;\n",
        broken: "export const App = (p: { n: number }) => <div>{p.n</div>;\n",
        error_line: 1,
    });
}

#[test]
fn rust_go_java() {
    assert_case(&Case {
        path: "src/lib.rs",
        clean: "pub fn add(a: u32, b: u32) -> u32 {\n    a + b\n}\n",
        clean_edit: "pub fn add(a: u32, b: u32) -> u32 {\n    a.wrapping_add(b)\n}\n",
        broken: "pub fn add(a: u32, b: u32) -> u32 {\n    let c = a + b\n    c +\n}\n",
        error_line: 3,
    });
    assert_case(&Case {
        path: "main.go",
        clean: "package main\n\nfunc add(a, b int) int {\n\treturn a + b\n}\n",
        clean_edit: "package main\n\nfunc add(a, b int) int {\n\tc := a + b\n\treturn c\n}\n",
        broken: "package main\n\nfunc add(a, b int) int {\n\treturn a + b)\n}\n",
        error_line: 4,
    });
    assert_case(&Case {
        path: "src/Main.java",
        clean: "class Main {\n    int add(int a, int b) {\n        return a + b;\n    }\n}\n",
        clean_edit: "class Main {\n    int add(int a, int b) {\n        int c = a + b;\n        return c;\n    }\n}\n",
        broken: "class Main {\n    int add(int a, int b) {\n        return a + b;\n    }\n    int sub(int a, int b) {\n        return a - b;\n}\n",
        error_line: 7,
    });
}

#[test]
fn c_and_cpp() {
    assert_case(&Case {
        path: "src/add.c",
        clean: "#include <stdio.h>\n\nint add(int a, int b) {\n    return a + b;\n}\n",
        clean_edit:
            "#include <stdio.h>\n\nint add(int a, int b) {\n    int c = a + b;\n    return c;\n}\n",
        broken: "#include <stdio.h>\n\nint add(int a, int b) {\n    return a + ;\n}\n",
        error_line: 4,
    });
    assert_case(&Case {
        path: "src/add.hpp",
        clean: "namespace m {\ntemplate <typename T> T add(T a, T b) { return a + b; }\n}\n",
        clean_edit: "namespace m {\ntemplate <typename T> T add(T a, T b) { return b + a; }\n}\n",
        broken: "namespace m {\ntemplate <typename T> T add(T a, T b) { return a + b; }\n}\n}\n",
        error_line: 4,
    });
}

#[test]
fn errors_name_the_token_and_column() {
    let before = "const a = 1;\n";
    let after = "const a = 1;\nconst b = \u{201c}x\u{201d};\n";
    let Verdict::Introduced(e) = check(Path::new("a.mjs"), before, after) else {
        panic!("expected an error");
    };
    assert_eq!((e.line, e.column), (2, 11));
    assert!(
        matches!(&e.kind, ErrorKind::Unexpected(t) if t.contains('\u{201c}')),
        "{e}"
    );
    assert!(e
        .to_string()
        .starts_with("JavaScript syntax error at line 2, column 11"));

    let before = "int add(int a, int b) {\n    return a + b;\n}\n";
    let after = "int add(int a, int b) {\n    return a + ;\n}\n";
    let Verdict::Introduced(e) = check(Path::new("add.c"), before, after) else {
        panic!("expected an error");
    };
    assert!(matches!(&e.kind, ErrorKind::Missing(_)), "{e}");
    assert_eq!((e.line, e.column), (2, 15));
    assert!(e.to_string().contains("missing `"), "{e}");

    let Verdict::Introduced(e) = check(Path::new("f.py"), "x = 1\n", "x = \u{201c}hi\u{201d}\n")
    else {
        panic!("expected an error");
    };
    // The curly quote is pointed at, not the statement's first token.
    assert_eq!((e.line, e.column), (1, 5), "{e}");
}

#[test]
fn unknown_types_and_huge_files_are_not_checked() {
    assert_eq!(
        check(Path::new("notes.md"), "a\n", "```\n"),
        Verdict::Unchecked(Unchecked::UnknownLanguage)
    );
    assert_eq!(
        check(Path::new("Makefile"), "a\n", "(\n"),
        Verdict::Unchecked(Unchecked::UnknownLanguage)
    );
    let big = "x = 1\n".repeat(MAX_CHECKED_BYTES / 6 + 1);
    let broken = format!("{big}def (\n");
    assert_eq!(
        check(Path::new("big.py"), &big, &broken),
        Verdict::Unchecked(Unchecked::TooLarge)
    );
}

#[test]
fn python_rules_leave_valid_code_alone() {
    // Comments at any depth, bodies on the header's line, continuation lines, decorators,
    // strings spanning lines, and tab-indented blocks are all valid Python.
    let valid = "import os\n\n@dec\ndef f(x):\n  # a comment\n        # deeper comment\n    if x: return 1\n    y = call(1,\n             2) + \\\n        3\n    s = \"\"\"\n  text\n\"\"\"\n    return y\n\nclass A:\n\tdef g(self):\n\t\tpass\n";
    assert_eq!(check(Path::new("v.py"), "x = 1\n", valid), Verdict::Clean);
}

#[test]
fn braces_split_across_preprocessor_conditionals_are_not_judged() {
    let before = "#ifndef A_H\n#define A_H\n\nvoid *a_alloc(int n);\n\n#endif\n";
    let after = "#ifndef A_H\n#define A_H\n\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n\nvoid *a_alloc(int n);\n\n#ifdef __cplusplus\n}\n#endif\n\n#endif\n";
    for path in ["a.h", "a.c"] {
        assert_eq!(
            check(Path::new(path), before, after),
            Verdict::Unchecked(Unchecked::Conditionals),
            "{path}"
        );
    }
    // A real error next to conditionals is still caught.
    let broken = after.replace("void *a_alloc(int n);", "void *a_alloc(int n;");
    assert!(matches!(
        check(Path::new("a.h"), before, &broken),
        Verdict::Introduced(_)
    ));
}
