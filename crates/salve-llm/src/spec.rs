//! The provider schema of the configuration (`[providers.NAME]` in `salve.toml`), and building a
//! provider from it.
//!
//! The schema is fixed so scripts and CI can rely on it:
//!
//! ```toml
//! [providers.NAME]
//! kind = "command"            # or "openai", "anthropic", "replay"
//! command = ["prog", "arg"]   # command: the prompt goes to stdin; the reply is stdout
//! preset = "claude"           # optional for command: "claude", "codex" or "gemini" output parsing
//! base_url = "http://127.0.0.1:11434/v1"   # openai / anthropic
//! model = "qwen2.5-coder:7b"
//! api_key_env = "OPENAI_API_KEY"           # the name of the variable, never the key
//! cassette = "path/to/cassette.jsonl"      # replay
//! timeout_secs = 300
//! ```
//!
//! Three optional fields go beyond it: `stream` (openai: use server-sent events),
//! `max_tokens` (anthropic) and `max_output_bytes` (command). A command provider with a preset
//! and no `command` runs the preset's default command line. Unknown fields are errors, so a typo
//! is not silently ignored.
//!
//! Every command provider runs in a fresh, empty temporary directory, never in the repository
//! ([`crate::command::rundir`]); a relative program path in `command` (`./model.sh`) is taken
//! from the directory salve works in, other arguments are passed as written.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::command::{CommandProvider, Preset};
use crate::http::anthropic::{self, AnthropicProvider};
use crate::http::openai::{self, OpenAiProvider};
use crate::http::HttpSettings;
use crate::provider::{Provider, ProviderKind};
use crate::replay::ReplayProvider;

/// Time limit when `timeout_secs` is not given.
pub const DEFAULT_TIMEOUT_SECS: u64 = 300;

/// One `[providers.NAME]` table.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProviderSpec {
    pub kind: Option<ProviderKind>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preset: Option<Preset>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_key_env: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cassette: Option<PathBuf>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_secs: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stream: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_output_bytes: Option<usize>,
}

/// A provider table that cannot be used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("provider `{name}`: {message}")]
pub struct SpecError {
    pub name: String,
    pub message: String,
}

impl ProviderSpec {
    /// A command provider running an agent CLI's default command line.
    pub fn preset(preset: Preset) -> ProviderSpec {
        ProviderSpec {
            kind: Some(ProviderKind::Command),
            preset: Some(preset),
            ..ProviderSpec::default()
        }
    }

    pub fn timeout(&self) -> Duration {
        Duration::from_secs(self.timeout_secs.unwrap_or(DEFAULT_TIMEOUT_SECS))
    }

    /// The base URL, or the kind's default (OpenAI's or Anthropic's public API).
    pub fn base_url_or_default(&self) -> Option<String> {
        match self.kind? {
            ProviderKind::Openai => Some(
                self.base_url
                    .clone()
                    .unwrap_or_else(|| openai::DEFAULT_BASE_URL.to_owned()),
            ),
            ProviderKind::Anthropic => Some(
                self.base_url
                    .clone()
                    .unwrap_or_else(|| anthropic::DEFAULT_BASE_URL.to_owned()),
            ),
            _ => None,
        }
    }

    /// The variable the key is read from: only the one the configuration names. Keys are never
    /// looked for anywhere else.
    pub fn key_env(&self) -> Option<String> {
        self.api_key_env.clone().filter(|v| !v.trim().is_empty())
    }

    /// True for an HTTP provider pointed at a public API (no `base_url`), which needs a key.
    pub fn needs_key(&self) -> bool {
        matches!(
            self.kind,
            Some(ProviderKind::Openai | ProviderKind::Anthropic)
        ) && self.base_url.is_none()
    }

    /// The command line a command provider runs.
    pub fn argv(&self) -> Vec<String> {
        match (&self.command, self.preset) {
            (Some(cmd), _) if !cmd.is_empty() => cmd.clone(),
            (_, Some(preset)) => preset.default_command(self.model.as_deref()),
            _ => Vec::new(),
        }
    }

