//! salve-llm talks to models. A [`Provider`] takes a [`Request`] and returns a [`Reply`] (text
//! plus [`Meta`]: provider, model, tokens in and out, cost when reported, latency) or a
//! [`Failure`] with its [`FailureKind`].
//!
//! Provider kinds:
//! - [`command`]: any program, prompt on stdin (or in an argument), a time limit that kills the
//!   whole process tree, capped output; presets parse the JSON of the `claude`, `codex` and
//!   `gemini` CLIs and read it as it arrives, so an agent that only retries a lost connection
//!   is ended early with a transport reason ([`command::watch`]);
//! - [`http::openai`]: OpenAI-compatible `/chat/completions` (OpenAI, Ollama, llama.cpp, vLLM,
//!   LM Studio), plain or streamed;
//! - [`http::anthropic`]: Anthropic `/messages`;
//! - [`replay`]: a cassette of recorded replies, and [`replay::Recording`], which records any
//!   provider into one.
//!
//! A [`Chain`] tries providers in order and classifies each reply ([`classify()`]): edit, the
//! `NO_CHANGES_NEEDED` sentinel, prose, empty, overloaded (retried with backoff) or error.
//! [`spec::ProviderSpec`] is the configuration schema that builds providers. API keys are read
//! only from environment variables and never leave the process in a message: see [`secret`].
//!
//! ```no_run
//! use std::sync::Arc;
//! use salve_llm::{Chain, Provider, Request, RetryPolicy};
//! use salve_llm::replay::ReplayProvider;
//!
//! let replay: Arc<dyn Provider> = Arc::new(ReplayProvider::new("replay", "cassette.jsonl"));
//! let chain = Chain::new("default", vec![replay], RetryPolicy::default());
//! match chain.run(&Request::new("Rename foo to bar in src/lib.rs")) {
//!     Ok(answered) => println!("{}", answered.answer.reply.text),
//!     Err(all_failed) => eprintln!("{all_failed}"),
//! }
//! ```

mod call;
pub mod cancel;
pub mod chain;
pub mod check;
pub mod classify;
pub mod command;
pub mod http;
pub mod provider;
pub mod replay;
pub mod secret;
pub mod spec;

pub use cancel::Cancel;
pub use chain::{AllFailed, Answer, Answered, Attempt, Chain, Event as ChainEvent, RetryPolicy};
pub use classify::{classify, ReplyClass, NO_CHANGE_SENTINEL};
pub use provider::{
    Failure, FailureKind, Message, Meta, Provider, ProviderKind, Reply, Request, Role,
};
pub use spec::{ProviderSpec, SpecError};
