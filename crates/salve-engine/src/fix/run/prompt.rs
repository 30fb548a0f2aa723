//! The repair prompt: the failing command, its failures with excerpts of the files they point
//! at and of the traceback's frames in the repository, every earlier attempt with its apply
//! report, the failing files, the frames' files and the modules they import in full, nearest
//! first within a budget ([`context`]; through the ask prompt, so project instructions and the
//! edit formats come along), and the request for a stated confidence.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::context;
use super::repair::{AttemptReport, Verdict};
use super::session::Checked;
use crate::ask::prompt::{build, PromptError, PromptInput, DEFAULT_MAX_PROMPT_FILE};
use crate::fix::failures;

/// Failures listed in a prompt at most; the rest are counted.
const MAX_FAILURES: usize = 20;
/// Failures whose files are excerpted at most.
const MAX_FILES: usize = 8;
/// Traceback frames excerpted at most, besides the failures' own places.
const MAX_FRAMES: usize = 8;

/// The prompt for a repair of `checked`, after `earlier` attempts.
pub(super) fn repair_prompt(
    root: &Path,
    command: &[String],
    checked: &Checked,
    earlier: &[AttemptReport],
) -> Result<String, PromptError> {
    let mut instruction = String::new();
    let _ = writeln!(
        instruction,
        "The check `{}` fails. Change the code so that it passes. Fix the cause: never delete, \
         skip or weaken tests or assertions, never silence the tool (no `|| true`, no lint \
         allow or ignore comments), and never edit the check's own configuration.\n",
        crate::record::shell_words(command)
    );
    instruction.push_str("### Failures\n\n");
    for f in checked.failures.iter().take(MAX_FAILURES) {
        let at = match (&f.file, f.line, f.column) {
            (Some(file), Some(l), Some(c)) => format!("{file}:{l}:{c}: "),
            (Some(file), Some(l), None) => format!("{file}:{l}: "),
            (Some(file), None, _) => format!("{file}: "),
            _ => String::new(),
        };
        let code = f
            .code
            .as_deref()
            .map(|c| format!(" [{c}]"))
            .unwrap_or_default();
        let _ = writeln!(instruction, "- {at}{}{code}", f.message.trim());
    }
    if checked.failures.len() > MAX_FAILURES {
        let _ = writeln!(
            instruction,
            "- ... and {} more",
            checked.failures.len() - MAX_FAILURES
        );
    }
    if checked.failures.is_empty() {
        let _ = write!(
            instruction,
            "No failure could be read from the output; its end:\n\n```\n{}```\n",
            super::session::tail(&checked.result.output, 60)
        );
    }
    let mut excerpts = String::new();
    for f in checked.failures.iter().take(MAX_FILES) {
        if let Some(text) = failures::excerpt(root, f, 6) {
            let file = f.file.as_deref().unwrap_or("?");
            let _ = write!(
                excerpts,
                "\n`{file}` around line {}:\n\n```\n{text}```\n",
                f.line.unwrap_or(0)
            );
        }
    }
    // The code the failure ran through: the source around each traceback frame in the
    // repository (innermost first) that no failure above already shows.
    let frames = context::frames(&checked.result.log_text(), root);
    let shown: Vec<(String, u32)> = checked
        .failures
        .iter()
        .take(MAX_FILES)
        .filter_map(|f| Some((f.file.clone()?, f.line?)))
        .collect();
    for frame in frames.iter().take(MAX_FRAMES) {
        let file = frame.file.to_string_lossy().into_owned();
        if shown.iter().any(|(f, l)| *f == file && *l == frame.line) {
            continue;
        }
        let mut at = failures::Failure::new(
            failures::Tool::Generic,
            failures::FailureKind::Other,
            String::new(),
        );
        at.file = Some(file.clone());
        at.line = Some(frame.line);
        if let Some(text) = failures::excerpt(root, &at, 6) {
            let _ = write!(
                excerpts,
                "\n`{file}` around line {} (a frame of the traceback):\n\n```\n{text}```\n",
                frame.line
            );
        }
    }
    if !excerpts.is_empty() {
        let _ = write!(instruction, "\n### Where\n{excerpts}");
    }
    earlier_attempts(&mut instruction, earlier);
    let files = prompt_files(root, checked, &frames);
    let prompt = build(&PromptInput {
        dir: root,
        instruction: &instruction,
        files: &files,
        targets: &[],
        max_file_size: DEFAULT_MAX_PROMPT_FILE,
    })?;
    let mut text = prompt.text;
    text.push_str(
        "\nEnd your reply with one line `Confidence: N`, where N from 0 to 1 says how sure you \
         are that your edit makes the check pass.\n",
    );
    Ok(text)
}

