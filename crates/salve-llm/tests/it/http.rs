//! HTTP providers against a real server on 127.0.0.1 speaking the OpenAI and Anthropic wire
//! formats.

use std::time::{Duration, Instant};

use salve_llm::http::anthropic::AnthropicProvider;
use salve_llm::http::openai::OpenAiProvider;
use salve_llm::http::HttpSettings;
use salve_llm::{FailureKind, Provider, Request};

use crate::server::{Script, Server};

const OPENAI_OK: &str = r#"{"id":"c1","object":"chat.completion","model":"qwen-test","choices":[{"index":0,"message":{"role":"assistant","content":"--- a/app.py\n+++ b/app.py\n@@ -1 +1 @@\n-print('helo')\n+print('hello')\n"},"finish_reason":"stop"}],"usage":{"prompt_tokens":17,"completion_tokens":9,"total_tokens":26}}"#;
const ANTHROPIC_OK: &str = r#"{"id":"m1","type":"message","role":"assistant","model":"claude-test","content":[{"type":"text","text":"NO_CHANGES_NEEDED"}],"stop_reason":"end_turn","usage":{"input_tokens":30,"output_tokens":4}}"#;

fn settings(server: &Server, timeout: Duration) -> HttpSettings {
    HttpSettings {
        base_url: server.base_url.clone(),
        model: "test-model".into(),
        timeout,
    }
}

fn openai(server: &Server, key_env: Option<&str>, stream: bool) -> OpenAiProvider {
    OpenAiProvider::new(
        "oa",
        settings(server, Duration::from_secs(5)),
        key_env,
        stream,
    )
}

fn anthropic(server: &Server, key_env: Option<&str>) -> AnthropicProvider {
    AnthropicProvider::new(
        "an",
        settings(server, Duration::from_secs(5)),
        key_env,
        None,
    )
}

#[test]
fn openai_success_sends_the_wire_format_and_reads_usage() {
    std::env::set_var("SALVE_TEST_OA_KEY", "sk-oa-test-key-0000111122223333");
    let server = Server::start(vec![Script::json(200, OPENAI_OK)]);
    let p = openai(&server, Some("SALVE_TEST_OA_KEY"), false);
    let request = Request::new("first").follow_up("earlier reply", "second");
    let reply = p.complete(&request).unwrap();
    assert!(reply.text.contains("+print('hello')"));
    assert_eq!(reply.meta.model.as_deref(), Some("qwen-test"));
    assert_eq!(reply.meta.tokens_in, Some(17));
    assert_eq!(reply.meta.tokens_out, Some(9));
    let got = server.finish();
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].method, "POST");
    assert_eq!(got[0].path, "/v1/chat/completions");
    assert_eq!(
        got[0].header("authorization"),
        Some("Bearer sk-oa-test-key-0000111122223333")
    );
    let body = got[0].json();
    assert_eq!(body["model"], "test-model");
    assert_eq!(body["stream"], false);
    let roles: Vec<&str> = body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, ["user", "assistant", "user"]);
    assert_eq!(body["messages"][2]["content"], "second");
}

#[test]
fn openai_without_a_key_variable_sends_no_authorization() {
    let server = Server::start(vec![Script::json(200, OPENAI_OK)]);
    let p = openai(&server, None, false);
    p.complete(&Request::new("x")).unwrap();
    let got = server.finish();
    assert_eq!(got[0].header("authorization"), None);
}

#[test]
fn a_named_but_unset_key_variable_is_an_auth_failure_without_a_request() {
    let server = Server::start(vec![]);
    let p = openai(&server, Some("SALVE_TEST_UNSET_VARIABLE_XYZ"), false);
    let f = p.complete(&Request::new("x")).unwrap_err();
    assert_eq!(f.kind, FailureKind::Auth);
    assert!(f.message.contains("SALVE_TEST_UNSET_VARIABLE_XYZ"), "{f}");
    assert!(server.finish().is_empty());
}

#[test]
fn openai_streaming_concatenates_deltas_until_done() {
    let events = vec![
        "data: {\"model\":\"qwen-test\",\"choices\":[{\"delta\":{\"role\":\"assistant\"}}]}\n\n"
            .to_owned(),
        "data: {\"choices\":[{\"delta\":{\"content\":\"NO_CHANGES\"}}]}\n\n".to_owned(),
        ": keep-alive\n\n".to_owned(),
        "data: {\"choices\":[{\"delta\":{\"content\":\"_NEEDED\"}}]}\n\n".to_owned(),
        "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":2}}\n\n"
            .to_owned(),
        "data: [DONE]\n\n".to_owned(),
    ];
    let server = Server::start(vec![Script::Stream {
        chunks: events,
        complete: true,
    }]);
    let p = openai(&server, None, true);
    let reply = p.complete(&Request::new("x")).unwrap();
    assert_eq!(reply.text, "NO_CHANGES_NEEDED");
    assert_eq!(reply.meta.tokens_in, Some(5));
    assert_eq!(reply.meta.tokens_out, Some(2));
    let got = server.finish();
    assert_eq!(got[0].json()["stream"], true);
}

#[test]
fn a_connection_dropped_mid_stream_is_a_transport_failure() {
    let server = Server::start(vec![Script::Stream {
        chunks: vec![
            "data: {\"choices\":[{\"delta\":{\"content\":\"--- a/x\\n\"}}]}\n\n".to_owned(),
        ],
        complete: false,
    }]);
    let p = openai(&server, None, true);
    let f = p.complete(&Request::new("x")).unwrap_err();
    assert_eq!(f.kind, FailureKind::Transport, "{f}");
}

