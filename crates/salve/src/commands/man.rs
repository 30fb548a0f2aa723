//! `salve man`: the manual pages (roff), generated from the same argument definitions the binary
//! parses with. `salve man > salve.1 && man ./salve.1` for the top page; `salve man apply` for
//! salve-apply(1), the page the top page's COMMANDS section refers to; `salve man --dir DIR` for
//! every page at once.
//!
//! The pages are clap_mangen's, section by section, except the SYNOPSIS: clap_mangen leaves the
//! value names out of it (`[-C ]`, `[--color]`), so salve writes its own (`[-C DIR]`,
//! `[--color WHEN]`).

use std::path::{Path, PathBuf};

use clap::{Arg, ArgAction};
use clap_mangen::Man;

use crate::error::CliError;
use crate::global::Global;
use crate::output::print_bytes;

#[derive(Debug, clap::Args)]
pub struct ManArgs {
    /// The command whose page to print: `salve man apply` prints salve-apply(1), `salve man rules
    /// pin` salve-rules-pin(1); none prints salve(1)
    #[arg(value_name = "COMMAND")]
    pub command: Vec<String>,
    /// Write every page (salve.1, salve-apply.1, ...) into DIR instead of printing one
    #[arg(long, value_name = "DIR", conflicts_with = "command")]
    pub dir: Option<PathBuf>,
}

/// `root` is the whole command line's definition, whose pages these are.
pub fn run(_global: &Global, args: &ManArgs, root: clap::Command) -> Result<u8, CliError> {
    let mut root = root
        // `help` is clap's, not a command with a page of its own.
        .disable_help_subcommand(true)
        .after_long_help(
            "Exit codes: 0 success or already applied, 1 refused or partial, 2 usage, \
             configuration or environment error, 101 internal bug.\n\
             Each command has a page of its own: `salve man apply` prints salve-apply(1), \
             `salve man --dir DIR` writes them all.",
        );
    root.build();
    if let Some(dir) = &args.dir {
        return write_all(&root, dir);
    }
    let mut cmd = &root;
    for name in &args.command {
        cmd = cmd.find_subcommand(name).ok_or_else(|| {
            CliError::user(format!(
                "no manual page for `{name}`: {} has no such command",
                cmd.get_bin_name().unwrap_or("salve")
            ))
            .with_hint("the COMMANDS section of `salve man` lists the commands")
        })?;
    }
    print_bytes(&page(cmd)?)?;
    Ok(0)
}

/// Every page of the command tree, one file each, named as the pages refer to each other.
fn write_all(root: &clap::Command, dir: &Path) -> Result<u8, CliError> {
    std::fs::create_dir_all(dir)
        .map_err(|e| CliError::user(format!("cannot create {}: {e}", dir.display())))?;
    let mut stack = vec![root];
    while let Some(cmd) = stack.pop() {
        let file = dir.join(Man::new(cmd.clone()).get_filename());
        std::fs::write(&file, page(cmd)?)
            .map_err(|e| CliError::user(format!("cannot write {}: {e}", file.display())))?;
        stack.extend(cmd.get_subcommands().filter(|s| !s.is_hide_set()));
    }
    Ok(0)
}

/// One page: clap_mangen's sections in its order, with salve's synopsis.
fn page(cmd: &clap::Command) -> Result<Vec<u8>, CliError> {
    // Every page is from the same program, whichever command it describes.
    let source = format!("salve {}", env!("CARGO_PKG_VERSION"));
    let man = Man::new(cmd.clone()).source(source);
    let sections = (|| -> std::io::Result<Vec<Vec<u8>>> {
        let mut sections = vec![
            part(|w| man.render_title(w))?,
            part(|w| man.render_name_section(w))?,
            synopsis(cmd).into_bytes(),
            part(|w| man.render_description_section(w))?,
        ];
        if cmd.get_arguments().any(|a| !a.is_hide_set()) {
            sections.push(part(|w| man.render_options_section(w))?);
        }
        if cmd.get_subcommands().any(|s| !s.is_hide_set()) {
            sections.push(part(|w| man.render_subcommands_section(w))?);
        }
        if cmd.get_after_help().is_some() || cmd.get_after_long_help().is_some() {
            sections.push(part(|w| man.render_extra_section(w))?);
        }
        if cmd.get_version().is_some() || cmd.get_long_version().is_some() {
            sections.push(part(|w| man.render_version_section(w))?);
        }
        Ok(sections)
    })()
    .map_err(|e| CliError::internal(format!("rendering the manual page: {e}")))?;
    // Each section comes with roff's two-line preamble; the page needs it once.
    let mut page = Vec::new();
    for (i, section) in sections.iter().enumerate() {
        let section = if i == 0 {
            section
        } else {
            without_preamble(section)
        };
        page.extend_from_slice(section);
    }
    Ok(page)
}

