//! Guards on what a relaxed rung would write, which refuse rather than write a third text: no
//! reordering, removed lines that are the file's in substance, byte readings a text
//! replacement's lines rule out.

pub(crate) mod cut_line;
pub(crate) mod joins;
pub(crate) mod order;
pub(crate) mod substance;
