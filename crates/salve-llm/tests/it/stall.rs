//! Agents that hang: fake CLIs (real child processes) that keep printing retry notices in the
//! codex, claude and gemini formats and never exit are ended with a transport reason long
//! before their time limit, with their process tree, and the chain moves on.

use std::sync::Arc;
use std::time::{Duration, Instant};

use salve_llm::command::{CommandProvider, Preset, StallPolicy};
use salve_llm::{Chain, ChainEvent, FailureKind, Provider, Request, RetryPolicy};

use crate::{pid_gone, sh};

/// Far longer than the test can take: reaching it would be the failure.
const LIMIT: Duration = Duration::from_secs(300);

fn retrying(preset: Preset, pids: Option<&std::path::Path>) -> CommandProvider {
    let mut args = vec![preset.as_str()];
    let pids = pids.map(|p| p.to_string_lossy().into_owned());
    if let Some(p) = &pids {
        args.push(p);
    }
    CommandProvider::new(
        preset.as_str(),
        sh("retrying.sh", &args),
        Some(preset),
        LIMIT,
    )
}

fn ends_with_a_transport_reason(preset: Preset) {
    let dir = tempfile::tempdir().unwrap();
    let pids = dir.path().join("pids");
    let p = retrying(preset, Some(&pids));
    let mut notices = Vec::new();
    let f = p
        .complete_observed(&Request::new("x"), &mut |m| notices.push(m.to_owned()))
        .unwrap_err();
    assert_eq!(f.kind, FailureKind::Transport, "{f}");
    assert!(f.message.contains("retries in a row"), "{f}");
    assert!(f.message.contains("process tree was killed"), "{f}");
    assert!(notices.len() >= 3, "{notices:?}");
    let listed: Vec<u32> = std::fs::read_to_string(&pids)
        .unwrap()
        .lines()
        .map(|l| l.trim().parse().unwrap())
        .collect();
    assert_eq!(listed.len(), 2);
    let deadline = Instant::now() + Duration::from_secs(2);
    while !listed.iter().all(|&pid| pid_gone(pid)) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    for pid in listed {
        assert!(pid_gone(pid), "process {pid} survived");
    }
}

#[test]
fn a_reconnecting_codex_is_ended_with_a_transport_reason() {
    ends_with_a_transport_reason(Preset::Codex);
}

#[test]
fn a_retrying_claude_is_ended_with_a_transport_reason() {
    ends_with_a_transport_reason(Preset::Claude);
}

#[test]
fn a_retrying_gemini_is_ended_with_a_transport_reason() {
    ends_with_a_transport_reason(Preset::Gemini);
}

#[test]
fn progress_between_retries_keeps_the_agent_running() {
    // Two retries in a row would end it at once; each is followed by progress.
    let p = CommandProvider::new(
        "codex",
        sh("codex_flaky.sh", &[]),
        Some(Preset::Codex),
        LIMIT,
    )
    .with_stall_policy(StallPolicy {
        errors: 2,
        span: Duration::ZERO,
    });
    let reply = p.complete(&Request::new("x")).unwrap();
    assert_eq!(reply.text, "NO_CHANGES_NEEDED");
}

#[test]
fn claude_stream_json_is_read_and_an_overload_retry_it_got_past_is_not_a_failure() {
    let p = CommandProvider::new(
        "claude",
        sh("claude_stream_ok.sh", &[]),
        Some(Preset::Claude),
        LIMIT,
    );
    let mut notices = Vec::new();
    let reply = p
        .complete_observed(&Request::new("x"), &mut |m| notices.push(m.to_owned()))
        .unwrap();
    assert_eq!(reply.text, "NO_CHANGES_NEEDED");
    assert_eq!(reply.meta.cost_usd, Some(0.001));
    assert_eq!(reply.meta.model.as_deref(), Some("claude-sonnet-test"));
    assert_eq!(notices.len(), 1, "{notices:?}");
    assert!(notices[0].contains("HTTP 529"), "{notices:?}");
}

#[test]
fn the_chain_reports_the_hang_and_moves_on() {
    let codex: Arc<dyn Provider> = Arc::new(retrying(Preset::Codex, None));
    let fallback: Arc<dyn Provider> = Arc::new(CommandProvider::new(
        "fallback",
        sh("sentinel.sh", &[]),
        None,
        Duration::from_secs(20),
    ));
    let chain = Chain::new("default", vec![codex, fallback], RetryPolicy::default());
    let mut events = Vec::new();
    let answered = chain
        .run_observed(&Request::new("x"), &mut |e| events.push(e.clone()))
        .unwrap();
    assert_eq!(answered.answer.provider.name(), "fallback");
    assert_eq!(answered.attempts[0].failure, Some(FailureKind::Transport));
    let reason = answered.attempts[0].reason.clone().unwrap_or_default();
    assert!(reason.starts_with("transport: gave up after"), "{reason}");
    assert_eq!(
        events.first(),
        Some(&ChainEvent::Calling {
            provider: "codex".to_owned(),
            call: 1
        })
    );
    assert!(events.iter().any(|e| matches!(e,
        ChainEvent::Notice { provider, message }
            if provider == "codex" && message.contains("waiting for network"))));
    assert!(events.iter().any(|e| matches!(e,
        ChainEvent::Failed { provider, reason: r } if provider == "codex" && *r == reason)));
    assert!(events.iter().any(|e| matches!(e,
        ChainEvent::Calling { provider, .. } if provider == "fallback")));
}
