//! The page in a real browser at 600 px wide, an undo offered after navigating away from the
//! restore, and the reader's focus and unsubmitted filter kept across a live update.

use super::{chromium, shot, UiServer};
use crate::restore_to_run::{last_run, three_runs};
use crate::ui_browser::cdp::Browser;

fn browser_or_skip(name: &str) -> Option<Browser> {
    let Some(chromium) = chromium() else {
        crate::skip::skip(
            name,
            "chromium is not installed (run scripts/install-ui-browser.sh, or set \
             SALVE_TEST_CHROMIUM)",
        );
        return None;
    };
    Some(Browser::start(&chromium))
}

#[test]
fn at_600_px_no_page_scrolls_sideways_and_restore_stays_in_view() {
    let Some(mut b) = browser_or_skip("ui_browser_narrow") else {
        return;
    };
    let (tree, ids) = three_runs();
    // A long command and long paths, as real runs have.
    tree.apply(
        "```diff\n--- /dev/null\n+++ b/src/some/rather/deeply/nested/directory/with_a_long_file_name_for_the_test.txt\n@@ -0,0 +1 @@\n+    indented line that is long enough to need more than six hundred pixels of width to show in full, really\n```\n",
        &[],
    )
    .code(0);
    let server = UiServer::start(&tree);
    b.set_width(600);
    b.navigate(&server.url);
    b.wait_for_element("tr[data-run]");
    assert_eq!(
        b.horizontal_overflow(),
        0.0,
        "the runs page scrolls sideways"
    );
    assert!(
        b.visible_in_width("tr[data-run]"),
        "a run's card is wider than the window"
    );
    let restore = format!("a[href=\"/run/{}/restore\"]", ids[1]);
    assert!(
        b.visible_in_width(&restore),
        "Restore to here is off screen"
    );
    shot(&mut b, "narrow-runs.png");

    b.navigate(&format!("{}/run/{}", server.origin(), last_run(&tree)));
    b.wait_for_element("#diff");
    assert_eq!(
        b.horizontal_overflow(),
        0.0,
        "the run page scrolls sideways"
    );
    assert!(b.visible_in_width("#restore-here"));
    shot(&mut b, "narrow-run.png");

    b.navigate(&format!("{}/checkpoints", server.origin()));
    b.wait_for_element("tr[data-checkpoint]");
    assert_eq!(
        b.horizontal_overflow(),
        0.0,
        "the checkpoints page scrolls sideways"
    );
    assert!(b.visible_in_width("tr[data-checkpoint] form[action$=\"/restore\"] button"));
    shot(&mut b, "narrow-checkpoints.png");

    b.navigate(&format!("{}/run/{}/restore", server.origin(), ids[0]));
    b.wait_for_element("#files");
    assert_eq!(
        b.horizontal_overflow(),
        0.0,
        "the confirmation scrolls sideways"
    );
    assert!(b.visible_in_width("main form button[type=submit]"));
}

#[test]
fn after_a_restore_and_a_trip_to_the_runs_undo_restore_is_still_offered_and_works() {
    let Some(mut b) = browser_or_skip("ui_browser_undo") else {
        return;
    };
    let (tree, ids) = three_runs();
    let server = UiServer::start(&tree);
    b.navigate(&server.url);
    b.wait_for_element("tr[data-run]");
    b.click_and_wait(&format!("a[href=\"/run/{}/restore\"]", ids[1]));
    b.wait_for_element("#files");
    b.click_and_wait("main form button[type=submit]");
    b.wait_for_element("#note");
    assert!(!tree.exists("b.txt"));

    // Away to a run, back through the navigation's Runs link, and a reload: still offered.
    b.click_and_wait(&format!("tr[data-run=\"{}\"] a", ids[0]));
    b.wait_for_element("#undo-banner");
    b.click_and_wait("header nav a[href=\"/\"]");
    b.wait_for_element("#undo-banner");
    b.navigate(&format!("{}/", server.origin()));
    b.wait_for_element("#undo-banner button");
    assert_eq!(b.count("#note"), 0, "a plain Runs page carries no note");
    shot(&mut b, "undo-offered.png");

    b.click_and_wait("#undo-banner button");
    b.wait_for_element("#note");
    assert!(b.text().contains("Restore undone"), "{}", b.text());
    assert_eq!(b.count("#undo-banner"), 0);
    assert_eq!(tree.read("b.txt"), "bee\n");
    assert_eq!(tree.read("a.txt"), "one\nTWO\nTHREE\n");
    assert_eq!(b.count("tr.run.rewound"), 0);
}

#[test]
fn a_live_update_keeps_the_focus_and_an_unsubmitted_filter() {
    let Some(mut b) = browser_or_skip("ui_browser_focus") else {
        return;
    };
    let (tree, _) = three_runs();
    let server = UiServer::start(&tree);
    b.navigate(&server.url);
    b.wait_for_element("#live:not([hidden])");
    // Pick a status without submitting, and leave the focus on the kind filter.
    b.eval("document.querySelector('select[name=status]').value = 'refused'");
    b.eval("document.querySelector('select[name=kind]').focus()");
    b.eval("window.__sameDocument = true");
    tree.apply(
        "```diff\n--- /dev/null\n+++ b/c.txt\n@@ -0,0 +1 @@\n+sea\n```\n",
        &[],
    )
    .code(0);
    let new = last_run(&tree);
    b.wait_for_element(&format!("tr[data-run=\"{new}\"]"));
    assert_eq!(
        b.eval("window.__sameDocument === true"),
        serde_json::Value::Bool(true),
        "no reload"
    );
    assert_eq!(
        b.eval("document.querySelector('select[name=status]').value"),
        serde_json::json!("refused"),
        "the unsubmitted filter was reset"
    );
    assert_eq!(
        b.eval("document.activeElement && document.activeElement.getAttribute('name')"),
        serde_json::json!("kind"),
        "the focus fell to the body"
    );
}
