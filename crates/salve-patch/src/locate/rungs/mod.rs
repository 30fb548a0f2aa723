//! The rungs of the ladder: where a hunk's lines stand in the file, by line form, structure,
//! similarity or substring, and counted replacements.

pub(crate) mod count;
pub(crate) mod elision;
pub(crate) mod gap_readings;
pub(crate) mod gaps;
pub(crate) mod index;
pub(crate) mod loose;
pub(crate) mod search;
pub(crate) mod similar;
pub(crate) mod substring;
pub(crate) mod window;
