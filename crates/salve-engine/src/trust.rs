//! Trust the sections of a repository's `salve.toml` that widen what salve does (see
//! [`crate::config::trust`]): list them, trust their current content, or take trust back.
//!
//! Trust is the user's word, given for exact content: nothing here is reachable from the MCP
//! server, and an edited section needs trusting again.

use std::path::PathBuf;

use serde::Serialize;

use crate::config::{Config, ConfigError, Env, Gated};
use crate::error::{Classified, Kind};

/// What to do with the gated sections of the repository files in effect for `dir`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// List them, changing nothing.
    Show,
    /// Trust their current content.
    Trust,
    /// Take back every trust given to these files, current content or old.
    Revoke,
}

#[derive(Clone, Debug)]
pub struct Options {
    /// The directory salve works in; its repository files are the ones looked at.
    pub dir: PathBuf,
    pub action: Action,
}

/// What was found and done.
#[derive(Clone, Debug, Serialize)]
pub struct Outcome {
    pub action: Action,
    /// Where trust is kept.
    pub store: PathBuf,
    /// The repository files looked at (found or not).
    pub files: Vec<PathBuf>,
    /// Every gated section, with its state after the action.
    pub sections: Vec<Gated>,
    /// Sections trusted by this call (already trusted ones are not counted).
    pub newly_trusted: usize,
    /// Trust entries removed by this call.
    pub revoked: usize,
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error("there is no place to keep trust: neither XDG_DATA_HOME nor HOME is set")]
    NoStore,
    #[error(
        "the trust store {} is inside the work tree {}: a repository there could carry its own trust",
        store.display(),
        root.display()
    )]
    StoreInTree { store: PathBuf, root: PathBuf },
    #[error("cannot write the trust store at {}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

impl Classified for Error {
    fn kind(&self) -> Kind {
        match self {
            Error::Config(_) | Error::NoStore | Error::StoreInTree { .. } => Kind::Config,
            Error::Io { .. } => Kind::Environment,
        }
    }

    fn code(&self) -> &'static str {
        match self {
            Error::Config(e) => e.code(),
            Error::NoStore => "no_trust_store",
            Error::StoreInTree { .. } => "trust_store_in_tree",
            Error::Io { .. } => "io",
        }
    }

    fn hint(&self) -> Option<String> {
        match self {
            Error::Config(e) => e.hint(),
            Error::NoStore => Some("set HOME (or XDG_DATA_HOME) to your home directory".to_owned()),
            Error::StoreInTree { .. } => Some(
                "set XDG_DATA_HOME to a folder outside the work tree; trust kept inside it is not honoured"
                    .to_owned(),
            ),
            Error::Io { .. } => None,
        }
    }
}

/// Look at, trust or revoke the gated sections for work in `options.dir`, reading the process
/// environment.
pub fn trust(options: &Options) -> Result<Outcome, Error> {
    trust_with(options, &Env::from_process())
}

/// [`trust`], reading variables from `env`.
pub fn trust_with(options: &Options, env: &Env) -> Result<Outcome, Error> {
    let config = Config::load_with(&options.dir, env)?;
    let store = config.trust_store.clone().ok_or(Error::NoStore)?;
    if store.inside(&config.root) {
        return Err(Error::StoreInTree {
            store: store.dir,
            root: config.root,
        });
    }
    let io = |source| Error::Io {
        path: store.dir.clone(),
        source,
    };
    let files: Vec<PathBuf> = config
        .sources
        .iter()
        .filter(|s| s.kind == crate::config::SourceKind::Repository)
        .filter_map(|s| s.path.clone())
        .collect();
    let mut sections = config.gated;
    let mut newly_trusted = 0;
    let mut revoked = 0;
    match options.action {
        Action::Show => {}
        Action::Trust => {
            for g in sections.iter_mut().filter(|g| !g.trusted) {
                store.add(g).map_err(io)?;
                g.trusted = true;
                newly_trusted += 1;
            }
        }
        Action::Revoke => {
            for file in &files {
                revoked += store.revoke_file(file).map_err(io)?;
            }
            for g in &mut sections {
                g.trusted = false;
            }
        }
    }
    Ok(Outcome {
        action: options.action,
        store: store.dir,
        files,
        sections,
        newly_trusted,
        revoked,
    })
}
