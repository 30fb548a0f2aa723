//! What a repair prompt shows of the code besides the files the failures name (issue 24 §5): a
//! failing assertion in a test names the test, while the bug is in the code the test calls. So
//! the prompt also holds, nearest to the failure first and within a size budget:
//!
//! - every traceback frame inside the repository (Python's `File "…", line N`, and the
//!   `path:line[:col]` frames of Node, Go, Rust and most tools), innermost first, with the
//!   source around it;
//! - the modules the failing test files import from the repository (Python `import`/`from`,
//!   JavaScript and TypeScript relative `import`/`require`), which hold the definitions the
//!   tests call.
//!
//! Frames in installed packages (`site-packages`, `node_modules`, virtual environments, build
//! output) are not the project's code and are left out.

use std::path::{Component, Path, PathBuf};

/// Source files of more than this are left out of the prompt (they would crowd out the rest).
const MAX_FILE_BYTES: u64 = 64 * 1024;
/// The files shown in full, taken together, stop at this size.
pub(super) const BUDGET_BYTES: u64 = 160 * 1024;
/// Files shown in full at most.
pub(super) const MAX_FILES: usize = 12;

const SOURCE_EXTENSIONS: &[&str] = &[
    "py", "pyi", "rs", "go", "js", "jsx", "mjs", "cjs", "ts", "tsx", "mts", "cts", "rb", "java",
    "kt", "c", "h", "cc", "cpp", "hpp", "cs", "php", "swift", "scala",
];

const NOT_THE_PROJECT: &[&str] = &[
    "site-packages/",
    "dist-packages/",
    "node_modules/",
    ".venv/",
    "venv/",
    ".tox/",
    "target/",
    ".cargo/",
    "/go/pkg/mod/",
];

/// A place in the repository a traceback names: a file relative to the root, and a 1-based line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Frame {
    pub file: PathBuf,
    pub line: u32,
}

/// The frames of `output` inside `root`, innermost first, without repeats.
pub(super) fn frames(output: &str, root: &Path) -> Vec<Frame> {
    let canonical = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    let mut blocks: Vec<Vec<Frame>> = vec![Vec::new()];
    let mut outermost_first = false;
    for line in output.lines() {
        if line.contains("Traceback (most recent call last)") {
            blocks.push(Vec::new());
            outermost_first = true;
        }
        for (file, no) in line_frames(line) {
            if let Some(rel) = in_repository(&file, root, &canonical) {
                if let Some(block) = blocks.last_mut() {
                    block.push(Frame {
                        file: rel,
                        line: no,
                    });
                }
            }
        }
    }
    let mut out: Vec<Frame> = Vec::new();
    // Python prints the innermost frame last; the other tools print it first.
    for mut block in blocks.into_iter().rev() {
        if outermost_first {
            block.reverse();
        }
        for f in block {
            if !out.contains(&f) {
                out.push(f);
            }
        }
    }
    out
}

/// The `(path, line)` pairs one output line names.
fn line_frames(line: &str) -> Vec<(String, u32)> {
    let mut out = Vec::new();
    // Python: `File "path", line N`.
    let mut rest = line;
    while let Some(at) = rest.find("File \"") {
        let after = &rest[at + 6..];
        let Some(end) = after.find('"') else { break };
        let path = &after[..end];
        if let Some(n) = after[end..]
            .strip_prefix("\", line ")
            .and_then(leading_number)
        {
            out.push((path.to_owned(), n));
        }
        rest = &after[end..];
    }
    // `path:line[:col]`, alone or in parentheses, quotes or after `at `.
    for token in line
        .split(|c: char| c.is_whitespace() || matches!(c, '(' | ')' | '"' | '\'' | '[' | ']' | ','))
    {
        let token = token.trim_end_matches([':', '.', ';']);
        let mut parts = token.splitn(3, ':');
        let (Some(path), Some(num)) = (parts.next(), parts.next()) else {
            continue;
        };
        let path = path.strip_prefix("file://").unwrap_or(path);
        let ext = path.rsplit_once('.').map_or("", |(_, e)| e);
        if !SOURCE_EXTENSIONS.contains(&ext) {
            continue;
        }
        if let Some(n) = leading_number(num).filter(|_| num.chars().all(|c| c.is_ascii_digit())) {
            out.push((path.to_owned(), n));
        }
    }
    out
}