fn part(render: impl FnOnce(&mut Vec<u8>) -> std::io::Result<()>) -> std::io::Result<Vec<u8>> {
    let mut out = Vec::new();
    render(&mut out)?;
    Ok(out)
}

fn without_preamble(part: &[u8]) -> &[u8] {
    const PREAMBLE: &[u8] = b".ie \\n(.g .ds Aq \\(aq\n.el .ds Aq '\n";
    part.strip_prefix(PREAMBLE).unwrap_or(part)
}

/// `.SH SYNOPSIS` and one line: the command in bold, every visible option with its value name
/// (`[-C DIR]`), the positionals (`[FILE]`, `<ID>`, `[-- CMD...]`), and the subcommand slot.
fn synopsis(cmd: &clap::Command) -> String {
    let mut parts = vec![bold(cmd.get_bin_name().unwrap_or(cmd.get_name()))];
    let visible = cmd.get_arguments().filter(|a| !a.is_hide_set());
    let (positionals, options): (Vec<&Arg>, Vec<&Arg>) = visible.partition(|a| a.is_positional());
    parts.extend(options.into_iter().filter_map(option_usage));
    parts.extend(positionals.into_iter().map(positional_usage));
    if cmd.get_subcommands().any(|s| !s.is_hide_set()) {
        let slot = italic("COMMAND");
        parts.push(if cmd.is_subcommand_required_set() {
            format!("<{slot}>")
        } else {
            format!("[{slot}]")
        });
    }
    format!(".SH SYNOPSIS\n{}\n", parts.join(" "))
}

fn option_usage(arg: &Arg) -> Option<String> {
    let flag = match (arg.get_short(), arg.get_long()) {
        (Some(s), Some(l)) => format!("{}|{}", bold(&format!("-{s}")), bold(&format!("--{l}"))),
        (Some(s), None) => bold(&format!("-{s}")),
        (None, Some(l)) => bold(&format!("--{l}")),
        (None, None) => return None,
    };
    let value = if arg.get_num_args().is_some_and(|n| n.takes_values()) {
        format!(" {}", italic(&value_name(arg)))
    } else {
        String::new()
    };
    let repeated = if matches!(arg.get_action(), ArgAction::Append | ArgAction::Count) {
        "..."
    } else {
        ""
    };
    Some(if arg.is_required_set() {
        format!("{flag}{value}{repeated}")
    } else {
        format!("[{flag}{value}]{repeated}")
    })
}

fn positional_usage(arg: &Arg) -> String {
    let mut name = italic(&value_name(arg));
    if arg.get_num_args().is_some_and(|n| n.max_values() > 1) {
        name.push_str("...");
    }
    if arg.is_last_set() {
        name = format!("{} {name}", bold("--"));
    }
    if arg.is_required_set() {
        format!("<{name}>")
    } else {
        format!("[{name}]")
    }
}

fn value_name(arg: &Arg) -> String {
    arg.get_value_names()
        .map(|names| names.join(" "))
        .unwrap_or_else(|| arg.get_id().as_str().to_uppercase())
}

fn bold(text: &str) -> String {
    format!("\\fB{}\\fR", escape(text))
}

fn italic(text: &str) -> String {
    format!("\\fI{}\\fR", escape(text))
}

/// Roff text: a backslash is `\e`, a hyphen-minus `\-` (a plain `-` may print as a hyphen that
/// cannot be copied back into a shell).
fn escape(text: &str) -> String {
    text.replace('\\', "\\e").replace('-', "\\-")
}
