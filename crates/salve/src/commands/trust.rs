//! `salve trust [--show | --revoke]`: allow the sections of this repository's `salve.toml` that
//! run programs, say where your API keys go, or widen what an agent may run (see
//! [`salve_engine::trust`]). Until then salve ignores them, with a note.

use salve_engine::trust::{self, Action, Options, Outcome};

use crate::error::{failed, CliError};
use crate::global::Global;
use crate::output::{plural, print_json, print_text};

#[derive(Debug, clap::Args)]
pub struct TrustArgs {
    /// List the sections that need trust and whether they have it; change nothing
    #[arg(long, conflicts_with = "revoke")]
    pub show: bool,
    /// Take back the trust given to this repository's files (their current and older content)
    #[arg(long)]
    pub revoke: bool,
}

pub fn run(global: &Global, args: &TrustArgs) -> Result<u8, CliError> {
    let action = match (args.show, args.revoke) {
        (true, _) => Action::Show,
        (_, true) => Action::Revoke,
        _ => Action::Trust,
    };
    let options = Options {
        dir: global.existing_work_dir()?,
        action,
    };
    let outcome = trust::trust(&options).map_err(failed)?;
    if global.json {
        print_json(&outcome)?;
    } else if !global.quiet {
        print_text(&render(&outcome))?;
    }
    Ok(0)
}

fn render(outcome: &Outcome) -> String {
    let mut out = String::new();
    if outcome.sections.is_empty() {
        let files: Vec<String> = outcome
            .files
            .iter()
            .map(|f| f.display().to_string())
            .collect();
        out.push_str(&format!(
            "nothing needs trust: {} {} no section that runs a program, sends your API keys or \
             allows checks\n",
            if files.is_empty() {
                "the repository has no salve.toml and".to_owned()
            } else {
                files.join(", ")
            },
            if files.len() > 1 { "have" } else { "has" }
        ));
    }
    for g in &outcome.sections {
        let state = if g.trusted { "trusted" } else { "not trusted" };
        out.push_str(&format!(
            "[{}] in {}: {state} ({})\n    {}\n",
            g.section,
            g.file.display(),
            g.power.describe(),
            g.content
        ));
    }
    match outcome.action {
        Action::Trust if !outcome.sections.is_empty() => out.push_str(&format!(
            "trusted {}; a section that changes needs `salve trust` again\n",
            plural(outcome.newly_trusted, "new section")
        )),
        Action::Revoke => out.push_str(&format!(
            "revoked {} trust {}; salve ignores these sections until you trust them again\n",
            outcome.revoked,
            if outcome.revoked == 1 { "entry" } else { "entries" }
        )),
        Action::Show if outcome.sections.iter().any(|g| !g.trusted) => out.push_str(
            "salve ignores the sections not trusted; read them, then run `salve trust` to allow them\n",
        ),
        _ => {}
    }
    out
}
