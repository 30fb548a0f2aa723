//! One repair: where it comes from (a rule, the model, a proposed fix), the guard, the apply,
//! and the check that judges it.

use salve_patch::{Outcome as ReportOutcome, Report};

use super::repair::{AttemptReport, Candidate, Kept, Source, Verdict};
use super::session::{Checked, Session, Stop};
use super::{Error, Event, Status};
use crate::apply;
use crate::fix::check;
use crate::fix::classify::FailureClass;
use crate::fix::guard::{self, GuardOptions};
use crate::fix::rules::FailurePattern;
use crate::record::Applied;

impl Session<'_> {
    /// Step 3: a rule that matches, else the model (unless the strictness forbids it).
    pub(super) fn candidate(
        &mut self,
        checked: &Checked,
        tries: u32,
        on: &mut dyn FnMut(&Event),
    ) -> Result<Result<Candidate, Stop>, Error> {
        let patterns = patterns(checked);
        let pinned_only = !self.options.strictness.learned_rules_allowed();
        if let Some(rule) = self.rules.find(&patterns, pinned_only)? {
            if !self.rules_tried.contains(&rule.id) && !rule.retired {
                self.rules_tried.push(rule.id.clone());
                on(&Event::Repair {
                    attempt: tries + 1,
                    source: format!("rule {}", rule.id),
                });
                let file = checked.failures.iter().find_map(|f| f.file.as_deref());
                return Ok(Ok(Candidate {
                    text: rule.render(file),
                    source: Source::Rule {
                        id: rule.id.clone(),
                    },
                    confidence: Some(rule.confidence),
                    rationale: Some(format!(
                        "rule {} matches: {} {}",
                        rule.id, rule.pattern.kind, rule.pattern.message
                    )),
                }));
            }
        }
        if let Some(max) = self.options.max_cost_usd {
            let spent: f64 = self.costs.iter().sum();
            if spent >= max {
                return Ok(Err(Stop::new(
                    Status::BudgetExhausted,
                    format!("the provider cost budget is spent (${spent:.4} of ${max:.4})"),
                )));
            }
        }
        if !self.options.strictness.model_calls_allowed() {
            return Ok(Err(Stop::new(
                Status::BlockedByStrictness,
                format!(
                    "no pinned rule matches, and strictness {} allows no model calls",
                    self.options.strictness.as_str()
                ),
            )));
        }
        self.ask_model(checked, tries, on)
    }

    /// Steps 4 and 5: guard, apply, check, keep or restore.
    pub(super) fn attempt(
        &mut self,
        seq: u32,
        candidate: &Candidate,
        before: &Checked,
        on: &mut dyn FnMut(&Event),
    ) -> Result<(Verdict, Option<Checked>), Error> {
        on(&Event::Applying { attempt: seq });
        let mut report = AttemptReport {
            seq,
            source: candidate.source.clone(),
            verdict: Verdict::Refused,
            confidence: candidate.confidence,
            failures_before: before.failures.len(),
            failures_after: None,
            written: Vec::new(),
            report: None,
            guard: Vec::new(),
        };
        // Placed first without writing: the guard reads the diff before anything lands.
        let preview = apply::apply(&candidate.text, &self.apply_options(true))?;
        // A repair that reaches outside the work tree (or into `.git`) is not a repair that
        // failed to place: it is one the guard refuses, and it says which path.
        let outside: Vec<guard::Finding> = preview
            .report
            .files
            .iter()
            .filter(|f| f.status == crate::report::Status::PathRejected)
            .map(|f| guard::Finding {
                rule: guard::GuardRule::OutsidePaths,
                path: f.path.clone(),
                line: None,
                detail: f
                    .message
                    .clone()
                    .unwrap_or_else(|| "the repair writes outside the work tree".to_owned()),
            })
            .collect();
        if !outside.is_empty() {
            self.guard.extend(outside.iter().cloned());
            report.guard = outside;
            return Ok(self.guard_rejected(candidate, report, &preview.report));
        }
        if !placed(&preview.report) {
            report.report = Some(preview.report.clone());
            self.record_patch(candidate, &preview.report, "", Some("did not apply"));
            self.attempts.push(report);
            return Ok((Verdict::Refused, None));
        }
        let findings = guard::inspect(
            &preview.diff,
            &self.root,
            &GuardOptions {
                check_command: self.options.command.clone(),
                allow: self.options.allow.clone(),
                failure_output: before.result.log_text().into_owned(),
            },
        );
        self.guard.extend(findings.iter().cloned());
        report.guard = findings.clone();
        if !findings.is_empty() && self.options.strictness.guard_blocks() {
            return Ok(self.guard_rejected(candidate, report, &preview.report));
        }
        let applied = apply::apply(&candidate.text, &self.apply_options(false))?;
        report.written = applied
            .written
            .iter()
            .map(|p| p.to_string_lossy().into_owned())
            .collect();
        report.report = Some(applied.report.clone());
        if self.start_checkpoint.is_none() {
            self.start_checkpoint = applied.checkpoint.clone();
        }
        if !placed(&applied.report) || applied.written.is_empty() {
            self.record_patch(candidate, &applied.report, "", Some("did not apply"));
            self.attempts.push(report);
            return Ok((Verdict::Refused, None));
        }
        self.pending = Some(applied.diff.clone());
        let after = self.check(on)?;
        report.failures_after = Some(after.failures.len());
        let verdict = judge(before, &after, self.cancelled());
        report.verdict = verdict;
        let kept = matches!(verdict, Verdict::Green | Verdict::Better);
        self.pending = None;
        if kept {
            self.kept.push(Kept {
                source: candidate.source.clone(),
                text: candidate.text.clone(),
                written: report.written.clone(),
                diff: applied.diff.clone(),
                patterns: patterns(before),
            });
            self.record_patch(candidate, &applied.report, &applied.diff, None);
        } else {
            // Taken back alone, merged like an undo: what the user (or another salve) wrote
            // while the check ran stays.
            if let Err(files) = self.take_back(&applied.diff)? {
                self.entangled = Some(files);
            }
            let why = match verdict {
                Verdict::Environment => "taken back: the check then failed outside the code",
                Verdict::Interrupted => "taken back: stopped by the user",
                _ => "taken back: the failures did not go down",
            };
            self.record_patch(candidate, &applied.report, &applied.diff, Some(why));
        }
        self.record_decision(
            candidate,
            &format!(
                "{} ({} → {} failures)",
                verdict_word(verdict),
                before.failures.len(),
                after.failures.len()
            ),
        );
        self.attempts.push(report);
        Ok((verdict, Some(after)))
    }

    /// A proposed fix: applied and judged like a repair. `Ok(after)` when it applied and helped
    /// (or passed); `Err(())` when it was rejected (the tree is as before).
    pub(super) fn try_proposed(
        &mut self,
        text: &str,
        checked: &Checked,
        on: &mut dyn FnMut(&Event),
    ) -> Result<Result<Checked, ()>, Error> {
        let candidate = Candidate {
            source: Source::Proposed,
            text: text.to_owned(),
            confidence: None,
            rationale: Some("a fix proposed from elsewhere, verified locally".to_owned()),
        };
        let (verdict, after) = self.attempt(1, &candidate, checked, on)?;
        match (verdict, after) {
            (Verdict::Green | Verdict::Better, Some(after)) => Ok(Ok(after)),
            _ => Ok(Err(())),
        }
    }

    fn apply_options(&self, check_only: bool) -> apply::Options {
        apply::Options {
            check: check_only,
            operation: "fix".to_owned(),
            // The fix run keeps its own record, with every attempt in it.
            record: false,
            show_diff: true,
            checkpoint: !check_only,
            ..apply::Options::new(&self.root)
        }
    }

    /// A repair the guard refused for `report.guard`'s findings: recorded with them, not applied.
    fn guard_rejected(
        &mut self,
        candidate: &Candidate,
        mut report: AttemptReport,
        placed: &crate::report::Report,
    ) -> (Verdict, Option<Checked>) {
        report.verdict = Verdict::GuardRejected;
        report.report = Some(placed.clone());
        let reason = format!(
            "guard: {}",
            report
                .guard
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("; ")
        );
        self.record_patch(candidate, placed, "", Some(&reason));
        self.attempts.push(report);
        (Verdict::GuardRejected, None)
    }

    /// Keep a repair as a patch set: applied (kept), or rejected with why.
    fn record_patch(
        &mut self,
        candidate: &Candidate,
        report: &Report,
        diff: &str,
        rejected: Option<&str>,
    ) {
        let Some(recorder) = self.recorder.as_mut() else {
            return;
        };
        let rationale = format!("repair from {}", candidate.source.describe());
        let seq = self.attempts.len() + 1;
        let suffix = format!(".{seq}");
        let result = recorder.applied(&Applied {
            report,
            diff,
            baseline: None,
            suffix: &suffix,
            rationale: Some(&rationale),
        });
        let result = result.and_then(|seqs| match rejected {
            Some(reason) => recorder.reject_patch_sets(&seqs, reason),
            None => Ok(()),
        });
        if let Err(e) = result {
            self.record_error.get_or_insert(e.to_string());
        }
    }
}

