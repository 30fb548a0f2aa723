//! The failure signature: what stays the same when a repair changed nothing that matters.

use std::fmt::Write as _;

use sha1::{Digest, Sha1};

use super::Failure;

/// A 40-hex fingerprint of the failures: each reduced to its file, kind, code, test and
/// [normalized](normalize_message) message, sorted and deduplicated, so line shifts, counts,
/// addresses and temporary paths do not change it. Equal signatures on two attempts mean no
/// progress. With no failures it is the fingerprint of nothing; the loop then compares outputs.
pub fn signature(failures: &[Failure]) -> String {
    let mut keys: Vec<String> = failures
        .iter()
        .map(|f| {
            format!(
                "{}|{:?}|{}|{}|{}",
                f.file.as_deref().unwrap_or(""),
                f.kind,
                f.code.as_deref().unwrap_or(""),
                f.test.as_deref().unwrap_or(""),
                normalize_message(&f.message)
            )
        })
        .collect();
    keys.sort();
    keys.dedup();
    let digest = Sha1::digest(keys.join("\n").as_bytes());
    digest.iter().fold(String::with_capacity(40), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

/// The signature of a failed check whose output no reader understood: its output, normalized
/// as messages are (paths, numbers, whitespace), so `echo a; exit 3` and `echo b; exit 4` are
/// different failures with budgets of their own, and the same failure in another directory or
/// on another line is the same. Only the tail is read: where a failure is said, and bounded.
pub fn output_signature(output: &str, status: &str) -> String {
    const TAIL_LINES: usize = 60;
    let lines: Vec<&str> = output.lines().collect();
    let tail = &lines[lines.len().saturating_sub(TAIL_LINES)..];
    let text = format!(
        "output|{}|{}",
        normalize_message(status),
        normalize_message(&tail.join("\n"))
    );
    let digest = Sha1::digest(text.as_bytes());
    digest.iter().fold(String::with_capacity(40), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

/// The message with absolute paths as `<path>`, every run of digits as `#` and whitespace
/// collapsed: `left: 5 right: 4` and `left: 6 right: 4` are the same failure, and so are two
/// runs in different temporary directories. Learned rules match on this form too.
pub fn normalize_message(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    let mut chars = message.chars().peekable();
    let mut prev = ' ';
    while let Some(c) = chars.next() {
        if c == '/' && (prev.is_whitespace() || "'\"`(=[".contains(prev)) {
            while chars
                .next_if(|&n| !n.is_whitespace() && !"'\"`)],:".contains(n))
                .is_some()
            {}
            out.push_str("<path>");
            prev = '>';
        } else if c.is_ascii_digit() {
            while chars.next_if(char::is_ascii_digit).is_some() {}
            out.push('#');
            prev = '#';
        } else if c.is_whitespace() {
            if !out.ends_with(' ') && !out.is_empty() {
                out.push(' ');
            }
            prev = ' ';
        } else {
            out.push(c);
            prev = c;
        }
    }
    out.trim_end().to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fix::failures::{FailureKind, Tool};

    #[test]
    fn numbers_paths_and_spacing_are_normalized() {
        assert_eq!(
            normalize_message("assertion failed\n  left: 5\n right: 4"),
            "assertion failed left: # right: #"
        );
        assert_eq!(
            normalize_message("cannot open '/tmp/.tmpAb12/src/x.rs': no such file"),
            "cannot open '<path>': no such file"
        );
        assert_eq!(normalize_message("a/b stays"), "a/b stays");
    }

    #[test]
    fn the_signature_ignores_lines_and_order_but_not_files_or_codes() {
        let mut a = Failure::new(Tool::Cargo, FailureKind::Type, "mismatched types");
        a.file = Some("src/lib.rs".to_owned());
        a.line = Some(3);
        a.code = Some("E0308".to_owned());
        let mut moved = a.clone();
        moved.line = Some(30);
        let b = Failure::new(Tool::Cargo, FailureKind::Test, "left: 1 right: 2");
        assert_eq!(
            signature(&[a.clone(), b.clone()]),
            signature(&[b.clone(), moved])
        );
        let mut other_file = a.clone();
        other_file.file = Some("src/main.rs".to_owned());
        assert_ne!(signature(&[a.clone()]), signature(&[other_file]));
        let mut other_code = a.clone();
        other_code.code = Some("E0277".to_owned());
        assert_ne!(signature(&[a.clone()]), signature(&[other_code]));
        assert_eq!(signature(&[a.clone()]).len(), 40);
        assert_ne!(signature(&[a]), signature(&[]));
    }
}
