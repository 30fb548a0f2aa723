//! Output parsing for the agent CLIs salve has presets for, and their default command lines.
//!
//! - **claude** (`claude -p --output-format stream-json --verbose --tools "" --strict-mcp-config`):
//!   JSON Lines events ending in one of `"type": "result"` (a single object or an array of events
//!   is read too); the answer is `result`, a failure is `is_error: true` with the reason in
//!   `result`. Cost and tokens come from `total_cost_usd` and `usage`. The event stream (not the
//!   single `json` object) is what shows claude's `api_retry` events while they happen
//!   ([`super::watch`]).
//! - **codex** (`codex exec --json --skip-git-repo-check --sandbox read-only -`): JSON Lines
//!   events; the answer is the text of the last `item.completed` whose item is an
//!   `agent_message`; `turn.failed` (or an `error` event with no answer after it) is a failure.
//!   Tokens come from `turn.completed.usage`.
//! - **gemini** (`gemini -o json --policy ../salve-no-tools.toml -p ...`): one JSON object with
//!   `response`, `stats` and, on failure, `error` (printed on stderr by some versions). Exit code
//!   41 is an authentication failure, 42 an input error, 53 the turn limit.
//!
//! Each parser returns the answer or a [`Failure`] whose kind comes from the agent's own words
//! (an overload notice is retried, an auth failure is not).
//!
//! **Providers answer; they do not act.** salve applies the edit, behind its checkpoint and
//! guard, so the agents' own tools are switched off wherever the CLI has a switch, and every
//! command provider runs in an empty directory of its own ([`super::rundir`]), so no repository
//! setting (`.claude/`, `.gemini/`, `.codex/`, `.mcp.json`) decides what the agent may do:
//! - claude: `--tools ""` (no built-in tools) and `--strict-mcp-config` (no MCP server from any
//!   configuration; `--tools` alone leaves the user's MCP servers mounted);
//! - codex: `--sandbox read-only` (its commands cannot write; codex has no switch that removes
//!   its shell) and `--skip-git-repo-check` (the empty directory is no git repository);
//! - gemini: `--policy` with a rule denying every tool, written beside the empty directory
//!   ([`GEMINI_NO_TOOLS_FILE`]; a globally denied tool is not even shown to the model), and
//!   `GEMINI_CLI_TRUST_WORKSPACE=true` in its environment, since gemini refuses to run headless
//!   in a folder it does not trust (exit 55) and trusting an empty directory grants nothing.
//!
//! A configured `command` replaces the whole default command line, these switches included.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::classify::failure_kind_of;
use crate::provider::{one_line, tail, Failure, FailureKind};

use super::finished::Finished;

/// The agent CLIs with a known output format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Preset {
    Claude,
    Codex,
    Gemini,
}

/// What gemini is told on its command line; the prompt itself goes on stdin, which gemini
/// reads first (a prompt argument could pass the kernel's limit on one argument's length).
const GEMINI_PROMPT_ARG: &str = "Follow the instructions given on standard input.";

/// The gemini policy file the default command line names, relative to the directory the agent
/// runs in: it is written one level up, so the directory itself stays empty.
pub const GEMINI_NO_TOOLS_FILE: &str = "salve-no-tools.toml";

/// A rule denying every tool, built-in or MCP, at the top priority of the user tier (an
/// administrator's policy still wins, as it should).
const GEMINI_NO_TOOLS_POLICY: &str = "\
# Written by salve: the agent answers a prompt; salve applies the edit.
[[rule]]
toolName = \"*\"
decision = \"deny\"
priority = 999
denyMessage = \"Tools are off: answer from the prompt alone.\"
";

/// How far into stderr a reason quotes.
const REASON_CHARS: usize = 400;

