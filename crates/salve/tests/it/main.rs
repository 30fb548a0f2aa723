//! The one integration-test binary of the `salve` crate: real temporary directories, real git
//! repositories, the real binary.
//!
//! Other owners add their own modules here (`scenarios`, `corpus`, `git_compare`, `readme`, ...),
//! one file each; `support` holds small helpers anyone may use.

// Test code: a failed unwrap is a failed test with a useful message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod agent_clis;
mod apply_cli;
mod ask;
mod bench_scripts;
mod big_files;
mod big_reports;
mod checkpoint_catalog;
mod colour;
mod completions;
mod control_chars;
mod fix;
mod fix_budgets;
mod fix_commit;
mod fix_guard;
mod fix_later_work;
mod fix_prompt;
mod git_names;
mod git_safety;
mod interfaces;
mod json_snapshots;
mod mcp;
mod mcp_cancel;
mod mcp_clients;
mod mcp_sessions;
mod module_cycles;
mod progress;
mod record;
mod refusals;
mod repo_shapes_case;
mod repo_shapes_crlf;
mod repo_shapes_ignored;
mod repo_shapes_lfs;
mod repo_shapes_nested;
mod repo_shapes_undo;
mod repo_shapes_worktrees;
mod restore_to_run;
#[path = "../../../../tests/support/skip.rs"]
mod skip;
mod support;
mod syntax_check;
mod text_editor;
mod trust;
mod ui_browser;
mod undo_steps;

mod corpus;
mod crash;
mod git_compare;
mod readme;
mod scenarios;
mod signals;
