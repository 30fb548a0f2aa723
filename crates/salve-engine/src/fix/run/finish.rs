//! Step 7: green, commit only the touched files and learn a rule; not green, restore the tree
//! taken at the start. Then the record's last word and the outcome.

use salve_store::Finish;

use super::repair::Source;
use super::session::{Proposed, Session, Stop};
use super::{Error, Outcome, Status};
use crate::commit::{self, Verification};

impl Session<'_> {
    /// End the run with `stop` (or the error that ended the loop).
    pub(super) fn finish(mut self, stop: Result<Stop, Error>) -> Result<Outcome, Error> {
        let stop = match stop {
            Ok(stop) => stop,
            Err(e) => {
                // The loop broke off: take back what it wrote, say why.
                let _ = self.put_back();
                if let Some(recorder) = self.recorder.take() {
                    let _ = recorder.fail(&e.to_string());
                }
                return Err(e);
            }
        };
        let green = matches!(
            stop.status,
            Status::AlreadyGreen | Status::Repaired | Status::RuleApplied | Status::ProposedApplied
        );
        let status = match (self.proposed, stop.status) {
            (Proposed::Enhancing, s) if green && s != Status::AlreadyGreen => {
                Status::ProposedEnhanced
            }
            (Proposed::Rejected, _) => Status::ProposedRejected,
            (_, s) => s,
        };
        let touched = self.touched();
        let mut message = stop.message;
        let mut commit_id = None;
        let mut verification = None;
        let mut restored = false;
        let mut uncommitted = Vec::new();
        let mut rule = self.rules_tried.last().cloned();
        if green {
            self.settle_rules(true);
            if let Some(id) = self.learn() {
                rule = Some(id);
            }
            let wants_commit = self
                .options
                .commit
                .unwrap_or(self.options.strictness.commit_by_default());
            if wants_commit && !touched.is_empty() {
                let v = if status == Status::ProposedEnhanced {
                    Verification::Enhanced
                } else {
                    Verification::Passed
                };
                let repo = salve_git::Repo::discover(&self.root)?;
                let diffs: Vec<&str> = self.kept.iter().map(|k| k.diff.as_str()).collect();
                match super::separate::repair_alone(&repo, &touched, &diffs) {
                    Ok(exact) => {
                        let made = commit::commit(&commit::Options {
                            dir: self.root.clone(),
                            files: Vec::new(),
                            kind: String::new(),
                            summary: self.options.message.clone().unwrap_or_else(|| {
                                format!(
                                    "make `{}` pass",
                                    crate::record::shell_words(&self.options.command)
                                )
                            }),
                            scopes: Vec::new(),
                            failed_tasks: vec![crate::record::shell_words(&self.options.command)],
                            verification: Some(v),
                            no_verify: false,
                            exact,
                        })?;
                        commit_id = Some(made.commit);
                        verification = Some(v.as_str());
                    }
                    Err(files) => {
                        message = format!(
                            "{message}; not committed: the repair's lines in {} cannot be told \
                             apart from uncommitted lines of yours there, so the repair is left \
                             in the work tree",
                            files.join(", ")
                        );
                        uncommitted = files;
                    }
                }
            }
        } else {
            self.settle_rules(false);
            if !self.options.keep && !self.kept.is_empty() && self.entangled.is_none() {
                match self.put_back()? {
                    Ok(()) => restored = true,
                    Err(files) => {
                        message = format!(
                            "{message}; the repairs kept along the way could not be taken back \
                             without touching work done since in {}, so they stay",
                            files.join(", ")
                        );
                    }
                }
            }
        }
        let cost = (!self.costs.is_empty()).then(|| self.costs.iter().sum::<f64>());
        let mut outcome = Outcome {
            status,
            green,
            message,
            command: self.command.clone(),
            checks: std::mem::take(&mut self.checks),
            attempts: std::mem::take(&mut self.attempts),
            diff: self.kept.iter().map(|k| k.diff.as_str()).collect(),
            touched,
            commit: commit_id,
            uncommitted,
            verification,
            checkpoint: self.start_checkpoint.clone(),
            restored,
            rule,
            guard: std::mem::take(&mut self.guard),
            provider_calls: self.provider_calls,
            provider_ms: self.provider_ms,
            cost_usd: cost,
            duration_ms: u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX),
            run: None,
            record_error: self.record_error.take(),
        };
        if let Some(recorder) = self.recorder.take() {
            let finish = Finish {
                status: status.as_str().to_owned(),
                message: Some(outcome.message.clone()),
                baseline: None,
                checkpoint: outcome.checkpoint.clone(),
                budgets: Some(serde_json::json!({
                    "attempts": self.options.max_attempts,
                    "attempts_used": outcome.attempts.len(),
                    "checks": outcome.checks.len(),
                    "provider_calls": outcome.provider_calls,
                    "cost_usd": outcome.cost_usd,
                    "strictness": self.options.strictness.as_str(),
                })),
            };
            match recorder.finish(&finish) {
                Ok(run) => outcome.run = Some(run),
                Err(e) => {
                    outcome.record_error.get_or_insert(e.to_string());
                }
            }
        }
        Ok(outcome)
    }

    /// The files the kept repairs wrote, in order, without repeats.
    fn touched(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for k in &self.kept {
            for f in &k.written {
                if !out.contains(f) {
                    out.push(f.clone());
                }
            }
        }
        out
    }

    /// Take back this run's own changes, newest first, each merged like an undo: the repair in
    /// flight, then the kept ones. Work done meanwhile stays; where a change cannot be taken
    /// back without touching it, stop there and name the files.
    pub(super) fn put_back(&mut self) -> Result<Result<(), Vec<String>>, Error> {
        let mut diffs: Vec<String> = self.pending.take().into_iter().collect();
        diffs.extend(self.kept.iter().rev().map(|k| k.diff.clone()));
        for diff in diffs {
            if let Err(files) = self.take_back(&diff)? {
                return Ok(Err(files));
            }
        }
        Ok(Ok(()))
    }

    /// Apply `diff` in reverse to the files as they are now, all or nothing; the files where
    /// it did not place when it cannot.
    pub(super) fn take_back(&mut self, diff: &str) -> Result<Result<(), Vec<String>>, Error> {
        if diff.trim().is_empty() {
            return Ok(Ok(()));
        }
        let undone = crate::apply::apply(
            diff,
            &crate::apply::Options {
                reverse: true,
                operation: "fix".to_owned(),
                record: false,
                // What is taken back is what the files held, which may not have parsed.
                syntax_check: false,
                // Taking back is what a stop asks for: it must not stop itself.
                cancel: crate::interrupt::Cancel::none(),
                ..crate::apply::Options::new(&self.root)
            },
        )?;
        match undone.report.outcome {
            crate::report::Outcome::Applied | crate::report::Outcome::AlreadyApplied => Ok(Ok(())),
            _ => Ok(Err(undone
                .report
                .files
                .iter()
                .filter(|f| !f.status.is_success())
                .map(|f| f.path.clone())
                .collect())),
        }
    }

    /// Tell the rules replayed in this run how they did.
    fn settle_rules(&mut self, green: bool) {
        let replayed: Vec<String> = self.rules_tried.clone();
        for id in replayed {
            let kept = self
                .kept
                .iter()
                .any(|k| k.source == Source::Rule { id: id.clone() });
            let _ = self.rules.record_result(&id, green && kept);
        }
    }

    /// A verified model repair of a single kind of failure becomes a learned rule.
    fn learn(&mut self) -> Option<String> {
        if !self.options.learn || !self.options.strictness.learned_rules_allowed() {
            return None;
        }
        let first = self.kept.first()?;
        if !matches!(first.source, Source::Model { .. }) || self.kept.len() != 1 {
            return None;
        }
        let pattern = first.patterns.first()?.clone();
        let template = if first.diff.is_empty() {
            first.text.clone()
        } else {
            first.diff.clone()
        };
        self.rules.learn(&pattern, &template).ok()
    }
}
