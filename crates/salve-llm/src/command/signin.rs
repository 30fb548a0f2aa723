//! Whether an agent CLI is signed in, for `salve doctor`: an installed CLI with no account
//! cannot answer, and "available" would be a wrong promise.
//!
//! Each CLI is asked in the way it documents, quickly and without a prompt:
//! - **claude**: `claude auth status --json` prints `{"loggedIn": bool, "authMethod": ...,
//!   "apiProvider": ...}` and exits 0 or 1. It counts `ANTHROPIC_API_KEY` too. With a
//!   third-party API provider (Bedrock, Vertex) it cannot tell. `--json` is there so that a
//!   claude too old for `auth` stops on an unknown option instead of taking `auth status` as a
//!   prompt.
//! - **codex**: `CODEX_API_KEY` or `CODEX_ACCESS_TOKEN` set (what `codex exec` reads), else `codex
//!   login status` (exit 0: signed in; "Not logged in": not). A `model_provider` in
//!   `$CODEX_HOME/config.toml` (`~/.codex`) may need no account at all: cannot tell.
//! - **gemini** has no status command, so its documented credentials are looked for:
//!   `GEMINI_API_KEY`, `GOOGLE_API_KEY`, `GOOGLE_GENAI_USE_VERTEXAI` or
//!   `GOOGLE_APPLICATION_CREDENTIALS` set, or a cached Google sign-in in
//!   `$GEMINI_CLI_HOME/.gemini/oauth_creds.json` (`~`). A `.env` file where gemini reads one, or
//!   credentials kept in the keychain (`GEMINI_FORCE_ENCRYPTED_FILE_STORAGE`), or Cloud Shell:
//!   cannot tell.
//!
//! A status command runs in an empty temporary directory ([`super::rundir`]) with a short time
//! limit, and what it prints is never quoted (codex prints part of a key): only the verdict and
//! where it came from are reported.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;

use super::process::{self, Spec};
use super::{Preset, RunDir};

/// How long a status command may take (they answer in well under a second).
pub const STATUS_TIMEOUT: Duration = Duration::from_secs(5);

/// What was found out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SignIn {
    /// `Some(false)`: installed, not signed in; `None`: the CLI cannot tell.
    pub signed_in: Option<bool>,
    /// How it was found out, or what to do when not signed in. Never a credential.
    pub detail: String,
}

fn verdict(signed_in: Option<bool>, detail: impl Into<String>) -> SignIn {
    SignIn {
        signed_in,
        detail: detail.into(),
    }
}

/// Whether `program` (the preset's CLI) is signed in; `env` reads variables.
pub fn sign_in(preset: Preset, program: &Path, env: &dyn Fn(&str) -> Option<String>) -> SignIn {
    match preset {
        Preset::Claude => claude(program),
        Preset::Codex => codex(program, env),
        Preset::Gemini => gemini(env),
    }
}

fn set(env: &dyn Fn(&str) -> Option<String>, var: &str) -> bool {
    env(var).is_some_and(|v| !v.trim().is_empty())
}

/// Run a status command; `None` when it could not run or did not finish in time.
fn status(argv: &[&str]) -> Option<process::Finished> {
    let dir = RunDir::create(None).ok()?;
    process::run(&Spec {
        argv: argv.iter().map(|a| (*a).to_owned()).collect(),
        stdin: None,
        timeout: STATUS_TIMEOUT,
        max_output: 64 * 1024,
        cwd: Some(dir.work().to_path_buf()),
        env: Vec::new(),
        cancel: crate::cancel::Cancel::default(),
    })
    .ok()
}

fn claude(program: &Path) -> SignIn {
    let program = program.to_string_lossy();
    let said = status(&[&program, "auth", "status", "--json"]).and_then(|run| {
        serde_json::from_slice::<Value>(&run.stdout)
            .ok()
            .filter(Value::is_object)
    });
    let Some(said) = said else {
        return verdict(None, "cannot tell: `claude auth status` gave no answer");
    };
    let text = |key: &str| said.get(key).and_then(Value::as_str).unwrap_or_default();
    match said.get("loggedIn").and_then(Value::as_bool) {
        Some(true) => verdict(
            Some(true),
            format!("signed in ({}, `claude auth status`)", text("authMethod")),
        ),
        Some(false) if matches!(text("apiProvider"), "" | "firstParty") => verdict(
            Some(false),
            "run `claude auth login`, or set ANTHROPIC_API_KEY",
        ),
        Some(false) => verdict(
            None,
            format!("cannot tell: claude uses {}", text("apiProvider")),
        ),
        None => verdict(None, "cannot tell: `claude auth status` did not say"),
    }
}

