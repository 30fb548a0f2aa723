//! `doctor`: what is installed and configured. The git version, the configuration files looked
//! for, every provider with whether it could answer (its program on PATH and, for an agent CLI,
//! signed in; its endpoint reachable, its key variable set; the key itself is never read into
//! the report), the chains, and where the record is kept. Nothing is sent to any model.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::error::Classified as _;
use salve_llm::check::{availability, Check};
use salve_llm::secret::redact;
use serde::Serialize;

use crate::config::{Config, ModelHint, SourceKind};

/// Where to look.
#[derive(Clone, Debug)]
pub struct Options {
    /// The work tree whose configuration and record are checked.
    pub dir: PathBuf,
}

/// Everything doctor found. Problems are part of it, never errors. Fields here and below are
/// in alphabetical order, as JSON prints them.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// `default`, `fast` and `quality`: which chain each uses and its providers.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chains: Option<BTreeMap<String, ChainCheck>>,
    pub config: ConfigCheck,
    pub git: GitCheck,
    /// What is wrong, each with what to do about it; empty when salve is ready to work.
    pub problems: Vec<Problem>,
    /// `SALVE_PROVIDER`: the provider used instead of a chain.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provider_override: Option<String>,
    /// Every provider, configured or built in; absent when the configuration cannot be read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub providers: Option<Vec<ProviderCheck>>,
    pub store: StoreCheck,
}

impl Report {
    /// True when nothing is wrong: git is usable, the configuration can be read, and some
    /// provider could answer.
    pub fn healthy(&self) -> bool {
        self.problems.is_empty()
    }
}

/// Something doctor found wrong.
#[derive(Clone, Debug, Serialize)]
pub struct Problem {
    pub hint: String,
    pub what: String,
}

fn problems(
    git: &GitCheck,
    config: &ConfigCheck,
    providers: Option<&[ProviderCheck]>,
) -> Vec<Problem> {
    let mut out = Vec::new();
    let mut say = |what: String, hint: &str| {
        out.push(Problem {
            hint: hint.to_owned(),
            what,
        })
    };
    match git {
        GitCheck::Found {
            ok: false,
            version,
            minimum,
        } => say(
            format!("git {version} is too old; salve needs {minimum} or newer"),
            "install a newer git",
        ),
        GitCheck::Unusable { error, .. } => say(
            format!("git is not usable: {error}"),
            "install git 2.30 or newer",
        ),
        GitCheck::Found { .. } => {}
    }
    if let ConfigCheck::Failed { error, hint } = config {
        say(
            format!("the configuration cannot be used: {error}"),
            hint.as_deref()
                .unwrap_or("fix the configuration file named above"),
        );
    }
    if let Some(providers) = providers {
        if !providers.iter().any(|p| p.available) {
            say(
                "no provider could answer: ask and fix cannot reach a model".to_owned(),
                "install and sign in to one of the agent programs (claude, codex, gemini) or \
                 define a provider in salve.toml; the checks under providers say what each one \
                 lacks",
            );
        }
    }
    out
}

/// The git found on PATH.
#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
pub enum GitCheck {
    /// git runs; `ok` when it is new enough.
    Found {
        minimum: String,
        ok: bool,
        version: String,
    },
    /// git does not run.
    Unusable { error: String, ok: bool },
}

/// The configuration layers.
#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
pub enum ConfigCheck {
    /// Read.
    Loaded {
        follow_ups: u32,
        root: PathBuf,
        sources: Vec<SourceCheck>,
        /// The sections of repository files that need the user's trust, and whether they have
        /// it (those without it are ignored).
        #[serde(skip_serializing_if = "Vec::is_empty")]
        trust: Vec<TrustCheck>,
        warnings: Vec<String>,
    },
    /// Not usable, and why.
    Failed { error: String, hint: Option<String> },
}

/// A gated section of a repository file (see [`crate::config::trust`]).
#[derive(Clone, Debug, Serialize)]
pub struct TrustCheck {
    pub file: PathBuf,
    /// What it would let the repository do.
    pub power: crate::config::Power,
    /// `providers.NAME` or `mcp.allowed_checks`.
    pub section: String,
    pub trusted: bool,
}

/// One configuration layer looked for.
#[derive(Clone, Debug, Serialize)]
pub struct SourceCheck {
    pub found: bool,
    pub kind: SourceKind,
    pub path: Option<PathBuf>,
    /// For the environment: the `SALVE_*` variables applied.
    pub vars: Vec<String>,
}

