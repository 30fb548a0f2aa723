//! One placement per region, in file order: the regions of a snippet go where their anchors
//! say, each after the one before. Several regions may each fit in more than one place and
//! still leave one order that works; only when exactly one does is the snippet placed.

use super::anchor::{Placement, Span};

/// What the regions' placements allow.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Chain {
    /// Exactly one placement per region fits in order.
    One(Vec<Placement>),
    /// No placements fit in order (each region fits somewhere, but not one after the other).
    OutOfOrder,
    /// Several orders fit: per region, the placements that take part in at least one.
    Many(Vec<Vec<Placement>>),
}

/// Counts of chains, saturating at two: one or more than one is all that matters.
fn add(a: u8, b: u8) -> u8 {
    a.saturating_add(b).min(2)
}

/// The chains through `options` (one list of placements per region, in snippet order).
pub(crate) fn choose(options: &[Vec<Placement>]) -> Chain {
    let n = options.len();
    if n == 0 {
        return Chain::One(Vec::new());
    }
    // fwd[k][i]: chains of regions 0..=k that end with placement i of region k.
    let mut fwd: Vec<Vec<u8>> = vec![vec![1; options[0].len()]];
    for k in 1..n {
        let row = options[k]
            .iter()
            .map(|p| {
                options[k - 1]
                    .iter()
                    .zip(&fwd[k - 1])
                    .filter(|(q, _)| q.end <= p.start)
                    .fold(0, |acc, (_, &c)| add(acc, c))
            })
            .collect();
        fwd.push(row);
    }
    // bwd[k][i]: chains of regions k..n that start with placement i of region k.
    let mut bwd: Vec<Vec<u8>> = vec![Vec::new(); n];
    bwd[n - 1] = vec![1; options[n - 1].len()];
    for k in (0..n - 1).rev() {
        bwd[k] = options[k]
            .iter()
            .map(|p| {
                options[k + 1]
                    .iter()
                    .zip(&bwd[k + 1])
                    .filter(|(q, _)| p.end <= q.start)
                    .fold(0, |acc, (_, &c)| add(acc, c))
            })
            .collect();
    }
    let total = fwd[n - 1].iter().fold(0, |acc, &c| add(acc, c));
    match total {
        0 => Chain::OutOfOrder,
        1 => Chain::One(
            (0..n)
                .filter_map(|k| {
                    (0..options[k].len())
                        .find(|&i| fwd[k][i] > 0 && bwd[k][i] > 0)
                        .map(|i| options[k][i])
                })
                .collect(),
        ),
        _ => Chain::Many(
            (0..n)
                .map(|k| {
                    (0..options[k].len())
                        .filter(|&i| fwd[k][i] > 0 && bwd[k][i] > 0)
                        .map(|i| options[k][i])
                        .collect()
                })
                .collect(),
        ),
    }
}

/// Whether a reading left out of some region's `options` (`left_out[k]`, spans of file lines)
/// could take its place in the snippet's order: some chain through the other regions' readings
/// holds it. One that could not is no reading of this snippet, whatever the region alone says.
pub(crate) fn any_in_order(options: &[Vec<Placement>], left_out: &[Vec<Span>]) -> bool {
    let n = options.len();
    // earliest[k]: the earliest end of region k in a chain of regions 0..=k; latest[k]: the
    // latest start of region k in a chain of regions k..n (`None`: no such chain). A span fits
    // where the regions before it can end by its start and those after it start after its end.
    let mut earliest: Vec<Option<usize>> = Vec::with_capacity(n);
    for (k, opts) in options.iter().enumerate() {
        let from = if k == 0 { Some(0) } else { earliest[k - 1] };
        earliest.push(from.and_then(|b| opts.iter().filter(|p| p.start >= b).map(|p| p.end).min()));
    }
    let mut latest: Vec<Option<usize>> = vec![None; n];
    for k in (0..n).rev() {
        let to = if k + 1 == n {
            Some(usize::MAX)
        } else {
            latest[k + 1]
        };
        latest[k] = to.and_then(|b| {
            options[k]
                .iter()
                .filter(|p| p.end <= b)
                .map(|p| p.start)
                .max()
        });
    }
    left_out.iter().enumerate().any(|(k, spans)| {
        let before = if k == 0 { Some(0) } else { earliest[k - 1] };
        let after = if k + 1 == n {
            Some(usize::MAX)
        } else {
            latest[k + 1]
        };
        spans.iter().any(|&(start, end)| {
            before.is_some_and(|b| b <= start) && after.is_some_and(|a| end <= a)
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::snippet::anchor::How;

    fn at(start: usize, end: usize) -> Placement {
        Placement {
            start,
            end,
            head: 1,
            tail: 1,
            how: How::Exact,
        }
    }

    #[test]
    fn order_settles_a_region_that_fits_twice() {
        let options = vec![vec![at(0, 3), at(10, 13)], vec![at(5, 8)]];
        assert_eq!(choose(&options), Chain::One(vec![at(0, 3), at(5, 8)]));
    }

    #[test]
    fn out_of_order_and_several_orders_are_told_apart() {
        assert_eq!(
            choose(&[vec![at(10, 12)], vec![at(0, 3)]]),
            Chain::OutOfOrder
        );
        let Chain::Many(alive) = choose(&[vec![at(0, 2), at(4, 6)], vec![at(8, 9)]]) else {
            panic!("two orders fit");
        };
        assert_eq!(alive[0].len(), 2);
        assert_eq!(alive[1].len(), 1);
    }

    #[test]
    fn a_span_left_out_fits_only_between_the_regions_around_it() {
        let options = vec![
            vec![at(0, 3)],
            vec![at(10, 13), at(20, 23)],
            vec![at(30, 33)],
        ];
        // Region 1 may end by 13 and region 2 start at 30: (5, 25) for region 1 fits between.
        assert!(any_in_order(&options, &[vec![], vec![(5, 25)], vec![]]));
        // Starting before region 0 ends, or ending after region 2 starts, it does not.
        assert!(!any_in_order(&options, &[vec![], vec![(2, 8)], vec![]]));
        assert!(!any_in_order(&options, &[vec![], vec![(12, 31)], vec![]]));
        // Region 2's span after region 1's earliest end, region 0's before its latest start.
        assert!(any_in_order(&options, &[vec![], vec![], vec![(13, 40)]]));
        assert!(any_in_order(&options, &[vec![(0, 20)], vec![], vec![]]));
        assert!(!any_in_order(&options, &[vec![(0, 21)], vec![], vec![]]));
    }
}