fn codex(program: &Path, env: &dyn Fn(&str) -> Option<String>) -> SignIn {
    for var in ["CODEX_API_KEY", "CODEX_ACCESS_TOKEN"] {
        if set(env, var) {
            return verdict(Some(true), format!("{var} is set"));
        }
    }
    let home = env("CODEX_HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
        .or_else(|| env("HOME").map(|h| Path::new(&h).join(".codex")));
    if let Some(config) = home.map(|h| h.join("config.toml")) {
        if names_model_provider(&std::fs::read_to_string(&config).unwrap_or_default()) {
            return verdict(
                None,
                format!("cannot tell: {} chooses a model_provider", config.display()),
            );
        }
    }
    let program = program.to_string_lossy();
    match status(&[&program, "login", "status"]) {
        Some(run) if run.status.success() => {
            verdict(Some(true), "signed in (`codex login status`)")
        }
        Some(run)
            if String::from_utf8_lossy(&run.stderr).contains("Not logged in")
                || String::from_utf8_lossy(&run.stdout).contains("Not logged in") =>
        {
            verdict(Some(false), "run `codex login`, or set CODEX_API_KEY")
        }
        _ => verdict(None, "cannot tell: `codex login status` gave no answer"),
    }
}

/// Whether a codex `config.toml` sets `model_provider` at its top level (before any table).
fn names_model_provider(config: &str) -> bool {
    config
        .lines()
        .map(str::trim)
        .take_while(|l| !l.starts_with('['))
        .any(|l| {
            l.strip_prefix("model_provider")
                .is_some_and(|rest| rest.trim_start().starts_with('='))
        })
}

fn gemini(env: &dyn Fn(&str) -> Option<String>) -> SignIn {
    if env("GEMINI_FORCE_ENCRYPTED_FILE_STORAGE").as_deref() == Some("true") {
        return verdict(
            None,
            "cannot tell: gemini keeps its sign-in in the keychain",
        );
    }
    for var in [
        "GEMINI_API_KEY",
        "GOOGLE_API_KEY",
        "GOOGLE_GENAI_USE_VERTEXAI",
        "GOOGLE_APPLICATION_CREDENTIALS",
    ] {
        if set(env, var) {
            return verdict(Some(true), format!("{var} is set"));
        }
    }
    let Some(home) = env("GEMINI_CLI_HOME")
        .filter(|h| !h.is_empty())
        .or_else(|| env("HOME"))
        .map(PathBuf::from)
    else {
        return verdict(None, "cannot tell: HOME is not set");
    };
    let creds = home.join(".gemini/oauth_creds.json");
    if creds.is_file() {
        return verdict(
            Some(true),
            format!("signed in with Google ({})", creds.display()),
        );
    }
    for dotenv in [home.join(".gemini/.env"), home.join(".env")] {
        if dotenv.is_file() {
            return verdict(
                None,
                format!("cannot tell: {} may set a key", dotenv.display()),
            );
        }
    }
    if env("CLOUD_SHELL").as_deref() == Some("true") {
        return verdict(None, "cannot tell: Cloud Shell signs gemini in");
    }
    verdict(
        Some(false),
        "run `gemini` once to sign in with Google, or set GEMINI_API_KEY",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env_of<'a>(vars: &'a [(&'a str, String)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| {
            vars.iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.clone())
        }
    }

    #[test]
    fn gemini_is_signed_in_by_a_key_or_a_cached_sign_in_and_not_otherwise() {
        let home = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let h = home.path().to_string_lossy().into_owned();
        let bare = [("HOME", h.clone())];
        let found = gemini(&env_of(&bare));
        assert_eq!(found.signed_in, Some(false), "{found:?}");
        assert!(found.detail.contains("GEMINI_API_KEY"), "{found:?}");
        let keyed = [
            ("HOME", h.clone()),
            ("GEMINI_API_KEY", "secret-value".into()),
        ];
        let found = gemini(&env_of(&keyed));
        assert_eq!(found.signed_in, Some(true));
        assert!(!found.detail.contains("secret-value"), "{found:?}");
        std::fs::write(home.path().join(".env"), "GEMINI_API_KEY=x\n")
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(gemini(&env_of(&bare)).signed_in, None);
        std::fs::create_dir(home.path().join(".gemini")).unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(home.path().join(".gemini/oauth_creds.json"), "{}")
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(gemini(&env_of(&bare)).signed_in, Some(true));
    }

    #[test]
    fn a_codex_model_provider_is_only_read_at_the_top_level() {
        assert!(names_model_provider(
            "model = \"x\"\nmodel_provider = \"ollama\"\n"
        ));
        assert!(!names_model_provider(
            "[profiles.local]\nmodel_provider = \"ollama\"\n"
        ));
        assert!(!names_model_provider("model_providers_note = 1\n"));
    }
}
