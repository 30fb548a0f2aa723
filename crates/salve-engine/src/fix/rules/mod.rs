//! Repair rules (issue 10 point 8): when a repair succeeds, salve can learn it, and replay it
//! without a model the next time the same failure shows up. A replayed rule is a repair like any
//! other: the loop applies it through the engine and it must pass verification.
//!
//! A rule is a [`FailurePattern`] (the failure's kind, tool, code and [`normalize`]d message),
//! an edit template (the repair's reply or diff, paths relative to the work tree; `{{file}}`
//! stands for the failing file, see [`Rule::render`]), a confidence in 0..1, and counts of hits
//! (replays), successes and failures.
//!
//! - **Learned** rules live in the record ([`Rules::learn`]). They start at confidence 0.8; a
//!   verified replay raises it, a failed one lowers it, and after [`RETIRE_AFTER`] failures the
//!   rule is retired: listed, never matched.
//! - **Pinned** rules are files in `.salve/rules/<name>.toml` of the repository, reviewed like
//!   code ([`Rules::pin`] writes one from a learned rule; [`Rules::unpin`] turns it back into a
//!   learned rule). They change only when someone edits the file: replay results do not touch
//!   them. Production strictness replays pinned rules only.
//!
//! The pinned file:
//!
//! ```toml
//! id = "3f2a9c0d1e2b"         # optional: derived from the pattern and edit when missing
//! confidence = 0.9            # optional, 0..1, default 1
//! created = "2025-01-02T03:04:05Z"  # optional, informational
//! updated = "2025-01-02T03:04:05Z"  # optional, informational
//!
//! [pattern]
//! kind = "type_error"         # the classifier's kind
//! tool = "rustc"              # optional: only failures from this tool
//! code = "E0308"              # optional: only failures with this code
//! message = "mismatched types" # normalized on load; matched exactly
//!
//! [edit]
//! template = '''
//! --- a/src/lib.rs
//! +++ b/src/lib.rs
//! @@ -1 +1 @@
//! -pub fn one() -> u32 { "1" }
//! +pub fn one() -> u32 { 1 }
//! '''
//!
//! [stats]                     # optional, as they were when the rule was pinned
//! hits = 2
//! successes = 3
//! failures = 0
//! ```

mod pattern;
mod pinned;

#[cfg(test)]
mod tests;

use std::path::{Path, PathBuf};

use salve_store::{LearnedRule, Store, StoreError, Timestamp};
use serde::Serialize;

use crate::error::{Classified, Kind};

pub use pattern::{normalize, FailurePattern};
pub use pinned::RULES_DIR;

/// A learned rule's confidence when it is learned.
pub const INITIAL_CONFIDENCE: f64 = 0.8;
/// Failed replays after which a learned rule is retired.
pub const RETIRE_AFTER: u32 = 3;
/// The placeholder for the failing file in an edit template.
pub const FILE_PLACEHOLDER: &str = "{{file}}";

/// Where a rule comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Origin {
    /// Learned from a successful repair, kept in the record.
    Learned,
    /// A file in the repository's `.salve/rules/`.
    Pinned,
}

/// A rule, learned or pinned.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Rule {
    /// 12 hex digits, derived from the pattern and the edit.
    pub id: String,
    /// A pinned rule's file name without `.toml`.
    pub name: Option<String>,
    pub origin: Origin,
    pub pattern: FailurePattern,
    /// The edit to replay (a reply or a diff), `{{file}}` for the failing file.
    pub template: String,
    pub confidence: f64,
    pub hits: u32,
    pub successes: u32,
    pub failures: u32,
    pub retired: bool,
    /// RFC 3339, when known.
    pub created: Option<String>,
    pub updated: Option<String>,
}

impl Rule {
    /// The edit with `{{file}}` replaced by the failing file, when there is one.
    pub fn render(&self, failing_file: Option<&str>) -> String {
        match failing_file {
            Some(file) => self.template.replace(FILE_PLACEHOLDER, file),
            None => self.template.clone(),
        }
    }

