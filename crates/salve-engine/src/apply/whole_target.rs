//! Where a whole-file block belongs when its path names no file.
//!
//! A model often gets a file's directory wrong, drops it, or gives a bare name. Creating a
//! second copy at the wrong place is a wrong apply that looks like a success, so such a block is
//! resolved like the other formats (a unique path suffix, then a unique file name) and then
//! judged by its content: a block that is clearly that file's (most of its lines are the file's
//! lines, at the work tree or at the baseline) replaces it; a block that shares almost nothing
//! with every candidate is a new file; anything between is refused, since neither a write over an
//! unrelated file nor a duplicate of a related one can be undone by the model.

use std::collections::HashMap;
use std::path::Path;

use salve_patch::{FileChange, FileEdit, FileReport, Status};

use super::plan::FilePlan;
use super::step::{join, read, Ctx};
use super::stop::{refuse, Stop};
use crate::paths::{guard, resolve, Guarded, Reach, Resolution, TreePath};

/// At least this share of the block's lines found in a candidate: the block is that file's.
const SAME_FILE: f64 = 0.6;
/// Below this share for every candidate: the block is a file of its own.
const UNRELATED: f64 = 0.2;

/// The decision for a whole-file block whose path does not exist.
pub(super) enum WholeTarget {
    /// Replace this existing file (its path was recorded in the report).
    Existing(Guarded),
    /// Create the file at the requested path.
    New,
}

/// Decide where a whole-file block for a missing path goes; see the module docs.
pub(super) fn whole_target(
    ctx: &Ctx<'_, '_, '_>,
    plan: &FilePlan,
    content: &str,
    report: &mut FileReport,
) -> Result<WholeTarget, Stop> {
    let candidates = match resolve(ctx.root, &plan.target.path, Reach::Name, || ctx.files()) {
        Resolution::Exact => return Ok(WholeTarget::Existing(plan.target.clone())),
        Resolution::Moved(found) => vec![found],
        Resolution::Ambiguous(list) => list,
        Resolution::Missing => {
            let elsewhere = ctx
                .reply_syntax
                .as_ref()
                .and_then(|s| s.points_elsewhere(plan.target.path.as_str()));
            return match elsewhere {
                Some(word) => refuse(
                    Status::PathAmbiguous,
                    format!(
                        "{} exists nowhere in the tree, and the reply itself places a file of that name \
                         elsewhere ({word}); it is not created at the root on a guess: name the \
                         file with its directory",
                        plan.target.path
                    ),
                ),
                None => Ok(WholeTarget::New),
            };
        }
    };
    let mut scored: Vec<(f64, &TreePath, Option<Guarded>)> = Vec::new();
    for path in &candidates {
        // A candidate that cannot be guarded or read cannot be the file meant; it still counts
        // as a candidate when nothing else decides.
        let g = guard(ctx.root, path.as_str()).ok();
        let score = g.as_ref().map_or(0.0, |g| kinship_with(ctx, g, content));
        scored.push((score, path, g));
    }
    scored.sort_by(|a, b| b.0.total_cmp(&a.0));
    let best = scored.first().map_or(0.0, |s| s.0);
    let runner_up = scored.get(1).map_or(0.0, |s| s.0);
    if best < UNRELATED {
        return Ok(WholeTarget::New);
    }
    if best >= SAME_FILE && runner_up < UNRELATED {
        if let Some((_, path, Some(g))) = scored.into_iter().next() {
            report.requested_path = Some(plan.raw.clone());
            report.path = path.to_string();
            return Ok(WholeTarget::Existing(g));
        }
    }
    refuse(
        Status::Ambiguous,
        format!(
            "{} does not exist; the whole file given for it is neither clearly a new file nor clearly one of {}; name the file's path exactly",
            plan.target.path,
            join(&candidates)
        ),
    )
}

/// Both ways at least this share for a block named by a bare name only: the block is clearly
/// that file's, most of the one's lines are the other's.
const BARE_NAME_SURE: f64 = 0.8;

/// Whether a whole-file block after a line holding only a bare name (`AUTHORS`) is surely that
/// file: the name is a file at exactly that path, and at least [`BARE_NAME_SURE`] of the block's
/// meaningful lines are the file's and of the file's the block's. A name that is no file, or
/// content that is not clearly the file's (a snippet to add, an example), stays refused.
pub(super) fn bare_name_is_sure(root: &Path, edit: &FileEdit) -> bool {
    let FileChange::Replace { content, .. } = &edit.change else {
        return false;
    };
    let Ok(g) = guard(root, &edit.path) else {
        return false;
    };
    if !g.real.is_file() {
        return false;
    }
    let Ok(current) = std::fs::read_to_string(&g.real) else {
        return false;
    };
    kinship(content, &current) >= BARE_NAME_SURE && kinship(&current, content) >= BARE_NAME_SURE
}

