//! Learned repair rules (issue 10 point 8): a failure pattern, the edit that repaired it, and how
//! well replaying it has done. The store keeps rows; matching, confidence and retirement are the
//! engine's policy (`salve_engine::fix::rules`). Pinned rules live in the repository, not here.

use rusqlite::{params, OptionalExtension as _, Row, TransactionBehavior};
use serde::Serialize;

use crate::error::Result;
use crate::time::Timestamp;
use crate::Store;

/// One learned rule as stored.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LearnedRule {
    pub id: String,
    /// The failure's kind, tool, code and normalized message (see the engine's `FailurePattern`).
    pub kind: String,
    pub tool: Option<String>,
    pub code: Option<String>,
    pub message: String,
    /// The edit to replay: a reply or a diff.
    pub template: String,
    /// 0 to 1.
    pub confidence: f64,
    /// Replays.
    pub hits: u32,
    /// Verified repairs, the one it was learned from included.
    pub successes: u32,
    /// Replays that failed verification.
    pub failures: u32,
    /// A retired rule no longer matches; it stays listed until removed.
    pub retired: bool,
    pub created: Timestamp,
    pub updated: Timestamp,
}

const COLUMNS: &str = "id, kind, tool, code, message, template, confidence, hits, successes, \
                       failures, retired, created_ms, updated_ms";

fn from_row(r: &Row<'_>) -> rusqlite::Result<LearnedRule> {
    Ok(LearnedRule {
        id: r.get(0)?,
        kind: r.get(1)?,
        tool: r.get(2)?,
        code: r.get(3)?,
        message: r.get(4)?,
        template: r.get(5)?,
        confidence: r.get(6)?,
        hits: r.get(7)?,
        successes: r.get(8)?,
        failures: r.get(9)?,
        retired: r.get(10)?,
        created: Timestamp(r.get(11)?),
        updated: Timestamp(r.get(12)?),
    })
}

impl Store {
    /// Insert `rule`. When its id exists already (the same pattern and edit learned again) the
    /// existing row is revived instead: not retired, one more success, the higher confidence.
    /// Returns true when the row is new.
    pub fn save_rule(&mut self, rule: &LearnedRule) -> Result<bool> {
        let n = self
            .conn
            .execute(
                &format!(
                    "INSERT INTO rules ({COLUMNS}) VALUES \
                     (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13) \
                     ON CONFLICT (id) DO NOTHING"
                ),
                params![
                    rule.id,
                    rule.kind,
                    rule.tool,
                    rule.code,
                    rule.message,
                    rule.template,
                    rule.confidence,
                    rule.hits,
                    rule.successes,
                    rule.failures,
                    rule.retired,
                    rule.created.0,
                    rule.updated.0
                ],
            )
            .map_err(|e| self.sql(e))?;
        if n == 1 {
            return Ok(true);
        }
        self.conn
            .execute(
                "UPDATE rules SET retired = 0, successes = successes + 1, \
                 confidence = max(confidence, ?2), updated_ms = ?3 WHERE id = ?1",
                params![rule.id, rule.confidence, Timestamp::now().0],
            )
            .map_err(|e| self.sql(e))?;
        Ok(false)
    }

    /// The rule with this exact id.
    pub fn rule(&self, id: &str) -> Result<Option<LearnedRule>> {
        self.conn
            .query_row(
                &format!("SELECT {COLUMNS} FROM rules WHERE id = ?1"),
                [id],
                from_row,
            )
            .optional()
            .map_err(|e| self.sql(e))
    }

    /// Every learned rule, retired ones included, by id.
    pub fn rules(&self) -> Result<Vec<LearnedRule>> {
        self.query_rules(
            &format!("SELECT {COLUMNS} FROM rules ORDER BY id"),
            params![],
        )
    }

    /// The rules that are not retired and whose kind and normalized message are these.
    pub fn rules_matching(&self, kind: &str, message: &str) -> Result<Vec<LearnedRule>> {
        self.query_rules(
            &format!(
                "SELECT {COLUMNS} FROM rules WHERE kind = ?1 AND message = ?2 AND retired = 0 \
                 ORDER BY confidence DESC, id"
            ),
            params![kind, message],
        )
    }