/// One provider and whether it could answer.
#[derive(Clone, Debug, Serialize)]
pub struct ProviderCheck {
    pub available: bool,
    /// What was checked: program, endpoint, key, cassette.
    pub checks: Vec<CheckResult>,
    pub kind: Option<&'static str>,
    pub model: Option<String>,
    pub name: String,
    /// The layer that defined it.
    pub origin: SourceKind,
    pub preset: Option<&'static str>,
    /// For an agent CLI run by its preset: `false` when it is installed but not signed in (so
    /// not available), `true` when signed in, `null` when it cannot tell or is no agent CLI.
    pub signed_in: Option<bool>,
}

/// One thing checked about a provider.
#[derive(Clone, Debug, Serialize)]
pub struct CheckResult {
    pub detail: String,
    pub ok: bool,
    /// `program`, `sign_in`, `endpoint`, `key`, `cassette` or `config`.
    pub what: &'static str,
}

/// A chain as it resolves.
#[derive(Clone, Debug, Serialize)]
pub struct ChainCheck {
    pub providers: Vec<String>,
    /// The chain actually used (a missing `fast` falls back to `default`).
    pub uses: String,
}

/// Where the record is kept.
#[derive(Clone, Debug, Serialize)]
pub struct StoreCheck {
    pub exists: bool,
    pub in_git: bool,
    pub path: PathBuf,
}

/// Look at everything; see the module docs.
pub fn doctor(options: &Options) -> Report {
    let (config, providers, chains, provider_override) = match Config::load(&options.dir) {
        Ok(config) => (
            loaded(&config),
            Some(providers(&config)),
            Some(chains(&config)),
            config.provider_override.clone(),
        ),
        Err(e) => (
            ConfigCheck::Failed {
                error: redact(&e.to_string()),
                hint: e.hint(),
            },
            None,
            None,
            None,
        ),
    };
    let git = git();
    Report {
        problems: problems(&git, &config, providers.as_deref()),
        git,
        config,
        providers,
        chains,
        provider_override,
        store: store(&options.dir),
    }
}

fn git() -> GitCheck {
    let (major, minor) = salve_git::MIN_GIT_VERSION;
    match salve_git::git_version() {
        Ok((a, b, c)) => GitCheck::Found {
            version: format!("{a}.{b}.{c}"),
            ok: (a, b) >= salve_git::MIN_GIT_VERSION,
            minimum: format!("{major}.{minor}"),
        },
        Err(e) => GitCheck::Unusable {
            ok: false,
            error: e.to_string(),
        },
    }
}

fn loaded(config: &Config) -> ConfigCheck {
    ConfigCheck::Loaded {
        root: config.root.clone(),
        sources: config
            .sources
            .iter()
            .map(|s| SourceCheck {
                kind: s.kind,
                path: s.path.clone(),
                found: s.found,
                vars: s.vars.clone(),
            })
            .collect(),
        follow_ups: config.follow_ups,
        trust: config
            .gated
            .iter()
            .map(|g| TrustCheck {
                file: g.file.clone(),
                power: g.power,
                section: g.section.clone(),
                trusted: g.trusted,
            })
            .collect(),
        warnings: config.warnings.clone(),
    }
}

fn providers(config: &Config) -> Vec<ProviderCheck> {
    let env = |var: &str| std::env::var(var).ok();
    config
        .all_providers()
        .iter()
        .map(|p| {
            let a = availability(&p.name, &p.spec, None, &env);
            ProviderCheck {
                name: p.name.clone(),
                origin: p.origin,
                kind: p.spec.kind.map(|k| k.as_str()),
                preset: p.spec.preset.map(|k| k.as_str()),
                model: p.spec.model.clone(),
                available: a.available,
                signed_in: a.signed_in,
                checks: a
                    .checks
                    .into_iter()
                    .map(|c: Check| CheckResult {
                        detail: redact(&c.detail),
                        ok: c.ok,
                        what: c.what,
                    })
                    .collect(),
            }
        })
        .collect()
}

fn chains(config: &Config) -> BTreeMap<String, ChainCheck> {
    [
        ("default", None),
        ("fast", Some(ModelHint::Fast)),
        ("quality", Some(ModelHint::Quality)),
    ]
    .into_iter()
    .map(|(label, hint)| {
        let (uses, providers) = config.chain_names(hint, None);
        (label.to_owned(), ChainCheck { uses, providers })
    })
    .collect()
}

fn store(dir: &Path) -> StoreCheck {
    let layout = salve_store::Layout::locate(dir);
    StoreCheck {
        path: std::fs::canonicalize(&layout.dir).unwrap_or(layout.dir.clone()),
        exists: layout.dir.is_dir(),
        in_git: layout.in_git,
    }
}
