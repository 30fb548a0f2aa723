//! `salve ui` in a real browser: Debian's chromium, headless, driven over the DevTools
//! protocol, against the real binary serving a real repository whose runs were made by real
//! `salve apply` runs. It opens the timeline, a run and its diff, restores to a run through the
//! confirmation, checks the files on disk and the rewound runs, undoes the restore, and watches
//! a run recorded by another process appear. Screenshots go to `target/ui-screenshots/`.
//!
//! Without chromium (`scripts/install-ui-browser.sh` installs it; CI runs that script) the test
//! says so on stderr and passes without a browser.

use std::io::BufRead as _;
use std::path::PathBuf;
use std::process::{Child, Stdio};
use std::time::Duration;

use headless_chrome::protocol::cdp::Page::CaptureScreenshotFormatOption;
use headless_chrome::{Browser, LaunchOptions, Tab};

use crate::restore_to_run::three_runs;
use crate::support::Tree;

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
    fn origin(&self) -> &str {
        let rest = &self.url["http://".len()..];
        &self.url[..("http://".len() + rest.find('/').unwrap())]
    }
}

impl Drop for UiServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn screenshot(tab: &Tab, name: &str) {
    let png = tab
        .capture_screenshot(CaptureScreenshotFormatOption::Png, None, None, true)
        .unwrap();
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/ui-screenshots");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(name), png).unwrap();
}

fn count(tab: &Tab, selector: &str) -> usize {
    tab.find_elements(selector).map(|v| v.len()).unwrap_or(0)
}

fn body_text(tab: &Tab) -> String {
    tab.evaluate("document.body.innerText", false)
        .unwrap()
        .value
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

#[test]
fn the_page_in_a_real_browser_restores_to_a_run_and_back() {
    let Some(chromium) = chromium() else {
        eprintln!(
            "SKIPPED ui_browser: chromium is not installed (run scripts/install-ui-browser.sh, \
             or set SALVE_TEST_CHROMIUM)"
        );
        return;
    };
    let (tree, ids) = three_runs();
    let server = UiServer::start(&tree);
    let browser = Browser::new(
        LaunchOptions::default_builder()
            .path(Some(chromium))
            .headless(true)
            .sandbox(false)
            .window_size(Some((1400, 900)))
            .build()
            .unwrap(),
    )
    .unwrap();
    let tab = browser.new_tab().unwrap();
    tab.set_default_timeout(Duration::from_secs(30));

    // The timeline: the token URL becomes a cookie, the three runs are listed newest first.
    tab.navigate_to(&server.url)
        .unwrap()
        .wait_until_navigated()
        .unwrap();
    tab.wait_for_element("tr[data-run]").unwrap();
    assert_eq!(count(&tab, "tr[data-run]"), 3);
    assert!(
        !tab.get_url().contains("token="),
        "the token left the address bar"
    );
    screenshot(&tab, "timeline.png");

    // A run and its diff.
    tab.find_element(&format!("tr[data-run=\"{}\"] a", ids[0]))
        .unwrap()
        .click()
        .unwrap();
    tab.wait_for_element("#diff tr.add").unwrap();
    let text = body_text(&tab);
    assert!(text.contains("+TWO") && text.contains("-two"), "{text}");
    screenshot(&tab, "run.png");

    // Restore to just before the second run, through the confirmation.
    tab.navigate_to(&format!("{}/", server.origin()))
        .unwrap()
        .wait_until_navigated()
        .unwrap();
    tab.wait_for_element(&format!("a[href=\"/run/{}/restore\"]", ids[1]))
        .unwrap()
        .click()
        .unwrap();
    tab.wait_for_element("#files").unwrap();
    let confirm = body_text(&tab);
    assert!(
        confirm.contains("a.txt") && confirm.contains("b.txt"),
        "{confirm}"
    );
    screenshot(&tab, "confirm.png");
    tab.find_element("form button[type=submit]")
        .unwrap()
        .click()
        .unwrap();
    tab.wait_for_element("#undo-banner").unwrap();
    assert!(!tree.exists("b.txt"), "b.txt is gone again");
    assert_eq!(tree.read("a.txt"), "one\nTWO\nthree\n");
    assert_eq!(
        count(&tab, "tr.run.rewound"),
        2,
        "the run and the later one are rewound"
    );
    screenshot(&tab, "rewound.png");

    // Undo the restore.
    tab.find_element("#undo-banner button")
        .unwrap()
        .click()
        .unwrap();
    tab.wait_for_element("tr[data-run]").unwrap();
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(tree.read("b.txt"), "bee\n");
    assert_eq!(tree.read("a.txt"), "one\nTWO\nTHREE\n");
    assert_eq!(count(&tab, "tr.run.rewound"), 0);

    // Live: a run recorded by another process appears without a reload.
    tab.wait_for_element("#live:not([hidden])").unwrap();
    let applied = tree.apply(
        "```diff\n--- /dev/null\n+++ b/c.txt\n@@ -0,0 +1 @@\n+sea\n```\n",
        &["--json"],
    );
    applied.code(0);
    let new = applied.json()["run"].as_str().unwrap().to_owned();
    tab.wait_for_element(&format!("tr[data-run=\"{new}\"]"))
        .unwrap();
    assert_eq!(count(&tab, "tr[data-run]"), 4);
    screenshot(&tab, "live.png");
}