fn leading_number(text: &str) -> Option<u32> {
    let digits: String = text.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok().filter(|&n| n > 0)
}

/// `file` (as a tool printed it) relative to the work tree, when it is a file of the project.
fn in_repository(file: &str, root: &Path, canonical: &Path) -> Option<PathBuf> {
    if NOT_THE_PROJECT.iter().any(|p| file.contains(p)) || file.starts_with('<') {
        return None;
    }
    let path = Path::new(file);
    let rel = if path.is_absolute() {
        path.strip_prefix(canonical)
            .or_else(|_| path.strip_prefix(root))
            .ok()?
            .to_path_buf()
    } else {
        path.to_path_buf()
    };
    let normal = rel
        .components()
        .all(|c| matches!(c, Component::Normal(_) | Component::CurDir));
    let rel: PathBuf = rel
        .components()
        .filter(|c| !matches!(c, Component::CurDir))
        .collect();
    (normal && root.join(&rel).is_file()).then_some(rel)
}

/// The repository's modules that `file` (a test) imports.
pub(super) fn imports(root: &Path, file: &Path) -> Vec<PathBuf> {
    let Ok(text) = std::fs::read_to_string(root.join(file)) else {
        return Vec::new();
    };
    let ext = file.extension().and_then(|e| e.to_str()).unwrap_or("");
    let dir = file.parent().unwrap_or(Path::new(""));
    let mut out: Vec<PathBuf> = Vec::new();
    for line in text.lines() {
        let found = match ext {
            "py" => python_import(line)
                .map(|m| python_module(root, dir, &m))
                .unwrap_or_default(),
            "js" | "jsx" | "mjs" | "cjs" | "ts" | "tsx" | "mts" | "cts" => script_import(line)
                .map(|m| script_module(root, dir, &m))
                .unwrap_or_default(),
            _ => Vec::new(),
        };
        for f in found {
            if !out.contains(&f) && f != file {
                out.push(f);
            }
        }
    }
    out
}

/// The module a Python import line names (`pkg.mod`, or `.mod` relative).
fn python_import(line: &str) -> Option<String> {
    let t = line.trim();
    if let Some(rest) = t.strip_prefix("from ") {
        return rest.split_whitespace().next().map(str::to_owned);
    }
    let rest = t.strip_prefix("import ")?;
    rest.split([',', ' ']).next().map(str::to_owned)
}

/// The files a Python module may be: `a/b.py`, `a/b/__init__.py`, under the root or `src/`, or
/// next to the test for a relative import.
fn python_module(root: &Path, dir: &Path, module: &str) -> Vec<PathBuf> {
    let dots = module.chars().take_while(|&c| c == '.').count();
    let name = &module[dots..];
    let rel: PathBuf = name.split('.').filter(|s| !s.is_empty()).collect();
    let bases: Vec<PathBuf> = if dots > 0 {
        let mut base = dir.to_path_buf();
        for _ in 1..dots {
            base.pop();
        }
        vec![base]
    } else {
        vec![PathBuf::new(), PathBuf::from("src"), dir.to_path_buf()]
    };
    let mut out = Vec::new();
    for base in bases {
        let stem = base.join(&rel);
        for candidate in [stem.with_extension("py"), stem.join("__init__.py")] {
            if !candidate.as_os_str().is_empty() && root.join(&candidate).is_file() {
                out.push(candidate);
            }
        }
        // `from pkg import mod` names a module too: the package's own file is found above.
    }
    out.truncate(1);
    out
}

/// The relative module a JavaScript or TypeScript `import … from '…'` or `require('…')` names.
fn script_import(line: &str) -> Option<String> {
    let t = line.trim();
    let at = t
        .find(" from ")
        .map(|i| i + 6)
        .or_else(|| t.find("require(").map(|i| i + 8))
        .or_else(|| t.strip_prefix("import ").map(|_| 7))?;
    let rest = t[at..].trim_start();
    let quote = rest
        .chars()
        .next()
        .filter(|c| matches!(c, '\'' | '"' | '`'))?;
    let inner = &rest[1..];
    let spec = &inner[..inner.find(quote)?];
    spec.starts_with('.').then(|| spec.to_owned())
}

