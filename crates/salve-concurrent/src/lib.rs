//! Running two independent pieces of work at once.
//!
//! Most of salve's git latency is process start-up (about a millisecond per call), not work, so
//! git calls that do not need each other's answers are started together rather than one after
//! another; and the passes over every byte of a large file run in two halves on the two cores a
//! machine usually has. Callers keep their own error order: both results come back, and the
//! caller decides which failure wins, exactly as if the work had run in sequence.
//!
//! It is a crate of its own, with no dependencies, so that the pure core (`salve-patch`), the git
//! layer and the engine share one helper without any of them depending on another for it.
//!
//! ```
//! use salve_concurrent::both;
//!
//! let words = ["alpha", "beta", "gamma", "delta"];
//! let (left, right) = words.split_at(2);
//! // Each half is measured at the same time; the results come back in argument order.
//! let (a, b) = both(
//!     || left.iter().map(|w| w.len()).sum::<usize>(),
//!     || right.iter().map(|w| w.len()).sum::<usize>(),
//! );
//! assert_eq!((a, b), (9, 10));
//!
//! // Nesting runs three (or more) pieces of work at once.
//! let (a, (b, c)) = both(|| 1, || both(|| 2, || 3));
//! assert_eq!([a, b, c], [1, 2, 3]);
//! ```

#![deny(missing_docs)]

/// Run `first` on a scoped thread and `second` on this one, and return both results.
///
/// When no thread can be started, `first` then `second` run here, in that order, so the
/// answer never depends on whether the spawn worked (`first` is `Fn` so that a failed spawn,
/// which drops the thread's closure, still leaves it callable). A panic in either is passed on.
pub fn both<A, B>(first: impl Fn() -> A + Sync, second: impl FnOnce() -> B) -> (A, B)
where
    A: Send,
{
    std::thread::scope(
        |scope| match std::thread::Builder::new().spawn_scoped(scope, &first) {
            Ok(handle) => {
                let b = second();
                (join(handle), b)
            }
            Err(_) => {
                let a = first();
                (a, second())
            }
        },
    )
}

/// Wait for a scoped thread and return its result; a panic on it goes on here, as if the work
/// had run on this thread. For work started early and waited for only when its answer is
/// needed, where [`both`] does not fit.
pub fn join<T>(handle: std::thread::ScopedJoinHandle<'_, T>) -> T {
    handle
        .join()
        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Barrier;

    #[test]
    fn returns_both_results_in_order() {
        let (a, b) = both(|| 1 + 1, || "two");
        assert_eq!((a, b), (2, "two"));
    }

    #[test]
    fn runs_the_two_at_the_same_time() {
        // Each side waits for the other: this only finishes if they overlap.
        let meet = Barrier::new(2);
        let (a, b) = both(|| meet.wait().is_leader(), || meet.wait().is_leader());
        assert!(a != b);
    }

    #[test]
    fn nests_for_three() {
        let (a, (b, c)) = both(|| 'a', || both(|| 'b', || 'c'));
        assert_eq!([a, b, c], ['a', 'b', 'c']);
    }

    #[test]
    fn a_panic_on_the_thread_reaches_the_caller() {
        let caught = std::panic::catch_unwind(|| both(|| -> i32 { panic!("boom") }, || 0));
        let message = caught
            .err()
            .and_then(|p| p.downcast_ref::<&str>().map(|s| s.to_string()));
        assert_eq!(message.as_deref(), Some("boom"));
    }

    #[test]
    fn join_passes_a_panic_on() {
        let caught = std::panic::catch_unwind(|| {
            std::thread::scope(|scope| join(scope.spawn(|| -> u8 { panic!("late") })))
        });
        let message = caught
            .err()
            .and_then(|p| p.downcast_ref::<&str>().map(|s| s.to_string()));
        assert_eq!(message.as_deref(), Some("late"));
        assert_eq!(std::thread::scope(|scope| join(scope.spawn(|| 7))), 7);
    }
}
