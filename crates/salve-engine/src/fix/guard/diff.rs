//! A small reader for the unified diffs the guard inspects: git's format as
//! [`salve_patch::unified_diff`] writes it (and `git diff` prints), plus bare `---`/`+++` diffs.
//! Hunk lengths from the `@@` headers decide where a hunk ends, so a removed line that reads
//! `-- x` is never mistaken for a file header.

/// One side of a changed line, with its line number on that side.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Line {
    /// Unchanged: old and new line numbers.
    Context {
        old: u32,
        new: u32,
        text: String,
    },
    Removed {
        old: u32,
        text: String,
    },
    Added {
        new: u32,
        text: String,
    },
}

/// One hunk, lines in diff order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Hunk {
    pub old_start: u32,
    pub new_start: u32,
    pub lines: Vec<Line>,
}

/// One file's change. `old`/`new` are `None` for a created/deleted file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct FileDiff {
    pub old: Option<String>,
    pub new: Option<String>,
    pub hunks: Vec<Hunk>,
}

impl FileDiff {
    /// The path findings name: the new one, or the old one for a deletion.
    pub fn path(&self) -> &str {
        self.new.as_deref().or(self.old.as_deref()).unwrap_or("")
    }

    pub fn is_deleted(&self) -> bool {
        self.new.is_none() && self.old.is_some()
    }
}

/// Every file of `diff`, in order. Lines the reader does not understand are skipped: the guard
/// looks for what it can see, it does not validate.
pub(crate) fn parse(diff: &str) -> Vec<FileDiff> {
    let mut files: Vec<FileDiff> = Vec::new();
    // True between `diff --git` and that file's `---` line or first hunk: a `---` there refines
    // the file; anywhere else it starts a bare diff's file.
    let mut in_git_header = false;
    let mut lines = diff.lines().peekable();
    while let Some(line) = lines.next() {
        if let Some(rest) = line.strip_prefix("diff --git ") {
            files.push(git_header(rest));
            in_git_header = true;
        } else if let Some(rest) = line.strip_prefix("--- ") {
            if !in_git_header {
                files.push(FileDiff::default());
            }
            in_git_header = false;
            if let Some(f) = files.last_mut() {
                f.old = side(rest, "a/");
                if let Some(next) = lines.next_if(|l| l.starts_with("+++ ")) {
                    f.new = side(&next[4..], "b/");
                }
            }
        } else if line.starts_with("@@") {
            in_git_header = false;
            if let (Some(f), Some((old_start, old_len, new_start, new_len))) =
                (files.last_mut(), hunk_header(line))
            {
                let hunk = read_hunk(&mut lines, old_start, old_len, new_start, new_len);
                f.hunks.push(hunk);
            }
        } else if in_git_header {
            if let Some(f) = files.last_mut() {
                extended_header(f, line);
            }
        }
    }
    files
}

/// git's extended header lines between `diff --git` and `---`.
fn extended_header(f: &mut FileDiff, line: &str) {
    if let Some(rest) = line.strip_prefix("rename from ") {
        f.old = Some(rest.to_owned());
    } else if let Some(rest) = line.strip_prefix("rename to ") {
        f.new = Some(rest.to_owned());
    } else if line.starts_with("deleted file mode") {
        f.new = None;
    } else if line.starts_with("new file mode") {
        f.old = None;
    }
}

/// The `diff --git a/X b/Y` line. Paths with spaces are split at ` b/`, which is right for every
/// path that does not itself contain ` b/`.
fn git_header(rest: &str) -> FileDiff {
    let (old, new) = match rest.split_once(" b/") {
        Some((a, b)) => (a.strip_prefix("a/").unwrap_or(a), b),
        None => (rest, rest),
    };
    FileDiff {
        old: Some(old.to_owned()),
        new: Some(new.to_owned()),
        hunks: Vec::new(),
    }
}

/// A path on a `---`/`+++` line: `None` for `/dev/null`, the `a/`/`b/` prefix dropped, a
/// trailing tab-separated timestamp (GNU diff) dropped.
fn side(raw: &str, prefix: &str) -> Option<String> {
    let raw = raw.split('\t').next().unwrap_or(raw).trim_end();
    if raw == "/dev/null" {
        return None;
    }
    Some(raw.strip_prefix(prefix).unwrap_or(raw).to_owned())
}

/// `@@ -a,b +c,d @@`: starts and lengths (a missing length is 1).
fn hunk_header(line: &str) -> Option<(u32, u32, u32, u32)> {
    let mut parts = line.split_whitespace().skip(1);
    let old = parts.next()?.strip_prefix('-')?;
    let new = parts.next()?.strip_prefix('+')?;
    let range = |r: &str| -> Option<(u32, u32)> {
        match r.split_once(',') {
            Some((s, l)) => Some((s.parse().ok()?, l.parse().ok()?)),
            None => Some((r.parse().ok()?, 1)),
        }
    };
    let (os, ol) = range(old)?;
    let (ns, nl) = range(new)?;
    Some((os, ol, ns, nl))
}

fn read_hunk<'a>(
    lines: &mut std::iter::Peekable<impl Iterator<Item = &'a str>>,
    old_start: u32,
    old_len: u32,
    new_start: u32,
    new_len: u32,
) -> Hunk {
    let mut hunk = Hunk {
        old_start,
        new_start,
        lines: Vec::new(),
    };
    let (mut old, mut new) = (old_start, new_start);
    let (mut old_left, mut new_left) = (old_len, new_len);
    while old_left > 0 || new_left > 0 {
        let Some(line) = lines.next_if(|l| !l.starts_with("diff --git ")) else {
            break;
        };
        let (mark, text) = line.split_at(line.len().min(1));
        let text = text.to_owned();
        match mark {
            "+" if new_left > 0 => {
                hunk.lines.push(Line::Added { new, text });
                new += 1;
                new_left -= 1;
            }
            "-" if old_left > 0 => {
                hunk.lines.push(Line::Removed { old, text });
                old += 1;
                old_left -= 1;
            }
            // `\ No newline at end of file` belongs to the line before it.
            "\\" => {}
            // A context line; an empty line is a context line whose space was stripped.
            " " | "" => {
                hunk.lines.push(Line::Context { old, new, text });
                old += 1;
                new += 1;
                old_left = old_left.saturating_sub(1);
                new_left = new_left.saturating_sub(1);
            }
            _ => break,
        }
    }
    hunk
}
