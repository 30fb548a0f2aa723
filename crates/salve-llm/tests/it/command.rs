//! Command providers as real child processes.

use std::time::{Duration, Instant};

use salve_llm::command::{CommandProvider, Preset};
use salve_llm::{classify, FailureKind, Provider, ProviderKind, ReplyClass, Request};

use crate::{pid_gone, sh};

fn provider(argv: Vec<String>, preset: Option<Preset>) -> CommandProvider {
    CommandProvider::new("test", argv, preset, Duration::from_secs(10))
}

#[test]
fn plain_command_gets_the_prompt_on_stdin_and_its_stdout_is_the_reply() {
    let p = provider(vec!["cat".into()], None);
    let reply = p.complete(&Request::new("hello\nworld")).unwrap();
    assert_eq!(reply.text, "hello\nworld");
    assert_eq!(reply.meta.provider, "test");
    assert_eq!(reply.meta.kind, ProviderKind::Command);
}

#[test]
fn prompt_placeholder_passes_the_prompt_as_an_argument() {
    let p = provider(sh("echo_arg.sh", &["{prompt}"]), None);
    let reply = p.complete(&Request::new("as an argument")).unwrap();
    assert_eq!(reply.text, "as an argument\n");
}

#[test]
fn claude_preset_reads_result_usage_and_cost() {
    let p = provider(sh("claude_ok.sh", &[]), Some(Preset::Claude));
    let reply = p.complete(&Request::new("PROMPT-LINE-1\nmore")).unwrap();
    assert!(reply.text.contains("(PROMPT-LINE-1)"), "{}", reply.text);
    assert!(reply.text.contains("+print('hello')"));
    assert_eq!(classify(&reply.text), ReplyClass::Edit);
    assert_eq!(reply.meta.model.as_deref(), Some("claude-sonnet-test"));
    assert_eq!(reply.meta.tokens_in, Some(123));
    assert_eq!(reply.meta.tokens_out, Some(45));
    assert_eq!(reply.meta.cost_usd, Some(0.0123));
}

#[test]
fn claude_is_error_overloaded_is_retryable_and_not_logged_in_is_auth() {
    let p = provider(sh("claude_overloaded.sh", &[]), Some(Preset::Claude));
    let f = p.complete(&Request::new("x")).unwrap_err();
    assert_eq!(f.kind, FailureKind::Overloaded, "{f}");
    assert!(f.is_retryable());
    let p = provider(sh("claude_not_logged_in.sh", &[]), Some(Preset::Claude));
    let f = p.complete(&Request::new("x")).unwrap_err();
    assert_eq!(f.kind, FailureKind::Auth, "{f}");
    assert!(f.message.contains("Not logged in"), "{f}");
}

#[test]
fn codex_preset_takes_the_last_agent_message_and_usage() {
    let p = provider(sh("codex_ok.sh", &[]), Some(Preset::Codex));
    let reply = p.complete(&Request::new("x")).unwrap();
    assert!(reply.text.starts_with("*** Begin Patch"), "{}", reply.text);
    assert_eq!(reply.meta.tokens_in, Some(321));
    assert_eq!(reply.meta.tokens_out, Some(54));
    assert_eq!(classify(&reply.text), ReplyClass::Edit);
}

#[test]
fn codex_turn_failed_is_a_failure_with_its_reason() {
    let p = provider(sh("codex_turn_failed.sh", &[]), Some(Preset::Codex));
    let f = p.complete(&Request::new("x")).unwrap_err();
    assert_eq!(f.kind, FailureKind::Transport, "{f}");
    assert!(f.message.contains("codex turn failed"), "{f}");
}

#[test]
fn gemini_preset_reads_response_and_token_stats() {
    let p = provider(
        sh("gemini_ok.sh", &["-o", "json", "-p", "see stdin"]),
        Some(Preset::Gemini),
    );
    let reply = p.complete(&Request::new("the prompt")).unwrap();
    assert!(reply.text.contains("print('hello')"), "{}", reply.text);
    assert_eq!(reply.meta.model.as_deref(), Some("gemini-test"));
    assert_eq!(reply.meta.tokens_in, Some(210));
    assert_eq!(reply.meta.tokens_out, Some(12));
}

#[test]
fn gemini_exit_codes_42_and_53_are_input_error_and_turn_limit() {
    for (code, kind) in [
        ("42", FailureKind::Input),
        ("53", FailureKind::TurnLimit),
        ("41", FailureKind::Auth),
    ] {
        let p = provider(sh("gemini_exit.sh", &[code]), Some(Preset::Gemini));
        let f = p.complete(&Request::new("x")).unwrap_err();
        assert_eq!(f.kind, kind, "exit {code}: {f}");
        assert!(
            f.message.ends_with(&format!("): failure with code {code}")),
            "the reason is the error object's message: {f}"
        );
    }
}

