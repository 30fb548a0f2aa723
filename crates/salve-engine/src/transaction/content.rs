//! What a write puts in a file: bytes, or a splice of the text the file had.
//!
//! Most edits leave most of a file as it was. [`Content::Spliced`] keeps the text read for
//! placing (shared, not copied) and the [`Splice`] over it; writing it sends the unchanged bytes
//! from where they already are, so a large file is never held twice.

use std::borrow::Cow;
use std::io::{self, Write};

use salve_patch::Splice;

/// A file's text as read for editing: validated UTF-8 once, shared (a reference count, not a
/// copy) by the placement, the checks and the write.
pub type SharedText = bytestring::ByteString;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Content {
    Bytes(Vec<u8>),
    /// `splice` applied to `original`.
    Spliced {
        original: SharedText,
        splice: Splice,
    },
}

impl Content {
    /// The content's length in bytes.
    pub fn len(&self) -> usize {
        match self {
            Content::Bytes(b) => b.len(),
            Content::Spliced { splice, .. } => splice.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn write_to(&self, w: &mut impl Write) -> io::Result<()> {
        match self {
            Content::Bytes(b) => w.write_all(b),
            Content::Spliced { original, splice } => splice.write_to(original.as_bytes(), w),
        }
    }

    /// The content whole (built for a splice).
    pub fn bytes(&self) -> Cow<'_, [u8]> {
        match self {
            Content::Bytes(b) => Cow::Borrowed(b),
            Content::Spliced { original, splice } => {
                Cow::Owned(splice.materialize(original).into_bytes())
            }
        }
    }
}

impl From<Vec<u8>> for Content {
    fn from(bytes: Vec<u8>) -> Self {
        Content::Bytes(bytes)
    }
}

impl From<String> for Content {
    fn from(text: String) -> Self {
        Content::Bytes(text.into_bytes())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn a_splice_writes_what_it_materializes() {
        let original = SharedText::from("keep\nold\nkeep too\n");
        let mut splice = Splice::default();
        splice.keep(&original, 0..5);
        splice.push_new("new\n");
        splice.keep(&original, 9..18);
        let content = Content::Spliced {
            original: original.clone(),
            splice,
        };
        let mut out = Vec::new();
        content.write_to(&mut out).unwrap();
        assert_eq!(out, b"keep\nnew\nkeep too\n");
        assert_eq!(content.bytes().as_ref(), out.as_slice());
        assert_eq!(content.len(), out.len());
        let bytes = Content::from(b"x".to_vec());
        assert_eq!(bytes.len(), 1);
        assert!(!bytes.is_empty());
    }
}
