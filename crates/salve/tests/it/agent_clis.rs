//! `salve ask` through the default chain with the three real agent CLIs (claude, codex,
//! gemini, installed by `scripts/install-agent-clis.sh`, which `.ci/run` runs), an empty HOME
//! and no network: salve must end, naming each provider's reason, none of them its time limit.

use std::path::PathBuf;
use std::time::Instant;

use crate::ask::{project, run, salve};

mod fake;

/// The directory holding all three real agent CLIs (`scripts/install-agent-clis.sh`, run by
/// `.ci/run`), if it is there.
fn agent_clis() -> Option<PathBuf> {
    let bin = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/agent-clis/bin");
    let all = ["claude", "codex", "gemini"]
        .iter()
        .all(|cli| bin.join(cli).is_file());
    all.then_some(bin)
}

/// `salve ask` through the default chain (no configuration: the agent CLIs on PATH) with the
/// three real CLIs, an empty HOME and no network: it ends, every provider with a named reason
/// and none by reaching its time limit. The time is printed for BENCHMARKS.md, not asserted.
fn real_agents_offline(keys: &[(&str, &str)]) {
    let Some(bin) = agent_clis() else {
        crate::skip::skip(
            "agent_clis",
            "the agent CLIs are not installed (scripts/install-agent-clis.sh)",
        );
        return;
    };
    let tree = project("");
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut cmd = salve(&tree);
    cmd.env("PATH", path)
        .args(["--json", "ask", "fix the typo in app.py"]);
    for (key, value) in keys {
        cmd.env(key, value);
    }
    let start = Instant::now();
    let out = run(cmd);
    eprintln!(
        "salve ask, default chain, real agent CLIs offline{}: {:.1}s",
        if keys.is_empty() { "" } else { " with keys" },
        start.elapsed().as_secs_f64()
    );
    out.code(1);
    let json = out.json();
    assert_eq!(json["status"], "provider_error", "{json}");
    let attempts = json["attempts"].as_array().unwrap();
    let mut names: Vec<&str> = attempts
        .iter()
        .map(|a| a["provider"].as_str().unwrap())
        .collect();
    names.dedup();
    assert_eq!(names, ["claude", "codex", "gemini"], "{json}");
    for a in attempts {
        let reason = a["reason"].as_str().unwrap_or_default();
        eprintln!("  {}: {reason}", a["provider"]);
        assert!(a["failure"].is_string() && !reason.is_empty(), "{a}");
        assert_ne!(a["failure"], "timeout", "{a}");
        assert!(!reason.contains("was not found"), "{a}");
        assert!(!reason.contains("trusted directory"), "{a}");
    }
}

#[test]
fn the_default_chain_of_real_agent_clis_offline_ends_naming_each_reason() {
    real_agents_offline(&[]);
}

#[test]
fn the_default_chain_of_real_agent_clis_offline_with_keys_ends_naming_each_reason() {
    real_agents_offline(&[
        ("ANTHROPIC_API_KEY", "sk-ant-made-up"),
        ("OPENAI_API_KEY", "sk-made-up"),
        ("CODEX_API_KEY", "sk-made-up"),
        // No GEMINI_CLI_TRUST_WORKSPACE: salve trusts the empty directory it runs gemini in.
        ("GEMINI_API_KEY", "made-up"),
    ]);
}
