//! Chains over real providers: fallback order, reasons, retries and the sentinel.

use std::sync::Arc;
use std::time::{Duration, Instant};

use salve_llm::command::{CommandProvider, Preset};
use salve_llm::http::openai::OpenAiProvider;
use salve_llm::http::HttpSettings;
use salve_llm::{Chain, FailureKind, Provider, ReplyClass, Request, RetryPolicy};

use crate::server::{Script, Server};
use crate::sh;

fn cmd(name: &str, argv: Vec<String>, preset: Option<Preset>) -> Arc<dyn Provider> {
    Arc::new(CommandProvider::new(
        name,
        argv,
        preset,
        Duration::from_secs(10),
    ))
}

fn fast_retry(max_retries: u32) -> RetryPolicy {
    RetryPolicy {
        max_retries,
        base_delay: Duration::from_millis(10),
        max_delay: Duration::from_secs(3),
    }
}

#[test]
fn providers_are_tried_in_order_until_an_edit_with_each_reason_recorded() {
    let chain = Chain::new(
        "default",
        vec![
            cmd("broken", sh("fail.sh", &[]), None),
            cmd("chatty", sh("prose.sh", &[]), None),
            cmd("silent", vec!["true".into()], None),
            cmd("claude", sh("claude_ok.sh", &[]), Some(Preset::Claude)),
            cmd("never", sh("codex_ok.sh", &[]), Some(Preset::Codex)),
        ],
        fast_retry(2),
    );
    let answered = chain.run(&Request::new("fix it")).unwrap();
    assert_eq!(answered.answer.class, ReplyClass::Edit);
    assert_eq!(answered.answer.provider.name(), "claude");
    let seen: Vec<(&str, ReplyClass)> = answered
        .attempts
        .iter()
        .map(|a| (a.provider.as_str(), a.class))
        .collect();
    assert_eq!(
        seen,
        [
            ("broken", ReplyClass::Error),
            ("chatty", ReplyClass::NonDiff),
            ("silent", ReplyClass::Empty),
            ("claude", ReplyClass::Edit),
        ]
    );
    let a = &answered.attempts;
    assert_eq!(a[0].failure, Some(FailureKind::Exit));
    assert!(a[0].reason.as_deref().unwrap().contains("exit code 3"));
    assert!(a[1].reason.as_deref().unwrap().contains("no edit"));
    assert!(a[2].reason.as_deref().unwrap().contains("empty"));
    assert_eq!(a[3].reason, None);
    assert_eq!(a[3].meta.as_ref().unwrap().cost_usd, Some(0.0123));
}

#[test]
fn the_sentinel_stops_the_chain() {
    let chain = Chain::new(
        "default",
        vec![
            cmd("satisfied", sh("sentinel.sh", &[]), None),
            cmd("claude", sh("claude_ok.sh", &[]), Some(Preset::Claude)),
        ],
        fast_retry(0),
    );
    let answered = chain.run(&Request::new("x")).unwrap();
    assert_eq!(answered.answer.class, ReplyClass::NoChange);
    assert_eq!(answered.answer.provider.name(), "satisfied");
    assert_eq!(answered.attempts.len(), 1);
}

#[test]
fn overloads_are_retried_then_the_chain_moves_on() {
    let chain = Chain::new(
        "default",
        vec![
            cmd("busy", sh("overloaded_text.sh", &[]), None),
            cmd("codex", sh("codex_ok.sh", &[]), Some(Preset::Codex)),
        ],
        fast_retry(2),
    );
    let answered = chain.run(&Request::new("x")).unwrap();
    assert_eq!(answered.answer.provider.name(), "codex");
    let busy: Vec<_> = answered
        .attempts
        .iter()
        .filter(|a| a.provider == "busy")
        .collect();
    assert_eq!(busy.len(), 3, "one call and two retries");
    assert!(busy.iter().all(|a| a.class == ReplyClass::Overloaded));
    assert!(busy[0].retry_in_ms.is_some() && busy[1].retry_in_ms.is_some());
    assert_eq!(busy[2].retry_in_ms, None);
    assert!(busy[2]
        .reason
        .as_deref()
        .unwrap()
        .contains("gave up after 3 calls"));
}