impl Preset {
    pub fn as_str(self) -> &'static str {
        match self {
            Preset::Claude => "claude",
            Preset::Codex => "codex",
            Preset::Gemini => "gemini",
        }
    }

    pub fn from_name(name: &str) -> Option<Preset> {
        match name {
            "claude" => Some(Preset::Claude),
            "codex" => Some(Preset::Codex),
            "gemini" => Some(Preset::Gemini),
            _ => None,
        }
    }

    /// The program the preset runs.
    pub fn program(self) -> &'static str {
        self.as_str()
    }

    /// The default command line, the prompt going to stdin. The agents' tools are off where
    /// they have a switch for it (see the module docs): salve applies the edit.
    pub fn default_command(self, model: Option<&str>) -> Vec<String> {
        let gemini_policy = format!("../{GEMINI_NO_TOOLS_FILE}");
        let mut argv: Vec<String> = match self {
            Preset::Claude => vec![
                "claude",
                "-p",
                "--output-format",
                "stream-json",
                "--verbose",
                "--tools",
                "",
                "--strict-mcp-config",
            ],
            Preset::Codex => vec![
                "codex",
                "exec",
                "--json",
                "--skip-git-repo-check",
                "--sandbox",
                "read-only",
            ],
            Preset::Gemini => vec!["gemini", "-o", "json", "--policy", gemini_policy.as_str()],
        }
        .into_iter()
        .map(str::to_owned)
        .collect();
        if let Some(model) = model {
            argv.push(match self {
                Preset::Claude => "--model".to_owned(),
                Preset::Codex | Preset::Gemini => "-m".to_owned(),
            });
            argv.push(model.to_owned());
        }
        match self {
            // `-` makes codex read the prompt from stdin.
            Preset::Codex => argv.push("-".to_owned()),
            Preset::Gemini => {
                argv.push("-p".to_owned());
                argv.push(GEMINI_PROMPT_ARG.to_owned());
            }
            Preset::Claude => {}
        }
        argv
    }

    /// Files written beside the directory the agent runs in (name, content), which its default
    /// command line refers to.
    pub fn support_files(self) -> &'static [(&'static str, &'static str)] {
        match self {
            Preset::Gemini => &[(GEMINI_NO_TOOLS_FILE, GEMINI_NO_TOOLS_POLICY)],
            Preset::Claude | Preset::Codex => &[],
        }
    }

    /// Variables the agent runs with, whatever its command line.
    pub fn env(self) -> &'static [(&'static str, &'static str)] {
        match self {
            // The documented switch for headless runs; `--skip-trust` came, went (0.37) and came
            // back, while the variable is read by every version with folder trust.
            Preset::Gemini => &[("GEMINI_CLI_TRUST_WORKSPACE", "true")],
            Preset::Claude | Preset::Codex => &[],
        }
    }

    /// The answer in a finished run's output.
    pub fn parse(self, run: &Finished) -> Result<Parsed, Failure> {
        match self {
            Preset::Claude => parse_claude(run),
            Preset::Codex => parse_codex(run),
            Preset::Gemini => parse_gemini(run),
        }
    }
}

/// An agent's answer and what it reported about the call.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Parsed {
    pub text: String,
    pub model: Option<String>,
    pub tokens_in: Option<u64>,
    pub tokens_out: Option<u64>,
    pub cost_usd: Option<f64>,
}

fn stderr_text(run: &Finished) -> String {
    one_line(&tail(&String::from_utf8_lossy(&run.stderr), REASON_CHARS))
}

fn exit_text(run: &Finished) -> String {
    match run.status.code() {
        Some(code) => format!("exit code {code}"),
        None => "killed by a signal".to_owned(),
    }
}

/// A failure for a run whose output could not be read: the exit status and stderr say why.
fn unreadable(preset: Preset, run: &Finished, what: &str) -> Failure {
    let stderr = stderr_text(run);
    let detail = if stderr.is_empty() {
        String::new()
    } else {
        format!(": {stderr}")
    };
    if run.status.success() {
        Failure::new(
            FailureKind::Protocol,
            format!("{} printed {what}{detail}", preset.as_str()),
        )
    } else {
        Failure::new(
            failure_kind_of(&stderr, FailureKind::Exit),
            format!("{} failed ({}){detail}", preset.as_str(), exit_text(run)),
        )
    }
}

