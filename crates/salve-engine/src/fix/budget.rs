//! Budgets that persist across runs (issue 10 point 7). The fix loop spends an `attempts` unit
//! per repair attempt and an `environment_reruns` unit per re-run of a transient environment
//! failure, counted per branch and failure signature in the record (`.git/salve/salve.db`), so
//! a CI job that calls `salve fix` on every push cannot loop forever.
//!
//! The loop asks [`Budgets::gate`] before any model call: an exhausted gate is
//! [`Error::Exhausted`] (code `budget_exhausted`), and the loop stops with that outcome.
//! [`Budgets::status`] and [`Budgets::reset`] back `--budget-status` and `--reset-budget`.
//!
//! ```no_run
//! use salve_engine::fix::budget::{branch_of, BudgetKind, Budgets, Limits};
//!
//! let dir = std::path::Path::new(".");
//! let mut budgets = Budgets::open(dir, Limits::default()).unwrap();
//! let branch = branch_of(dir).unwrap();
//! budgets.gate(&branch, "E0308@src/lib.rs", BudgetKind::Attempts).unwrap();
//! let spent = budgets.spend(&branch, "E0308@src/lib.rs", BudgetKind::Attempts).unwrap();
//! println!("{} of {} attempts left", spent.remaining, spent.limit);
//! ```

use std::path::Path;

use salve_store::{Spend, Store, StoreError};
use serde::Serialize;

use crate::error::{Classified, Kind};

/// The budgets the loop counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BudgetKind {
    /// Repair attempts (rules or model) on a code failure.
    Attempts,
    /// Re-runs of the check after a transient environment failure.
    EnvironmentReruns,
}

impl BudgetKind {
    /// The name stored in the record and printed.
    pub fn as_str(self) -> &'static str {
        match self {
            BudgetKind::Attempts => "attempts",
            BudgetKind::EnvironmentReruns => "environment_reruns",
        }
    }

    /// The kind a stored name means; `None` for names this salve does not know.
    pub fn parse(name: &str) -> Option<BudgetKind> {
        match name {
            "attempts" => Some(BudgetKind::Attempts),
            "environment_reruns" => Some(BudgetKind::EnvironmentReruns),
            _ => None,
        }
    }
}

/// How many units each budget has per (branch, failure signature).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Limits {
    pub attempts: u32,
    pub environment_reruns: u32,
}

impl Default for Limits {
    /// DESIGN.md §6: 3 attempts, 2 environment re-runs.
    fn default() -> Self {
        Limits {
            attempts: 3,
            environment_reruns: 2,
        }
    }
}

impl Limits {
    pub fn of(&self, kind: BudgetKind) -> u32 {
        match kind {
            BudgetKind::Attempts => self.attempts,
            BudgetKind::EnvironmentReruns => self.environment_reruns,
        }
    }
}

/// One unit spent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Spent {
    pub kind: BudgetKind,
    /// Units spent now, this one included.
    pub spent: u32,
    pub limit: u32,
    pub remaining: u32,
}

/// A persisted counter with its limit, for `--budget-status`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Counter {
    pub branch: String,
    pub signature: String,
    /// The budget's name (`attempts`, `environment_reruns`; another salve may know more).
    pub kind: String,
    pub spent: u32,
    /// 0 for a budget this salve does not know.
    pub limit: u32,
    pub remaining: u32,
    pub exhausted: bool,
    /// When the counter last moved, RFC 3339.
    pub last_spent: String,
}

/// What can go wrong with budgets.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(
        "the {} budget for this failure on {branch} is spent ({spent} of {limit})",
        kind.as_str()
    )]
    Exhausted {
        branch: String,
        signature: String,
        kind: BudgetKind,
        spent: u32,
        limit: u32,
    },
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Git(#[from] salve_git::GitError),
}

impl Classified for Error {
    fn kind(&self) -> Kind {
        match self {
            Error::Exhausted { .. } => Kind::Refused,
            Error::Store(e) => e.kind(),
            Error::Git(e) => e.kind(),
        }
    }

    fn code(&self) -> &'static str {
        match self {
            Error::Exhausted { .. } => "budget_exhausted",
            Error::Store(e) => e.code(),
            Error::Git(e) => e.code(),
        }
    }

    fn hint(&self) -> Option<String> {
        match self {
            Error::Exhausted { .. } => Some(
                "earlier runs spent this budget on the same failure: fix it by hand, or reset \
                 the budget to let salve try again"
                    .to_owned(),
            ),
            Error::Store(e) => e.hint(),
            Error::Git(e) => e.hint(),
        }
    }
}

/// The persisted budgets of one record, with their limits.
#[derive(Debug)]
pub struct Budgets {
    store: Store,
    limits: Limits,
}

impl Budgets {
    /// Open (creating when missing) the record for work done in `dir`.
    pub fn open(dir: &Path, limits: Limits) -> Result<Budgets, Error> {
        Ok(Budgets {
            store: Store::open(dir)?,
            limits,
        })
    }

