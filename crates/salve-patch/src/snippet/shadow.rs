//! Shorter anchors nearer in: the other readings of a placed region.
//!
//! A region's unchanged run at its end may be a single line (`}`) where it is meant, while the
//! lines the region adds before it are like the file's own further on, so that there the run
//! is longer. The longer run is found as an anchor, the place meant is not (one line is no
//! anchor), and merging there would replace the code in between. So every placement is checked
//! for a nearer end: a place between its anchors where the region's last line stands too and
//! the region fits as well (likewise a nearer start for its first line). Such a place is
//! another reading of the snippet, added as a candidate: the region is then ambiguous and is
//! refused with both places, never merged over the code between them.

use super::anchor::{backward, forward, placement, same, unexplained, Placement, MAX_UNEXPLAINED};
use super::marker::Region;
use crate::text::Doc;

/// The readings of `region` with a nearer end or start than one of `placed`.
pub(super) fn nearer(doc: &Doc, region: &Region, placed: &[Placement]) -> Vec<Placement> {
    let r = &region.lines;
    let m = r.len();
    let mut out: Vec<Placement> = Vec::new();
    let push = |q: Placement, out: &mut Vec<Placement>| {
        if !placed.contains(&q) && !out.contains(&q) {
            out.push(q);
        }
    };
    for p in placed {
        if region.trail && p.tail > 0 {
            // Ends nearer in than `p.end`, after the head.
            for e in p.start + p.head + 1..p.end {
                if !same(r[m - 1], doc.line(e - 1)) {
                    continue;
                }
                let t = backward(doc, r, e).min(m - p.head).max(1);
                if e < p.start + p.head + t {
                    continue;
                }
                if unexplained(doc, r, p.start, e, p.head, t) <= MAX_UNEXPLAINED {
                    push(placement(doc, r, p.start, e, p.head, t), &mut out);
                }
            }
        }
        if region.lead && p.head > 0 {
            // Starts nearer in than `p.start`, before the tail.
            for s in p.start + 1..p.end.saturating_sub(p.tail) {
                if !same(r[0], doc.line(s)) {
                    continue;
                }
                let h = forward(doc, r, s).min(m - p.tail).max(1);
                if s + h + p.tail > p.end {
                    continue;
                }
                if unexplained(doc, r, s, p.end, h, p.tail) <= MAX_UNEXPLAINED {
                    push(placement(doc, r, s, p.end, h, p.tail), &mut out);
                }
            }
        }
    }
    out
}
