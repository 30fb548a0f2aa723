//! A real repository with recorded runs, a real server on 127.0.0.1, and a raw HTTP client
//! that sends exactly the headers a test names (a foreign Host, a cross-site Origin, ...).

use std::io::{Read as _, Write as _};
use std::net::TcpStream;
use std::path::Path;
use std::process::Command;

use salve_engine::apply::{apply, Options as ApplyOptions};
use salve_ui::{App, Options, Server};

pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A repository with `a.txt` committed.
pub fn repo() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    git(dir, &["init", "-q", "-b", "main"]);
    git(dir, &["config", "user.email", "t@example.com"]);
    git(dir, &["config", "user.name", "T"]);
    std::fs::write(dir.join("a.txt"), "one\ntwo\nthree\n").unwrap();
    git(dir, &["add", "a.txt"]);
    git(dir, &["commit", "-q", "-m", "init"]);
    tmp
}

/// Apply `reply` as `salve apply` does (checkpointed, recorded); returns the run id.
pub fn apply_reply(dir: &Path, reply: &str) -> String {
    let outcome = apply(reply, &ApplyOptions::new(dir)).unwrap();
    outcome.run.clone().expect("the run was recorded")
}

pub const REPLY_ONE: &str =
    "```diff\n--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n```\n";
pub const REPLY_TWO: &str =
    "Adding b.\n\n```diff\n--- /dev/null\n+++ b/b.txt\n@@ -0,0 +1 @@\n+bee\n```\n";
/// A reply holding script, as model text may.
pub const REPLY_SCRIPT: &str = "<script>alert('reply')</script>\n\n```diff\n--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,4 @@\n one\n TWO\n three\n+<script>alert('diff')</script>\n```\n";

/// A repository with three applied runs, and their ids oldest first.
pub fn repo_with_runs() -> (tempfile::TempDir, Vec<String>) {
    let tmp = repo();
    let ids = [REPLY_ONE, REPLY_TWO, REPLY_SCRIPT]
        .iter()
        .map(|r| apply_reply(tmp.path(), r))
        .collect();
    (tmp, ids)
}

pub fn serve(dir: &Path) -> App {
    Server::bind(&Options::new(dir)).unwrap().spawn()
}

/// An answer as read off the socket.
#[derive(Debug)]
pub struct Answer {
    pub status: u16,
    pub head: String,
    pub body: String,
}

impl Answer {
    pub fn header(&self, name: &str) -> Option<String> {
        self.head.lines().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.eq_ignore_ascii_case(name).then(|| v.trim().to_owned())
        })
    }
}

/// Send one request with exactly these headers (plus Content-Length and Connection: close).
pub fn send(app: &App, method: &str, target: &str, headers: &[(&str, &str)], body: &str) -> Answer {
    let mut stream = TcpStream::connect(app.addr).unwrap();
    let mut req = format!("{method} {target} HTTP/1.1\r\n");
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str(&format!(
        "Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    ));
    stream.write_all(req.as_bytes()).unwrap();
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).unwrap();
    let text = String::from_utf8_lossy(&raw).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head.split(' ').nth(1).unwrap_or("0").parse().unwrap();
    Answer {
        status,
        head: head.to_owned(),
        body: body.to_owned(),
    }
}

/// The Host this server answers to.
pub fn host(app: &App) -> String {
    app.addr.to_string()
}

/// The cookie header that carries the token.
pub fn cookie(app: &App) -> String {
    format!("salve_ui_{}={}", app.addr.port(), app.token)
}

/// A GET as the page's own browser sends it.
pub fn get(app: &App, target: &str) -> Answer {
    send(
        app,
        "GET",
        target,
        &[("Host", &host(app)), ("Cookie", &cookie(app))],
        "",
    )
}

/// A POST from the page itself: token in the form, same origin.
pub fn post(app: &App, target: &str, fields: &[(&str, &str)]) -> Answer {
    let mut body = format!("token={}", app.token);
    for (k, v) in fields {
        body.push_str(&format!("&{k}={v}"));
    }
    let origin = format!("http://{}", host(app));
    send(
        app,
        "POST",
        target,
        &[
            ("Host", &host(app)),
            ("Cookie", &cookie(app)),
            ("Origin", &origin),
            ("Content-Type", "application/x-www-form-urlencoded"),
        ],
        &body,
    )
}
