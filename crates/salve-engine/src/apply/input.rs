//! What an apply reads its edits from: the one branch between a reply's text, a JSON value and
//! edits already built. Everything after it (path guard, placement, checks, writes, record) is
//! the same for all three.

use std::borrow::Cow;

use salve_patch::Extraction;

/// The edits to apply, in the form the caller has them.
#[derive(Clone, Debug)]
pub enum Input<'a> {
    /// A model's reply as written: prose, fences, any edit format.
    Reply(&'a str),
    /// One JSON value holding edits: an agent's tool-call arguments, old/new objects, a
    /// `{path, content}` write (the grammar of `salve_patch::extract_value`).
    Value(&'a serde_json::Value),
    /// Edits already read, by the caller or an earlier step.
    Edits(Extraction),
}

impl<'a> From<&'a str> for Input<'a> {
    fn from(reply: &'a str) -> Input<'a> {
        Input::Reply(reply)
    }
}

impl<'a> From<&'a String> for Input<'a> {
    fn from(reply: &'a String) -> Input<'a> {
        Input::Reply(reply)
    }
}

impl<'a> From<&'a serde_json::Value> for Input<'a> {
    fn from(value: &'a serde_json::Value) -> Input<'a> {
        Input::Value(value)
    }
}

impl From<Extraction> for Input<'_> {
    fn from(edits: Extraction) -> Self {
        Input::Edits(edits)
    }
}

impl<'a> Input<'a> {
    /// The edits, with the issues and notes of reading them.
    pub(super) fn read(self) -> Extraction {
        match self {
            Input::Reply(text) => salve_patch::extract(text),
            Input::Value(value) => salve_patch::extract_value(value),
            Input::Edits(edits) => edits,
        }
    }

    /// The lines a reply's text holds as edit syntax; a JSON value or built edits hold none
    /// (their strings are data).
    pub(super) fn syntax(&self) -> Option<salve_patch::ReplySyntax> {
        match self {
            Input::Reply(text) => Some(salve_patch::ReplySyntax::of(text)),
            Input::Value(_) | Input::Edits(_) => None,
        }
    }

    /// What the record keeps as the run's raw reply: the text, or the value or edits as JSON.
    pub(super) fn text_for_record(&self) -> Cow<'a, str> {
        match self {
            Input::Reply(text) => Cow::Borrowed(*text),
            Input::Value(value) => Cow::Owned(value.to_string()),
            Input::Edits(edits) => {
                Cow::Owned(serde_json::to_string(&edits.edits).unwrap_or_default())
            }
        }
    }
}