fn script_module(root: &Path, dir: &Path, spec: &str) -> Vec<PathBuf> {
    let base = normalize(&dir.join(spec));
    let mut candidates = vec![base.clone()];
    for ext in ["ts", "tsx", "js", "jsx", "mjs", "cjs", "mts", "cts"] {
        candidates.push(PathBuf::from(format!("{}.{ext}", base.display())));
        candidates.push(base.join(format!("index.{ext}")));
    }
    // A `.js` specifier in TypeScript names the `.ts` file it compiles from.
    if let Some(stem) = spec.strip_suffix(".js") {
        let stem = normalize(&dir.join(stem));
        candidates.push(PathBuf::from(format!("{}.ts", stem.display())));
        candidates.push(PathBuf::from(format!("{}.tsx", stem.display())));
    }
    candidates
        .into_iter()
        .find(|c| root.join(c).is_file())
        .into_iter()
        .collect()
}

/// `a/./b/../c` as `a/c`; `None`-free: a path above the root keeps its `..`, and is then no file.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other),
        }
    }
    out
}

/// `files` in order, each once, as many as fit in [`BUDGET_BYTES`] and [`MAX_FILES`]; files over
/// [`MAX_FILE_BYTES`] are skipped (the excerpts still show where they fail).
pub(super) fn within_budget(root: &Path, files: Vec<PathBuf>) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    let mut used = 0u64;
    for f in files {
        if out.contains(&f) || out.len() >= MAX_FILES {
            continue;
        }
        let Ok(meta) = std::fs::metadata(root.join(&f)) else {
            continue;
        };
        if meta.len() > MAX_FILE_BYTES || used + meta.len() > BUDGET_BYTES {
            continue;
        }
        used += meta.len();
        out.push(f);
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    fn tree(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (path, text) in files {
            let p = dir.path().join(path);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        dir
    }

    #[test]
    fn python_frames_inside_the_repository_innermost_first() {
        let dir = tree(&[("tests/test_core.py", "x\n"), ("pkg/core.py", "y\n")]);
        let root = dir.path();
        let out = format!(
            "Traceback (most recent call last):\n  File \"{}/tests/test_core.py\", line 8, in test_double\n    self.assertEqual(double(2), 4)\n  File \"{}/pkg/core.py\", line 2, in double\n    return helper(x)\n  File \"/usr/lib/python3/site-packages/six.py\", line 9, in helper\nAssertionError\n",
            root.display(),
            root.display()
        );
        let got = frames(&out, root);
        assert_eq!(
            got,
            [
                Frame {
                    file: "pkg/core.py".into(),
                    line: 2
                },
                Frame {
                    file: "tests/test_core.py".into(),
                    line: 8
                },
            ]
        );
    }

    #[test]
    fn node_go_and_rust_frames() {
        let dir = tree(&[
            ("src/add.ts", "a\n"),
            ("calc/calc.go", "b\n"),
            ("src/lib.rs", "c\n"),
        ]);
        let root = dir.path();
        let out = "    at add (src/add.ts:3:11)\n    at node_modules/jest/x.js:1:1\ncalc/calc.go:12: wrong\nthread 'main' panicked at src/lib.rs:7:5:\n";
        let got: Vec<(String, u32)> = frames(out, root)
            .into_iter()
            .map(|f| (f.file.display().to_string(), f.line))
            .collect();
        assert_eq!(
            got,
            [
                ("src/add.ts".to_owned(), 3),
                ("calc/calc.go".to_owned(), 12),
                ("src/lib.rs".to_owned(), 7)
            ]
        );
    }

    #[test]
    fn the_modules_a_test_imports() {
        let dir = tree(&[
            (
                "tests/test_core.py",
                "import os\nfrom pkg.core import double\nfrom .helpers import h\n",
            ),
            ("pkg/__init__.py", ""),
            ("pkg/core.py", "def double(x):\n    return 2 * x\n"),
            ("tests/helpers.py", ""),
            (
                "src/add.test.ts",
                "import { add } from './add.js';\nconst u = require(\"../lib/util\");\n",
            ),
            ("src/add.ts", ""),
            ("lib/util/index.js", ""),
        ]);
        let root = dir.path();
        assert_eq!(
            imports(root, Path::new("tests/test_core.py")),
            [
                PathBuf::from("pkg/core.py"),
                PathBuf::from("tests/helpers.py")
            ]
        );
        assert_eq!(
            imports(root, Path::new("src/add.test.ts")),
            [
                PathBuf::from("src/add.ts"),
                PathBuf::from("lib/util/index.js")
            ]
        );
    }
}
