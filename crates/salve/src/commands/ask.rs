//! `salve ask "INSTRUCTION"`: build a prompt, ask the provider chain, apply the edit (with a
//! checkpoint, so `salve undo` reverts it), follow up once when it is refused, record the run.

use std::path::PathBuf;

use salve_engine::ask::{self, redact_secrets as redact, Event, Outcome, Status};
use salve_engine::config::ModelHint;

use crate::error::{failed, CliError};
use crate::global::Global;
use crate::output::{self, command_line, plural};
use crate::progress::Progress;
use crate::style::{Paint, Tone};

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum HintArg {
    Fast,
    Quality,
}

#[derive(Debug, clap::Args)]
pub struct AskArgs {
    /// What to change, in words
    #[arg(value_name = "INSTRUCTION")]
    pub instruction: String,
    /// A source file: its staged diff and full content go into the prompt (repeatable)
    #[arg(long = "file", value_name = "PATH")]
    pub files: Vec<PathBuf>,
    /// A file to change or create: its current content goes into the prompt (repeatable)
    #[arg(long = "target", value_name = "PATH")]
    pub targets: Vec<PathBuf>,
    /// Use the `fast` or `quality` chain instead of `default`
    #[arg(long, value_enum, value_name = "HINT")]
    pub model_hint: Option<HintArg>,
    /// Ask this provider alone instead of a chain
    #[arg(long, value_name = "NAME")]
    pub provider: Option<String>,
    /// Ask and place the edit, but write nothing
    #[arg(long)]
    pub dry_run: bool,
    /// Append every reply to this cassette, for replay later (a `replay` provider reads it)
    #[arg(long, value_name = "FILE")]
    pub record: Option<PathBuf>,
    /// Follow-ups to the same provider after a refused edit [default: from the configuration, 1]
    #[arg(long, value_name = "N")]
    pub follow_ups: Option<u32>,
}

pub fn run(global: &Global, args: &AskArgs) -> Result<u8, CliError> {
    let dir = global.existing_work_dir()?;
    let mut options = ask::Options::new(&dir, &args.instruction);
    options.files = args.files.clone();
    options.targets = args.targets.clone();
    options.dry_run = args.dry_run;
    options.follow_ups = args.follow_ups;
    options.model_hint = args.model_hint.map(|h| match h {
        HintArg::Fast => ModelHint::Fast,
        HintArg::Quality => ModelHint::Quality,
    });
    options.provider = args.provider.clone();
    options.cassette = args.record.clone();
    options.command = command_line().iter().map(|a| redact(a)).collect();
    options.cancel = Some(salve_engine::interrupt::cancel_flag());
    // Ctrl-C stops the ask through its cancel flag, also while the outcome is printed: the
    // exit status then says whether the edit was written.
    let _guard = salve_engine::interrupt::guard();
    let quiet = global.quiet || global.json;
    let progress = Progress::start(global, "building the prompt");
    let mut on = |event: &Event| {
        if let Event::Asking(a) = event {
            if !quiet {
                for note in &a.untrusted {
                    progress.println(&format!("note: {note}"));
                }
                progress.println(&format!("asking {} ({})", a.chain, a.providers.join(", ")));
            }
        }
        progress.ask_event(event);
    };
    let outcome = ask::ask(&options, &mut on);
    progress.finish();
    let outcome = outcome.map_err(failed)?;
    let text = if global.json {
        format!("{}\n", outcome.to_json())
    } else if global.quiet {
        String::new()
    } else {
        render(&outcome, Paint::stdout())
    };
    output::print_text(&text)?;
    Ok(outcome.status.exit_code())
}

fn render(outcome: &Outcome, paint: Paint) -> String {
    let mut out = String::new();
    for a in &outcome.attempts {
        let mut line = format!("{} (call {}): {}", a.provider, a.call, a.class.as_str());
        if let Some(meta) = &a.meta {
            let mut facts = vec![format!("{:.1}s", meta.latency_ms as f64 / 1000.0)];
            if let Some(model) = &meta.model {
                facts.push(model.clone());
            }
            if let (Some(i), Some(o)) = (meta.tokens_in, meta.tokens_out) {
                facts.push(format!("{i} tokens in, {o} out"));
            }
            if let Some(cost) = meta.cost_usd {
                facts.push(format!("${cost:.4}"));
            }
            line.push_str(&format!(" [{}]", facts.join(", ")));
        }
        if let Some(reason) = &a.reason {
            line.push_str(&format!(" - {reason}"));
        }
        out.push_str(&line);
        out.push('\n');
    }
    for (i, round) in outcome.rounds.iter().enumerate() {
        if let Some(report) = &round.report {
            if outcome.rounds.len() > 1 {
                out.push_str(&format!(
                    "round {} ({}{}):\n",
                    i + 1,
                    round.provider,
                    if round.follow_up { ", follow-up" } else { "" }
                ));
            }
            out.push_str(&output::render(report, paint));
        }
    }
    if let Some(message) = &outcome.message {
        out.push_str(message);
        out.push('\n');
    }
    let verdict = match outcome.status {
        Status::Applied => format!(
            "ask: applied ({} written){}",
            plural(outcome.written.len(), "file"),
            if outcome.checkpoint.is_some() {
                "; `salve undo` reverts it"
            } else {
                ""
            }
        ),
        Status::AlreadyApplied => "ask: the change is already in place; nothing written".into(),
        Status::NoChange => "ask: the model says nothing needs to change".into(),
        Status::Checked => "ask: --dry-run; the edit places, nothing written".into(),
        Status::Refused => "ask: refused; nothing written".into(),
        Status::ProviderError => "ask: no provider gave an edit; nothing written".into(),
        Status::Interrupted => "ask: stopped by the user; nothing written".into(),
    };
    let tone = match outcome.status {
        Status::Applied | Status::AlreadyApplied | Status::NoChange | Status::Checked => Tone::Good,
        Status::Refused | Status::ProviderError | Status::Interrupted => Tone::Bad,
    };
    out.push_str(&paint.verdict(tone, &verdict));
    out.push('\n');
    if let Some(run) = &outcome.run {
        out.push_str(&format!("run {run} recorded\n"));
    }
    if let Some(e) = &outcome.record_error {
        let warning = paint.warning_label("warning:");
        out.push_str(&format!("{warning} the run was not recorded: {e}\n"));
    }
    redact(&out)
}
