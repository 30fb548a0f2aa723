//! The languages checked, and which file extensions select them. A header (`.h`) is read as
//! C++: its grammar accepts nearly all C, and C++ headers are common under that name.

use std::path::Path;

/// A language with a grammar.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Language {
    /// `.py`, `.pyi`.
    Python,
    /// `.js`, `.mjs`, `.cjs`, `.jsx` (the grammar reads JSX).
    JavaScript,
    /// `.ts`, `.mts`, `.cts`.
    TypeScript,
    /// `.tsx`.
    Tsx,
    /// `.rs`.
    Rust,
    /// `.go`.
    Go,
    /// `.c`.
    C,
    /// `.cc`, `.cpp`, `.cxx`, `.c++`, `.h`, `.hh`, `.hpp`, `.hxx`, `.h++`.
    Cpp,
    /// `.java`.
    Java,
    /// `.json` (not `.jsonc` or `.json5`, whose comments JSON has not).
    Json,
    /// `.ipynb`: a Jupyter notebook, JSON whose cells hold their code as strings.
    Notebook,
    /// `.yml`, `.yaml`.
    Yaml,
    /// `.toml`.
    Toml,
}

impl Language {
    /// The language of a file, by its extension (case-insensitive); `None` when no grammar
    /// fits.
    pub fn for_path(path: &Path) -> Option<Language> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        Some(match ext.as_str() {
            "py" | "pyi" => Language::Python,
            "js" | "mjs" | "cjs" | "jsx" => Language::JavaScript,
            "ts" | "mts" | "cts" => Language::TypeScript,
            "tsx" => Language::Tsx,
            "rs" => Language::Rust,
            "go" => Language::Go,
            "c" => Language::C,
            "cc" | "cpp" | "cxx" | "c++" | "h" | "hh" | "hpp" | "hxx" | "h++" => Language::Cpp,
            "java" => Language::Java,
            "json" => Language::Json,
            "ipynb" => Language::Notebook,
            "yml" | "yaml" => Language::Yaml,
            "toml" => Language::Toml,
            _ => return None,
        })
    }

    /// The language's name, for messages.
    pub fn name(self) -> &'static str {
        match self {
            Language::Python => "Python",
            Language::JavaScript => "JavaScript",
            Language::TypeScript => "TypeScript",
            Language::Tsx => "TSX",
            Language::Rust => "Rust",
            Language::Go => "Go",
            Language::C => "C",
            Language::Cpp => "C++",
            Language::Java => "Java",
            Language::Json => "JSON",
            Language::Notebook => "Jupyter notebook (JSON)",
            Language::Yaml => "YAML",
            Language::Toml => "TOML",
        }
    }

    /// The longest text checked, in bytes. Data files are read by parsers many times faster
    /// than tree-sitter, and notebooks with their outputs are often larger than source files.
    pub fn max_checked_bytes(self) -> usize {
        match self {
            Language::Json | Language::Notebook => 16 * 1024 * 1024,
            Language::Yaml | Language::Toml => 2 * 1024 * 1024,
            _ => crate::MAX_CHECKED_BYTES,
        }
    }

    /// The tree-sitter grammar; `None` for the data formats, which their own parsers read.
    pub(crate) fn grammar(self) -> Option<tree_sitter::Language> {
        let function = match self {
            Language::Python => tree_sitter_python::LANGUAGE,
            Language::JavaScript => tree_sitter_javascript::LANGUAGE,
            Language::TypeScript => tree_sitter_typescript::LANGUAGE_TYPESCRIPT,
            Language::Tsx => tree_sitter_typescript::LANGUAGE_TSX,
            Language::Rust => tree_sitter_rust::LANGUAGE,
            Language::Go => tree_sitter_go::LANGUAGE,
            Language::C => tree_sitter_c::LANGUAGE,
            Language::Cpp => tree_sitter_cpp::LANGUAGE,
            Language::Java => tree_sitter_java::LANGUAGE,
            Language::Json | Language::Notebook | Language::Yaml | Language::Toml => return None,
        };
        Some(function.into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extensions_choose_the_grammar() {
        let of = |p: &str| Language::for_path(Path::new(p));
        assert_eq!(of("a/b.py"), Some(Language::Python));
        assert_eq!(of("x.JSX"), Some(Language::JavaScript));
        assert_eq!(of("x.mts"), Some(Language::TypeScript));
        assert_eq!(of("x.tsx"), Some(Language::Tsx));
        assert_eq!(of("x.h"), Some(Language::Cpp));
        assert_eq!(of("x.c"), Some(Language::C));
        assert_eq!(of("Main.java"), Some(Language::Java));
        assert_eq!(of("README.md"), None);
        assert_eq!(of("nb/Analysis.ipynb"), Some(Language::Notebook));
        assert_eq!(of(".github/workflows/ci.yml"), Some(Language::Yaml));
        assert_eq!(of("Cargo.toml"), Some(Language::Toml));
        assert_eq!(of("tsconfig.jsonc"), None);
        assert_eq!(of("Makefile"), None);
    }
}
