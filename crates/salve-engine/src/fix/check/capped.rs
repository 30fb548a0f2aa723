//! A byte buffer that keeps the head and the tail of a stream and counts what it cut between
//! them: the start of a build log says what ran, its end says why it failed.

use std::collections::VecDeque;

/// Keeps at most `cap` bytes: the first half as they came, the last half as a sliding window.
#[derive(Clone, Debug)]
pub(crate) struct Capped {
    cap: usize,
    head: Vec<u8>,
    tail: VecDeque<u8>,
    total: u64,
}

impl Capped {
    pub(crate) fn new(cap: usize) -> Capped {
        Capped {
            cap,
            head: Vec::new(),
            tail: VecDeque::new(),
            total: 0,
        }
    }

    /// Every byte pushed so far, kept or not.
    pub(crate) fn total(&self) -> u64 {
        self.total
    }

    pub(crate) fn push(&mut self, mut bytes: &[u8]) {
        self.total += bytes.len() as u64;
        let head_cap = self.cap / 2;
        if self.head.len() < head_cap {
            let take = bytes.len().min(head_cap - self.head.len());
            self.head.extend_from_slice(&bytes[..take]);
            bytes = &bytes[take..];
        }
        let tail_cap = self.cap - head_cap;
        if bytes.len() >= tail_cap {
            self.tail.clear();
            self.tail.extend(&bytes[bytes.len() - tail_cap..]);
            return;
        }
        self.tail.extend(bytes);
        if self.tail.len() > tail_cap {
            let excess = self.tail.len() - tail_cap;
            self.tail.drain(..excess);
        }
    }

    /// The kept bytes; when some were cut, a `… N bytes cut …` line stands between head and
    /// tail, which are trimmed to whole lines so neither starts or ends mid-line.
    pub(crate) fn into_bytes(self) -> Vec<u8> {
        let Capped {
            mut head,
            tail,
            total,
            ..
        } = self;
        let mut tail: Vec<u8> = tail.into();
        let kept = (head.len() + tail.len()) as u64;
        if kept == total {
            head.extend_from_slice(&tail);
            return head;
        }
        // Whole lines read better; give up the partial ones unless that would drop everything.
        if let Some(end) = head.iter().rposition(|&b| b == b'\n') {
            head.truncate(end + 1);
        }
        if let Some(start) = tail.iter().position(|&b| b == b'\n') {
            if start + 1 < tail.len() {
                tail.drain(..=start);
            }
        }
        let cut = total - (head.len() + tail.len()) as u64;
        if !head.is_empty() && !head.ends_with(b"\n") {
            head.push(b'\n');
        }
        head.extend_from_slice(format!("… {cut} bytes cut …\n").as_bytes());
        head.extend_from_slice(&tail);
        head
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn capped(cap: usize, chunks: &[&str]) -> String {
        let mut c = Capped::new(cap);
        for chunk in chunks {
            c.push(chunk.as_bytes());
        }
        String::from_utf8_lossy(&c.into_bytes()).into_owned()
    }

    #[test]
    fn under_the_cap_everything_is_kept() {
        assert_eq!(capped(100, &["a\n", "b\n"]), "a\nb\n");
    }

    #[test]
    fn over_the_cap_head_and_tail_are_kept_in_whole_lines() {
        let lines: Vec<String> = (0..100).map(|i| format!("line {i:02}\n")).collect();
        let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
        let out = capped(40, &refs);
        assert!(out.starts_with("line 00\nline 01\n…"), "{out}");
        assert!(out.ends_with("line 98\nline 99\n"), "{out}");
        let cut: usize = out
            .lines()
            .find_map(|l| l.strip_prefix("… "))
            .and_then(|l| l.split(' ').next())
            .and_then(|n| n.parse().ok())
            .unwrap_or(0);
        let kept = out.lines().filter(|l| l.starts_with("line")).count() * 8;
        assert_eq!(cut + kept, 800);
    }

    #[test]
    fn one_huge_chunk_keeps_its_end() {
        let big = "x".repeat(1000) + "\nend\n";
        let out = capped(20, &[&big]);
        assert!(out.ends_with("\nend\n"), "{out}");
    }
}
