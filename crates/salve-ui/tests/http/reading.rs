//! Reading a run and the checkpoints: a refusal's candidates as the command line shows them,
//! the diff's header lines, check runs, times with their zone, checkpoints linked to their run
//! with their diff, the live checkpoints page, the icon and the answers for unknown things.

use crate::support::*;

fn stamp(app: &salve_ui::App, target: &str) -> String {
    let a = get(app, target);
    assert_eq!(a.status, 200);
    serde_json::from_str::<serde_json::Value>(&a.body).unwrap()["version"]
        .as_str()
        .unwrap()
        .to_owned()
}

#[test]
fn a_refused_hunk_shows_its_places_scope_and_numbered_excerpt() {
    let tmp = repo();
    let dir = tmp.path();
    let twin = "class Alpha:\n    def run(self):\n        self.count = 0\n        return self.count\n\n\nclass Beta:\n    def run(self):\n        self.count = 0\n        return self.count\n";
    std::fs::write(dir.join("twin.py"), twin).unwrap();
    git(dir, &["add", "twin.py"]);
    git(dir, &["commit", "-q", "-m", "twin"]);
    let ambiguous = "twin.py\n```python\n<<<<<<< SEARCH\n        self.count = 0\n        return self.count\n=======\n        self.count = 1\n        return self.count\n>>>>>>> REPLACE\n```\n";
    let run = salve_engine::apply::apply(ambiguous, &salve_engine::apply::Options::new(dir))
        .unwrap()
        .run
        .unwrap();
    let app = serve(dir);
    let b = get(&app, &format!("/run/{run}")).body;
    // Numbered from 1, as under Decisions and on the command line.
    assert!(b.contains("<tr><td>1</td><td>ambiguous</td>"), "{b}");
    assert!(!b.contains("<tr><td>0</td>"), "{b}");
    assert!(
        b.contains("<td>3–4?, 9–10?</td>"),
        "the places in the Lines cell: {b}"
    );
    assert!(b.contains("<td>best 1.00</td>"), "{b}");
    assert!(b.contains("<li>hunk 1: lines 3–4"), "{b}");
    assert!(
        b.contains("in <code>def run(self):</code> (line 2)"),
        "the scope: {b}"
    );
    assert!(b.contains("<pre class=\"excerpt\">"), "{b}");
    assert!(
        b.contains("> 3 |         self.count = 0"),
        "numbered, marked: {b}"
    );
}

#[test]
fn a_check_run_says_nothing_was_written_and_times_carry_their_zone() {
    let tmp = repo();
    let dir = tmp.path();
    let checked = salve_engine::apply::apply(
        REPLY_ONE,
        &salve_engine::apply::Options {
            check: true,
            ..salve_engine::apply::Options::new(dir)
        },
    )
    .unwrap()
    .run
    .unwrap();
    let applied = apply_reply(dir, REPLY_ONE);
    let app = serve(dir);
    let b = get(&app, &format!("/run/{checked}")).body;
    assert!(b.contains("none written (a check"), "{b}");
    assert!(b.contains("check only: 1 file would change"), "{b}");
    assert!(
        !b.contains("<th>Rationale</th>"),
        "an apply states no rationale: {b}"
    );
    let timeline = get(&app, "/").body;
    assert!(timeline.contains("<th>Started (UTC)</th>"));
    assert!(timeline.contains(" UTC</td>"), "{timeline}");
    assert!(get(&app, &format!("/run/{applied}"))
        .body
        .contains(" UTC</dd>"));
}

#[test]
fn a_new_files_diff_header_is_not_shown_as_code() {
    let tmp = repo();
    let dir = tmp.path();
    let run = apply_reply(
        dir,
        "```diff\ndiff --git a/n.txt b/n.txt\nnew file mode 100644\n--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1 @@\n+new\n```\n",
    );
    let app = serve(dir);
    let b = get(&app, &format!("/run/{run}")).body;
    assert!(b.contains("+new</td>"), "{b}");
    assert!(!b.contains("<td class=\"code\">new file mode"), "{b}");
}

#[test]
fn checkpoints_link_their_run_and_show_their_diff_against_head() {
    let (tmp, ids) = repo_with_runs();
    let dir = tmp.path();
    let app = serve(dir);
    let page = get(&app, "/checkpoints").body;
    for id in &ids {
        assert!(
            page.contains(&format!("<a href=\"/run/{id}\">")),
            "{id}: {page}"
        );
    }
    assert!(
        page.contains("data-live=\"/api/version?what=checkpoints\""),
        "live"
    );
    let shown = salve_engine::record::show(&salve_engine::record::ShowOptions {
        dir: dir.to_path_buf(),
        run: ids[2].clone(),
        what: salve_engine::record::Shown::Record,
    })
    .unwrap();
    let salve_engine::record::ShowOutcome::Record(third) = shown else {
        panic!("not a record")
    };
    // Taken before the third run: a.txt and b.txt differ from HEAD (the first two runs).
    let checkpoint = third.run.checkpoint.unwrap();
    let diff = get(&app, &format!("/checkpoints/{checkpoint}"));
    assert_eq!(diff.status, 200, "{}", diff.body);
    assert!(
        diff.body.contains("+TWO") && diff.body.contains("+bee"),
        "{}",
        diff.body
    );
    assert_eq!(get(&app, "/checkpoints/0123456789ab").status, 404);
    let run_page = get(&app, &format!("/run/{}", ids[2])).body;
    assert!(
        run_page.contains(&format!(
            "<a href=\"/checkpoints/{checkpoint}\"><code>{checkpoint}</code></a>"
        )),
        "the run links its checkpoint: {run_page}"
    );
}

