//! The follow-up after a refused edit: salve's report, for the model to correct its own edit in
//! one round trip.
//!
//! The report goes as JSON (what placed, what did not and why, the closest candidates with their
//! character diffs and scopes). The candidates' numbered excerpts follow it as text, one block per
//! candidate, because a model reads and copies lines more reliably from a numbered listing than
//! from JSON strings; they are left out of the JSON so the lines are not sent twice.

use std::fmt::Write as _;

use salve_patch::{numbered, Report};

use super::prompt::fenced;

/// The follow-up message after a refusal; see the module docs.
pub fn follow_up_message(report: &Report) -> String {
    let mut json = report.clone();
    for cand in json
        .files
        .iter_mut()
        .flat_map(|f| f.hunks.iter_mut())
        .flat_map(|h| h.candidates.iter_mut())
    {
        cand.excerpt.clear();
    }
    let mut text = format!(
        "salve could not apply your edit, so nothing was written. This is salve's report (JSON): \
         for every file and hunk whether it was placed, and for those that were not, why, with \
         the closest places it found.\n\n```json\n{}\n```\n",
        json.to_json()
    );
    let excerpts = excerpts(report);
    if !excerpts.is_empty() {
        text.push_str(
            "\nThe file's lines around each closest place, numbered as in the file; `>` marks \
             the lines of the candidate. The numbers and the `|` are not part of the file.\n",
        );
        text.push_str(&excerpts);
    }
    text.push_str(
        "\nReply again with a corrected edit for the same instruction. Copy context lines \
         exactly from the files as shown in the first message. If nothing needs to change, \
         reply with exactly NO_CHANGES_NEEDED.\n",
    );
    text
}

/// One heading and one numbered listing per candidate of every refused hunk.
fn excerpts(report: &Report) -> String {
    let mut out = String::new();
    for file in &report.files {
        for hunk in file.hunks.iter().filter(|h| !h.status.is_success()) {
            for cand in hunk.candidates.iter().filter(|c| !c.excerpt.is_empty()) {
                let _ = write!(
                    out,
                    "\n### {}, hunk {} ({}): lines {}-{}, similarity {:.2}",
                    file.path,
                    hunk.index + 1,
                    hunk.status.as_str(),
                    cand.lines.start,
                    cand.lines.end,
                    cand.score
                );
                if let Some(scope) = &cand.scope {
                    let _ = write!(out, ", in `{}` (line {})", scope.text, scope.line);
                }
                out.push_str("\n\n");
                fenced(&mut out, "", &numbered(cand));
            }
        }
    }
    out
}