#[test]
fn malformed_json_is_a_protocol_failure() {
    let server = Server::start(vec![
        Script::json(200, "{\"choices\": [ {\"message\": "),
        Script::Stream {
            chunks: vec!["data: {not json}\n\n".to_owned()],
            complete: true,
        },
        Script::json(200, "{\"content\": 42"),
    ]);
    let f = openai(&server, None, false)
        .complete(&Request::new("x"))
        .unwrap_err();
    assert_eq!(f.kind, FailureKind::Protocol, "{f}");
    assert!(f.message.contains("malformed JSON"), "{f}");
    let f = openai(&server, None, true)
        .complete(&Request::new("x"))
        .unwrap_err();
    assert_eq!(f.kind, FailureKind::Protocol, "{f}");
    let f = anthropic(&server, None)
        .complete(&Request::new("x"))
        .unwrap_err();
    assert_eq!(f.kind, FailureKind::Protocol, "{f}");
}

#[test]
fn status_429_carries_retry_after_529_is_overloaded_401_is_auth() {
    let server = Server::start(vec![
        Script::json(
            429,
            r#"{"error":{"message":"Rate limit reached","type":"requests"}}"#,
        )
        .with_header("retry-after", "2"),
        Script::json(
            529,
            r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
        ),
        Script::json(
            401,
            r#"{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}"#,
        ),
        Script::json(500, r#"{"error":{"message":"boom"}}"#),
    ]);
    let f = openai(&server, None, false)
        .complete(&Request::new("x"))
        .unwrap_err();
    assert_eq!(f.kind, FailureKind::Overloaded, "{f}");
    assert_eq!(f.retry_after, Some(Duration::from_secs(2)));
    assert!(f.message.contains("HTTP 429"), "{f}");
    let f = anthropic(&server, None)
        .complete(&Request::new("x"))
        .unwrap_err();
    assert_eq!(f.kind, FailureKind::Overloaded, "{f}");
    assert!(f.message.contains("Overloaded"), "{f}");
    let f = anthropic(&server, None)
        .complete(&Request::new("x"))
        .unwrap_err();
    assert_eq!(f.kind, FailureKind::Auth, "{f}");
    let f = openai(&server, None, false)
        .complete(&Request::new("x"))
        .unwrap_err();
    assert_eq!(f.kind, FailureKind::Http, "{f}");
    assert!(
        f.message.contains("HTTP 500") && f.message.contains("boom"),
        "{f}"
    );
}

#[test]
fn anthropic_success_sends_its_headers_and_reads_text_blocks() {
    std::env::set_var("SALVE_TEST_AN_KEY", "sk-ant-test-key-4444555566667777");
    let server = Server::start(vec![Script::json(200, ANTHROPIC_OK)]);
    let p = anthropic(&server, Some("SALVE_TEST_AN_KEY"));
    let reply = p.complete(&Request::new("x")).unwrap();
    assert_eq!(reply.text, "NO_CHANGES_NEEDED");
    assert_eq!(reply.meta.model.as_deref(), Some("claude-test"));
    assert_eq!(reply.meta.tokens_in, Some(30));
    assert_eq!(reply.meta.tokens_out, Some(4));
    let got = server.finish();
    assert_eq!(got[0].path, "/v1/messages");
    assert_eq!(
        got[0].header("x-api-key"),
        Some("sk-ant-test-key-4444555566667777")
    );
    assert_eq!(got[0].header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(got[0].header("authorization"), None);
    let body = got[0].json();
    assert_eq!(body["model"], "test-model");
    assert!(body["max_tokens"].as_u64().unwrap() > 0);
}

#[test]
fn a_slow_response_past_the_timeout_is_a_timeout() {
    let server = Server::start(vec![Script::Slow {
        delay: Duration::from_millis(1500),
        then: Box::new(Script::json(200, OPENAI_OK)),
    }]);
    let p = OpenAiProvider::new(
        "slow",
        settings(&server, Duration::from_millis(300)),
        None,
        false,
    );
    let start = Instant::now();
    let f = p.complete(&Request::new("x")).unwrap_err();
    assert_eq!(f.kind, FailureKind::Timeout, "{f}");
    assert!(
        start.elapsed() < Duration::from_millis(1400),
        "{:?}",
        start.elapsed()
    );
}

#[test]
fn a_refused_connection_is_a_transport_failure() {
    // Bind and drop a listener so the port is (almost certainly) closed.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let p = OpenAiProvider::new(
        "closed",
        HttpSettings {
            base_url: format!("http://127.0.0.1:{port}/v1"),
            model: "m".into(),
            timeout: Duration::from_secs(2),
        },
        None,
        false,
    );
    let f = p.complete(&Request::new("x")).unwrap_err();
    assert_eq!(f.kind, FailureKind::Transport, "{f}");
}

#[test]
fn a_key_echoed_by_the_server_never_reaches_the_failure_message() {
    let key = "sk-leak-canary-9f8e7d6c5b4a39281706";
    std::env::set_var("SALVE_TEST_LEAK_KEY", key);
    let server = Server::start(vec![Script::json(
        401,
        &format!(r#"{{"error":{{"message":"Incorrect API key provided: {key}"}}}}"#),
    )]);
    let p = openai(&server, Some("SALVE_TEST_LEAK_KEY"), false);
    let f = p.complete(&Request::new("x")).unwrap_err();
    assert_eq!(f.kind, FailureKind::Auth);
    assert!(!f.message.contains(key), "{f}");
    assert!(f.message.contains("[REDACTED]"), "{f}");
    assert!(!format!("{p:?}").contains(key));
}
