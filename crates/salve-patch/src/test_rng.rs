//! The seeded generator of this crate's property tests: one sequence for every test, so a seed
//! a test logs replays the same inputs.

/// A linear congruential generator (Knuth's MMIX constants); the high bits serve as numbers.
pub(crate) struct SeededRng {
    state: u64,
}

impl SeededRng {
    pub(crate) fn new(seed: u64) -> SeededRng {
        SeededRng { state: seed }
    }

    fn step(&mut self) -> u64 {
        self.state = self
            .state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.state >> 33
    }

    /// A number below `n` (which must not be 0).
    pub(crate) fn below(&mut self, n: usize) -> usize {
        (self.step() % n as u64) as usize
    }

    /// [`SeededRng::below`] for `u64`.
    pub(crate) fn below_u64(&mut self, n: u64) -> u64 {
        self.step() % n
    }
}
