//! Restore and undo on the page: the banner that offers to take back the last restore on every
//! page (from the operation log, never from the URL), what the confirmation says will be
//! deleted, runs whose checkpoint was dropped, and the feedback after each change.

use crate::support::*;

/// The checkpoint the banner's Undo restore button carries, if the page shows the banner.
fn banner_checkpoint(body: &str) -> Option<String> {
    let banner = body.split("id=\"undo-banner\"").nth(1)?;
    let value = banner.split("name=\"checkpoint\" value=\"").nth(1)?;
    Some(value.split('"').next()?.to_owned())
}

#[test]
fn after_a_restore_every_page_offers_the_undo_until_it_is_done() {
    let (tmp, ids) = repo_with_runs();
    let dir = tmp.path();
    let app = serve(dir);
    assert_eq!(
        banner_checkpoint(&get(&app, "/").body),
        None,
        "no restore yet"
    );
    let done = post(&app, &format!("/run/{}/restore", ids[1]), &[]);
    assert_eq!(done.status, 303, "{}", done.body);
    let pages = [
        "/".to_owned(),
        "/?kind=apply".to_owned(),
        format!("/run/{}", ids[0]),
        format!("/run/{}", ids[2]),
        "/checkpoints".to_owned(),
        format!("/run/{}/restore", ids[0]),
    ];
    let mut offered = Vec::new();
    for page in &pages {
        let answer = get(&app, page);
        assert_eq!(answer.status, 200, "{page}: {}", answer.body);
        offered
            .push(banner_checkpoint(&answer.body).unwrap_or_else(|| panic!("{page}: no banner")));
    }
    offered.dedup();
    assert_eq!(offered.len(), 1, "one restore, one undo: {offered:?}");
    assert!(!dir.join("b.txt").exists());

    let undone = post(&app, "/undo-restore", &[("checkpoint", &offered[0])]);
    assert_eq!(undone.status, 303, "{}", undone.body);
    assert_eq!(std::fs::read_to_string(dir.join("b.txt")).unwrap(), "bee\n");
    for page in &pages[..5] {
        assert_eq!(banner_checkpoint(&get(&app, page).body), None, "{page}");
    }
    assert!(
        !get(&app, "/").body.contains("run rewound"),
        "the runs are back"
    );
}

#[test]
fn the_url_cannot_make_the_page_offer_an_undo() {
    let (tmp, _) = repo_with_runs();
    let app = serve(tmp.path());
    for target in [
        "/?undo=ANYTHING",
        "/checkpoints?undo=deadbeef",
        "/?note=undone&undo=1",
    ] {
        let page = get(&app, target);
        assert_eq!(page.status, 200);
        assert!(
            !page.body.contains("Undo restore"),
            "{target}: {}",
            page.body
        );
        assert!(!page.body.contains("ANYTHING") && !page.body.contains("deadbeef"));
    }
    // Posting a made-up checkpoint changes nothing.
    let before = std::fs::read_to_string(tmp.path().join("a.txt")).unwrap();
    let a = post(&app, "/undo-restore", &[("checkpoint", "deadbeefdeadbeef")]);
    assert_eq!(a.status, 409, "{}", a.body);
    assert!(a.body.contains("nothing_to_undo"));
    assert_eq!(
        std::fs::read_to_string(tmp.path().join("a.txt")).unwrap(),
        before
    );
}

#[test]
fn a_restore_followed_by_other_work_is_no_longer_offered_nor_undone() {
    let (tmp, ids) = repo_with_runs();
    let dir = tmp.path();
    let app = serve(dir);
    post(&app, &format!("/run/{}/restore", ids[2]), &[]);
    let offered = banner_checkpoint(&get(&app, "/").body).expect("offered after the restore");
    apply_reply(
        dir,
        "```diff\n--- /dev/null\n+++ b/c.txt\n@@ -0,0 +1 @@\n+sea\n```\n",
    );
    assert_eq!(
        banner_checkpoint(&get(&app, "/").body),
        None,
        "a later apply came after it"
    );
    let a = post(&app, "/undo-restore", &[("checkpoint", &offered)]);
    assert_eq!(a.status, 409, "{}", a.body);
    assert!(a.body.contains("no longer the last change"), "{}", a.body);
    assert_eq!(
        std::fs::read_to_string(dir.join("c.txt")).unwrap(),
        "sea\n",
        "kept"
    );
}