    /// Check the fields the kind needs, without building anything.
    pub fn validate(&self, name: &str) -> Result<ProviderKind, SpecError> {
        let err = |message: &str| SpecError {
            name: name.to_owned(),
            message: message.to_owned(),
        };
        let kind = self.kind.ok_or_else(|| {
            err("`kind` is missing (one of \"command\", \"openai\", \"anthropic\", \"replay\")")
        })?;
        match kind {
            ProviderKind::Command => {
                if self.argv().is_empty() {
                    return Err(err("a command provider needs `command` or a `preset`"));
                }
            }
            ProviderKind::Openai | ProviderKind::Anthropic => {
                if self.model.as_deref().is_none_or(str::is_empty) {
                    return Err(err("an HTTP provider needs `model`"));
                }
                let url = self.base_url_or_default().unwrap_or_default();
                if !(url.starts_with("http://") || url.starts_with("https://")) {
                    return Err(err("`base_url` must start with http:// or https://"));
                }
            }
            ProviderKind::Replay => {
                if self.cassette.is_none() {
                    return Err(err("a replay provider needs `cassette`"));
                }
            }
        }
        if self.timeout_secs == Some(0) {
            return Err(err("`timeout_secs` must be at least 1"));
        }
        Ok(kind)
    }

    /// Build the provider. Relative cassette paths are taken from `base_dir`; a command
    /// provider's relative program path (`./model.sh`) from `work_dir`, though the program runs
    /// in an empty temporary directory of its own, never in the repository
    /// ([`crate::command::rundir`]). API keys are read from the environment now.
    pub fn build(
        &self,
        name: &str,
        base_dir: &Path,
        work_dir: Option<&Path>,
    ) -> Result<Arc<dyn Provider>, SpecError> {
        let kind = self.validate(name)?;
        let provider: Arc<dyn Provider> = match kind {
            ProviderKind::Command => {
                let mut p = CommandProvider::new(name, self.argv(), self.preset, self.timeout())
                    .with_model(self.model.clone())
                    .with_base_dir(work_dir.map(Path::to_path_buf));
                if let Some(max) = self.max_output_bytes {
                    p = p.with_max_output(max);
                }
                Arc::new(p)
            }
            ProviderKind::Openai | ProviderKind::Anthropic => {
                let settings = HttpSettings {
                    base_url: self.base_url_or_default().unwrap_or_default(),
                    model: self.model.clone().unwrap_or_default(),
                    timeout: self.timeout(),
                };
                let key_env = self.key_env();
                if kind == ProviderKind::Openai {
                    Arc::new(OpenAiProvider::new(
                        name,
                        settings,
                        key_env.as_deref(),
                        self.stream.unwrap_or(false),
                    ))
                } else {
                    Arc::new(AnthropicProvider::new(
                        name,
                        settings,
                        key_env.as_deref(),
                        self.max_tokens,
                    ))
                }
            }
            ProviderKind::Replay => {
                let path = self.cassette.clone().unwrap_or_default();
                let path = if path.is_relative() {
                    base_dir.join(path)
                } else {
                    path
                };
                Arc::new(ReplayProvider::new(name, path))
            }
        };
        Ok(provider)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_documented_schema_parses_and_unknown_fields_do_not() {
        let spec: ProviderSpec = serde_json::from_value(serde_json::json!({
            "kind": "openai",
            "base_url": "http://127.0.0.1:11434/v1",
            "model": "qwen2.5-coder:7b",
            "api_key_env": "OPENAI_API_KEY",
            "timeout_secs": 300
        }))
        .unwrap_or_default();
        assert_eq!(spec.validate("local"), Ok(ProviderKind::Openai));
        let bad = serde_json::from_value::<ProviderSpec>(
            serde_json::json!({"kind": "openai", "modle": "x"}),
        );
        assert!(bad.is_err());
    }

    #[test]
    fn missing_fields_are_named() {
        let spec = ProviderSpec {
            kind: Some(ProviderKind::Replay),
            ..ProviderSpec::default()
        };
        let err = spec
            .validate("r")
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(err.contains("cassette"), "{err}");
        let spec = ProviderSpec::preset(Preset::Claude);
        assert_eq!(spec.argv()[0], "claude");
        assert_eq!(spec.key_env(), None);
        let spec = ProviderSpec {
            kind: Some(ProviderKind::Anthropic),
            model: Some("m".into()),
            ..ProviderSpec::default()
        };
        assert_eq!(spec.key_env(), None, "keys come only from a named variable");
        assert!(spec.needs_key());
    }
}
