//! Layering, the environment layer and chain selection, on real files in temporary
//! directories (not git repositories, so the repository file is `dir/salve.toml`).

use salve_llm::ProviderKind;

use super::*;

use super::tests_support::*;

const USER: &str = r#"
[providers.local]
kind = "openai"
base_url = "http://127.0.0.1:11434/v1"
model = "user-model"

[providers.rec]
kind = "replay"
cassette = "tapes/user.jsonl"

[retry]
max_retries = 5
"#;

const REPO: &str = r#"
[providers.local]
model = "repo-model"

[providers.api]
kind = "anthropic"
model = "claude-test"
api_key_env = "MY_ANTHROPIC_KEY"

[chains]
default = ["api", "local"]
quality = ["api"]

[ask]
follow_ups = 2
"#;

#[test]
fn repository_overrides_user_key_by_key_and_environment_overrides_both() {
    let s = setup(Some(USER), Some(REPO));
    let c = Config::load_with(&s.work, &env(&s, &[])).unwrap();
    let local = spec(&c, "local");
    assert_eq!(local.model.as_deref(), Some("repo-model"));
    assert_eq!(local.base_url.as_deref(), Some("http://127.0.0.1:11434/v1"));
    assert_eq!(c.follow_ups, 2);
    assert_eq!(c.retry.max_retries, 5);
    assert_eq!(c.chains["default"], ["api", "local"]);
    let found: Vec<(SourceKind, bool)> = c.sources.iter().map(|s| (s.kind, s.found)).collect();
    assert_eq!(
        found,
        [
            (SourceKind::User, true),
            (SourceKind::Repository, true),
            (SourceKind::Environment, false)
        ]
    );

    let e = env(
        &s,
        &[
            ("SALVE_PROVIDER_LOCAL_MODEL", "env-model"),
            ("SALVE_PROVIDER_LOCAL_STREAM", "true"),
            ("SALVE_PROVIDER_NEWONE_KIND", "command"),
            ("SALVE_PROVIDER_NEWONE_COMMAND", r#"["my-agent", "--flag"]"#),
            ("SALVE_CHAIN_DEFAULT", "newone, local"),
            ("SALVE_FOLLOW_UPS", "0"),
            ("SALVE_DEBUG_SOMETHING_ELSE", "ignored"),
        ],
    );
    let c = Config::load_with(&s.work, &e).unwrap();
    assert_eq!(spec(&c, "local").model.as_deref(), Some("env-model"));
    assert_eq!(spec(&c, "local").stream, Some(true));
    assert_eq!(
        spec(&c, "newone").command.as_deref(),
        Some(&["my-agent".to_owned(), "--flag".to_owned()][..])
    );
    assert_eq!(c.chains["default"], ["newone", "local"]);
    assert_eq!(c.follow_ups, 0);
    let env_source = c.sources.last().unwrap();
    assert!(env_source.found);
    assert!(env_source.vars.contains(&"SALVE_CHAIN_DEFAULT".to_owned()));
    assert!(!env_source.vars.iter().any(|v| v.contains("DEBUG")));
}

#[test]
fn xdg_config_home_wins_over_home() {
    let s = setup(Some(USER), None);
    let xdg = s.home.join("xdg");
    std::fs::create_dir_all(xdg.join("salve")).unwrap();
    std::fs::write(
        xdg.join("salve/config.toml"),
        "[providers.x]\nkind = \"command\"\ncommand = [\"cat\"]\n",
    )
    .unwrap();
    let e = env(&s, &[("XDG_CONFIG_HOME", xdg.to_str().unwrap())]);
    let c = Config::load_with(&s.work, &e).unwrap();
    let names: Vec<&str> = c.providers.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["x"]);
    assert_eq!(
        c.sources[0].path.as_deref(),
        Some(&*xdg.join("salve/config.toml"))
    );
}