#[test]
fn non_zero_exit_is_an_error_quoting_stderr() {
    let p = provider(sh("fail.sh", &[]), None);
    let f = p.complete(&Request::new("x")).unwrap_err();
    assert_eq!(f.kind, FailureKind::Exit);
    assert!(f.message.contains("exit code 3"), "{f}");
    assert!(f.message.contains("something went badly wrong"), "{f}");
}

#[test]
fn overloaded_on_stderr_is_retryable() {
    let p = provider(sh("overloaded_text.sh", &[]), None);
    let f = p.complete(&Request::new("x")).unwrap_err();
    assert_eq!(f.kind, FailureKind::Overloaded, "{f}");
}

#[test]
fn prose_and_sentinel_replies_are_classified() {
    let p = provider(sh("prose.sh", &[]), None);
    let reply = p.complete(&Request::new("x")).unwrap();
    assert_eq!(classify(&reply.text), ReplyClass::NonDiff);
    let p = provider(sh("sentinel.sh", &[]), None);
    let reply = p.complete(&Request::new("x")).unwrap();
    assert_eq!(classify(&reply.text), ReplyClass::NoChange);
}

#[test]
fn missing_program_is_not_found() {
    let p = provider(vec!["salve-no-such-program-xyz".into()], None);
    let f = p.complete(&Request::new("x")).unwrap_err();
    assert_eq!(f.kind, FailureKind::NotFound, "{f}");
}

#[test]
fn a_hang_past_the_timeout_kills_the_whole_process_tree() {
    let dir = tempfile::tempdir().unwrap();
    let pids = dir.path().join("pids");
    let p = CommandProvider::new(
        "hang",
        sh("hang.sh", &[pids.to_str().unwrap()]),
        None,
        Duration::from_millis(700),
    );
    let start = Instant::now();
    let f = p.complete(&Request::new("x")).unwrap_err();
    let elapsed = start.elapsed();
    assert_eq!(f.kind, FailureKind::Timeout, "{f}");
    assert!(elapsed < Duration::from_secs(5), "took {elapsed:?}");
    let listed: Vec<u32> = std::fs::read_to_string(&pids)
        .unwrap()
        .lines()
        .map(|l| l.trim().parse().unwrap())
        .collect();
    assert_eq!(
        listed.len(),
        3,
        "the fixture records two grandchildren and itself"
    );
    // SIGKILL is delivered at once, but give the kernel a moment to tear the processes down.
    let deadline = Instant::now() + Duration::from_secs(2);
    while !listed.iter().all(|&pid| pid_gone(pid)) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    for pid in listed {
        assert!(pid_gone(pid), "process {pid} survived the timeout");
    }
}

#[test]
fn huge_output_is_capped_and_the_tree_killed() {
    let p = provider(sh("huge.sh", &[]), None).with_max_output(256 * 1024);
    let start = Instant::now();
    let f = p.complete(&Request::new("x")).unwrap_err();
    assert_eq!(f.kind, FailureKind::TooLarge, "{f}");
    assert!(f.message.contains("262144 bytes"), "{f}");
    assert!(start.elapsed() < Duration::from_secs(5));
}

#[test]
fn a_grandchild_holding_stdout_does_not_keep_salve_waiting() {
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("pid");
    let p = provider(sh("linger.sh", &[pid_file.to_str().unwrap()]), None);
    let start = Instant::now();
    let reply = p.complete(&Request::new("x")).unwrap();
    assert_eq!(reply.text.trim(), "NO_CHANGES_NEEDED");
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "{:?}",
        start.elapsed()
    );
    let pid: u32 = std::fs::read_to_string(&pid_file)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(2);
    while !pid_gone(pid) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(
        pid_gone(pid),
        "the lingering grandchild {pid} was left running"
    );
}

#[test]
fn preset_default_command_lines() {
    let argv = Preset::Claude.default_command(Some("opus"));
    assert_eq!(
        argv,
        [
            "claude",
            "-p",
            "--output-format",
            "stream-json",
            "--verbose",
            "--tools",
            "",
            "--strict-mcp-config",
            "--model",
            "opus"
        ]
    );
    let argv = Preset::Codex.default_command(None);
    assert_eq!(argv.first().map(String::as_str), Some("codex"));
    assert!(argv.contains(&"--json".to_owned()));
    assert!(argv.windows(2).any(|w| w == ["--sandbox", "read-only"]));
    assert!(argv.contains(&"--skip-git-repo-check".to_owned()));
    assert_eq!(argv.last().map(String::as_str), Some("-"));
    let argv = Preset::Gemini.default_command(None);
    assert!(argv.windows(2).any(|w| w == ["-o", "json"]));
    assert!(argv
        .windows(2)
        .any(|w| w == ["--policy", "../salve-no-tools.toml"]));
    assert!(argv.contains(&"-p".to_owned()));
}
