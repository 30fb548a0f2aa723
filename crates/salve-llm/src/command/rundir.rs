//! Where a command provider runs: a fresh, empty directory made for one call and removed after
//! it.
//!
//! An agent CLI started in the repository reads the repository's own agent settings
//! (`.claude/settings.json`, `.gemini/settings.json`, `.codex/config.toml`, `.mcp.json`), which
//! can hand it tools to edit files or run commands while it answers salve, or (gemini) keep it
//! from starting at all. The prompt already carries everything the model needs, so no provider
//! needs the repository as its working directory: every command provider, preset or plain
//! `command`, runs in `salve-provider-XXXXXX/work/` under the system's temporary directory. The
//! preset's support files (gemini's no-tools policy) go one level up, beside `work/`, so the
//! working directory itself is empty. A relative program path (`./model.sh`) is resolved before
//! the run, from the directory the provider was configured for (see
//! [`super::CommandProvider::with_base_dir`]); other arguments are passed as written.

use std::io;
use std::path::{Path, PathBuf};

use super::Preset;

/// The name of the empty working directory inside the run's temporary directory.
const WORK: &str = "work";

/// One call's directory; removed, with anything the program left there, when dropped.
#[derive(Debug)]
pub struct RunDir {
    root: tempfile::TempDir,
    work: PathBuf,
}

impl RunDir {
    /// Make the directory, with `preset`'s support files beside the empty working directory.
    pub fn create(preset: Option<Preset>) -> io::Result<RunDir> {
        let root = tempfile::Builder::new()
            .prefix("salve-provider-")
            .tempdir()?;
        let work = root.path().join(WORK);
        std::fs::create_dir(&work)?;
        for (name, content) in preset.map(Preset::support_files).unwrap_or_default() {
            std::fs::write(root.path().join(name), content)?;
        }
        Ok(RunDir { root, work })
    }

    /// The empty directory the program runs in.
    pub fn work(&self) -> &Path {
        &self.work
    }

    /// The temporary directory holding [`RunDir::work`] and the support files.
    pub fn root(&self) -> &Path {
        self.root.path()
    }
}

/// `program` as the process should be started: a relative path with a directory part
/// (`./model.sh`, `bin/model`) joined to `base` (or salve's current directory), since the
/// program no longer starts in that directory; a bare name is left for the PATH search.
pub fn resolve_program(program: &str, base: Option<&Path>) -> String {
    let path = Path::new(program);
    if !program.contains('/') || path.is_absolute() {
        return program.to_owned();
    }
    let base = match base {
        Some(dir) => dir.to_path_buf(),
        None => match std::env::current_dir() {
            Ok(dir) => dir,
            // No current directory to resolve from: the spawn will say the program is missing.
            Err(_) => return program.to_owned(),
        },
    };
    base.join(path).to_string_lossy().into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_work_directory_is_empty_and_everything_goes_when_dropped() {
        let dir = RunDir::create(Some(Preset::Gemini)).unwrap_or_else(|e| panic!("{e}"));
        let work = dir.work().to_path_buf();
        let root = dir.root().to_path_buf();
        assert_eq!(std::fs::read_dir(&work).map(Iterator::count).ok(), Some(0));
        let policy =
            std::fs::read_to_string(root.join(super::super::presets::GEMINI_NO_TOOLS_FILE))
                .unwrap_or_default();
        assert!(policy.contains("toolName = \"*\""), "{policy}");
        std::fs::write(work.join("left-behind"), "x").unwrap_or_else(|e| panic!("{e}"));
        drop(dir);
        assert!(!root.exists());
    }

    #[test]
    fn relative_programs_are_taken_from_the_base_directory() {
        let base = Path::new("/repo");
        assert_eq!(
            resolve_program("./model.sh", Some(base)),
            "/repo/./model.sh"
        );
        assert_eq!(resolve_program("bin/model", Some(base)), "/repo/bin/model");
        assert_eq!(resolve_program("claude", Some(base)), "claude");
        assert_eq!(resolve_program("/usr/bin/env", Some(base)), "/usr/bin/env");
    }
}