#[test]
fn a_checkpoint_restore_is_offered_for_undo_and_says_what_it_did() {
    let (tmp, ids) = repo_with_runs();
    let dir = tmp.path();
    let app = serve(dir);
    let first = salve_engine::record::show(&salve_engine::record::ShowOptions {
        dir: dir.to_path_buf(),
        run: ids[0].clone(),
        what: salve_engine::record::Shown::Record,
    })
    .unwrap();
    let salve_engine::record::ShowOutcome::Record(first) = first else {
        panic!("not a record")
    };
    let checkpoint = first.run.checkpoint.unwrap();
    let done = post(&app, &format!("/checkpoints/{checkpoint}/restore"), &[]);
    assert_eq!(done.status, 303);
    let page = get(&app, done.header("location").unwrap().as_str());
    assert!(
        page.body
            .contains(&format!("Restored checkpoint <code>{checkpoint}</code>")),
        "{}",
        page.body
    );
    assert!(
        page.body.contains("file(s) written, 1 deleted"),
        "{}",
        page.body
    );
    let offered = banner_checkpoint(&page.body).expect("the restore can be undone");
    let undone = post(&app, "/undo-restore", &[("checkpoint", &offered)]);
    assert_eq!(undone.status, 303);
    assert!(get(&app, undone.header("location").unwrap().as_str())
        .body
        .contains(
            "Restore undone: the files are as they were before it (2 file(s) written, 0 deleted)"
        ));
    assert_eq!(std::fs::read_to_string(dir.join("b.txt")).unwrap(), "bee\n");
}

#[test]
fn the_confirmation_lists_deletions_apart_and_marks_the_users_untracked_files() {
    let (tmp, ids) = repo_with_runs();
    let dir = tmp.path();
    // A file the user made after the runs, and one committed since (tracked: not marked).
    std::fs::write(dir.join("notes.md"), "mine\n").unwrap();
    std::fs::write(dir.join("kept.txt"), "committed\n").unwrap();
    git(dir, &["add", "kept.txt"]);
    git(dir, &["commit", "-q", "-m", "kept"]);
    let app = serve(dir);
    let confirm = get(&app, &format!("/run/{}/restore", ids[2]));
    assert_eq!(confirm.status, 200, "{}", confirm.body);
    let b = &confirm.body;
    let deleted = b
        .split("id=\"deleted\">")
        .nth(1)
        .unwrap()
        .split("</ul>")
        .next()
        .unwrap();
    assert!(
        deleted.contains("<li><code>notes.md</code> <span class=\"badge untracked\">untracked"),
        "{b}"
    );
    assert!(
        deleted.contains("<li><code>kept.txt</code></li>"),
        "tracked: {b}"
    );
    assert!(
        b.contains("2 file(s) will be <strong>deleted</strong>"),
        "{b}"
    );
    let written = b
        .split("id=\"files\">")
        .nth(1)
        .unwrap()
        .split("</ul>")
        .next()
        .unwrap();
    assert!(
        written.contains("a.txt") && !written.contains("notes.md"),
        "{b}"
    );
}

#[test]
fn a_run_whose_checkpoint_was_dropped_is_not_offered_and_not_restored() {
    let (tmp, ids) = repo_with_runs();
    let dir = tmp.path();
    let app = serve(dir);
    let shown = salve_engine::record::show(&salve_engine::record::ShowOptions {
        dir: dir.to_path_buf(),
        run: ids[1].clone(),
        what: salve_engine::record::Shown::Record,
    })
    .unwrap();
    let salve_engine::record::ShowOutcome::Record(run) = shown else {
        panic!("not a record")
    };
    let checkpoint = run.run.checkpoint.unwrap();
    let dropped = post(&app, &format!("/checkpoints/{checkpoint}/drop"), &[]);
    assert_eq!(dropped.status, 303);
    let note = get(&app, dropped.header("location").unwrap().as_str());
    assert!(
        note.body
            .contains(&format!("Dropped checkpoint <code>{checkpoint}</code>")),
        "{}",
        note.body
    );

    let timeline = get(&app, "/").body;
    assert!(
        !timeline.contains(&format!("/run/{}/restore", ids[1])),
        "{timeline}"
    );
    assert!(
        timeline.contains(&format!("/run/{}/restore", ids[0])),
        "others stay"
    );
    assert!(timeline.contains("checkpoint dropped"));
    let page = get(&app, &format!("/run/{}", ids[1])).body;
    assert!(!page.contains("id=\"restore-here\""));
    assert!(
        page.contains("Restore to here is not offered: the checkpoint"),
        "{page}"
    );

    let before = std::fs::read_to_string(dir.join("a.txt")).unwrap();
    let refused = post(&app, &format!("/run/{}/restore", ids[1]), &[]);
    assert_eq!(refused.status, 409, "{}", refused.body);
    assert!(
        refused.body.contains("checkpoint_dropped"),
        "{}",
        refused.body
    );
    assert_eq!(get(&app, &format!("/run/{}/restore", ids[1])).status, 409);
    assert_eq!(std::fs::read_to_string(dir.join("a.txt")).unwrap(), before);
    assert!(dir.join("b.txt").exists(), "nothing restored");
}