#[test]
fn an_overload_that_clears_is_answered_by_the_same_provider() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("calls");
    let chain = Chain::new(
        "default",
        vec![
            cmd(
                "flaky",
                sh("overloaded_then_ok.sh", &[state.to_str().unwrap()]),
                None,
            ),
            cmd("backup", sh("codex_ok.sh", &[]), Some(Preset::Codex)),
        ],
        fast_retry(2),
    );
    let answered = chain.run(&Request::new("x")).unwrap();
    assert_eq!(answered.answer.provider.name(), "flaky");
    assert_eq!(answered.attempts.len(), 2);
    assert_eq!(answered.attempts[1].call, 2);
    assert_eq!(std::fs::read_to_string(&state).unwrap().trim(), "2");
}

#[test]
fn all_providers_failed_lists_each_reason() {
    let chain = Chain::new(
        "quality",
        vec![
            cmd("broken", sh("fail.sh", &[]), None),
            cmd("chatty", sh("prose.sh", &[]), None),
            cmd("absent", vec!["salve-no-such-binary-abc".into()], None),
        ],
        fast_retry(1),
    );
    let err = chain.run(&Request::new("x")).unwrap_err();
    let text = err.to_string();
    assert!(
        text.starts_with("All providers failed (chain `quality`):"),
        "{text}"
    );
    assert!(
        text.contains("\n  broken: exit: the command failed (exit code 3)"),
        "{text}"
    );
    assert!(
        text.contains("\n  chatty: the reply holds no edit"),
        "{text}"
    );
    assert!(text.contains("\n  absent: not_found:"), "{text}");
    assert_eq!(err.reasons().len(), 3);
    let empty = Chain::new("fast", vec![], fast_retry(0))
        .run(&Request::new("x"))
        .unwrap_err();
    assert!(empty.to_string().contains("has no providers"));
}

fn http(server: &Server, name: &str) -> Arc<dyn Provider> {
    Arc::new(OpenAiProvider::new(
        name,
        HttpSettings {
            base_url: server.base_url.clone(),
            model: "m".into(),
            timeout: Duration::from_secs(5),
        },
        None,
        false,
    ))
}

const OK: &str = r#"{"choices":[{"message":{"content":"NO_CHANGES_NEEDED"}}]}"#;

#[test]
fn retry_after_is_honoured() {
    let server = Server::start(vec![
        Script::json(429, r#"{"error":{"message":"slow down"}}"#).with_header("retry-after", "1"),
        Script::json(200, OK),
    ]);
    let chain = Chain::new("default", vec![http(&server, "api")], fast_retry(2));
    let start = Instant::now();
    let answered = chain.run(&Request::new("x")).unwrap();
    assert!(
        start.elapsed() >= Duration::from_secs(1),
        "{:?}",
        start.elapsed()
    );
    assert_eq!(answered.attempts[0].retry_in_ms, Some(1000));
    assert_eq!(answered.answer.class, ReplyClass::NoChange);
}

#[test]
fn a_retry_after_past_the_wait_limit_moves_on_at_once() {
    let server = Server::start(vec![Script::json(
        529,
        r#"{"error":{"type":"overloaded_error","message":"Overloaded"}}"#,
    )
    .with_header("retry-after", "120")]);
    let chain = Chain::new(
        "default",
        vec![
            http(&server, "api"),
            cmd("local", sh("sentinel.sh", &[]), None),
        ],
        fast_retry(3),
    );
    let start = Instant::now();
    let answered = chain.run(&Request::new("x")).unwrap();
    assert!(start.elapsed() < Duration::from_secs(3));
    assert_eq!(answered.answer.provider.name(), "local");
    assert!(answered.attempts[0]
        .reason
        .as_deref()
        .unwrap()
        .contains("asked to wait 120s"));
}
