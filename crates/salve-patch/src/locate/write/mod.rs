//! Writing the placed lines in the file's terms: a placed hunk's line operations and the passes
//! over them (indentation shift, levels, tabs or spaces, quoted indentation, folded Unicode,
//! lines removed and added back).

pub(crate) mod align;
pub(crate) mod fold;
pub(crate) mod indentation;
pub(crate) mod kept;
pub(crate) mod levels;
pub(crate) mod mixed;
pub(crate) mod placed_ops;
pub(crate) mod quoted;
pub(crate) mod reindent;
pub(crate) mod style;
pub(crate) mod whole_style;
