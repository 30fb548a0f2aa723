//! `salve fix [OPTIONS] -- CMD [ARGS]...`: run the check, and while it fails, classify the
//! failure, repair it (rules, then the model), apply, verify; commit the fix on green, restore
//! the tree otherwise. `--budget-status` and `--reset-budget` show and clear the budgets that
//! persist across runs.

use std::path::PathBuf;
use std::time::Duration;

use salve_engine::fix::budget;
use salve_engine::fix::check::Echo;
use salve_engine::fix::strictness::Strictness;
use salve_engine::fix::{self, Event, Options};

use crate::error::{failed, CliError};
use crate::global::Global;
use crate::output::{command_line, print_json_pretty, print_text};
use crate::progress::{self, Progress};

mod summary;

#[derive(Debug, clap::Args)]
pub struct FixArgs {
    /// The check to make pass, after `--`: `salve fix -- cargo test`
    #[arg(
        value_name = "CMD",
        trailing_var_arg = true,
        required_unless_present_any = ["budget_status", "reset_budget"]
    )]
    pub command: Vec<String>,
    /// Repair attempts at most (also the budget per failure and branch across runs)
    #[arg(long, value_name = "N", default_value_t = 3)]
    pub attempts: u32,
    /// Re-runs of a transient environment failure (network, a killed check) at most
    #[arg(long, value_name = "N", default_value_t = 2)]
    pub env_reruns: u32,
    /// Kill the check after this many seconds
    #[arg(long, value_name = "SECS", default_value_t = 600)]
    pub timeout: u64,
    /// sketch (no commit, the guard only warns), development, or production (pinned rules
    /// only, no model calls)
    #[arg(long, value_name = "LEVEL", default_value = "development", value_parser = parse_strictness)]
    pub strictness: Strictness,
    /// Repairs whose stated confidence is below this are not applied
    #[arg(long, value_name = "0..1", default_value_t = fix::DEFAULT_CONFIDENCE_GATE)]
    pub confidence_gate: f64,
    /// Do not commit the fix on green
    #[arg(long, conflicts_with = "commit")]
    pub no_commit: bool,
    /// Commit the fix on green even in sketch strictness
    #[arg(long)]
    pub commit: bool,
    /// The commit's summary [default: make `CMD` pass]
    #[arg(short, long, value_name = "MSG")]
    pub message: Option<String>,
    /// When not green, leave the tree as the last attempt left it (no restore)
    #[arg(long)]
    pub keep: bool,
    /// Only these paths may be changed by a repair (repeatable)
    #[arg(long, value_name = "PATH")]
    pub allow: Vec<PathBuf>,
    /// Start from a fix made elsewhere (a reply or a diff): verify it, then apply, enhance or
    /// reject it
    #[arg(long, value_name = "FILE")]
    pub proposed: Option<PathBuf>,
    /// Ask this provider alone instead of a chain
    #[arg(long, value_name = "NAME")]
    pub provider: Option<String>,
    /// Stop before asking a model again once the providers' reported cost reaches this many
    /// US dollars
    #[arg(long, value_name = "USD")]
    pub max_cost: Option<f64>,
    /// Do not learn a rule from a successful repair
    #[arg(long)]
    pub no_learn: bool,
    /// CI mode: exit 0 only on green, and write a Markdown summary to $GITHUB_STEP_SUMMARY
    #[arg(long)]
    pub ci: bool,
    /// Show the persisted budget counters and exit
    #[arg(long, conflicts_with = "reset_budget")]
    pub budget_status: bool,
    /// Clear the persisted budget counters (of this branch with --branch) and exit
    #[arg(long)]
    pub reset_budget: bool,
    /// The branch for --budget-status and --reset-budget [default: all]
    #[arg(long, value_name = "BRANCH")]
    pub branch: Option<String>,
}

fn parse_strictness(text: &str) -> Result<Strictness, String> {
    Strictness::parse(text).map_err(|e| e.to_string())
}

pub fn run(global: &Global, args: &FixArgs) -> Result<u8, CliError> {
    let dir = global.existing_work_dir()?;
    if args.budget_status {
        let limits = budget::Limits {
            attempts: args.attempts,
            environment_reruns: args.env_reruns,
        };
        return budget_status(global, &dir, args.branch.as_deref(), limits);
    }
    if args.reset_budget {
        let cleared = budget::reset_counters(&dir, args.branch.as_deref(), None).map_err(failed)?;
        if !global.quiet {
            eprintln!("cleared {cleared} budget counter(s)");
        }
        return Ok(0);
    }
    let proposed = match &args.proposed {
        Some(path) => Some(std::fs::read_to_string(path).map_err(|e| {
            CliError::user(format!(
                "cannot read the proposed fix {}: {e}",
                path.display()
            ))
            .with_hint("pass a file holding a reply or a diff")
        })?),
        None => None,
    };
    let progress = Progress::start(global, "starting");
    let options = Options {
        timeout: Duration::from_secs(args.timeout),
        max_attempts: args.attempts,
        max_env_reruns: args.env_reruns,
        strictness: args.strictness,
        confidence_gate: args.confidence_gate,
        commit: if args.no_commit {
            Some(false)
        } else if args.commit {
            Some(true)
        } else {
            None
        },
        message: args.message.clone(),
        keep: args.keep,
        allow: args.allow.clone(),
        proposed,
        provider: args.provider.clone(),
        max_cost_usd: args.max_cost,
        learn: !args.no_learn,
        echo: if global.quiet {
            Echo::None
        } else if global.json {
            Echo::Stderr
        } else if progress.is_on() {
            // The check's output and the spinner share the terminal.
            Echo::With(progress::echo_stdout)
        } else {
            Echo::Stdout
        },
        // Ctrl-C kills the check's whole process tree (it runs in a group of its own, out of
        // the terminal's reach) and lets the loop put the tree back before salve exits.
        cancel: Some(salve_engine::interrupt::cancel_flag()),
        command_line: command_line(),
        ..Options::new(&dir, args.command.clone())
    };
    let mut on = |event: &Event| progress.fix_event(event);
    let outcome = fix::fix(&options, &mut on);
    progress.finish();
    let outcome = outcome.map_err(failed)?;
    if args.ci {
        summary::write_step_summary(&outcome);
    }
    if global.json {
        print_json_pretty(&outcome)?;
    } else if !global.quiet {
        print_text(&summary::render(&outcome))?;
    }
    Ok(outcome.exit_code())
}

fn budget_status(
    global: &Global,
    dir: &std::path::Path,
    branch: Option<&str>,
    limits: budget::Limits,
) -> Result<u8, CliError> {
    let counters = budget::counters(dir, branch, limits).map_err(failed)?;
    if global.json {
        print_json_pretty(&counters)?;
        return Ok(0);
    }
    if global.quiet {
        return Ok(0);
    }
    if counters.is_empty() {
        print_text("no budget spent yet\n")?;
        return Ok(0);
    }
    let mut text = String::new();
    for c in &counters {
        text.push_str(&format!(
            "{}  {}  {}  {}/{}{}\n",
            c.branch,
            &c.signature[..c.signature.len().min(12)],
            c.kind,
            c.spent,
            c.limit,
            if c.exhausted { "  exhausted" } else { "" }
        ));
    }
    print_text(&text)?;
    Ok(0)
}
