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
        if region.trail {
            // Ends nearer in than `p.end`, after the first line.
            for e in p.start + 1..p.end {
                if !same(r[m - 1], doc.line(e - 1)) {
                    continue;
                }
                let t = backward(doc, r, e).min(m - 1).max(1);
                let h = p.head.min(m - t).min((e - p.start).saturating_sub(t));
                if (region.lead && h == 0) || e < p.start + h + t {
                    continue;
                }
                if unexplained(doc, r, p.start, e, h, t) <= MAX_UNEXPLAINED {
                    push(placement(doc, r, p.start, e, h, t), &mut out);
                }
            }
        }
        if region.lead {
            // Starts nearer in than `p.start`, before the last line.
            for s in p.start + 1..p.end {
                if !same(r[0], doc.line(s)) {
                    continue;
                }
                let h = forward(doc, r, s).min(m - 1).max(1);
                let t = p.tail.min(m - h).min((p.end - s).saturating_sub(h));
                if (region.trail && t == 0) || s + h + t > p.end {
                    continue;
                }
                if unexplained(doc, r, s, p.end, h, t) <= MAX_UNEXPLAINED {
                    push(placement(doc, r, s, p.end, h, t), &mut out);
                }
            }
        }
    }
    out
}