#[test]
fn relative_cassettes_are_taken_from_their_files_directory() {
    let s = setup(
        Some(USER),
        Some("[providers.mine]\nkind = \"replay\"\ncassette = \"demo.jsonl\"\n"),
    );
    let c = Config::load_with(&s.work, &env(&s, &[])).unwrap();
    assert_eq!(
        spec(&c, "rec").cassette.as_deref(),
        Some(&*s.home.join(".config/salve/tapes/user.jsonl"))
    );
    assert_eq!(
        spec(&c, "mine").cassette.as_deref(),
        Some(&*s.work.join("demo.jsonl"))
    );
}

#[test]
fn chains_fall_back_to_default_then_to_configured_order() {
    let s = setup(Some(USER), Some(REPO));
    let c = Config::load_with(&s.work, &env(&s, &[])).unwrap();
    assert_eq!(c.chain_names(Some(ModelHint::Quality), Some("")).1, ["api"]);
    let (name, fast) = c.chain_names(Some(ModelHint::Fast), Some(""));
    assert_eq!(
        (name.as_str(), fast),
        ("default", vec!["api".to_owned(), "local".to_owned()])
    );

    let s = setup(Some(USER), None);
    let c = Config::load_with(&s.work, &env(&s, &[])).unwrap();
    assert_eq!(c.chain_names(None, Some("")).1, ["local", "rec"]);
}

#[test]
fn without_configuration_the_default_chain_is_the_agent_clis_on_path() {
    let s = setup(None, None);
    let bin = s.home.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    for name in ["gemini", "claude"] {
        let p = bin.join(name);
        std::fs::write(&p, "#!/bin/sh\n").unwrap();
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let c = Config::load_with(&s.work, &env(&s, &[])).unwrap();
    assert_eq!(c.chain_names(None, bin.to_str()).1, ["claude", "gemini"]);
    let err = c.build_chain(None, None, &s.work, Some("")).unwrap_err();
    assert!(matches!(err, ConfigError::NoProviders), "{err}");
    let chain = c
        .build_chain(None, Some("codex"), &s.work, Some(""))
        .unwrap();
    assert_eq!(chain.providers()[0].name(), "codex");
    assert_eq!(chain.providers()[0].kind(), ProviderKind::Command);
}

#[test]
fn provider_override_and_unknown_names() {
    let s = setup(Some(USER), Some(REPO));
    let e = env(&s, &[("SALVE_PROVIDER", "local")]);
    let c = Config::load_with(&s.work, &e).unwrap();
    let chain = c.build_chain(None, None, &s.work, Some("")).unwrap();
    assert_eq!(chain.name(), "provider local");
    let chain = c.build_chain(None, Some("api"), &s.work, Some("")).unwrap();
    assert_eq!(chain.providers()[0].name(), "api");
    let err = c
        .build_chain(None, Some("nope"), &s.work, Some(""))
        .unwrap_err();
    assert!(err.to_string().contains("unknown provider `nope`"), "{err}");

    let s = setup(None, Some("[chains]\ndefault = [\"ghost\"]\n"));
    let err = Config::load_with(&s.work, &env(&s, &[])).unwrap_err();
    assert!(err.to_string().contains("ghost"), "{err}");
}

#[test]
fn bad_files_and_variables_are_errors_that_say_where() {
    let s = setup(Some("[providers.x\n"), None);
    let err = Config::load_with(&s.work, &env(&s, &[])).unwrap_err();
    assert!(matches!(err, ConfigError::Parse { .. }), "{err}");
    assert!(err.to_string().contains("config.toml"), "{err}");

    let s = setup(
        None,
        Some("[providers.x]\nkind = \"openai\"\nmodle = \"typo\"\n"),
    );
    let err = Config::load_with(&s.work, &env(&s, &[])).unwrap_err();
    assert!(err.to_string().contains("provider `x`"), "{err}");
    assert!(err.to_string().contains("modle"), "{err}");

    let s = setup(None, None);
    for (var, value) in [
        ("SALVE_PROVIDER_X_COLOUR", "red"),
        ("SALVE_PROVIDER_X_TIMEOUT_SECS", "soon"),
        ("SALVE_FOLLOW_UPS", "-1"),
    ] {
        let err = Config::load_with(&s.work, &env(&s, &[(var, value)])).unwrap_err();
        assert!(err.to_string().contains(var), "{err}");
    }
}

#[test]
fn builtins_are_listed_unless_redefined() {
    let s = setup(
        None,
        Some("[providers.claude]\nkind = \"command\"\ncommand = [\"my-claude\"]\npreset = \"claude\"\n"),
    );
    let c = Config::load_with(&s.work, &env(&s, &[])).unwrap();
    let all: Vec<(String, SourceKind)> = c
        .all_providers()
        .into_iter()
        .map(|p| (p.name, p.origin))
        .collect();
    assert_eq!(
        all,
        [
            ("claude".to_owned(), SourceKind::Repository),
            ("codex".to_owned(), SourceKind::Builtin),
            ("gemini".to_owned(), SourceKind::Builtin),
        ]
    );
    assert_eq!(
        c.provider("claude").unwrap().spec.argv(),
        ["my-claude".to_owned()]
    );
}

#[test]
fn a_salve_toml_below_the_top_adds_to_it() {
    let s = setup(None, Some(REPO));
    let sub = s.work.join("examples/demo");
    std::fs::create_dir_all(&sub).unwrap();
    std::fs::write(
        sub.join("salve.toml"),
        "[providers.demo]\nkind = \"replay\"\ncassette = \"c.jsonl\"\n\n[chains]\ndefault = [\"demo\"]\n",
    )
    .unwrap();
    // Outside git the top is the directory itself, so make `work` a repository.
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .args(args)
            .current_dir(&s.work)
            .output()
            .unwrap()
    };
    git(&["init", "-q"]);
    let c = Config::load_with(&sub, &env(&s, &[])).unwrap();
    assert_eq!(c.chains["default"], ["demo"]);
    assert_eq!(c.chains["quality"], ["api"], "the top file still counts");
    assert_eq!(
        spec(&c, "demo").cassette.as_deref(),
        Some(&*std::fs::canonicalize(&sub).unwrap().join("c.jsonl"))
    );
    let repo_sources: Vec<&Source> = c
        .sources
        .iter()
        .filter(|s| s.kind == SourceKind::Repository)
        .collect();
    assert_eq!(repo_sources.len(), 2);
}