/// Whether a whole-file block under a path line with unusual characters (`[id]`, `(group)`,
/// spaces) is surely that file: the path names a file of the tree, or a new file whose directory
/// exists or holds another file of the same reply. Anything else stays refused.
pub(super) fn loose_path_is_sure(root: &Path, edit: &FileEdit, others: &[FileEdit]) -> bool {
    let Ok(g) = guard(root, &edit.path) else {
        return false;
    };
    if g.real.is_file() {
        return true;
    }
    if g.real.exists() {
        return false;
    }
    let Some((dir, _)) = edit.path.rsplit_once('/') else {
        return false;
    };
    g.real.parent().is_some_and(Path::is_dir)
        || others
            .iter()
            .any(|o| o.path.strip_prefix(dir).is_some_and(|r| r.starts_with('/')))
}

/// The block's kinship with a candidate: the best of its kinship with the work tree's text and
/// with the baseline's (the block may be written against the file as the model read it).
fn kinship_with(ctx: &Ctx<'_, '_, '_>, g: &Guarded, content: &str) -> f64 {
    let now = read(ctx, g).map_or(0.0, |cur| kinship(content, &cur.text));
    let then = ctx
        .baseline()
        .and_then(|b| b.text(&g.real_rel))
        .map_or(0.0, |base| kinship(content, &base));
    now.max(then)
}

/// The share of `block`'s meaningful lines (trimmed, holding a letter or digit) that `file` has,
/// each file line counted once.
pub(super) fn kinship(block: &str, file: &str) -> f64 {
    let meaningful = |l: &str| l.chars().any(char::is_alphanumeric);
    let mut have: HashMap<&str, usize> = HashMap::new();
    for l in file.lines().map(str::trim).filter(|l| meaningful(l)) {
        *have.entry(l).or_default() += 1;
    }
    let (mut total, mut found) = (0usize, 0usize);
    for l in block.lines().map(str::trim).filter(|l| meaningful(l)) {
        total += 1;
        if let Some(n) = have.get_mut(l).filter(|n| **n > 0) {
            *n -= 1;
            found += 1;
        }
    }
    if total == 0 {
        return 0.0;
    }
    found as f64 / total as f64
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::{bare_name_is_sure, kinship, loose_path_is_sure};
    use salve_patch::{FileChange, FileEdit, Format};

    fn whole(path: &str, content: &str) -> FileEdit {
        FileEdit {
            path: path.into(),
            change: FileChange::Replace {
                content: content.into(),
                final_newline: true,
            },
            format: Format::WholeFile,
            mode: None,
        }
    }

    #[test]
    fn a_bare_name_is_sure_only_for_its_own_file_and_content() {
        let dir = tempfile::tempdir().unwrap();
        let file = "Authors\n\n- Ann Lee\n- Bo Chen\n- Cy Diaz\n- Di Eng\n";
        std::fs::write(dir.path().join("AUTHORS"), file).unwrap();
        std::fs::create_dir(dir.path().join("docs")).unwrap();
        std::fs::write(dir.path().join("docs/NOTES"), file).unwrap();
        let root = dir.path();
        assert!(bare_name_is_sure(
            root,
            &whole("AUTHORS", &format!("{file}- Ed Fox\n"))
        ));
        // A snippet to add, or other text: not that file's whole content.
        assert!(!bare_name_is_sure(root, &whole("AUTHORS", "- Ed Fox\n")));
        assert!(!bare_name_is_sure(
            root,
            &whole("AUTHORS", "Contributors\n- Gil Hu\n- Ida Jo\n")
        ));
        // No file at exactly that path: a bare name never moves or creates.
        assert!(!bare_name_is_sure(root, &whole("NOTES", file)));
        assert!(!bare_name_is_sure(root, &whole("MISSING", file)));
    }

    #[test]
    fn a_loose_path_is_sure_where_the_tree_confirms_it() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("src/app/(shop)/[id]")).unwrap();
        std::fs::write(root.join("src/app/(shop)/[id]/page.tsx"), "x\n").unwrap();
        let sure =
            |p: &str, others: &[FileEdit]| loose_path_is_sure(root, &whole(p, "y\n"), others);
        assert!(sure("src/app/(shop)/[id]/page.tsx", &[]));
        assert!(sure("src/app/(shop)/[id]/layout.tsx", &[]));
        assert!(!sure("src/app/(cart)/[id]/page.tsx", &[]));
        assert!(sure(
            "src/app/(cart)/[id]/page.tsx",
            &[whole("src/app/(cart)/[id]/layout.tsx", "z\n")]
        ));
        assert!(!sure("../outside/a b.md", &[]));
    }

    #[test]
    fn kinship_counts_the_block_lines_the_file_has() {
        let file = "fn a() {\n    one();\n}\nfn b() {\n    two();\n}\n";
        assert!(
            (kinship("fn a() {\n    one();\n    three();\n}\n", file) - 2.0 / 3.0).abs() < 1e-9
        );
        assert_eq!(kinship("fn a() {\n}\nfn a() {\n}\n", file), 0.5);
        assert_eq!(kinship("unrelated text\nentirely\n", file), 0.0);
        assert_eq!(kinship("}\n\n", file), 0.0);
    }
}
