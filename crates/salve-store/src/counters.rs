//! Budget counters that persist across runs (issue 10 point 7): how much of a budget each
//! (branch, failure signature, kind) has spent, so a CI job that calls `salve fix` on every push
//! cannot loop forever. The store only counts; the limits and their meaning belong to the
//! engine's fix loop.
//!
//! [`Store::spend_budget`] reads and increments in one immediate transaction, so two processes
//! spending the same counter at once never both take its last unit.

use rusqlite::{params, OptionalExtension as _, TransactionBehavior};
use serde::Serialize;

use crate::error::Result;
use crate::time::Timestamp;
use crate::Store;

/// One persisted counter.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BudgetCounter {
    pub branch: String,
    pub signature: String,
    /// The budget's name as the engine spells it (`attempts`, `environment_reruns`).
    pub kind: String,
    pub spent: u32,
    pub first: Timestamp,
    pub last: Timestamp,
}

/// What [`Store::spend_budget`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Spend {
    /// One unit taken; the counter now stands at this many.
    Spent(u32),
    /// Nothing taken: the counter already stands at (or above) the limit.
    Exhausted(u32),
}

impl Store {
    /// Take one unit of `kind` for (`branch`, `signature`) unless `limit` units are spent already.
    pub fn spend_budget(
        &mut self,
        branch: &str,
        signature: &str,
        kind: &str,
        limit: u32,
    ) -> Result<Spend> {
        let path = self.layout.db.clone();
        let err = |source| crate::StoreError::Sqlite {
            path: path.clone(),
            source,
        };
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(err)?;
        let spent: u32 = tx
            .query_row(
                "SELECT spent FROM budget_counters WHERE branch = ?1 AND signature = ?2 AND kind = ?3",
                params![branch, signature, kind],
                |r| r.get(0),
            )
            .optional()
            .map_err(err)?
            .unwrap_or(0);
        if spent >= limit {
            return Ok(Spend::Exhausted(spent));
        }
        let now = Timestamp::now().0;
        tx.execute(
            "INSERT INTO budget_counters (branch, signature, kind, spent, first_ms, last_ms) \
             VALUES (?1, ?2, ?3, 1, ?4, ?4) ON CONFLICT (branch, signature, kind) \
             DO UPDATE SET spent = spent + 1, last_ms = ?4",
            params![branch, signature, kind, now],
        )
        .map_err(err)?;
        tx.commit().map_err(err)?;
        Ok(Spend::Spent(spent + 1))
    }

    /// How much of `kind` (`branch`, `signature`) has spent; 0 when never counted.
    pub fn budget_spent(&self, branch: &str, signature: &str, kind: &str) -> Result<u32> {
        self.conn
            .query_row(
                "SELECT spent FROM budget_counters WHERE branch = ?1 AND signature = ?2 AND kind = ?3",
                params![branch, signature, kind],
                |r| r.get(0),
            )
            .optional()
            .map(|v| v.unwrap_or(0))
            .map_err(|e| self.sql(e))
    }

    /// Every counter, optionally of one branch and/or one signature, by branch, signature, kind.
    pub fn budget_counters(
        &self,
        branch: Option<&str>,
        signature: Option<&str>,
    ) -> Result<Vec<BudgetCounter>> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT branch, signature, kind, spent, first_ms, last_ms FROM budget_counters \
                 WHERE (?1 IS NULL OR branch = ?1) AND (?2 IS NULL OR signature = ?2) \
                 ORDER BY branch, signature, kind",
            )
            .map_err(|e| self.sql(e))?;
        let rows = stmt
            .query_map(params![branch, signature], |r| {
                Ok(BudgetCounter {
                    branch: r.get(0)?,
                    signature: r.get(1)?,
                    kind: r.get(2)?,
                    spent: r.get(3)?,
                    first: Timestamp(r.get(4)?),
                    last: Timestamp(r.get(5)?),
                })
            })
            .map_err(|e| self.sql(e))?;
        rows.collect::<rusqlite::Result<_>>()
            .map_err(|e| self.sql(e))
    }

    /// Delete counters: all of them, or those of one branch and/or one signature. Returns how
    /// many were deleted.
    pub fn reset_budgets(
        &mut self,
        branch: Option<&str>,
        signature: Option<&str>,
    ) -> Result<usize> {
        self.conn
            .execute(
                "DELETE FROM budget_counters WHERE (?1 IS NULL OR branch = ?1) \
                 AND (?2 IS NULL OR signature = ?2)",
                params![branch, signature],
            )
            .map_err(|e| self.sql(e))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use crate::Layout;

    fn store(dir: &std::path::Path) -> Store {
        Store::open_layout(Layout::at(dir.join("salve"), false)).unwrap()
    }

    #[test]
    fn spending_stops_at_the_limit_and_resets() {
        let tmp = tempfile::tempdir().unwrap();
        let mut s = store(tmp.path());
        assert_eq!(
            s.spend_budget("main", "sig", "attempts", 2).unwrap(),
            Spend::Spent(1)
        );
        assert_eq!(
            s.spend_budget("main", "sig", "attempts", 2).unwrap(),
            Spend::Spent(2)
        );
        assert_eq!(
            s.spend_budget("main", "sig", "attempts", 2).unwrap(),
            Spend::Exhausted(2)
        );
        // Other branches, signatures and kinds count apart.
        assert_eq!(
            s.spend_budget("dev", "sig", "attempts", 2).unwrap(),
            Spend::Spent(1)
        );
        assert_eq!(
            s.spend_budget("main", "sig", "environment_reruns", 2)
                .unwrap(),
            Spend::Spent(1)
        );
        assert_eq!(s.budget_spent("main", "sig", "attempts").unwrap(), 2);
        assert_eq!(s.budget_counters(Some("main"), None).unwrap().len(), 2);
        assert_eq!(s.budget_counters(None, None).unwrap().len(), 3);
        assert_eq!(s.reset_budgets(Some("main"), Some("sig")).unwrap(), 2);
        assert_eq!(s.budget_spent("main", "sig", "attempts").unwrap(), 0);
        assert_eq!(s.budget_counters(None, None).unwrap().len(), 1);
        assert_eq!(s.reset_budgets(None, None).unwrap(), 1);
    }
}
