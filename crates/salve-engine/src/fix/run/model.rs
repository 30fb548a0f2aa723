//! Asking the model for a repair: the `default` chain first, the `quality` chain once an
//! attempt has failed (or the one provider asked for).

use salve_llm::{Cancel, ReplyClass, Request};
use salve_store::Batch;

use super::prompt::{repair_prompt, stated_confidence};
use super::repair::{Candidate, Source};
use super::session::{Checked, Session, Stop};
use super::{Error, Event, Status};
use crate::config::{Config, ConfigError, ModelHint};

impl Session<'_> {
    /// Build the prompt, run the chain, and read the answer's confidence.
    pub(super) fn ask_model(
        &mut self,
        checked: &Checked,
        tries: u32,
        on: &mut dyn FnMut(&Event),
    ) -> Result<Result<Candidate, Stop>, Error> {
        let config = Config::load(&self.root)?;
        if tries == 0 {
            for note in config.untrusted_notes() {
                on(&Event::Untrusted(note));
            }
        }
        let hint = (tries > 0).then_some(ModelHint::Quality);
        let chain =
            match config.build_chain(hint, self.options.provider.as_deref(), &self.root, None) {
                Ok(chain) => chain,
                Err(
                    e @ (ConfigError::NoProviders
                    | ConfigError::UnknownProvider { .. }
                    | ConfigError::Untrusted { .. }),
                ) => return Ok(Err(Stop::new(Status::NoProvider, e.to_string()))),
                Err(e) => return Err(e.into()),
            };
        on(&Event::Repair {
            attempt: tries + 1,
            source: format!("chain {}", chain.name()),
        });
        let prompt = match repair_prompt(&self.root, &self.command, checked, &self.attempts) {
            Ok(prompt) => prompt,
            Err(e) => {
                return Ok(Err(Stop::new(
                    Status::ProviderError,
                    format!("the repair prompt could not be built: {e}"),
                )))
            }
        };
        // Ctrl-C kills the provider's tree at once rather than after its answer.
        let cancel = self.options.cancel.clone().map(Cancel::new);
        let request = Request::new(prompt.clone()).with_cancel(cancel.unwrap_or_default());
        let ran = chain.run_observed(&request, &mut |e| on(&Event::Provider(e.clone())));
        let attempts = match &ran {
            Ok(answered) => answered.attempts.clone(),
            Err(all_failed) => all_failed.attempts.clone(),
        };
        self.record_provider_calls(&attempts, &prompt, tries + 1);
        let answered = match ran {
            Ok(answered) => answered,
            Err(_) if self.cancelled() => {
                return Ok(Err(Stop::new(
                    Status::Interrupted,
                    "stopped by the user while the model worked; its processes were killed",
                )))
            }
            Err(all_failed) => {
                return Ok(Err(Stop::new(
                    Status::ProviderError,
                    all_failed.to_string(),
                )))
            }
        };
        let answer = answered.answer;
        if answer.class == ReplyClass::NoChange {
            return Ok(Err(Stop::new(
                Status::ProviderError,
                format!(
                    "{} answered that nothing needs to change, but the check fails",
                    answer.provider.name()
                ),
            )));
        }
        let text = answer.reply.text;
        // Below the gate nothing is applied, so a repair must say how sure it is: asked once
        // more when it did not; still none, and the gate refuses it.
        let confidence = match stated_confidence(&text) {
            Some(c) => Some(c),
            None => {
                let ask = Request::new(confidence_question(&text)).with_cancel(
                    self.options
                        .cancel
                        .clone()
                        .map(Cancel::new)
                        .unwrap_or_default(),
                );
                let started = std::time::Instant::now();
                let said = answer.provider.complete(&ask);
                // The follow-up is a provider call like any other, in the count and the time.
                self.provider_calls += 1;
                self.provider_ms +=
                    u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
                said.ok().and_then(|s| stated_confidence(&s.text))
            }
        };
        Ok(Ok(Candidate {
            confidence,
            rationale: Some(crate::ask::redact_secrets(&first_words(&text))),
            source: Source::Model {
                provider: answer.provider.name().to_owned(),
            },
            text,
        }))
    }

    /// Every provider call as an attempt row of the record, with the prompt as an artifact.
    fn record_provider_calls(&mut self, calls: &[salve_llm::Attempt], prompt: &str, seq: u32) {
        self.provider_calls += calls.len();
        self.provider_ms += calls
            .iter()
            .filter_map(|a| a.meta.as_ref().map(|m| m.latency_ms))
            .sum::<u64>();
        self.costs
            .extend(calls.iter().filter_map(|a| a.meta.as_ref()?.cost_usd));
        let Some(recorder) = self.recorder.as_mut() else {
            return;
        };
        let rows = calls.iter().map(crate::record::provider_call).collect();
        let name = format!("prompt.{seq}");
        let prompt = crate::ask::redact_secrets(prompt);
        if let Err(e) = recorder.batch(&Batch {
            artifacts: vec![(name.as_str(), prompt.as_bytes())],
            attempts: rows,
            ..Batch::default()
        }) {
            self.record_error.get_or_insert(e.to_string());
        }
    }
}

/// The follow-up that asks a repair's author for the confidence it left out.
fn confidence_question(reply: &str) -> String {
    format!(
        "You proposed this repair for a failing check, without saying how confident you are that \
         it makes the check pass without weakening it:\n\n{reply}\n\nAnswer with one line, \
         `Confidence: N`, N between 0 and 1. Do not repeat the repair.\n"
    )
}

/// The reply's prose before its first fence or edit marker, shortened: the model's reasoning,
/// for the record's decision.
fn first_words(reply: &str) -> String {
    let prose: Vec<&str> = reply
        .lines()
        .take_while(|l| !l.starts_with("```") && !l.starts_with("---") && !l.starts_with("diff "))
        .filter(|l| !l.trim().is_empty())
        .collect();
    let mut text = prose.join(" ");
    if text.len() > 400 {
        let cut = (0..=400)
            .rev()
            .find(|&i| text.is_char_boundary(i))
            .unwrap_or(0);
        text.truncate(cut);
        text.push('…');
    }
    text
}
