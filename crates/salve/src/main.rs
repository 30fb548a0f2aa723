//! The `salve` command line. Parsing and dispatch live in [`cli`] (the flags every subcommand
//! takes in [`global`]), each subcommand in [`commands`], terminal
//! rendering in [`output`], colour in [`style`], and error kinds with their exit codes in
//! [`error`].

mod cli;
mod commands;
mod error;
mod global;
mod output;
mod progress;
mod style;

use std::process::ExitCode;

use clap::Parser as _;

fn main() -> ExitCode {
    error::install_panic_hook();
    // A deliberate bug, so tests can hold the exit-code contract for internal errors (101).
    if std::env::var_os("SALVE_DEBUG_PANIC").is_some() {
        panic!("SALVE_DEBUG_PANIC is set");
    }
    let cli = match cli::Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => return ExitCode::from(error::parse_failed(&err)),
    };
    style::init(cli.global.color);
    // Ctrl-C and SIGTERM: work that must not stop half done (writing files, a fix loop) finishes
    // or undoes itself and returns; anything else stops at once.
    let _ = ctrlc::set_handler(|| {
        if !salve_engine::interrupt::request() {
            std::process::exit(130);
        }
    });
    match cli::run(&cli) {
        Ok(code) => ExitCode::from(code),
        Err(err) => {
            err.print(cli.global.json);
            ExitCode::from(err.exit_code())
        }
    }
}