    /// Budgets on an already open record.
    pub fn with_store(store: Store, limits: Limits) -> Budgets {
        Budgets { store, limits }
    }

    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// Spend one unit, or [`Error::Exhausted`] without spending when none is left. Atomic across
    /// processes: two runs racing for the last unit do not both get it.
    pub fn spend(
        &mut self,
        branch: &str,
        signature: &str,
        kind: BudgetKind,
    ) -> Result<Spent, Error> {
        let limit = self.limits.of(kind);
        match self
            .store
            .spend_budget(branch, signature, kind.as_str(), limit)?
        {
            Spend::Spent(spent) => Ok(Spent {
                kind,
                spent,
                limit,
                remaining: limit.saturating_sub(spent),
            }),
            Spend::Exhausted(spent) => Err(exhausted(branch, signature, kind, spent, limit)),
        }
    }

    /// Units left, without spending.
    pub fn remaining(&self, branch: &str, signature: &str, kind: BudgetKind) -> Result<u32, Error> {
        let spent = self.store.budget_spent(branch, signature, kind.as_str())?;
        Ok(self.limits.of(kind).saturating_sub(spent))
    }

    /// `Ok` while a unit is left; [`Error::Exhausted`] otherwise. The loop asks this before any
    /// model call.
    pub fn gate(&self, branch: &str, signature: &str, kind: BudgetKind) -> Result<(), Error> {
        let spent = self.store.budget_spent(branch, signature, kind.as_str())?;
        let limit = self.limits.of(kind);
        if spent >= limit {
            return Err(exhausted(branch, signature, kind, spent, limit));
        }
        Ok(())
    }

    /// Every counter (of one branch when given), with the current limits.
    pub fn status(&self, branch: Option<&str>) -> Result<Vec<Counter>, Error> {
        let rows = self.store.budget_counters(branch, None)?;
        Ok(rows
            .into_iter()
            .map(|c| {
                let limit = BudgetKind::parse(&c.kind).map_or(0, |k| self.limits.of(k));
                Counter {
                    remaining: limit.saturating_sub(c.spent),
                    exhausted: c.spent >= limit,
                    last_spent: c.last.to_rfc3339(),
                    branch: c.branch,
                    signature: c.signature,
                    kind: c.kind,
                    spent: c.spent,
                    limit,
                }
            })
            .collect())
    }

    /// Clear counters: all, or those of a branch and/or a failure signature. Returns how many.
    pub fn reset(&mut self, branch: Option<&str>, signature: Option<&str>) -> Result<usize, Error> {
        Ok(self.store.reset_budgets(branch, signature)?)
    }
}

fn exhausted(branch: &str, signature: &str, kind: BudgetKind, spent: u32, limit: u32) -> Error {
    Error::Exhausted {
        branch: branch.to_owned(),
        signature: signature.to_owned(),
        kind,
        spent,
        limit,
    }
}

/// Environment variables CI systems name the branch in when they check out a detached HEAD,
/// most specific first (a pull request's source branch before the ref that was built).
const CI_BRANCH_VARS: &[&str] = &[
    "GITHUB_HEAD_REF",
    "GITHUB_REF_NAME",
    "CI_COMMIT_REF_NAME",
    "BUILDKITE_BRANCH",
    "CIRCLE_BRANCH",
];

/// The budget counters of the work tree at `dir`, every branch or one, judged by `limits`.
pub fn counters(dir: &Path, branch: Option<&str>, limits: Limits) -> Result<Vec<Counter>, Error> {
    Budgets::open(dir, limits)?.status(branch)
}

/// Clear the budget counters of the work tree at `dir` (of one branch or signature, or all);
/// returns how many were cleared.
pub fn reset_counters(
    dir: &Path,
    branch: Option<&str>,
    signature: Option<&str>,
) -> Result<usize, Error> {
    Budgets::open(dir, Limits::default())?.reset(branch, signature)
}

/// The branch budgets are counted on for work in `dir`: HEAD's branch; on a detached HEAD (as CI
/// checks out) the branch the CI names; otherwise `HEAD`. Keying a detached HEAD by its commit
/// would give every push a fresh budget, which is the loop the budgets exist to stop.
pub fn branch_of(dir: &Path) -> Result<String, Error> {
    let head = salve_git::Repo::discover(dir)?.head()?;
    Ok(branch_name(head.branch.as_deref(), |v| {
        std::env::var(v).ok()
    }))
}

/// [`branch_of`] on a given HEAD ref and environment.
pub fn branch_name(head_ref: Option<&str>, env: impl Fn(&str) -> Option<String>) -> String {
    if let Some(r) = head_ref {
        return r.strip_prefix("refs/heads/").unwrap_or(r).to_owned();
    }
    CI_BRANCH_VARS
        .iter()
        .filter_map(|v| env(v))
        .find(|b| !b.trim().is_empty())
        .unwrap_or_else(|| "HEAD".to_owned())
}

#[cfg(test)]
#[path = "budget_tests.rs"]
mod tests;