    fn query_rules(&self, sql: &str, args: &[&dyn rusqlite::ToSql]) -> Result<Vec<LearnedRule>> {
        let mut stmt = self.conn.prepare(sql).map_err(|e| self.sql(e))?;
        let rows = stmt.query_map(args, from_row).map_err(|e| self.sql(e))?;
        rows.collect::<rusqlite::Result<_>>()
            .map_err(|e| self.sql(e))
    }

    /// Change a rule in one immediate transaction (read, `change`, write back), so concurrent
    /// updates from two processes both count. `None` when no rule has this id.
    pub fn update_rule(
        &mut self,
        id: &str,
        change: impl FnOnce(&mut LearnedRule),
    ) -> Result<Option<LearnedRule>> {
        let path = self.layout.db.clone();
        let err = |source| crate::StoreError::Sqlite {
            path: path.clone(),
            source,
        };
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(err)?;
        let found = tx
            .query_row(
                &format!("SELECT {COLUMNS} FROM rules WHERE id = ?1"),
                [id],
                from_row,
            )
            .optional()
            .map_err(err)?;
        let Some(mut rule) = found else {
            return Ok(None);
        };
        change(&mut rule);
        rule.updated = Timestamp::now();
        tx.execute(
            "UPDATE rules SET template = ?2, confidence = ?3, hits = ?4, successes = ?5, \
             failures = ?6, retired = ?7, updated_ms = ?8 WHERE id = ?1",
            params![
                rule.id,
                rule.template,
                rule.confidence,
                rule.hits,
                rule.successes,
                rule.failures,
                rule.retired,
                rule.updated.0
            ],
        )
        .map_err(err)?;
        tx.commit().map_err(err)?;
        Ok(Some(rule))
    }

    /// Delete a rule; false when there was none with this id.
    pub fn delete_rule(&mut self, id: &str) -> Result<bool> {
        self.conn
            .execute("DELETE FROM rules WHERE id = ?1", [id])
            .map(|n| n > 0)
            .map_err(|e| self.sql(e))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use crate::Layout;

    fn rule(id: &str) -> LearnedRule {
        LearnedRule {
            id: id.to_owned(),
            kind: "type_error".into(),
            tool: Some("rustc".into()),
            code: Some("E0308".into()),
            message: "mismatched types".into(),
            template: "--- a/src/lib.rs\n+++ b/src/lib.rs\n".into(),
            confidence: 0.8,
            hits: 0,
            successes: 1,
            failures: 0,
            retired: false,
            created: Timestamp(1),
            updated: Timestamp(1),
        }
    }

    #[test]
    fn save_find_update_delete() {
        let tmp = tempfile::tempdir().unwrap();
        let mut s = Store::open_layout(Layout::at(tmp.path().join("salve"), false)).unwrap();
        assert!(s.save_rule(&rule("aa")).unwrap());
        assert_eq!(s.rule("aa").unwrap(), Some(rule("aa")));
        assert_eq!(
            s.rules_matching("type_error", "mismatched types")
                .unwrap()
                .len(),
            1
        );
        assert!(s
            .rules_matching("lint", "mismatched types")
            .unwrap()
            .is_empty());

        let updated = s
            .update_rule("aa", |r| {
                r.failures += 1;
                r.retired = true;
            })
            .unwrap()
            .unwrap();
        assert!(updated.retired);
        assert!(s
            .rules_matching("type_error", "mismatched types")
            .unwrap()
            .is_empty());
        assert_eq!(s.rules().unwrap().len(), 1);
        // Learned again: revived, one more success.
        assert!(!s.save_rule(&rule("aa")).unwrap());
        let again = s.rule("aa").unwrap().unwrap();
        assert!(!again.retired);
        assert_eq!((again.successes, again.failures), (2, 1));

        assert!(s.update_rule("zz", |_| {}).unwrap().is_none());
        assert!(s.delete_rule("aa").unwrap());
        assert!(!s.delete_rule("aa").unwrap());
    }
}