fn u64_at(v: &Value, path: &[&str]) -> Option<u64> {
    let mut cur = v;
    for key in path {
        cur = cur.get(key)?;
    }
    cur.as_u64()
}

fn parse_claude(run: &Finished) -> Result<Parsed, Failure> {
    let stdout = String::from_utf8_lossy(&run.stdout);
    let value: Value = match serde_json::from_str(stdout.trim()) {
        Ok(v) => v,
        // `stream-json`: one event per line.
        Err(_) => {
            let events: Vec<Value> = stdout
                .lines()
                .filter_map(|l| serde_json::from_str::<Value>(l.trim()).ok())
                .filter(Value::is_object)
                .collect();
            if events.is_empty() {
                return Err(unreadable(Preset::Claude, run, "no JSON result"));
            }
            Value::Array(events)
        }
    };
    // `--verbose` prints every event as an array (or one per line); the result is the last one.
    let result = match &value {
        Value::Array(events) => events
            .iter()
            .rev()
            .find(|e| e.get("type").and_then(Value::as_str) == Some("result"))
            .cloned(),
        Value::Object(_) => Some(value.clone()),
        _ => None,
    };
    let Some(result) = result else {
        return Err(unreadable(Preset::Claude, run, "JSON without a result"));
    };
    let text = result.get("result").and_then(Value::as_str);
    let is_error = result.get("is_error").and_then(Value::as_bool) == Some(true)
        || result
            .get("subtype")
            .and_then(Value::as_str)
            .is_some_and(|s| s.starts_with("error"));
    if is_error || !run.status.success() {
        let reason = text
            .map(one_line)
            .or_else(|| {
                result
                    .get("subtype")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
            })
            .unwrap_or_else(|| exit_text(run));
        let status = result.get("api_error_status").and_then(Value::as_u64);
        let kind = match status {
            Some(429 | 529 | 503) => FailureKind::Overloaded,
            Some(401 | 403) => FailureKind::Auth,
            _ => failure_kind_of(&reason, FailureKind::Exit),
        };
        return Err(Failure::new(
            kind,
            format!("claude reported an error: {}", tail(&reason, REASON_CHARS)),
        ));
    }
    let Some(text) = text else {
        return Err(unreadable(
            Preset::Claude,
            run,
            "a result without `result` text",
        ));
    };
    let model = result
        .get("modelUsage")
        .and_then(Value::as_object)
        .and_then(|m| m.keys().next().cloned());
    let usage = result.get("usage");
    let tokens_in = usage.map(|u| {
        [
            "input_tokens",
            "cache_creation_input_tokens",
            "cache_read_input_tokens",
        ]
        .iter()
        .filter_map(|k| u64_at(u, &[k]))
        .sum()
    });
    Ok(Parsed {
        text: text.to_owned(),
        model,
        tokens_in,
        tokens_out: usage.and_then(|u| u64_at(u, &["output_tokens"])),
        cost_usd: result.get("total_cost_usd").and_then(Value::as_f64),
    })
}

