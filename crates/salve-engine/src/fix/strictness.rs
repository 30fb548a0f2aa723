//! How much the fix loop may do on its own (issue 10 point 9, DESIGN.md §6). The loop asks these
//! policy questions instead of matching on the level, so what each level means is decided here,
//! once.
//!
//! | level | model calls | learned rules | guard | commit by default |
//! |---|---|---|---|---|
//! | `sketch` | yes | yes | warns only | no |
//! | `development` (default) | yes | yes | blocks | yes |
//! | `production` | no | no (pinned only) | blocks | yes |

use serde::Serialize;

/// A strictness level; see the module docs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Strictness {
    /// Exploring: anything goes, the guard only warns, nothing is committed unless asked.
    Sketch,
    /// The default: verified repairs, learned rules replay.
    #[default]
    Development,
    /// No model calls at all; only pinned rules from the repository, reviewed like code.
    Production,
}

/// The levels in order of increasing strictness, for help texts and errors.
pub const LEVELS: [Strictness; 3] = [
    Strictness::Sketch,
    Strictness::Development,
    Strictness::Production,
];

/// A word that names no strictness level.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a strictness level: use sketch, development or production")]
pub struct UnknownStrictness(pub String);

impl crate::error::Classified for UnknownStrictness {
    fn kind(&self) -> crate::error::Kind {
        crate::error::Kind::User
    }

    fn code(&self) -> &'static str {
        "unknown_strictness"
    }

    fn hint(&self) -> Option<String> {
        Some("the levels are sketch, development (the default) and production".to_owned())
    }
}

impl Strictness {
    /// The level named by `text` (case-insensitive; `dev` and `prod` are accepted because
    /// people type them).
    pub fn parse(text: &str) -> Result<Strictness, UnknownStrictness> {
        match text.trim().to_ascii_lowercase().as_str() {
            "sketch" => Ok(Strictness::Sketch),
            "development" | "dev" => Ok(Strictness::Development),
            "production" | "prod" => Ok(Strictness::Production),
            _ => Err(UnknownStrictness(text.to_owned())),
        }
    }

    /// The level's name, as `parse` reads it and the record stores it.
    pub fn as_str(self) -> &'static str {
        match self {
            Strictness::Sketch => "sketch",
            Strictness::Development => "development",
            Strictness::Production => "production",
        }
    }

    /// May the loop ask a model for a repair? Production replays pinned rules only.
    pub fn model_calls_allowed(self) -> bool {
        self != Strictness::Production
    }

    /// May rules learned from earlier repairs (the store's, not the repository's) replay?
    pub fn learned_rules_allowed(self) -> bool {
        self != Strictness::Production
    }

    /// Does a guard finding refuse the repair (true), or only warn (false, in sketch)?
    pub fn guard_blocks(self) -> bool {
        self != Strictness::Sketch
    }

    /// Is a green result committed unless the user opts out? Sketch leaves changes uncommitted.
    pub fn commit_by_default(self) -> bool {
        self != Strictness::Sketch
    }
}

impl std::fmt::Display for Strictness {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Strictness {
    type Err = UnknownStrictness;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Strictness::parse(s)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use crate::error::Classified as _;

    #[test]
    fn parse_round_trips_every_level() {
        for level in LEVELS {
            assert_eq!(Strictness::parse(level.as_str()), Ok(level));
            assert_eq!(level.to_string().parse::<Strictness>(), Ok(level));
        }
        assert_eq!(Strictness::parse(" PROD "), Ok(Strictness::Production));
        assert_eq!(Strictness::parse("dev"), Ok(Strictness::Development));
    }

    #[test]
    fn unknown_levels_are_user_errors() {
        let err = Strictness::parse("strict").unwrap_err();
        assert_eq!(err.code(), "unknown_strictness");
        assert_eq!(err.kind(), crate::error::Kind::User);
        assert!(err.to_string().contains("`strict`"));
    }

    #[test]
    fn the_three_levels_really_differ() {
        use Strictness::*;
        let table = |s: Strictness| {
            (
                s.model_calls_allowed(),
                s.learned_rules_allowed(),
                s.guard_blocks(),
                s.commit_by_default(),
            )
        };
        assert_eq!(table(Sketch), (true, true, false, false));
        assert_eq!(table(Development), (true, true, true, true));
        assert_eq!(table(Production), (false, false, true, true));
        assert_eq!(Strictness::default(), Development);
    }

    #[test]
    fn serializes_as_its_name() {
        assert_eq!(
            serde_json::to_string(&Strictness::Production).unwrap(),
            "\"production\""
        );
    }
}