    fn from_learned(r: LearnedRule) -> Rule {
        Rule {
            id: r.id,
            name: None,
            origin: Origin::Learned,
            pattern: FailurePattern {
                kind: r.kind,
                tool: r.tool,
                code: r.code,
                message: r.message,
            },
            template: r.template,
            confidence: r.confidence,
            hits: r.hits,
            successes: r.successes,
            failures: r.failures,
            retired: r.retired,
            created: Some(r.created.to_rfc3339()),
            updated: Some(r.updated.to_rfc3339()),
        }
    }

    fn to_learned(&self) -> LearnedRule {
        let now = Timestamp::now();
        let time = |t: &Option<String>| t.as_deref().and_then(Timestamp::parse).unwrap_or(now);
        LearnedRule {
            id: self.id.clone(),
            kind: self.pattern.kind.clone(),
            tool: self.pattern.tool.clone(),
            code: self.pattern.code.clone(),
            message: self.pattern.message.clone(),
            template: self.template.clone(),
            confidence: self.confidence,
            hits: self.hits,
            successes: self.successes,
            failures: self.failures,
            retired: self.retired,
            created: time(&self.created),
            updated: now,
        }
    }
}

/// What a replay's result did to its rule.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RuleResult {
    pub rule: Rule,
    /// True when this failure retired the rule.
    pub retired_now: bool,
}

/// What can go wrong with rules.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("no rule matches `{0}`")]
    NoSuchRule(String),
    #[error("`{prefix}` matches several rules: {}", ids.join(", "))]
    AmbiguousRule { prefix: String, ids: Vec<String> },
    #[error("rule {0} is pinned in the repository")]
    Pinned(String),
    #[error("`{0}` is not a rule name: use letters, digits, `-`, `_` and `.`")]
    BadName(String),
    #[error("{} exists already", .0.display())]
    NameTaken(PathBuf),
    #[error("the rule file {}: {message}", path.display())]
    BadRuleFile { path: PathBuf, message: String },
    #[error("{context}: {source}")]
    Io {
        context: String,
        #[source]
        source: std::io::Error,
    },
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Git(#[from] salve_git::GitError),
}

impl Error {
    fn io(context: String, source: std::io::Error) -> Error {
        Error::Io { context, source }
    }
}

impl Classified for Error {
    fn kind(&self) -> Kind {
        match self {
            Error::NoSuchRule(_) | Error::AmbiguousRule { .. } | Error::BadName(_) => Kind::User,
            Error::Pinned(_) | Error::NameTaken(_) => Kind::Refused,
            Error::BadRuleFile { .. } => Kind::Config,
            Error::Io { .. } => Kind::Environment,
            Error::Store(e) => e.kind(),
            Error::Git(e) => e.kind(),
        }
    }

    fn code(&self) -> &'static str {
        match self {
            Error::NoSuchRule(_) => "no_such_rule",
            Error::AmbiguousRule { .. } => "ambiguous_rule",
            Error::Pinned(_) => "rule_pinned",
            Error::BadName(_) => "bad_rule_name",
            Error::NameTaken(_) => "rule_file_exists",
            Error::BadRuleFile { .. } => "bad_rule_file",
            Error::Io { .. } => "io",
            Error::Store(e) => e.code(),
            Error::Git(e) => e.code(),
        }
    }

    fn hint(&self) -> Option<String> {
        let hint = match self {
            Error::NoSuchRule(_) | Error::AmbiguousRule { .. } => {
                "list the rules to see their ids and names"
            }
            Error::Pinned(_) => "unpin it first, or delete its file from .salve/rules/",
            Error::NameTaken(_) => "choose another name, or remove the existing file",
            Error::BadRuleFile { .. } => {
                "fix or remove the file; pinned rules are reviewed like code"
            }
            Error::Store(e) => return e.hint(),
            Error::Git(e) => return e.hint(),
            _ => return None,
        };
        Some(hint.to_owned())
    }
}

