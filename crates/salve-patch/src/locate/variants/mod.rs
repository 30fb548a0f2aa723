//! Other readings of a hunk's own lines, for what the parser could not decide from the reply
//! alone: padding blanks, a lost `+`, blank lines the file lacks, pasted no-break spaces.

pub(crate) mod dropped;
pub(crate) mod lost_plus;
pub(crate) mod pasted;
pub(crate) mod variant;
