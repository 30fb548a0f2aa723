//! Splitting a text into lines: the first pass over every byte of a file, once per apply, so it
//! is branch-free per line and runs in two halves on two threads for a large text.

/// Texts at least this large are split in two halves at once.
pub(super) const SPLIT_BYTES: usize = 1 << 20;

/// Slots written past the last line start found so far (see [`line_starts`]): four, since a
/// 64-byte block of code holds about two lines (eight cost a tenth more time on sqlite3.c).
const SLACK: usize = 4;

/// Every line start of `bytes`, and how many lines end in CRLF. A large text is split in two
/// halves on two threads, cut just after a newline (so no CRLF straddles the cut). Both halves
/// write into one buffer sized by a count of the newlines beforehand: a buffer per half joined
/// afterwards cost a copy of the upper half and a page fault for every page of it.
pub(super) fn split_lines<T: Copy + Default + Send>(
    bytes: &[u8],
    at: impl Fn(usize) -> T + Sync,
) -> (Vec<T>, usize) {
    split_lines_visiting(bytes, at, &mut |_, _| {}, &mut |_, _| {})
}

/// Lines handed to a visitor of [`split_lines_visiting`] at a time: their bytes were just read
/// and are still in cache (4 KiB of text, about a hundred lines of code).
const VISIT_BLOCKS: usize = 64;

/// A pass over the lines a split finds, called as they are found: `(starts, first)` gives the
/// starts of lines `first..first + starts.len() - 1`, each line's end being the next start
/// less its newline; the last start only ends the line before it.
pub(crate) type Visit<'v, T> = dyn FnMut(&[T], usize) + Send + 'v;

/// [`split_lines`], with `lower` and `upper` shown the lines of each half as the split finds
/// them, while their bytes are in cache (see [`Visit`]). Every line that a later start ends is
/// shown once, in order, to the visitor of its half; the text's last line, when no newline ends
/// it, is not. A text split in one piece is shown to `lower` alone.
pub(super) fn split_lines_visiting<T: Copy + Default + Send>(
    bytes: &[u8],
    at: impl Fn(usize) -> T + Sync,
    lower_visit: &mut Visit<'_, T>,
    upper_visit: &mut Visit<'_, T>,
) -> (Vec<T>, usize) {
    let crlf = |r: std::ops::Range<usize>| memchr::memmem::find_iter(&bytes[r], b"\r\n").count();
    let len = bytes.len();
    let mid = match memchr::memchr(b'\n', &bytes[len / 2..]) {
        Some(p) if len >= SPLIT_BYTES => len / 2 + p + 1,
        _ => len,
    };
    let newlines = |r: std::ops::Range<usize>| memchr::memchr_iter(b'\n', &bytes[r]).count();
    // The first line starts at 0; every newline starts one more (a final one is cut below).
    let first = usize::from(!bytes.is_empty());
    let lower = first + newlines(0..mid);
    let upper = newlines(mid..len);
    let mut starts = vec![T::default(); lower + upper + SLACK];
    let crlf = if mid < len {
        let (low, high) = starts.split_at_mut(lower);
        // `both` may call its first closure from another thread, so the lower half's slots
        // are lent to it through a lock (taken once).
        let low = std::sync::Mutex::new((low, lower_visit));
        let (lower_crlf, upper_crlf) = salve_concurrent::both(
            || {
                let mut guard = low.lock().unwrap_or_else(|e| e.into_inner());
                let (low, visit) = &mut *guard;
                line_starts(bytes, 0..mid, &at, low, 0, visit);
                crlf(0..mid)
            },
            || {
                // The line the lower half's last start begins (at `mid`) ends in this half:
                // shown here, first.
                if let Some(p) = memchr::memchr(b'\n', &bytes[mid..len]) {
                    upper_visit(&[at(mid), at(mid + p + 1)], lower - 1);
                }
                line_starts(bytes, mid..len, &at, high, lower, upper_visit);
                crlf(mid..len)
            },
        );
        lower_crlf + upper_crlf
    } else {
        line_starts(bytes, 0..len, &at, &mut starts, 0, lower_visit);
        crlf(0..len)
    };
    starts.truncate(lower + upper);
    // A final newline ends the last line; it starts none.
    if bytes.last() == Some(&b'\n') {
        starts.pop();
    }
    (starts, crlf)
}

