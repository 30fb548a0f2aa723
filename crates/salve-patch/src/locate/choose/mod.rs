//! Choosing among places: every hunk of a file together, the evidence that tells candidates
//! apart, one hunk's decision, and refusals that name several places.

pub(crate) mod ambiguity;
pub(crate) mod evidence;
pub(crate) mod measure;
pub(crate) mod place;
pub(crate) mod plan;
pub(crate) mod quoted_twice;
pub(crate) mod similar_rung;
