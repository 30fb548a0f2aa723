//! `salve completions SHELL`: a completion script for bash, zsh, fish, PowerShell or elvish on
//! stdout, generated from the same argument definitions the binary parses with.

use clap_complete::Shell;

use crate::error::CliError;
use crate::global::Global;
use crate::output::print_bytes;

#[derive(Debug, clap::Args)]
#[command(after_help = "Install, for example:\n  \
    salve completions bash > ~/.local/share/bash-completion/completions/salve\n  \
    salve completions zsh > ~/.zfunc/_salve\n  \
    salve completions fish > ~/.config/fish/completions/salve.fish")]
pub struct CompletionsArgs {
    /// The shell to write completions for
    #[arg(value_name = "SHELL")]
    pub shell: Shell,
}

/// `root` is the whole command line's definition, which the script completes.
pub fn run(
    _global: &Global,
    args: &CompletionsArgs,
    mut root: clap::Command,
) -> Result<u8, CliError> {
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut root, "salve", &mut script);
    print_bytes(&script)?;
    Ok(0)
}
