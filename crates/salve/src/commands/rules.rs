//! `salve rules list|show|pin|unpin|rm`: the repairs `salve fix` learned, and the ones pinned
//! in the repository's `.salve/rules/` to be reviewed like code.

use salve_engine::fix::rules::{Origin, Rule, Rules};

use crate::error::{failed, CliError};
use crate::global::Global;
use crate::output::{print_json_pretty, print_text};

#[derive(Debug, clap::Args)]
pub struct RulesArgs {
    #[command(subcommand)]
    pub action: RulesAction,
}

#[derive(Debug, clap::Subcommand)]
pub enum RulesAction {
    /// Every rule: id, origin, confidence, counts, what it matches
    List,
    /// One rule in full, with its edit
    Show {
        /// The rule's id (or a unique prefix) or a pinned rule's name
        #[arg(value_name = "RULE")]
        rule: String,
    },
    /// Move a learned rule into `.salve/rules/NAME.toml`, to be reviewed and committed
    Pin {
        #[arg(value_name = "RULE")]
        rule: String,
        /// The file's name [default: the rule's id]
        #[arg(long, value_name = "NAME")]
        name: Option<String>,
    },
    /// Delete a pinned rule's file, keeping the rule as a learned one
    Unpin {
        #[arg(value_name = "NAME")]
        name: String,
    },
    /// Forget a learned rule
    Rm {
        #[arg(value_name = "RULE")]
        rule: String,
    },
}

pub fn run(global: &Global, args: &RulesArgs) -> Result<u8, CliError> {
    let dir = global.existing_work_dir()?;
    let mut rules = Rules::load(&dir).map_err(failed)?;
    match &args.action {
        RulesAction::List => {
            let all = rules.list().map_err(failed)?;
            if global.json {
                print_json_pretty(&all)?;
            } else if !global.quiet {
                print_text(&list(&all))?;
            }
        }
        RulesAction::Show { rule } => {
            let rule = rules.show(rule).map_err(failed)?;
            if global.json {
                print_json_pretty(&rule)?;
            } else if !global.quiet {
                print_text(&show(&rule))?;
            }
        }
        RulesAction::Pin { rule, name } => {
            let path = rules.pin(rule, name.as_deref()).map_err(failed)?;
            if !global.quiet {
                eprintln!("pinned as {}; review and commit it", path.display());
            }
        }
        RulesAction::Unpin { name } => {
            let id = rules.unpin(name).map_err(failed)?;
            if !global.quiet {
                eprintln!("unpinned {name}; it stays as learned rule {id}");
            }
        }
        RulesAction::Rm { rule } => {
            let removed = rules.remove(rule).map_err(failed)?;
            if !global.quiet {
                eprintln!("removed rule {}", removed.id);
            }
        }
    }
    Ok(0)
}

fn origin(rule: &Rule) -> String {
    match (rule.origin, &rule.name) {
        (Origin::Pinned, Some(name)) => format!("pinned:{name}"),
        (Origin::Pinned, None) => "pinned".to_owned(),
        (Origin::Learned, _) if rule.retired => "retired".to_owned(),
        (Origin::Learned, _) => "learned".to_owned(),
    }
}

fn list(rules: &[Rule]) -> String {
    if rules.is_empty() {
        return "no rules yet; `salve fix` learns one from each verified repair\n".to_owned();
    }
    let mut out = String::new();
    for r in rules {
        out.push_str(&format!(
            "{}  {:<14}  {:.2}  {} ok / {} failed  {}: {}\n",
            r.id,
            origin(r),
            r.confidence,
            r.successes,
            r.failures,
            r.pattern.kind,
            r.pattern.message
        ));
    }
    out
}

fn show(rule: &Rule) -> String {
    let mut out = format!(
        "rule {}\norigin:     {}\nconfidence: {:.2}\ncounts:     {} hits, {} successes, {} failures\nmatches:    {}",
        rule.id,
        origin(rule),
        rule.confidence,
        rule.hits,
        rule.successes,
        rule.failures,
        rule.pattern.kind
    );
    if let Some(tool) = &rule.pattern.tool {
        out.push_str(&format!(" from {tool}"));
    }
    if let Some(code) = &rule.pattern.code {
        out.push_str(&format!(" [{code}]"));
    }
    out.push_str(&format!(": {}\n\n{}", rule.pattern.message, rule.template));
    if !out.ends_with('\n') {
        out.push('\n');
    }
    out
}