fn earlier_attempts(out: &mut String, earlier: &[AttemptReport]) {
    if earlier.is_empty() {
        return;
    }
    out.push_str("\n### Earlier attempts (do not repeat them)\n");
    for a in earlier {
        let what = match a.verdict {
            Verdict::Green | Verdict::Better => "helped and was kept",
            Verdict::NotBetter => "did not reduce the failures and was undone",
            Verdict::Refused => "could not be applied",
            Verdict::GuardRejected => "was refused for weakening the check",
            Verdict::LowConfidence => "was not applied (low confidence)",
            Verdict::Environment | Verdict::Interrupted => "was undone",
        };
        let _ = writeln!(out, "\nAttempt {} ({}) {what}.", a.seq, a.source.describe());
        for g in &a.guard {
            let _ = writeln!(out, "- guard: {g}");
        }
        if matches!(a.verdict, Verdict::Refused) {
            if let Some(report) = &a.report {
                let _ = write!(
                    out,
                    "salve's apply report:\n\n```json\n{}\n```\n",
                    report.to_json()
                );
            }
        }
    }
}

/// The files shown in full, nearest to the failure first, within [`context::BUDGET_BYTES`]: those
/// the failures point at, then those of the traceback's frames (innermost first), then the
/// repository modules these files import (the definitions a failing test calls).
fn prompt_files(root: &Path, checked: &Checked, frames: &[context::Frame]) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = Vec::new();
    for f in &checked.failures {
        let Some(file) = f.file.as_deref() else {
            continue;
        };
        let path = PathBuf::from(file);
        if path.is_relative() && root.join(&path).is_file() && !files.contains(&path) {
            files.push(path);
        }
    }
    for frame in frames {
        if !files.contains(&frame.file) {
            files.push(frame.file.clone());
        }
    }
    let near = files.clone();
    for file in &near {
        for imported in context::imports(root, file) {
            if !files.contains(&imported) {
                files.push(imported);
            }
        }
    }
    context::within_budget(root, files)
}

/// The confidence a reply states on a `Confidence: N` line (the last one), from 0 to 1; a
/// percentage is read as such.
pub(super) fn stated_confidence(reply: &str) -> Option<f64> {
    reply.lines().rev().find_map(|line| {
        let lower = line
            .trim()
            .trim_matches(|c| c == '*' || c == '_')
            .to_ascii_lowercase();
        let rest = lower.strip_prefix("confidence")?;
        let rest = rest
            .trim_start_matches(|c: char| c == ':' || c == '=' || c == '*' || c.is_whitespace());
        let number: String = rest
            .chars()
            .take_while(|c| c.is_ascii_digit() || *c == '.')
            .collect();
        let value: f64 = number.parse().ok()?;
        let value = if rest[number.len()..].trim_start().starts_with('%') || value > 1.0 {
            value / 100.0
        } else {
            value
        };
        (0.0..=1.0).contains(&value).then_some(value)
    })
}

#[cfg(test)]
mod tests {
    use super::stated_confidence;

    #[test]
    fn confidence_lines() {
        assert_eq!(stated_confidence("fix\n\nConfidence: 0.9\n"), Some(0.9));
        assert_eq!(stated_confidence("**Confidence:** 85%"), Some(0.85));
        assert_eq!(stated_confidence("confidence = 0.4"), Some(0.4));
        assert_eq!(stated_confidence("no statement"), None);
        assert_eq!(stated_confidence("Confidence: high"), None);
    }
}
