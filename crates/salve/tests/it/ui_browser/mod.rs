//! `salve ui` in a real browser: Debian's chromium, headless, driven over the DevTools
//! protocol, against the real binary serving a real repository whose runs were made by real
//! `salve apply` runs. It opens the timeline, a run and its diff, restores to a run through the
//! confirmation, checks the files on disk and the rewound runs, undoes the restore, and watches
//! a run recorded by another process appear. Screenshots go to `target/ui-screenshots/`.
//!
//! Without chromium (`scripts/install-ui-browser.sh` installs it; CI runs that script) the test
//! says so on stderr and passes without a browser.

mod cdp;
mod pages;

use std::io::BufRead as _;
use std::path::PathBuf;
use std::process::{Child, Stdio};

use crate::restore_to_run::{last_run, three_runs};
use crate::support::Tree;
use cdp::Browser;

/// The browser binary: `SALVE_TEST_CHROMIUM`, or the first of Debian's names on PATH.
fn chromium() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("SALVE_TEST_CHROMIUM") {
        return Some(PathBuf::from(path));
    }
    let path = std::env::var_os("PATH")?;
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .flat_map(|name| std::env::split_paths(&path).map(move |dir| dir.join(name)))
        .find(|p| p.is_file())
}

/// `salve ui --port 0` in the tree, and the URL it printed.
struct UiServer {
    child: Child,
    url: String,
}

impl UiServer {
    fn start(tree: &Tree) -> UiServer {
        let bin = assert_cmd::cargo::cargo_bin("salve");
        let mut child = std::process::Command::new(bin)
            .args(["ui", "--port", "0"])
            .current_dir(&tree.root)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let url = line
            .trim()
            .strip_prefix("salve ui: ")
            .unwrap_or_else(|| panic!("no URL printed: {line:?}"))
            .to_owned();
        UiServer { child, url }
    }

    /// The page's origin (`http://127.0.0.1:PORT`).
    fn origin(&self) -> String {
        let rest = &self.url["http://".len()..];
        self.url[..("http://".len() + rest.find('/').unwrap())].to_owned()
    }
}

impl Drop for UiServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn shot(browser: &mut Browser, name: &str) {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/ui-screenshots");
    browser.screenshot(&dir.join(name));
}

#[test]
fn the_page_in_a_real_browser_restores_to_a_run_and_back() {
    let Some(chromium) = chromium() else {
        crate::skip::skip(
            "ui_browser",
            "chromium is not installed (run scripts/install-ui-browser.sh, or set \
             SALVE_TEST_CHROMIUM)",
        );
        return;
    };
    let (tree, ids) = three_runs();
    let server = UiServer::start(&tree);
    let mut b = Browser::start(&chromium);

    // The timeline: the token URL becomes a cookie, the three runs are listed newest first.
    b.navigate(&server.url);
    b.wait_for_element("tr[data-run]");
    assert_eq!(b.count("tr[data-run]"), 3);
    assert!(
        !b.url().contains("token="),
        "the token left the address bar"
    );
    shot(&mut b, "timeline.png");

    // A run and its diff.
    b.click_and_wait(&format!("tr[data-run=\"{}\"] a", ids[0]));
    b.wait_for_element("#diff tr.add");
    let text = b.text();
    assert!(text.contains("+TWO") && text.contains("-two"), "{text}");
    shot(&mut b, "run.png");

    // Restore to just before the second run, through the confirmation.
    b.navigate(&format!("{}/", server.origin()));
    b.click_and_wait(&format!("a[href=\"/run/{}/restore\"]", ids[1]));
    b.wait_for_element("#files");
    let confirm = b.text();
    assert!(
        confirm.contains("a.txt") && confirm.contains("b.txt"),
        "{confirm}"
    );
    shot(&mut b, "confirm.png");
    b.click_and_wait("main form button[type=submit]");
    b.wait_for_element("#undo-banner");
    assert!(!tree.exists("b.txt"), "b.txt is gone again");
    assert_eq!(tree.read("a.txt"), "one\nTWO\nthree\n");
    assert_eq!(
        b.count("tr.run.rewound"),
        2,
        "the run and the later one are rewound"
    );
    shot(&mut b, "rewound.png");

    // Undo the restore.
    b.click_and_wait("#undo-banner button");
    b.wait_for_element("tr[data-run]");
    assert!(b.count("#undo-banner") == 0);
    assert_eq!(tree.read("b.txt"), "bee\n");
    assert_eq!(tree.read("a.txt"), "one\nTWO\nTHREE\n");
    assert_eq!(b.count("tr.run.rewound"), 0);

    // Live: a run recorded by another process appears without a reload.
    b.wait_for_element("#live:not([hidden])");
    b.eval("window.__sameDocument = true");
    tree.apply(
        "```diff\n--- /dev/null\n+++ b/c.txt\n@@ -0,0 +1 @@\n+sea\n```\n",
        &[],
    )
    .code(0);
    let new = last_run(&tree);
    b.wait_for_element(&format!("tr[data-run=\"{new}\"]"));
    assert_eq!(b.count("tr[data-run]"), 4);
    assert_eq!(
        b.eval("window.__sameDocument === true"),
        serde_json::Value::Bool(true),
        "no reload"
    );
    shot(&mut b, "live.png");

    // The run page follows too, and the checkpoints page lists the snapshots.
    b.navigate(&format!("{}/checkpoints", server.origin()));
    b.wait_for_element("tr[data-checkpoint]");
    shot(&mut b, "checkpoints.png");
}
