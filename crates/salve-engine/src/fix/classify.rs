//! Classification before any model call: is a red check the code's fault, which a repair can
//! fix, or the environment's (a missing tool, a full disk, the network), which no edit can fix
//! and which must never spend repair budget?
//!
//! [`classify`] decides in this order:
//! 1. how the check ended: a missing program, one that cannot start, a timeout, a cancel or a
//!    signal are the environment's;
//! 2. the [`TABLE`]'s [`Scope::Always`] rows, matched against every line of the log: a missing
//!    linker or system library, a full disk, memory, the network, the container daemon. These
//!    win even over extracted failures, because rustc reports a missing linker as an error;
//! 3. extracted failures: present, they make it the code's;
//! 4. the [`Scope::Unexplained`] rows (`command not found`, `Permission denied`, `No module
//!    named`), and shells' exit codes 126 and 127, only for a failure nothing else explains: a
//!    test may well print "permission denied" while failing on an assertion;
//! 5. otherwise the code's, with a reason saying nothing was recognized, so the model still sees
//!    the output.
//!
//! A row is transient when a re-run may pass: network and DNS errors, memory, timeouts.

use std::fmt::Write as _;

use serde::Serialize;

use super::check::{CheckResult, Status};
use super::failures::{Failure, FailureKind};

/// Whose failure it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FailureClass {
    /// The machine, the toolchain or the network: re-run or stop, never repair.
    Environment,
    /// The code: compile, type, lint and test failures, for the repair loop.
    Code,
}

/// The verdict on one check.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Classification {
    pub class: FailureClass,
    /// Why, in words for the user: `the linker is not installed`, `2 type errors, 1 test failure`.
    pub reason: String,
    /// Worth a re-run within the environment budget.
    pub transient: bool,
    /// The log line that decided it, when a table row did.
    pub evidence: Option<String>,
}

/// When a [`Pattern`] applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// Anywhere in the log, even when failures were extracted.
    Always,
    /// Only when no failure was extracted.
    Unexplained,
}

/// One row of the [`TABLE`]: a line containing every part of `parts`, in order and ignoring
/// case, is an environment failure for `reason`.
#[derive(Clone, Copy, Debug)]
pub struct Pattern {
    /// Lower-case fragments that must appear in this order on one line.
    pub parts: &'static [&'static str],
    pub scope: Scope,
    pub reason: &'static str,
    pub transient: bool,
    /// A line the row must match, from a real tool where one was at hand; the tests check every
    /// row against its example.
    pub example: &'static str,
}

const fn row(
    parts: &'static [&'static str],
    scope: Scope,
    reason: &'static str,
    transient: bool,
    example: &'static str,
) -> Pattern {
    Pattern {
        parts,
        scope,
        reason,
        transient,
        example,
    }
}

use Scope::{Always, Unexplained};

