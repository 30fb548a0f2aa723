//! OpenAI-compatible chat completions (`POST {base_url}/chat/completions`): OpenAI itself,
//! Ollama, llama.cpp's server, vLLM, LM Studio.
//!
//! The key, when one is configured, goes in `Authorization: Bearer`; local servers usually need
//! none. Without streaming the answer is `choices[0].message.content`; with streaming it is the
//! concatenated `choices[0].delta.content` of the events up to `data: [DONE]`, and a stream that
//! ends before `[DONE]` is a transport failure: a cut reply is not an answer.

use std::io::BufReader;
use std::time::Instant;

use serde_json::{json, Value};

use crate::provider::{Failure, FailureKind, Meta, Provider, ProviderKind, Reply, Request};

use super::sse::{read_events, Flow};
use super::{
    agent, messages_json, read_json, reported_error, status_failure, transport, HttpSettings, Key,
    MAX_BODY,
};

/// The default base URL.
pub const DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";

/// An OpenAI-compatible endpoint.
#[derive(Debug)]
pub struct OpenAiProvider {
    name: String,
    settings: HttpSettings,
    key: Key,
    stream: bool,
    agent: ureq::Agent,
}

impl OpenAiProvider {
    /// `api_key_env` names the variable holding the key; it is read now.
    pub fn new(
        name: impl Into<String>,
        settings: HttpSettings,
        api_key_env: Option<&str>,
        stream: bool,
    ) -> OpenAiProvider {
        OpenAiProvider {
            name: name.into(),
            agent: agent(&settings),
            settings,
            key: Key::from_env(api_key_env),
            stream,
        }
    }

    fn body(&self, request: &Request) -> Value {
        let mut body = json!({
            "model": self.settings.model,
            "messages": messages_json(request),
            "stream": self.stream,
        });
        if self.stream {
            body["stream_options"] = json!({"include_usage": true});
        }
        body
    }
}

impl Provider for OpenAiProvider {
    fn name(&self) -> &str {
        &self.name
    }

    fn kind(&self) -> ProviderKind {
        ProviderKind::Openai
    }

    fn model(&self) -> Option<&str> {
        Some(&self.settings.model)
    }

    fn complete(&self, request: &Request) -> Result<Reply, Failure> {
        let start = Instant::now();
        let key = self.key.get()?;
        let mut call = self
            .agent
            .post(self.settings.endpoint("chat/completions"))
            .header("content-type", "application/json");
        if let Some(key) = key {
            call = call.header("authorization", format!("Bearer {}", key.expose()));
        }
        if self.stream {
            call = call.header("accept", "text/event-stream");
        }
        let mut response = call
            .send(self.body(request).to_string())
            .map_err(transport)?;
        if !response.status().is_success() {
            return Err(status_failure(&mut response));
        }
        let mut meta = Meta::new(&self.name, ProviderKind::Openai, Some(&self.settings.model));
        let text = if self.stream {
            let reader = BufReader::new(response.body_mut().as_reader());
            read_stream(reader, &mut meta)?
        } else {
            let value = read_json(&mut response)?;
            read_completion(&value, &mut meta)?
        };
        Ok(Reply {
            text,
            meta: meta.timed(start),
        })
    }
}

fn usage_into(usage: Option<&Value>, meta: &mut Meta) {
    if let Some(u) = usage.filter(|u| u.is_object()) {
        meta.tokens_in = u.get("prompt_tokens").and_then(Value::as_u64);
        meta.tokens_out = u.get("completion_tokens").and_then(Value::as_u64);
    }
}

fn model_into(value: &Value, meta: &mut Meta) {
    if let Some(model) = value.get("model").and_then(Value::as_str) {
        meta.model = Some(model.to_owned());
    }
}

/// An `error` object inside a 200 response or a stream event.
fn embedded_error(value: &Value) -> Option<Failure> {
    let error = value.get("error").filter(|e| !e.is_null())?;
    let message = error
        .get("message")
        .and_then(Value::as_str)
        .map(str::to_owned)
        .unwrap_or_else(|| error.to_string());
    Some(reported_error(&message))
}

fn read_completion(value: &Value, meta: &mut Meta) -> Result<String, Failure> {
    if let Some(failure) = embedded_error(value) {
        return Err(failure);
    }
    model_into(value, meta);
    usage_into(value.get("usage"), meta);
    let choice = value
        .get("choices")
        .and_then(|c| c.get(0))
        .ok_or_else(|| Failure::new(FailureKind::Protocol, "the response has no choices"))?;
    match choice.get("message").and_then(|m| m.get("content")) {
        Some(Value::String(text)) => Ok(text.clone()),
        // Some servers send content as a list of typed parts.
        Some(Value::Array(parts)) => Ok(parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect()),
        Some(Value::Null) | None => Ok(String::new()),
        Some(other) => Err(Failure::new(
            FailureKind::Protocol,
            format!("unexpected message content: {other}"),
        )),
    }
}

fn read_stream(reader: impl std::io::BufRead, meta: &mut Meta) -> Result<String, Failure> {
    let mut text = String::new();
    let done = read_events(reader, MAX_BODY, |data| {
        if data.trim() == "[DONE]" {
            return Ok(Flow::Stop);
        }
        let value: Value = serde_json::from_str(data).map_err(|e| {
            Failure::new(
                FailureKind::Protocol,
                format!("malformed JSON in the stream ({e})"),
            )
        })?;
        if let Some(failure) = embedded_error(&value) {
            return Err(failure);
        }
        model_into(&value, meta);
        usage_into(value.get("usage"), meta);
        if let Some(piece) = value
            .get("choices")
            .and_then(|c| c.get(0))
            .and_then(|c| c.get("delta"))
            .and_then(|d| d.get("content"))
            .and_then(Value::as_str)
        {
            text.push_str(piece);
        }
        Ok(Flow::Continue)
    })?;
    if !done {
        return Err(Failure::new(
            FailureKind::Transport,
            format!(
                "the stream ended before [DONE] (connection dropped mid-stream after {} characters)",
                text.chars().count()
            ),
        ));
    }
    Ok(text)
}
