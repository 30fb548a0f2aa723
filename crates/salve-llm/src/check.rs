//! Availability checks for `salve doctor`: whether a provider could answer, found without
//! sending it any prompt. A command provider's program must be on PATH, and an agent CLI run by its
//! preset must be signed in when it can tell ([`crate::command::signin`]); an HTTP provider's
//! endpoint must accept a TCP connection (no request is sent, so no key leaves the machine) and
//! its key variable must be set; a replay provider's cassette must be readable. A key's value
//! is never looked at beyond "set or not".

use std::net::{TcpStream, ToSocketAddrs};
use std::path::Path;
use std::time::Duration;

use serde::Serialize;

use crate::command::find_program;
use crate::command::signin::sign_in;
use crate::provider::ProviderKind;
use crate::replay;
use crate::spec::ProviderSpec;

/// How long a reachability probe waits.
pub const PROBE_TIMEOUT: Duration = Duration::from_secs(2);

/// One thing checked.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Check {
    /// `program`, `sign_in`, `endpoint`, `key`, `cassette` or `config`.
    pub what: &'static str,
    pub ok: bool,
    pub detail: String,
}

/// Everything checked about one provider.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Availability {
    pub available: bool,
    pub checks: Vec<Check>,
    /// For an agent CLI run by its preset: whether it is signed in (`None` when it cannot tell,
    /// and for every other provider).
    pub signed_in: Option<bool>,
}

fn check(what: &'static str, ok: bool, detail: impl Into<String>) -> Check {
    Check {
        what,
        ok,
        detail: detail.into(),
    }
}

/// Check the provider `name` defined by `spec`. `path` is the `PATH` to search (`None`: the
/// process's); `env` reads variables (to tell whether a key is set).
pub fn availability(
    name: &str,
    spec: &ProviderSpec,
    path: Option<&str>,
    env: &dyn Fn(&str) -> Option<String>,
) -> Availability {
    let mut signed_in = None;
    let checks = match spec.validate(name) {
        Err(e) => vec![check("config", false, e.message)],
        Ok(ProviderKind::Command) => {
            let argv = spec.argv();
            let program = argv.first().cloned().unwrap_or_default();
            match find_program(&program, path) {
                Some(found) => {
                    let mut checks = vec![check("program", true, found.display().to_string())];
                    // Only the agent CLI itself is asked: a wrapper program configured with a
                    // preset's output format may not know `auth status`.
                    let cli = spec.preset.filter(|p| {
                        found.file_name().and_then(|n| n.to_str()) == Some(p.program())
                    });
                    if let Some(preset) = cli {
                        let found = sign_in(preset, &found, env);
                        signed_in = found.signed_in;
                        checks.push(check(
                            "sign_in",
                            found.signed_in != Some(false),
                            found.detail,
                        ));
                    }
                    checks
                }
                None => vec![check(
                    "program",
                    false,
                    format!("`{program}` is not on PATH"),
                )],
            }
        }
        Ok(ProviderKind::Openai | ProviderKind::Anthropic) => {
            let url = spec.base_url_or_default().unwrap_or_default();
            let mut checks = vec![probe(&url)];
            if spec.key_env().is_none() && spec.needs_key() {
                checks.push(check(
                    "key",
                    false,
                    "no api_key_env is configured, and the public API needs a key",
                ));
            }
            if let Some(var) = spec.key_env() {
                let set = env(&var).is_some_and(|v| !v.trim().is_empty());
                checks.push(check(
                    "key",
                    set,
                    if set {
                        format!("{var} is set")
                    } else {
                        format!("{var} is not set")
                    },
                ));
            }
            checks
        }
        Ok(ProviderKind::Replay) => vec![cassette(&spec.cassette.clone().unwrap_or_default())],
    };
    Availability {
        available: checks.iter().all(|c| c.ok),
        checks,
        signed_in,
    }
}

/// Whether `url`'s host accepts a TCP connection.
fn probe(url: &str) -> Check {
    let Some((host, port)) = host_port(url) else {
        return check("endpoint", false, format!("cannot read a host in `{url}`"));
    };
    let addrs = match (host.as_str(), port).to_socket_addrs() {
        Ok(addrs) => addrs.collect::<Vec<_>>(),
        Err(e) => {
            return check(
                "endpoint",
                false,
                format!("{url}: cannot resolve {host}: {e}"),
            )
        }
    };
    let mut last = String::from("no address");
    for addr in addrs {
        match TcpStream::connect_timeout(&addr, PROBE_TIMEOUT) {
            Ok(_) => return check("endpoint", true, format!("{url} is reachable")),
            Err(e) => last = e.to_string(),
        }
    }
    check("endpoint", false, format!("{url} is not reachable: {last}"))
}

/// Host and port of an `http://` or `https://` URL.
pub fn host_port(url: &str) -> Option<(String, u16)> {
    let (scheme, rest) = url.split_once("://")?;
    let default = match scheme {
        "http" => 80,
        "https" => 443,
        _ => return None,
    };
    let authority = rest.split(['/', '?', '#']).next()?;
    let authority = authority.rsplit('@').next()?;
    if let Some(v6) = authority.strip_prefix('[') {
        let (host, after) = v6.split_once(']')?;
        let port = after
            .strip_prefix(':')
            .map_or(Some(default), |p| p.parse().ok())?;
        return Some((host.to_owned(), port));
    }
    match authority.rsplit_once(':') {
        Some((host, port)) => Some((host.to_owned(), port.parse().ok()?)),
        None if !authority.is_empty() => Some((authority.to_owned(), default)),
        None => None,
    }
}

/// Check `path` as a cassette: readable, and every line a recorded reply.
pub fn cassette(path: &Path) -> Check {
    match replay::load(path) {
        Ok(entries) => check(
            "cassette",
            true,
            format!("{} ({} replies)", path.display(), entries.len()),
        ),
        Err(e) => check("cassette", false, e.message),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_and_ports() {
        assert_eq!(
            host_port("http://127.0.0.1:11434/v1"),
            Some(("127.0.0.1".into(), 11434))
        );
        assert_eq!(
            host_port("https://api.example.com/v1"),
            Some(("api.example.com".into(), 443))
        );
        assert_eq!(host_port("http://[::1]/v1"), Some(("::1".into(), 80)));
        assert_eq!(host_port("ftp://x"), None);
    }

    #[test]
    fn a_listening_port_is_reachable_and_a_key_is_only_said_to_be_set() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap_or_else(|e| panic!("{e}"));
        let port = listener.local_addr().map(|a| a.port()).unwrap_or(0);
        let spec = ProviderSpec {
            kind: Some(ProviderKind::Openai),
            base_url: Some(format!("http://127.0.0.1:{port}/v1")),
            model: Some("m".into()),
            api_key_env: Some("MY_KEY".into()),
            ..ProviderSpec::default()
        };
        let a = availability("local", &spec, None, &|v| {
            (v == "MY_KEY").then(|| "sk-secret-value-123456".to_owned())
        });
        assert!(a.available, "{a:?}");
        assert_eq!(a.checks[1].detail, "MY_KEY is set");
        assert!(!format!("{a:?}").contains("sk-secret"));
        drop(listener);
        let missing = availability("local", &spec, None, &|_| None);
        assert!(!missing.available);
    }
}
