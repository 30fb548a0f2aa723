//! The real agent CLIs, when installed (`scripts/install-agent-clis.sh` puts them in
//! `target/agent-clis/bin`, and `.ci/run` runs it; anything on PATH counts too). With no
//! credentials and no network they cannot answer, but they show that each preset's command line
//! is accepted (no usage error) and that their real failure is a provider error that moves the
//! chain on. Each runs with an empty HOME, once without credentials and once with a made-up API
//! key (the offline user with an account): either way it must end with a named reason, never by
//! reaching its time limit. codex offline retries forever and claude retries for minutes, so
//! this is the hang detection of `command::watch` on the real programs.

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

fn check(preset: Preset, with_key: bool) {
    let Some(path) = find(preset.program()) else {
        crate::skip::skip(
            "agent_clis",
            &format!(
                "`{}` is not installed (scripts/install-agent-clis.sh installs it)",
                preset.program()
            ),
        );
        return;
    };
    let home = tempfile::tempdir().unwrap();
    let mut argv = vec![
        "env".to_owned(),
        "-u".to_owned(),
        "XDG_CONFIG_HOME".to_owned(),
        format!("HOME={}", home.path().display()),
    ];
    if with_key {
        argv.extend(
            [
                "ANTHROPIC_API_KEY=sk-ant-made-up",
                "OPENAI_API_KEY=sk-made-up",
                "CODEX_API_KEY=sk-made-up",
                // No GEMINI_CLI_TRUST_WORKSPACE here: the preset sets it for the empty
                // directory it runs gemini in.
                "GEMINI_API_KEY=made-up",
            ]
            .map(str::to_owned),
        );
    }
    let mut command = preset.default_command(None);
    command[0] = path.to_string_lossy().into_owned();
    argv.extend(command);
    let agent: Arc<dyn Provider> = Arc::new(CommandProvider::new(
        preset.as_str(),
        argv,
        Some(preset),
        // The real default: the hang detection, not this limit, must end an agent offline.
        Duration::from_secs(300),
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
    assert!(!reason.contains("exit code 127"), "did not start: {reason}");
    assert!(
        !reason.contains("trusted directory") && !reason.contains('\u{1b}'),
        "{reason}"
    );
    assert!(
        !is_usage_error(&reason),
        "{} rejected its command line: {reason}",
        preset.as_str()
    );
    assert!(
        matches!(
            attempt.failure,
            Some(FailureKind::Auth | FailureKind::Transport | FailureKind::Exit)
        ),
        "{}: unexpected failure: {reason}",
        preset.as_str()
    );
}

#[test]
fn claude_cli_failure_moves_the_chain_on() {
    check(Preset::Claude, false);
}

#[test]
fn codex_cli_failure_moves_the_chain_on() {
    check(Preset::Codex, false);
}

#[test]
fn gemini_cli_failure_moves_the_chain_on() {
    check(Preset::Gemini, false);
}

#[test]
fn claude_cli_offline_with_a_key_moves_the_chain_on() {
    check(Preset::Claude, true);
}

#[test]
fn codex_cli_offline_with_a_key_moves_the_chain_on() {
    check(Preset::Codex, true);
}

#[test]
fn gemini_cli_offline_with_a_key_moves_the_chain_on() {
    check(Preset::Gemini, true);
}
