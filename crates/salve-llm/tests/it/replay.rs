//! Cassettes: replay by prompt hash, and recording any provider into one.

use std::sync::Arc;
use std::time::Duration;

use salve_llm::command::CommandProvider;
use salve_llm::replay::{load, prompt_hash, Recording, ReplayProvider};
use salve_llm::secret::ApiKey;
use salve_llm::{FailureKind, Provider, ProviderKind, Request};

#[test]
fn a_recorded_reply_replays_for_the_same_prompt_and_misses_for_another() {
    let dir = tempfile::tempdir().unwrap();
    let cassette = dir.path().join("sub/cassette.jsonl");
    let echo: Arc<dyn Provider> = Arc::new(CommandProvider::new(
        "echo",
        vec!["cat".into()],
        None,
        Duration::from_secs(5),
    ));
    let recording = Recording::new(echo, &cassette).unwrap();
    let request = Request::new("please fix\n");
    let live = recording.complete(&request).unwrap();
    assert_eq!(live.text, "please fix\n");
    let entries = load(&cassette).unwrap();
    assert_eq!(entries.len(), 1);
    assert_eq!(entries[0].prompt_hash, prompt_hash(&request));
    assert_eq!(entries[0].provider.as_deref(), Some("echo"));

    let replay = ReplayProvider::new("replay", &cassette);
    // Whitespace at line ends does not change the key.
    let again = replay.complete(&Request::new("please fix   \r\n")).unwrap();
    assert_eq!(again.text, "please fix\n");
    assert_eq!(again.meta.kind, ProviderKind::Replay);
    let miss = replay
        .complete(&Request::new("something else"))
        .unwrap_err();
    assert_eq!(miss.kind, FailureKind::ReplayMiss);
    assert!(miss.message.contains("--record"), "{miss}");
}

#[test]
fn a_later_recording_of_the_same_prompt_wins() {
    let dir = tempfile::tempdir().unwrap();
    let cassette = dir.path().join("c.jsonl");
    let request = Request::new("q");
    let hash = prompt_hash(&request);
    std::fs::write(
        &cassette,
        format!(
            "{{\"prompt_hash\":\"{hash}\",\"reply\":\"old\"}}\n\n{{\"prompt_hash\":\"{hash}\",\"reply\":\"new\"}}\n"
        ),
    )
    .unwrap();
    let reply = ReplayProvider::new("r", &cassette)
        .complete(&request)
        .unwrap();
    assert_eq!(reply.text, "new");
}

#[test]
fn a_missing_or_broken_cassette_is_a_config_failure() {
    let dir = tempfile::tempdir().unwrap();
    let missing = ReplayProvider::new("r", dir.path().join("nope.jsonl"))
        .complete(&Request::new("q"))
        .unwrap_err();
    assert_eq!(missing.kind, FailureKind::Config);
    let broken = dir.path().join("broken.jsonl");
    std::fs::write(&broken, "not json\n").unwrap();
    let f = ReplayProvider::new("r", &broken)
        .complete(&Request::new("q"))
        .unwrap_err();
    assert_eq!(f.kind, FailureKind::Config);
    assert!(f.message.contains("line 1"), "{f}");
}

#[test]
fn recorded_replies_are_redacted() {
    let key = ApiKey::new("sk-cassette-canary-5566778899aabb");
    let dir = tempfile::tempdir().unwrap();
    let cassette = dir.path().join("c.jsonl");
    let echo: Arc<dyn Provider> = Arc::new(CommandProvider::new(
        "echo",
        vec!["cat".into()],
        None,
        Duration::from_secs(5),
    ));
    let recording = Recording::new(echo, &cassette).unwrap();
    recording
        .complete(&Request::new(format!("the key is {}", key.expose())))
        .unwrap();
    let text = std::fs::read_to_string(&cassette).unwrap();
    assert!(!text.contains(key.expose()), "{text}");
    assert!(text.contains("[REDACTED]"));
}