/// The environment patterns, first match wins; see the module docs.
#[rustfmt::skip]
pub static TABLE: &[Pattern] = &[
    // Toolchains and system libraries.
    row(&["linker `", "` not found"], Always, "the linker is not installed", false,
        "error: linker `cc` not found"),
    row(&["cannot find -l"], Always, "a system library the build links against is missing", false,
        "/usr/bin/ld: cannot find -lssl: No such file or directory"),
    row(&["system library `", "` required by crate"], Always,
        "a system library a crate needs is missing", false,
        "The system library `openssl` required by crate `openssl-sys` was not found."),
    row(&["could not find directory of openssl installation"], Always,
        "the OpenSSL development files are missing", false,
        "Could not find directory of OpenSSL installation, and this `-sys` crate cannot proceed"),
    row(&["could not run `", "pkg-config"], Always, "pkg-config is not installed", false,
        "Could not run `PKG_CONFIG_ALLOW_CROSS=1 \"pkg-config\" \"--libs\" \"openssl\"`"),
    row(&["toolchain '", "' is not installed"], Always, "the Rust toolchain is not installed", false,
        "error: toolchain 'nightly-x86_64-unknown-linux-gnu' is not installed"),
    row(&["error: no such command: `"], Always, "a cargo subcommand is not installed", false,
        "error: no such command: `nextest`"),
    row(&["no module named pytest"], Always, "pytest is not installed for this Python", false,
        "/usr/bin/python3: No module named pytest"),
    // Disk and memory.
    row(&["no space left on device"], Always, "the disk is full", false,
        "cp: error writing '/dev/full': No space left on device"),
    row(&["disk quota exceeded"], Always, "the disk quota is exceeded", false,
        "error: failed to write: Disk quota exceeded (os error 122)"),
    row(&["out of memory"], Always, "the machine ran out of memory", true,
        "fatal error: out of memory allocating 4072 bytes"),
    row(&["cannot allocate memory"], Always, "the machine ran out of memory", true,
        "error: could not exec the linker: Cannot allocate memory (os error 12)"),
    row(&["memory allocation of ", " failed"], Always, "the machine ran out of memory", true,
        "memory allocation of 1073741824 bytes failed"),
    row(&["memoryerror"], Always, "Python ran out of memory (MemoryError)", true,
        "MemoryError"),
    row(&["killed signal terminated program"], Always,
        "the compiler was killed, most likely by the out-of-memory killer", true,
        "gcc: fatal error: Killed signal terminated program cc1"),
    row(&["(signal: 9, sigkill"], Always,
        "a process was killed (SIGKILL), most likely by the out-of-memory killer", true,
        "process didn't exit successfully: `target/debug/deps/x` (signal: 9, SIGKILL: kill)"),
    row(&["resource temporarily unavailable"], Always,
        "the system ran out of processes or another resource", true,
        "fork: retry: Resource temporarily unavailable"),
    row(&["too many open files"], Always, "the process ran out of file handles", true,
        "error: Too many open files (os error 24)"),
    // Network and DNS.
    row(&["could not resolve host"], Always, "a host name could not be resolved (DNS)", true,
        "fatal: unable to access 'https://x/': Could not resolve host: x"),
    row(&["temporary failure in name resolution"], Always, "DNS is failing", true,
        "Failed to establish a new connection: [Errno -3] Temporary failure in name resolution"),
    row(&["name or service not known"], Always, "a host name could not be resolved (DNS)", true,
        "socket.gaierror: [Errno -2] Name or service not known"),
    row(&["failed to lookup address information"], Always,
        "a host name could not be resolved (DNS)", true,
        "error: failed to lookup address information: nodename nor servname provided"),
    row(&["getaddrinfo e"], Always, "a host name could not be resolved (DNS)", true,
        "npm error request to https://x/ failed, reason: getaddrinfo EAI_AGAIN x"),
    row(&["dial tcp", "lookup "], Always, "a host name could not be resolved (DNS)", true,
        "dial tcp: lookup proxy.golang.org on 127.0.0.53:53: server misbehaving"),
    row(&["failed to download"], Always, "a download failed", true,
        "error: failed to download from `https://x/crates/serde/1.0.0/download`"),
    row(&["spurious network error"], Always, "the network is failing", true,
        "warning: spurious network error (3 tries remaining): [7] Couldn't connect to server"),
    row(&["network is unreachable"], Always, "the network is unreachable", true,
        "connect: Network is unreachable (os error 101)"),
    row(&["connection timed out"], Always, "a network connection timed out", true,
        "[28] Connection timed out after 30000 milliseconds"),
    row(&["connection reset by peer"], Always, "a network connection was reset", true,
        "error: [35] SSL connect error (Connection reset by peer)"),
    row(&["max retries exceeded with url"], Always, "a download failed", true,
        "Max retries exceeded with url: /simple/pytest/"),
    row(&["tls handshake timeout"], Always, "a network connection timed out", true,
        "net/http: TLS handshake timeout"),
    row(&["timeouterror: timed out"], Always, "a network connection timed out", true,
        "TimeoutError: timed out"),
    row(&["connectionrefusederror"], Always,
        "a service the check connects to is not running (connection refused)", false,
        "ConnectionRefusedError: [Errno 111] Connection refused"),
    row(&["curl: (7) failed to connect to"], Always,
        "a service the check connects to is not running (connection refused)", false,
        "curl: (7) Failed to connect to 127.0.0.1 port 9 after 0 ms: Couldn't connect to server"),
    // A recipe's command that is not installed: make says which target, the shell said why.
    row(&["make: ***", "error 127"], Always, "a command the Makefile runs is not installed (exit 127)",
        false, "make: *** [Makefile:2: test] Error 127"),
    // Containers.
    row(&["cannot connect to the docker daemon"], Always, "the Docker daemon is not running", false,
        "Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?"),
    row(&["toomanyrequests"], Always, "the container registry is rate limiting", true,
        "toomanyrequests: You have reached your pull rate limit."),
    row(&["error response from daemon"], Always, "the container daemon refused the request", false,
        "docker: Error response from daemon: pull access denied for x"),
    // Only when nothing else explains the failure.
    row(&["command not found"], Unexplained, "a command the check runs is not installed", false,
        "bash: line 1: tsc: command not found"),
    row(&[": not found"], Unexplained, "a command the check runs is not installed", false,
        "sh: 1: nosuchtool: not found"),
    row(&["no module named "], Unexplained, "a Python module is not installed", false,
        "ModuleNotFoundError: No module named 'requests'"),
    row(&["permission denied"], Unexplained, "permission denied", false,
        "sh: 1: ./noexec.sh: Permission denied"),
    row(&["operation not permitted"], Unexplained, "an operation was not permitted", false,
        "mkdir: cannot create directory '/sys/x': Operation not permitted"),
    row(&["exec format error"], Unexplained, "a program is built for another machine", false,
        "cannot execute binary file: Exec format error"),
];

