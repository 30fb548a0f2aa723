//! `salve ui [-C DIR] [--port N] [--open]`: serve the local page of runs and checkpoints (see
//! the `salve-ui` crate) on 127.0.0.1 until interrupted. The URL printed carries this start's
//! token; `--open` hands it to the desktop's browser.

use crate::error::{failed, CliError};
use crate::global::Global;
use crate::output::{print_json, print_text};

#[derive(Debug, clap::Args)]
pub struct UiArgs {
    /// The port on 127.0.0.1; 0 picks a free one
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub port: u16,
    /// Open the page in the default browser
    #[arg(long)]
    pub open: bool,
}

pub fn run(global: &Global, args: &UiArgs) -> Result<u8, CliError> {
    // Ctrl-C or SIGTERM during an edit lets it finish or stop cleanly, then ends the server.
    salve_engine::interrupt::exit_when_idle();
    let options = salve_ui::Options {
        port: args.port,
        ..salve_ui::Options::new(global.existing_work_dir()?)
    };
    let server = salve_ui::Server::bind(&options).map_err(failed)?;
    let url = server.app().url();
    if global.json {
        print_json(&serde_json::json!({ "url": url }))?;
    } else {
        print_text(&format!("salve ui: {url}\n(press Ctrl-C to stop)\n"))?;
    }
    if args.open {
        open_browser(&url);
    }
    server.serve();
    Ok(0)
}

/// Ask the desktop to open `url`; a missing opener is a note, not a failure.
fn open_browser(url: &str) {
    let opener = if cfg!(target_os = "macos") {
        "open"
    } else {
        "xdg-open"
    };
    let spawned = std::process::Command::new(opener)
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
    if spawned.is_err() {
        eprintln!("salve ui: could not run {opener}; open the URL above by hand");
    }
}
