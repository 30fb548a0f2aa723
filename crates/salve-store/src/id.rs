//! Run ids: 20 lowercase hex digits, the first 12 the start time in milliseconds and the last 8
//! random, so ids sort by time (newest last) and two processes starting in the same millisecond
//! still differ. On the command line any unique prefix names a run; listings print the shortest
//! unique prefix, never fewer than [`MIN_PREFIX`] digits.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::time::Timestamp;

/// Length of a full run id.
pub const ID_LEN: usize = 20;
/// The fewest digits a listing prints, as git does for commits.
pub const MIN_PREFIX: usize = 7;

/// A fresh id for a run started at `at`.
pub fn new_run_id(at: Timestamp) -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    // RandomState is seeded per process from the OS; mixing in the pid, the time and a counter
    // keeps ids distinct across processes and within one.
    let mut h = RandomState::new().build_hasher();
    h.write_u32(std::process::id());
    h.write_i64(at.0);
    h.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    if let Ok(d) = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) {
        h.write_u32(d.subsec_nanos());
    }
    let random = h.finish() & 0xffff_ffff;
    let time = (at.0.max(0) as u64) & 0xffff_ffff_ffff;
    format!("{time:012x}{random:08x}")
}

/// A well-formed id prefix: 1 to 20 hex digits, lowercased.
pub fn normalize_prefix(text: &str) -> Option<String> {
    let t = text.trim();
    if t.is_empty() || t.len() > ID_LEN || !t.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    Some(t.to_ascii_lowercase())
}

/// The shortest prefix of `id` that no neighbour shares, given its neighbours in sorted order.
pub fn unique_prefix(id: &str, before: Option<&str>, after: Option<&str>) -> String {
    let common = |other: Option<&str>| {
        other.map_or(0, |o| {
            id.bytes()
                .zip(o.bytes())
                .take_while(|(a, b)| a == b)
                .count()
        })
    };
    let len = (common(before).max(common(after)) + 1)
        .max(MIN_PREFIX)
        .min(id.len());
    id[..len].to_owned()
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn ids_sort_by_time_and_differ() {
        let a = new_run_id(Timestamp(1_000));
        let b = new_run_id(Timestamp(1_000));
        let c = new_run_id(Timestamp(2_000));
        assert_eq!(a.len(), ID_LEN);
        assert_ne!(a, b);
        assert!(a < c && b < c);
        assert!(a.starts_with("0000000003e8"));
    }

    #[test]
    fn prefixes() {
        assert_eq!(normalize_prefix("ABC12"), Some("abc12".to_owned()));
        assert_eq!(normalize_prefix("xyz"), None);
        assert_eq!(normalize_prefix(""), None);
        let id = "0192aabbccdd11223344";
        assert_eq!(unique_prefix(id, None, None), "0192aab");
        assert_eq!(
            unique_prefix(id, Some("0192aabbcc0000000000"), None),
            "0192aabbccd"
        );
        assert_eq!(
            unique_prefix(id, None, Some("0192aabbccdd11223345")),
            id.to_owned()
        );
    }
}