/// [`classify`], knowing the work tree the check ran in: a Python module that is not found and
/// is not the project's own (no file or directory of its name in the tree) is a package that is
/// not installed, the environment; the project's own misspelled import stays code.
pub fn classify_in(
    dir: &std::path::Path,
    result: &CheckResult,
    failures: &[Failure],
) -> Classification {
    let verdict = classify(result, failures);
    if verdict.class != FailureClass::Code || result.passed() {
        return verdict;
    }
    match missing_module(&result.log_text()) {
        Some(module) if !is_projects_own(dir, &module) => environment(
            &format!("the Python package `{module}` is not installed"),
            false,
        ),
        _ => verdict,
    }
}

/// The top-level name of the first module Python could not find.
fn missing_module(log: &str) -> Option<String> {
    log.lines().find_map(|line| {
        let rest = line
            .trim()
            .strip_prefix("ModuleNotFoundError: No module named ")?;
        let name = rest.trim().trim_matches(|c| c == '\'' || c == '"');
        let top = name.split('.').next()?.trim();
        (!top.is_empty()).then(|| top.to_owned())
    })
}

/// Whether the tree holds a module of this name: `name.py` or a `name/` directory, at the top
/// or under `src/`, `lib/` or one level of directories (a project's own package).
fn is_projects_own(dir: &std::path::Path, name: &str) -> bool {
    let here = |base: &std::path::Path| {
        base.join(format!("{name}.py")).is_file() || base.join(name).is_dir()
    };
    if here(dir) {
        return true;
    }
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.path().is_dir())
        .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
        .any(|e| here(&e.path()))
}