/// Writes the line starts `bytes[range]` holds into `out` (which has room for them all):
/// `range.start` itself when it is 0 (the text's first line), then the offset after every
/// newline in it. This is the first pass over every byte of a file, so it avoids a branch per
/// line: newlines are found 64 bytes at a time as a bit mask, and starts are written [`SLACK`]
/// at a time whatever the mask holds (the extra slots are overwritten later), so only a block
/// with more lines than that loops. Near the end of `out`, where the slots may not fit, starts
/// are written one at a time.
///
/// `visit` is shown the lines found as it goes (see [`Visit`]); `first` is the index of the line
/// `out[0]` starts. The last line found, which no start of this range ends, is not shown.
fn line_starts<T: Copy>(
    bytes: &[u8],
    range: std::ops::Range<usize>,
    at: impl Fn(usize) -> T,
    out: &mut [T],
    first: usize,
    visit: &mut Visit<'_, T>,
) {
    let part = &bytes[range.clone()];
    let mut n = 0;
    if range.start == 0 && !bytes.is_empty() {
        out[0] = at(0);
        n = 1;
    }
    let mut blocks = part.chunks_exact(64);
    let mut base = range.start;
    // Lines before `shown` were shown to `visit`.
    let mut shown = 0;
    for (b, block) in (&mut blocks).enumerate() {
        if b % VISIT_BLOCKS == VISIT_BLOCKS - 1 && n > shown + 1 {
            visit(&out[shown..n], first + shown);
            shown = n - 1;
        }
        let mut mask = newline_mask(block);
        let count = mask.count_ones() as usize;
        if n + count.next_multiple_of(SLACK) <= out.len() {
            let mut written = 0;
            while written < count {
                for slot in &mut out[n + written..n + written + SLACK] {
                    *slot = at(base + mask.trailing_zeros() as usize + 1);
                    mask &= mask.wrapping_sub(1);
                }
                written += SLACK;
            }
        } else {
            for slot in &mut out[n..n + count] {
                *slot = at(base + mask.trailing_zeros() as usize + 1);
                mask &= mask.wrapping_sub(1);
            }
        }
        n += count;
        base += 64;
    }
    for (i, &b) in blocks.remainder().iter().enumerate() {
        if b == b'\n' {
            out[n] = at(base + i + 1);
            n += 1;
        }
    }
    if n > shown + 1 {
        visit(&out[shown..n], first + shown);
    }
}

/// Bit `i` set where `block[i]` is a newline.
fn newline_mask(block: &[u8]) -> u64 {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    const NL: u64 = 0x0a0a_0a0a_0a0a_0a0a;
    // Multiplying one bit per byte by this gathers byte i's bit into bit 56 + i.
    const GATHER: u64 = 0x0102_0408_1020_4080;
    let mut mask = 0u64;
    for (k, word) in block.chunks_exact(8).enumerate() {
        let mut w = [0u8; 8];
        w.copy_from_slice(word);
        let x = u64::from_le_bytes(w) ^ NL;
        // The high bit of each byte is set exactly where that byte of `x` is zero, and no
        // other bit is.
        let zero = !(((x & LOW7).wrapping_add(LOW7)) | x | LOW7);
        let bits = (zero >> 7).wrapping_mul(GATHER) >> 56;
        mask |= bits << (8 * k);
    }
    mask
}

#[cfg(test)]
mod tests {
    use super::SPLIT_BYTES;
    use crate::text::Doc;

    /// The two halves of a large text write into one buffer, the lower half up to its last
    /// slot: runs of newlines dense enough to fill whole 64-byte blocks end it in every
    /// alignment, and random lines elsewhere.
    #[test]
    fn halves_filling_one_buffer_split_like_a_scan() {
        let seed = 2512u64;
        eprintln!("seed {seed}");
        let mut rng = crate::test_rng::SeededRng::new(seed);
        let mut next = move |n: u64| rng.below_u64(n);
        for case in 0..12 {
            let mut text = String::new();
            while text.len() < SPLIT_BYTES + 4096 {
                match next(4) {
                    0 => text.push_str(&"\n".repeat(next(150) as usize)),
                    1 => text.push_str("\r\n"),
                    _ => {
                        text.push_str(&"y".repeat(next(90) as usize));
                        text.push('\n');
                    }
                }
            }
            // Around the cut, newlines only, then one long line over the middle that the cut
            // ends: the lower half's last block then has a few starts left to write, at an
            // alignment that moves with the case.
            let half = text.len() / 2;
            let long = 80 + 13 * case;
            let around = format!(
                "{}{}{}",
                "\n".repeat(300 - long / 2),
                "z".repeat(long),
                "\n".repeat(300 + long / 2 - long)
            );
            text.replace_range(half - 300..half + 300, &around);
            if case % 2 == 1 {
                text.push_str("no final newline");
            }
            let d = Doc::parse(&text);
            let expect: Vec<&str> = text.split_inclusive('\n').collect();
            let got: Vec<&str> = (0..d.len()).map(|i| d.line_with_eol(i)).collect();
            assert!(got == expect, "seed {seed} case {case}");
        }
    }
}