/// A rule's id: the first 12 hex digits of the SHA-1 of its pattern and edit, so learning the
/// same repair twice finds the same rule.
pub(crate) fn rule_id(pattern: &FailurePattern, template: &str) -> String {
    use sha1::{Digest, Sha1};
    let mut h = Sha1::new();
    for part in [
        pattern.kind.as_str(),
        pattern.tool.as_deref().unwrap_or(""),
        pattern.code.as_deref().unwrap_or(""),
        pattern.message.as_str(),
        template,
    ] {
        h.update(part.as_bytes());
        h.update([0]);
    }
    h.finalize()[..6]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The rules of one repository: its pinned files and the record's learned rules.
#[derive(Debug)]
pub struct Rules {
    root: PathBuf,
    store: Store,
    pinned: Vec<Rule>,
}

impl Rules {
    /// Load the rules for work done in `dir`: the pinned files of its repository, and its record
    /// (created when missing). A pinned file that does not parse is an error.
    pub fn load(dir: &Path) -> Result<Rules, Error> {
        let root = salve_git::Repo::discover(dir)?.root;
        let store = Store::open(&root)?;
        Rules::with_store(&root, store)
    }

    /// Rules with the pinned files under `root` and an open record.
    pub fn with_store(root: &Path, store: Store) -> Result<Rules, Error> {
        Ok(Rules {
            pinned: pinned::read_dir(root)?,
            root: root.to_path_buf(),
            store,
        })
    }

    /// Where pinned rules are kept: `<work tree>/.salve/rules`.
    pub fn pinned_dir(&self) -> PathBuf {
        self.root.join(RULES_DIR)
    }

    /// The best rule for any of `failures`: highest confidence, then pinned before learned, then
    /// the more specific pattern. `pinned_only` (production strictness) leaves learned rules out.
    pub fn find(
        &self,
        failures: &[FailurePattern],
        pinned_only: bool,
    ) -> Result<Option<Rule>, Error> {
        let mut candidates: Vec<Rule> = self
            .pinned
            .iter()
            .filter(|r| failures.iter().any(|f| r.pattern.matches(f)))
            .cloned()
            .collect();
        if !pinned_only {
            for f in failures {
                for learned in self.store.rules_matching(&f.kind, &f.message)? {
                    let rule = Rule::from_learned(learned);
                    if rule.pattern.matches(f) && !candidates.iter().any(|c| c.id == rule.id) {
                        candidates.push(rule);
                    }
                }
            }
        }
        Ok(candidates.into_iter().max_by(|a, b| {
            a.confidence
                .total_cmp(&b.confidence)
                .then((a.origin == Origin::Pinned).cmp(&(b.origin == Origin::Pinned)))
                .then(a.pattern.specificity().cmp(&b.pattern.specificity()))
                .then(b.id.cmp(&a.id))
        }))
    }

    /// Learn a rule from a verified repair of `pattern` (already normalized, as
    /// [`FailurePattern::new`] makes it) whose edit is `template`. Learning the same again revives
    /// the rule and counts one more success. Returns its id.
    pub fn learn(&mut self, pattern: &FailurePattern, template: &str) -> Result<String, Error> {
        let id = rule_id(pattern, template);
        // Already pinned: the repository's file is the rule; the record need not repeat it.
        if self.pinned.iter().any(|r| r.id == id) {
            return Ok(id);
        }
        let rule = Rule {
            id: id.clone(),
            name: None,
            origin: Origin::Learned,
            pattern: pattern.clone(),
            template: template.to_owned(),
            confidence: INITIAL_CONFIDENCE,
            hits: 0,
            successes: 1,
            failures: 0,
            retired: false,
            created: None,
            updated: None,
        };
        self.store.save_rule(&rule.to_learned())?;
        Ok(id)
    }

    /// Count a replay of rule `id` and whether it passed verification. A learned rule gains
    /// confidence on success and loses it on failure, and is retired after [`RETIRE_AFTER`]
    /// failures. A pinned rule is left as its file says.
    pub fn record_result(&mut self, id: &str, success: bool) -> Result<RuleResult, Error> {
        if let Some(rule) = self.pinned.iter().find(|r| r.id == id) {
            return Ok(RuleResult {
                rule: rule.clone(),
                retired_now: false,
            });
        }
        let mut retired_now = false;
        let updated = self.store.update_rule(id, |r| {
            r.hits += 1;
            if success {
                r.successes += 1;
                // Halfway to certainty with each success.
                r.confidence += (1.0 - r.confidence) * 0.5;
            } else {
                r.failures += 1;
                r.confidence *= 0.6;
                retired_now = !r.retired && r.failures >= RETIRE_AFTER;
                r.retired |= retired_now;
            }
        })?;
        let rule = updated.ok_or_else(|| Error::NoSuchRule(id.to_owned()))?;
        Ok(RuleResult {
            rule: Rule::from_learned(rule),
            retired_now,
        })
    }

    /// Every rule: pinned ones by name, then learned ones (retired included) by id.
    pub fn list(&self) -> Result<Vec<Rule>, Error> {
        let mut out = self.pinned.clone();
        out.extend(self.store.rules()?.into_iter().map(Rule::from_learned));
        Ok(out)
    }

    /// The rule `key` names: a pinned rule's name, or an id or unique id prefix.
    pub fn show(&self, key: &str) -> Result<Rule, Error> {
        let all = self.list()?;
        if let Some(rule) = all
            .iter()
            .find(|r| r.name.as_deref() == Some(key) || r.id == key)
        {
            return Ok(rule.clone());
        }
        let hits: Vec<&Rule> = all
            .iter()
            .filter(|r| !key.is_empty() && r.id.starts_with(key))
            .collect();
        match hits.as_slice() {
            [one] => Ok((*one).clone()),
            [] => Err(Error::NoSuchRule(key.to_owned())),
            many => Err(Error::AmbiguousRule {
                prefix: key.to_owned(),
                ids: many.iter().map(|r| r.id.clone()).collect(),
            }),
        }
    }

    /// Pin learned rule `key` (id or prefix) as `.salve/rules/<name>.toml` (name defaults to the
    /// id) and drop it from the record, so it is defined once. Returns the file's path.
    pub fn pin(&mut self, key: &str, name: Option<&str>) -> Result<PathBuf, Error> {
        let rule = self.show(key)?;
        if rule.origin == Origin::Pinned {
            return Err(Error::Pinned(rule.id));
        }
        let name = name.unwrap_or(&rule.id).to_owned();
        let path = pinned::write(&self.root, &name, &rule)?;
        self.store.delete_rule(&rule.id)?;
        self.pinned = pinned::read_dir(&self.root)?;
        Ok(path)
    }

    /// Unpin the rule named `name`: delete its file and keep it as a learned rule, so what it
    /// knew is not lost (remove it to forget it). Returns its id.
    pub fn unpin(&mut self, name: &str) -> Result<String, Error> {
        pinned::check_name(name)?;
        let Some(rule) = self
            .pinned
            .iter()
            .find(|r| r.name.as_deref() == Some(name))
            .cloned()
        else {
            return Err(Error::NoSuchRule(name.to_owned()));
        };
        let mut learned = rule.to_learned();
        learned.retired = false;
        self.store.save_rule(&learned)?;
        let path = pinned::path_of(&self.root, name);
        std::fs::remove_file(&path)
            .map_err(|e| Error::io(format!("removing {}", path.display()), e))?;
        self.pinned.retain(|r| r.name.as_deref() != Some(name));
        Ok(rule.id)
    }

    /// Forget learned rule `key` (id or prefix). A pinned rule is refused: unpin it first.
    pub fn remove(&mut self, key: &str) -> Result<Rule, Error> {
        let rule = self.show(key)?;
        if rule.origin == Origin::Pinned {
            return Err(Error::Pinned(rule.id));
        }
        self.store.delete_rule(&rule.id)?;
        Ok(rule)
    }
}
