//! What the configuration tests share: a user file and a repository file in temporary
//! directories (not git repositories, so the repository file is `work/salve.toml`).

use std::path::{Path, PathBuf};

use super::{Config, Env, ProviderSpec};

pub(super) struct Setup {
    pub _tmp: tempfile::TempDir,
    pub home: PathBuf,
    pub work: PathBuf,
}

/// A user file and a repository file, the repository's sections trusted (these tests are about
/// layering; `trust_tests` covers what happens before trust).
pub(super) fn setup(user: Option<&str>, repo: Option<&str>) -> Setup {
    let s = setup_untrusted(user, repo);
    // A file that cannot be loaded has nothing to trust; the test asserts its error itself.
    if Config::load_with(&s.work, &env(&s, &[])).is_ok() {
        trust(&s, &s.work);
    }
    s
}

/// Trust every gated section of the repository files for work in `dir`.
pub(super) fn trust(s: &Setup, dir: &Path) {
    let options = crate::trust::Options {
        dir: dir.to_path_buf(),
        action: crate::trust::Action::Trust,
    };
    crate::trust::trust_with(&options, &env(s, &[])).unwrap();
}

pub(super) fn setup_untrusted(user: Option<&str>, repo: Option<&str>) -> Setup {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let work = tmp.path().join("work");
    std::fs::create_dir_all(home.join(".config/salve")).unwrap();
    std::fs::create_dir_all(&work).unwrap();
    if let Some(text) = user {
        std::fs::write(home.join(".config/salve/config.toml"), text).unwrap();
    }
    if let Some(text) = repo {
        std::fs::write(work.join("salve.toml"), text).unwrap();
    }
    Setup {
        _tmp: tmp,
        home,
        work,
    }
}

pub(super) fn env(s: &Setup, extra: &[(&str, &str)]) -> Env {
    let mut pairs: Vec<(String, String)> =
        vec![("HOME".into(), s.home.to_string_lossy().into_owned())];
    pairs.extend(
        extra
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned())),
    );
    Env::from_pairs(pairs)
}

pub(super) fn spec<'a>(c: &'a Config, name: &str) -> &'a ProviderSpec {
    &c.providers.iter().find(|p| p.name == name).unwrap().spec
}