#[test]
fn mcp_section_lists_allowed_checks_and_a_timeout() {
    let s = setup(
        Some("[mcp]\nallowed_checks = [[\"make\"]]\ncheck_timeout_secs = 30\n"),
        Some("[mcp]\nallowed_checks = [[\"cargo\", \"test\"], \"npm  run test\"]\nmystery = 1\n"),
    );
    let c = Config::load_with(&s.work, &env(&s, &[])).unwrap();
    // Lists are replaced by the stronger layer, other keys kept.
    assert_eq!(
        c.mcp.allowed_checks,
        vec![vec!["cargo", "test"], vec!["npm", "run", "test"]]
    );
    assert_eq!(c.mcp.check_timeout_secs, 30);
    assert!(c.mcp.allows(&["cargo".to_owned(), "test".to_owned()]));
    assert!(!c.mcp.allows(&["cargo".to_owned()]));
    assert!(c.warnings.iter().any(|w| w.contains("[mcp] mystery")));

    let bad = setup(None, Some("[mcp]\nallowed_checks = [[]]\n"));
    let e = Config::load_with(&bad.work, &env(&bad, &[])).unwrap_err();
    assert!(e.to_string().contains("allowed_checks"), "{e}");
    let none = setup(None, None);
    let c = Config::load_with(&none.work, &env(&none, &[])).unwrap();
    assert_eq!(c.mcp, McpConfig::default());
}