/// Did every file place (or was already in place)?
fn placed(report: &Report) -> bool {
    matches!(
        report.outcome,
        ReportOutcome::Applied | ReportOutcome::AlreadyApplied
    )
}

/// A repair is kept only when the check passes or has fewer failures.
fn judge(before: &Checked, after: &Checked, cancelled: bool) -> Verdict {
    if after.result.status == check::Status::Cancelled || cancelled {
        return Verdict::Interrupted;
    }
    if after.passed() {
        return Verdict::Green;
    }
    if after
        .class
        .as_ref()
        .is_some_and(|c| c.class == FailureClass::Environment)
    {
        return Verdict::Environment;
    }
    if after.failures.len() < before.failures.len() {
        Verdict::Better
    } else {
        Verdict::NotBetter
    }
}

fn verdict_word(verdict: Verdict) -> &'static str {
    match verdict {
        Verdict::Green => "kept: the check passes",
        Verdict::Better => "kept: fewer failures",
        Verdict::NotBetter => "restored: not better",
        Verdict::Refused => "did not apply",
        Verdict::GuardRejected => "refused by the guard",
        Verdict::LowConfidence => "not applied: low confidence",
        Verdict::Environment => "restored: environment failure",
        Verdict::Interrupted => "restored: interrupted",
    }
}

/// The failures as rules see them.
pub(super) fn patterns(checked: &Checked) -> Vec<FailurePattern> {
    checked
        .failures
        .iter()
        .map(|f| {
            FailurePattern::new(
                serde_json::to_value(f.kind)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_owned))
                    .unwrap_or_default(),
                serde_json::to_value(f.tool)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_owned)),
                f.code.clone(),
                &f.message,
            )
        })
        .collect()
}