fn parse_codex(run: &Finished) -> Result<Parsed, Failure> {
    let stdout = String::from_utf8_lossy(&run.stdout);
    let mut answer: Option<String> = None;
    let mut last_error: Option<String> = None;
    let mut turn_failed: Option<String> = None;
    let mut parsed = Parsed::default();
    let mut events = 0usize;
    for line in stdout.lines().filter(|l| !l.trim().is_empty()) {
        let Ok(event) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        events += 1;
        let kind = event.get("type").and_then(Value::as_str).unwrap_or("");
        match kind {
            "item.completed" => {
                let item = event.get("item").unwrap_or(&Value::Null);
                let item_type = item
                    .get("type")
                    .or_else(|| item.get("item_type"))
                    .and_then(Value::as_str)
                    .unwrap_or("");
                if matches!(item_type, "agent_message" | "assistant_message") {
                    if let Some(text) = item.get("text").and_then(Value::as_str) {
                        answer = Some(text.to_owned());
                        last_error = None;
                    }
                }
            }
            "turn.completed" => {
                let usage = event.get("usage");
                parsed.tokens_in = usage.and_then(|u| u64_at(u, &["input_tokens"]));
                parsed.tokens_out = usage.and_then(|u| u64_at(u, &["output_tokens"]));
            }
            "turn.failed" => {
                let message = event
                    .get("error")
                    .and_then(|e| e.get("message"))
                    .and_then(Value::as_str)
                    .unwrap_or("turn failed");
                turn_failed = Some(one_line(message));
            }
            "error" => {
                if let Some(message) = event.get("message").and_then(Value::as_str) {
                    last_error = Some(one_line(message));
                }
            }
            _ => {}
        }
    }
    if let Some(reason) = turn_failed {
        return Err(Failure::new(
            failure_kind_of(&reason, FailureKind::Exit),
            format!("codex turn failed: {}", tail(&reason, REASON_CHARS)),
        ));
    }
    match answer {
        Some(text) if run.status.success() => {
            parsed.text = text;
            Ok(parsed)
        }
        _ => {
            if let Some(reason) = last_error {
                return Err(Failure::new(
                    failure_kind_of(&reason, FailureKind::Exit),
                    format!("codex reported an error: {}", tail(&reason, REASON_CHARS)),
                ));
            }
            let what = if events == 0 {
                "no JSON events"
            } else {
                "no agent message"
            };
            Err(unreadable(Preset::Codex, run, what))
        }
    }
}

/// The JSON object gemini printed, on stdout or (for some failures) on stderr.
fn gemini_json(run: &Finished) -> Option<Value> {
    for bytes in [&run.stdout, &run.stderr] {
        let text = String::from_utf8_lossy(bytes);
        let trimmed = text.trim();
        // Warnings may come before the object.
        let Some(start) = trimmed.find('{') else {
            continue;
        };
        if let Ok(v) = serde_json::from_str::<Value>(&trimmed[start..]) {
            if v.is_object() {
                return Some(v);
            }
        }
    }
    None
}

fn parse_gemini(run: &Finished) -> Result<Parsed, Failure> {
    let json = gemini_json(run);
    let error_message = json
        .as_ref()
        .and_then(|v| v.get("error"))
        .filter(|e| !e.is_null())
        .map(|e| {
            e.get("message")
                .and_then(Value::as_str)
                .map(one_line)
                .unwrap_or_else(|| one_line(&e.to_string()))
        });
    let code = run.status.code();
    let fixed_kind = match code {
        Some(41) => Some(FailureKind::Auth),
        Some(42) => Some(FailureKind::Input),
        Some(53) => Some(FailureKind::TurnLimit),
        _ => None,
    };
    if fixed_kind.is_some() || error_message.is_some() || !run.status.success() {
        let reason = error_message.unwrap_or_else(|| stderr_text(run));
        let kind = fixed_kind.unwrap_or_else(|| failure_kind_of(&reason, FailureKind::Exit));
        let what = match kind {
            FailureKind::Input => "input error",
            FailureKind::TurnLimit => "turn limit reached",
            _ => "error",
        };
        return Err(Failure::new(
            kind,
            format!(
                "gemini {what} ({}): {}",
                exit_text(run),
                tail(&reason, REASON_CHARS)
            ),
        ));
    }
    let Some(json) = json else {
        return Err(unreadable(Preset::Gemini, run, "no JSON"));
    };
    let Some(text) = json.get("response").and_then(Value::as_str) else {
        return Err(unreadable(Preset::Gemini, run, "JSON without `response`"));
    };
    let mut parsed = Parsed {
        text: text.to_owned(),
        ..Parsed::default()
    };
    if let Some(models) = json
        .get("stats")
        .and_then(|s| s.get("models"))
        .and_then(Value::as_object)
    {
        parsed.model = models.keys().next().cloned();
        let sum = |key: &str| -> Option<u64> {
            let values: Vec<u64> = models
                .values()
                .filter_map(|m| u64_at(m, &["tokens", key]))
                .collect();
            (!values.is_empty()).then(|| values.iter().sum())
        };
        parsed.tokens_in = sum("prompt");
        parsed.tokens_out = sum("candidates");
    }
    Ok(parsed)
}
