//! The real agent CLIs, when installed (`scripts/install-agent-clis.sh` puts them in
//! `target/agent-clis/bin`; anything on PATH counts too). With no credentials and no network
//! they cannot answer, but they show that each preset's command line is accepted (no usage
//! error) and that their real failure is a provider error that moves the chain on.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use salve_llm::command::{CommandProvider, Preset};
use salve_llm::{Chain, FailureKind, Provider, ReplyClass, Request, RetryPolicy};

use crate::sh;

/// Where the CLI is: `target/agent-clis/bin` first, then PATH.
fn find(program: &str) -> Option<PathBuf> {
    let local = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../target/agent-clis/bin")
        .join(program);
    if local.is_file() {
        return Some(local);
    }
    std::env::var_os("PATH").and_then(|path| {
        std::env::split_paths(&path)
            .map(|dir| dir.join(program))
            .find(|p| p.is_file())
    })
}

/// Usage errors as the three CLIs word them.
fn is_usage_error(message: &str) -> bool {
    let lower = message.to_ascii_lowercase();
    [
        "unexpected argument",
        "unknown option",
        "unknown argument",
        "unrecognized",
        "invalid value",
        "usage:",
    ]
    .iter()
    .any(|w| lower.contains(w))
}

fn check(preset: Preset) {
    let Some(path) = find(preset.program()) else {
        eprintln!(
            "skipped: `{}` is not installed (scripts/install-agent-clis.sh installs it)",
            preset.program()
        );
        return;
    };
    let mut argv = preset.default_command(None);
    argv[0] = path.to_string_lossy().into_owned();
    let agent: Arc<dyn Provider> = Arc::new(CommandProvider::new(
        preset.as_str(),
        argv,
        Some(preset),
        // codex retries its connection for a long time; the kill at the limit is its failure.
        Duration::from_secs(8),
    ));
    let fallback: Arc<dyn Provider> = Arc::new(CommandProvider::new(
        "fallback",
        sh("sentinel.sh", &[]),
        None,
        Duration::from_secs(5),
    ));
    let chain = Chain::new(
        "default",
        vec![agent, fallback],
        RetryPolicy {
            max_retries: 0,
            ..RetryPolicy::default()
        },
    );
    let answered = chain.run(&Request::new("Reply with the word ok.")).unwrap();
    assert_eq!(answered.answer.provider.name(), "fallback");
    assert_eq!(answered.attempts[0].provider, preset.as_str());
    let attempt = &answered.attempts[0];
    let reason = attempt.reason.clone().unwrap_or_default();
    eprintln!("{}: {:?}: {reason}", preset.as_str(), attempt.failure);
    assert_eq!(attempt.class, ReplyClass::Error, "{reason}");
    assert!(
        !is_usage_error(&reason),
        "{} rejected its command line: {reason}",
        preset.as_str()
    );
    assert!(
        matches!(
            attempt.failure,
            Some(
                FailureKind::Auth
                    | FailureKind::Transport
                    | FailureKind::Timeout
                    | FailureKind::Exit
            )
        ),
        "{}: unexpected failure: {reason}",
        preset.as_str()
    );
}

#[test]
fn claude_cli_failure_moves_the_chain_on() {
    check(Preset::Claude);
}

#[test]
fn codex_cli_failure_moves_the_chain_on() {
    check(Preset::Codex);
}

#[test]
fn gemini_cli_failure_moves_the_chain_on() {
    check(Preset::Gemini);
}
