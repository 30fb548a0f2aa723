//! Delete checkpoint refs, by id or by age.
//!
//! Deletion is one `update-ref --stdin` transaction with each ref's expected value, so a ref
//! that changed meanwhile is not deleted. The commits stay in the object store until git's own
//! garbage collection finds them unreachable.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::checkpoint::{find, list, ref_name, Checkpoint, FindError};
use crate::cmd::GitError;
use crate::repo::Repo;

/// Which checkpoints to delete.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Selection {
    /// One checkpoint, by id or unique prefix.
    Id(String),
    /// Every checkpoint older than this.
    OlderThan(Duration),
}

#[derive(Clone, Debug, Default)]
pub struct Outcome {
    pub dropped: Vec<Checkpoint>,
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Git(#[from] GitError),
    #[error(transparent)]
    Find(#[from] FindError),
}

/// Delete the selected checkpoint refs.
pub fn drop(repo: &Repo, selection: &Selection) -> Result<Outcome, Error> {
    let doomed: Vec<Checkpoint> = match selection {
        Selection::Id(spec) => {
            let found = find(repo, spec)?;
            if !found.has_ref {
                return Err(FindError::NotFound(spec.clone()).into());
            }
            vec![found]
        }
        Selection::OlderThan(age) => {
            let now = SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_secs());
            let cutoff = now.saturating_sub(age.as_secs());
            list(repo, &list::Options::default())?
                .into_iter()
                .filter(|c| u64::try_from(c.time).unwrap_or(0) < cutoff)
                .collect()
        }
    };
    if doomed.is_empty() {
        return Ok(Outcome::default());
    }
    let mut script = Vec::new();
    for checkpoint in &doomed {
        script.extend_from_slice(b"delete ");
        script.extend_from_slice(ref_name(&checkpoint.id).as_bytes());
        script.push(0);
        script.extend_from_slice(checkpoint.commit.as_bytes());
        script.push(0);
    }
    repo.git()
        .args(["update-ref", "--stdin", "-z"])
        .stdin(script)
        .run_bytes()?;
    Ok(Outcome { dropped: doomed })
}

/// `30s`, `15m`, `12h`, `7d`, `2w`, or a sum such as `1d12h`.
pub fn parse_duration(text: &str) -> Option<Duration> {
    let text = text.trim();
    if text.is_empty() {
        return None;
    }
    let mut total: u64 = 0;
    let mut number = String::new();
    for c in text.chars() {
        if c.is_ascii_digit() {
            number.push(c);
            continue;
        }
        let unit = match c {
            's' => 1,
            'm' => 60,
            'h' => 3_600,
            'd' => 86_400,
            'w' => 604_800,
            _ => return None,
        };
        let value: u64 = number.parse().ok()?;
        total = total.checked_add(value.checked_mul(unit)?)?;
        number.clear();
    }
    if !number.is_empty() {
        return None;
    }
    Some(Duration::from_secs(total))
}

#[cfg(test)]
mod tests {
    use super::parse_duration;
    use std::time::Duration;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("30s"), Some(Duration::from_secs(30)));
        assert_eq!(parse_duration("7d"), Some(Duration::from_secs(604_800)));
        assert_eq!(parse_duration("1d12h"), Some(Duration::from_secs(129_600)));
        assert_eq!(parse_duration("2w"), Some(Duration::from_secs(1_209_600)));
        assert_eq!(parse_duration("12"), None);
        assert_eq!(parse_duration("d"), None);
        assert_eq!(parse_duration("3y"), None);
        assert_eq!(parse_duration(""), None);
    }
}
