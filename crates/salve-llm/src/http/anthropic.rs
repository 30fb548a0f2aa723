//! Anthropic messages (`POST {base_url}/messages`), with the `x-api-key` and
//! `anthropic-version` headers. The answer is the text of the `content` blocks of type `text`;
//! `overloaded_error` (529) and `rate_limit_error` (429) are overloads, `authentication_error`
//! (401) an auth failure.

use std::time::Instant;

use serde_json::{json, Value};

use crate::provider::{Failure, FailureKind, Meta, Provider, ProviderKind, Reply, Request};

use super::{
    agent, messages_json, read_json, reported_error, status_failure, transport, HttpSettings, Key,
};

/// The default base URL.
pub const DEFAULT_BASE_URL: &str = "https://api.anthropic.com/v1";
/// The API version salve speaks.
pub const API_VERSION: &str = "2023-06-01";
/// The reply length asked for when the configuration does not say.
pub const DEFAULT_MAX_TOKENS: u32 = 8192;

/// An Anthropic messages endpoint.
#[derive(Debug)]
pub struct AnthropicProvider {
    name: String,
    settings: HttpSettings,
    key: Key,
    max_tokens: u32,
    agent: ureq::Agent,
}

impl AnthropicProvider {
    /// `api_key_env` names the variable holding the key; it is read now.
    pub fn new(
        name: impl Into<String>,
        settings: HttpSettings,
        api_key_env: Option<&str>,
        max_tokens: Option<u32>,
    ) -> AnthropicProvider {
        AnthropicProvider {
            name: name.into(),
            agent: agent(&settings),
            settings,
            key: Key::from_env(api_key_env),
            max_tokens: max_tokens.unwrap_or(DEFAULT_MAX_TOKENS),
        }
    }
}

impl Provider for AnthropicProvider {
    fn name(&self) -> &str {
        &self.name
    }

    fn kind(&self) -> ProviderKind {
        ProviderKind::Anthropic
    }

    fn model(&self) -> Option<&str> {
        Some(&self.settings.model)
    }

    fn complete(&self, request: &Request) -> Result<Reply, Failure> {
        let start = Instant::now();
        let key = self.key.get()?;
        let body = json!({
            "model": self.settings.model,
            "max_tokens": self.max_tokens,
            "messages": messages_json(request),
        });
        let mut call = self
            .agent
            .post(self.settings.endpoint("messages"))
            .header("content-type", "application/json")
            .header("anthropic-version", API_VERSION);
        if let Some(key) = key {
            call = call.header("x-api-key", key.expose());
        }
        let mut response = call.send(body.to_string()).map_err(transport)?;
        if !response.status().is_success() {
            return Err(status_failure(&mut response));
        }
        let value = read_json(&mut response)?;
        if value.get("type").and_then(Value::as_str) == Some("error") {
            let message = value
                .get("error")
                .and_then(|e| e.get("message"))
                .and_then(Value::as_str)
                .unwrap_or("unknown error")
                .to_owned();
            return Err(reported_error(&message));
        }
        let Some(blocks) = value.get("content").and_then(Value::as_array) else {
            return Err(Failure::new(
                FailureKind::Protocol,
                "the response has no `content` blocks",
            ));
        };
        let text: String = blocks
            .iter()
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect();
        let mut meta = Meta::new(
            &self.name,
            ProviderKind::Anthropic,
            value
                .get("model")
                .and_then(Value::as_str)
                .or(Some(&self.settings.model)),
        );
        if let Some(usage) = value.get("usage") {
            meta.tokens_in = usage.get("input_tokens").and_then(Value::as_u64);
            meta.tokens_out = usage.get("output_tokens").and_then(Value::as_u64);
        }
        Ok(Reply {
            text,
            meta: meta.timed(start),
        })
    }
}
