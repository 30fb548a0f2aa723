//! The flags every subcommand accepts, and the value parsers several subcommands share. Apart
//! from [`crate::cli`] so that the subcommands and the output depend on these alone, never on
//! the list of subcommands.

use std::path::PathBuf;

use clap::Args;

use crate::error::CliError;
use crate::style::ColorWhen;

/// Flags every subcommand accepts.
#[derive(Debug, Args)]
pub struct Global {
    /// Run as if salve was started in DIR (like `git -C`)
    #[arg(short = 'C', value_name = "DIR", global = true)]
    pub dir: Option<PathBuf>,
    /// Print machine-readable JSON on stdout; logs still go to stderr
    #[arg(long, global = true)]
    pub json: bool,
    /// Print no report on stdout (the exit code tells); errors still go to stderr
    #[arg(long, short = 'q', global = true)]
    pub quiet: bool,
    /// When to colour the output: auto (a terminal, unless NO_COLOR is set), always or never;
    /// JSON is never coloured
    #[arg(long, value_name = "WHEN", value_enum, global = true, default_value_t)]
    pub color: ColorWhen,
}

impl Global {
    /// The directory salve works in: `-C DIR` or the current one.
    pub fn work_dir(&self) -> PathBuf {
        self.dir.clone().unwrap_or_else(|| PathBuf::from("."))
    }

    /// [`work_dir`](Self::work_dir), which must be a directory.
    pub fn existing_work_dir(&self) -> Result<PathBuf, CliError> {
        let dir = self.work_dir();
        if !dir.is_dir() {
            return Err(
                CliError::user(format!("{} is not a directory", dir.display()))
                    .with_hint("check the directory given with -C"),
            );
        }
        Ok(dir)
    }
}

/// A size in bytes, or with a K, M or G suffix (`64M`, `2KiB`).
pub fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (digits, unit) = t.split_at(split);
    let n: u64 = digits
        .parse()
        .map_err(|_| format!("`{text}` is not a size; use bytes or a K, M or G suffix"))?;
    let scale: u64 = match unit.trim().to_ascii_uppercase().as_str() {
        "" | "B" => 1,
        "K" | "KB" | "KIB" => 1 << 10,
        "M" | "MB" | "MIB" => 1 << 20,
        "G" | "GB" | "GIB" => 1 << 30,
        _ => return Err(format!("unknown size unit in `{text}`; use K, M or G")),
    };
    n.checked_mul(scale)
        .ok_or_else(|| format!("`{text}` is too large"))
}

#[cfg(test)]
mod tests {
    use super::parse_size;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("100"), Ok(100));
        assert_eq!(parse_size("64M"), Ok(64 << 20));
        assert_eq!(parse_size("2KiB"), Ok(2048));
        assert!(parse_size("lots").is_err());
        assert!(parse_size("3T").is_err());
        assert_eq!(parse_size("10M"), Ok(10 << 20));
        assert!(parse_size("ten").is_err());
    }
}