#[test]
fn the_checkpoints_stamp_moves_when_one_is_taken_or_dropped() {
    let (tmp, _) = repo_with_runs();
    let dir = tmp.path();
    let app = serve(dir);
    let target = "/api/version?what=checkpoints";
    let before = stamp(&app, target);
    assert_eq!(stamp(&app, target), before, "steady");
    let taken =
        salve_engine::checkpoint::create(&salve_engine::checkpoint::CreateOptions::new(dir))
            .unwrap();
    let after_take = stamp(&app, target);
    assert_ne!(after_take, before);
    let runs_before = stamp(&app, "/api/version");
    post(&app, &format!("/checkpoints/{}/drop", taken.id), &[]);
    assert_ne!(stamp(&app, target), after_take);
    // The runs show whether each checkpoint is kept: their stamp moves too.
    assert_ne!(stamp(&app, "/api/version"), runs_before);
}

#[test]
fn the_stamps_move_when_a_restore_can_be_undone() {
    let (tmp, ids) = repo_with_runs();
    let app = serve(tmp.path());
    let before = stamp(&app, "/api/version");
    let run_before = stamp(&app, &format!("/api/version?run={}", ids[0]));
    let checkpoints_before = stamp(&app, "/api/version?what=checkpoints");
    let first = salve_engine::checkpoint::list(&salve_engine::checkpoint::ListOptions {
        dir: tmp.path().to_path_buf(),
        here: false,
        limit: None,
        offset: 0,
    })
    .unwrap();
    let newest = &first.checkpoints[0].id;
    post(&app, &format!("/checkpoints/{newest}/restore"), &[]);
    // The banner is on every page, so every page's stamp moves.
    assert_ne!(stamp(&app, "/api/version"), before);
    assert_ne!(
        stamp(&app, &format!("/api/version?run={}", ids[0])),
        run_before
    );
    assert_ne!(
        stamp(&app, "/api/version?what=checkpoints"),
        checkpoints_before
    );
}

#[test]
fn the_icon_is_served_and_unknown_things_are_not_found() {
    let (tmp, _) = repo_with_runs();
    let app = serve(tmp.path());
    let icon = get(&app, "/favicon.ico");
    assert_eq!(icon.status, 200);
    assert_eq!(
        icon.header("content-type").as_deref(),
        Some("image/svg+xml")
    );
    assert!(icon.body.starts_with("<svg"));
    assert!(get(&app, "/")
        .body
        .contains("<link rel=\"icon\" href=\"/favicon.ico\""));
    assert_eq!(get(&app, "/run/0123456789abcdef").status, 404);
    assert_eq!(
        get(&app, "/run/0123456789abcdef/artifact/raw_reply").status,
        404
    );
}

#[test]
fn the_runs_can_be_searched_by_path_command_or_status() {
    let (tmp, ids) = repo_with_runs();
    let app = serve(tmp.path());
    let rows = |target: &str| -> Vec<String> {
        let body = get(&app, target).body;
        body.split("data-run=\"")
            .skip(1)
            .map(|s| s.split('"').next().unwrap().to_owned())
            .collect()
    };
    assert_eq!(rows("/?q=b.txt"), [ids[1].clone()], "by a touched path");
    assert_eq!(rows("/?q=B.TXT"), [ids[1].clone()], "ignoring case");
    assert_eq!(rows("/?q=applied").len(), 3, "by status");
    assert_eq!(rows("/?q=salve").len(), 3, "by command");
    assert!(
        rows("/?q=%25").is_empty(),
        "a % is a character, not a wildcard"
    );
    assert!(rows("/?q=nowhere").is_empty());
    let page = get(&app, "/?q=b.txt&kind=apply").body;
    assert!(
        page.contains("name=\"q\" value=\"b.txt\""),
        "the box keeps the text"
    );
    let escaped = get(&app, "/?q=%3Cscript%3E").body;
    assert!(escaped.contains("value=\"&lt;script&gt;\"") && !escaped.contains("<script>\""));
}

#[test]
fn a_fix_run_with_one_repair_lists_one_call_not_three_attempts() {
    let tmp = repo();
    let line = r#"{"salve_export":1,"run":{"id":"0192f0a1b2c3aaaa0009","kind":"fix","command":["salve","fix","--","cargo","test"],"started_at":"2026-01-02T03:04:05.000Z","ended_at":"2026-01-02T03:04:09.000Z","status":"repaired","files":1,"added":1,"removed":1},"patch_sets":[],"attempts":[{"seq":1,"check_command":"cargo test","exit_code":101},{"seq":2,"provider":"claude","model":"sonnet","tokens_in":900,"tokens_out":100},{"seq":3,"check_command":"cargo test","exit_code":0}]}"#;
    salve_engine::record::import(
        &salve_engine::record::ImportOptions {
            dir: tmp.path().to_path_buf(),
            file: None,
        },
        &mut format!("{line}\n").as_bytes(),
    )
    .unwrap();
    let app = serve(tmp.path());
    let page = get(&app, "/").body;
    assert!(
        page.contains("data-label=\"Calls\">1 call(s), 2 check(s)</td>"),
        "{page}"
    );
    assert!(page.contains("2026-01-02 03:04:05 UTC"), "{page}");
}
