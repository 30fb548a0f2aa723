//! Blocks of one file that build on each other. aider applies SEARCH/REPLACE blocks in order,
//! Claude Code's `MultiEdit` says each edit works on the result of the one before, and Cline
//! does the same: a rename followed by an edit of the renamed function quotes text that only
//! the first block creates. [`apply_hunks`](crate::apply_hunks) places every hunk against the
//! original text, so such a reply does not place there.
//!
//! [`apply_in_order`] is the second reading, tried only when the first found no place for some
//! block: each block is placed by the whole ladder (the same strictness, one block at a time)
//! against the text the blocks before it left, and every block must place, or the first reading
//! stands. A reply whose blocks all fit the original never gets here, so hunks that overlap
//! there are still refused.

use crate::apply::{apply_hunks, FileOutcome};
use crate::edit::Hunk;
use crate::report::Status;
use crate::splice::Splice;

/// Place `hunks` one by one, each against the result of those before it; `None` when one does
/// not place (or when there is nothing to chain).
pub fn apply_in_order(current: &str, hunks: &[Hunk]) -> Option<FileOutcome<Splice>> {
    if hunks.len() < 2 {
        return None;
    }
    let mut text: Option<String> = None;
    let mut reports = Vec::with_capacity(hunks.len());
    let (mut added, mut removed) = (0, 0);
    for (i, hunk) in hunks.iter().enumerate() {
        let now = text.as_deref().unwrap_or(current);
        let out = apply_hunks(now, std::slice::from_ref(hunk), None);
        if !out.status.is_success() {
            return None;
        }
        let mut report = out.hunks.into_iter().next()?;
        report.index = i;
        if i > 0 {
            report.message = Some(
                "placed against the result of the blocks before it (the blocks build on each \
                 other); its lines are those of that result"
                    .to_owned(),
            );
        }
        reports.push(report);
        added += out.added;
        removed += out.removed;
        if let Some(t) = out.new_text {
            text = Some(t);
        }
    }
    let text = text.filter(|t| t != current);
    Some(FileOutcome {
        status: if text.is_some() {
            Status::Applied
        } else {
            Status::AlreadyApplied
        },
        new_text: text.map(Splice::whole),
        hunks: reports,
        added,
        removed,
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::apply_in_order;
    use crate::parse::extract;
    use crate::{apply_hunks, FileChange, Status};

    fn hunks(reply: &str) -> Vec<crate::Hunk> {
        match extract(reply).edits.remove(0).change {
            FileChange::Modify { hunks } => hunks,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_block_quoting_the_result_of_the_one_before_places_after_it() {
        let file = "def old():\n    return 1\n\nx = old()\n";
        let h = hunks(
            "a.py\n```\n<<<<<<< SEARCH\ndef old():\n=======\ndef new():\n>>>>>>> REPLACE\n```\n\na.py\n```\n<<<<<<< SEARCH\ndef new():\n    return 1\n=======\ndef new():\n    return 2\n>>>>>>> REPLACE\n```\n",
        );
        assert_eq!(apply_hunks(file, &h, None).status, Status::NotFound);
        let out = apply_in_order(file, &h).unwrap().materialize(file);
        assert_eq!(
            out.new_text.as_deref(),
            Some("def new():\n    return 2\n\nx = old()\n")
        );
        // A block that fits neither the original nor the result stays refused.
        let h = hunks(
            "a.py\n```\n<<<<<<< SEARCH\ndef old():\n=======\ndef new():\n>>>>>>> REPLACE\n```\n\na.py\n```\n<<<<<<< SEARCH\ndef other():\n=======\ndef x():\n>>>>>>> REPLACE\n```\n",
        );
        assert!(apply_in_order(file, &h).is_none());
    }
}