/// Classify a failed check; see the module docs. A passing check is [`FailureClass::Code`] with
/// the reason `passed` (callers look at [`CheckResult::passed`] first).
pub fn classify(result: &CheckResult, failures: &[Failure]) -> Classification {
    if let Some(verdict) = by_status(&result.status) {
        return verdict;
    }
    if result.passed() {
        return code("passed".to_owned());
    }
    let log = result.log_text();
    if let Some(verdict) = scan(&log, Scope::Always) {
        return verdict;
    }
    if !failures.is_empty() {
        return code(summary(failures));
    }
    if let Some(verdict) = scan(&log, Scope::Unexplained) {
        return verdict;
    }
    match result.status {
        Status::Exited { code: 127 } => environment(
            "a command the check runs is not installed (exit 127)",
            false,
        ),
        Status::Exited { code: 126 } => environment(
            "a command the check runs cannot be executed (exit 126)",
            false,
        ),
        Status::Exited { code: exit } => code(format!(
            "the check failed with exit code {exit} and no environment problem was recognized"
        )),
        _ => code("the check failed".to_owned()),
    }
}

fn by_status(status: &Status) -> Option<Classification> {
    let verdict = match status {
        Status::NotFound { program } => environment(
            &format!("`{program}` is not installed or not on PATH"),
            false,
        ),
        Status::CannotStart { error } => environment(error, false),
        Status::TimedOut => environment("the check ran past its time limit", true),
        Status::Cancelled => environment("the check was cancelled", false),
        // SIGKILL out of nowhere is usually the out-of-memory killer: worth one more try.
        Status::Signal { signal: 9 } => environment(
            "the check was killed by signal 9 (SIGKILL), most likely the out-of-memory killer",
            true,
        ),
        Status::Signal { signal } => {
            environment(&format!("the check was killed by signal {signal}"), false)
        }
        Status::Exited { .. } => return None,
    };
    Some(verdict)
}

/// The first row of `scope`, in table order, that matches any line.
fn scan(log: &str, scope: Scope) -> Option<Classification> {
    let lines: Vec<(String, &str)> = log.lines().map(|l| (l.to_lowercase(), l)).collect();
    TABLE
        .iter()
        .filter(|p| p.scope == scope)
        .find_map(|pattern| {
            let (_, line) = lines.iter().find(|(lower, _)| matches(pattern, lower))?;
            let mut verdict = environment(pattern.reason, pattern.transient);
            verdict.evidence = Some(cut(line.trim()));
            Some(verdict)
        })
}

/// Whether `lower` holds the pattern's parts in order.
pub(crate) fn matches(pattern: &Pattern, lower: &str) -> bool {
    let mut rest = lower;
    pattern.parts.iter().all(|part| match rest.find(part) {
        Some(at) => {
            rest = &rest[at + part.len()..];
            true
        }
        None => false,
    })
}

fn cut(line: &str) -> String {
    const MAX: usize = 300;
    if line.len() <= MAX {
        return line.to_owned();
    }
    let mut end = MAX;
    while !line.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &line[..end])
}

fn environment(reason: &str, transient: bool) -> Classification {
    Classification {
        class: FailureClass::Environment,
        reason: reason.to_owned(),
        transient,
        evidence: None,
    }
}

fn code(reason: String) -> Classification {
    Classification {
        class: FailureClass::Code,
        reason,
        transient: false,
        evidence: None,
    }
}

/// `2 type errors, 1 test failure`.
fn summary(failures: &[Failure]) -> String {
    let kinds = [
        (FailureKind::Compile, "compile error"),
        (FailureKind::Type, "type error"),
        (FailureKind::Lint, "lint error"),
        (FailureKind::Test, "test failure"),
        (FailureKind::Other, "error"),
    ];
    let mut out = String::new();
    for (kind, name) in kinds {
        let n = failures.iter().filter(|f| f.kind == kind).count();
        if n > 0 {
            let sep = if out.is_empty() { "" } else { ", " };
            let plural = if n == 1 { "" } else { "s" };
            let _ = write!(out, "{sep}{n} {name}{plural}");
        }
    }
    out
}
