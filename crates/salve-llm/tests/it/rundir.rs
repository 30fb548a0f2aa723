//! Where command providers run: a fresh, empty temporary directory per call, never the
//! repository, removed afterwards; a relative program path still found where it was configured.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use salve_llm::command::{CommandProvider, Preset};
use salve_llm::spec::ProviderSpec;
use salve_llm::{FailureKind, Provider, ProviderKind, Request};

use crate::{fixture, sh};

/// `key=value` fields of `where.sh`'s answer.
fn fields(text: &str) -> BTreeMap<String, String> {
    text.trim()
        .split(';')
        .filter_map(|f| f.split_once('='))
        .map(|(k, v)| (k.to_owned(), v.trim().to_owned()))
        .collect()
}

/// A repository with agent settings that would hand an agent its tools.
fn repository() -> tempfile::TempDir {
    let repo = tempfile::tempdir().unwrap();
    for (file, text) in [
        (
            ".claude/settings.json",
            r#"{"permissions":{"allow":["Bash","Edit"]}}"#,
        ),
        (
            ".gemini/settings.json",
            r#"{"tools":{"allowed":["run_shell_command"]}}"#,
        ),
        (
            ".codex/config.toml",
            "sandbox_mode = \"danger-full-access\"\n",
        ),
        (".mcp.json", r#"{"mcpServers":{}}"#),
    ] {
        let path = repo.path().join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    repo
}

fn command_spec(argv: Vec<String>) -> ProviderSpec {
    ProviderSpec {
        kind: Some(ProviderKind::Command),
        command: Some(argv),
        timeout_secs: Some(10),
        ..ProviderSpec::default()
    }
}

/// Checks `where.sh`'s answer: an empty directory of salve's under the temporary directory,
/// not `repo`, and gone now.
fn assert_ran_apart(said: &BTreeMap<String, String>, repo: &Path) -> PathBuf {
    let cwd = PathBuf::from(&said["cwd"]);
    let repo = repo.canonicalize().unwrap();
    assert!(!cwd.starts_with(&repo), "ran in the repository: {said:?}");
    assert_eq!(said["here"], "", "the directory was not empty: {said:?}");
    let temp = std::env::temp_dir().canonicalize().unwrap();
    assert!(
        cwd.starts_with(&temp),
        "not a temporary directory: {said:?}"
    );
    let parent = cwd.parent().unwrap();
    assert!(
        parent
            .file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("salve-provider-"),
        "{said:?}"
    );
    assert!(!parent.exists(), "the directory was left behind: {said:?}");
    cwd
}

#[test]
fn a_plain_command_runs_in_an_empty_temporary_directory_never_the_repository() {
    let repo = repository();
    let provider = command_spec(sh("where.sh", &[]))
        .build("plain", repo.path(), Some(repo.path()))
        .unwrap();
    let first = fields(&provider.complete(&Request::new("x")).unwrap().text);
    let cwd = assert_ran_apart(&first, repo.path());
    assert_eq!(first["beside"], "work", "{first:?}");
    assert_eq!(
        first["trust"], "unset",
        "only gemini is told to trust: {first:?}"
    );
    let second = fields(&provider.complete(&Request::new("x")).unwrap().text);
    assert_ne!(PathBuf::from(&second["cwd"]), cwd, "one directory per call");
}

#[test]
fn a_relative_program_is_still_found_in_the_directory_salve_works_in() {
    let repo = repository();
    let script = repo.path().join("model.sh");
    std::fs::copy(fixture("where.sh"), &script).unwrap();
    let provider = command_spec(vec!["./model.sh".into()])
        .build("local", repo.path(), Some(repo.path()))
        .unwrap();
    let reply = provider.complete(&Request::new("x")).unwrap();
    assert_ran_apart(&fields(&reply.text), repo.path());
}

#[test]
fn gemini_is_trusted_in_its_empty_directory_and_denied_every_tool() {
    let repo = repository();
    let provider = CommandProvider::new(
        "gemini",
        sh("where.sh", &["gemini"]),
        Some(Preset::Gemini),
        Duration::from_secs(10),
    )
    .with_base_dir(Some(repo.path().to_path_buf()));
    let said = fields(&provider.complete(&Request::new("x")).unwrap().text);
    assert_ran_apart(&said, repo.path());
    assert_eq!(said["trust"], "true", "{said:?}");
    let policy = "salve-no-tools.toml";
    assert!(said["beside"].split(' ').any(|f| f == policy), "{said:?}");
    let argv = Preset::Gemini.default_command(None);
    let at = argv.iter().position(|a| a == "--policy").unwrap();
    assert_eq!(argv[at + 1], format!("../{policy}"), "{argv:?}");
}

#[test]
fn terminal_codes_in_an_agents_stderr_do_not_reach_the_reason() {
    let provider = CommandProvider::new(
        "gemini",
        sh("gemini_untrusted.sh", &[]),
        Some(Preset::Gemini),
        Duration::from_secs(10),
    );
    let failure = provider.complete(&Request::new("x")).unwrap_err();
    assert_eq!(failure.kind, FailureKind::Exit, "{failure}");
    assert!(!failure.message.contains('\u{1b}'), "{:?}", failure.message);
    assert!(!failure.message.contains("[31m"), "{:?}", failure.message);
    assert!(
        failure
            .message
            .contains("(exit code 55): Gemini CLI is not running in a trusted directory."),
        "{failure}"
    );
}
