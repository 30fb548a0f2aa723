//! Every route answers what it should, over real HTTP, on a repository whose runs were made by
//! real applies.

use crate::support::*;

fn rows(body: &str) -> Vec<String> {
    body.split("data-run=\"")
        .skip(1)
        .map(|s| s.split('"').next().unwrap().to_owned())
        .collect()
}

#[test]
fn the_timeline_lists_runs_newest_first_with_their_facts() {
    let (tmp, ids) = repo_with_runs();
    let app = serve(tmp.path());
    let page = get(&app, "/");
    assert_eq!(page.status, 200);
    assert!(page
        .header("content-type")
        .unwrap()
        .starts_with("text/html"));
    let listed = rows(&page.body);
    assert_eq!(listed, [ids[2].clone(), ids[1].clone(), ids[0].clone()]);
    assert!(page.body.contains("<td data-label=\"Kind\">apply</td>"));
    assert!(page.body.contains("status ok\">applied</span>"));
    assert!(page
        .body
        .contains("<span class=\"add\">+1</span> <span class=\"del\">−1</span>"));
    assert!(page
        .body
        .contains(&format!("href=\"/run/{}/restore\">Restore to here", ids[0])));
    assert!(page.body.contains("data-live=\"/api/version\""));
}

#[test]
fn the_timeline_filters_by_status_and_kind_and_pages_by_key() {
    let (tmp, ids) = repo_with_runs();
    let bad = "```diff\n--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n nothing\n-like\n+this\n```\n";
    let refused = salve_engine::apply::apply(bad, &salve_engine::apply::Options::new(tmp.path()))
        .unwrap()
        .run
        .unwrap();
    let app = serve(tmp.path());
    assert_eq!(rows(&get(&app, "/?status=refused").body), [refused]);
    assert_eq!(rows(&get(&app, "/?status=applied").body).len(), 3);
    assert_eq!(rows(&get(&app, "/?kind=apply").body).len(), 4);
    assert!(rows(&get(&app, "/?kind=fix").body).is_empty());
    assert!(get(&app, "/?kind=fix").body.contains("No runs recorded"));
    let older = get(&app, &format!("/?before={}", ids[1]));
    assert_eq!(rows(&older.body), [ids[0].clone()]);
    assert!(older.body.contains(">Newest</a>"));
    assert!(
        !older.body.contains("rel=\"next\""),
        "no older page after the oldest run"
    );
}

#[test]
fn a_run_page_shows_patch_sets_diff_report_and_artifacts() {
    let (tmp, ids) = repo_with_runs();
    let app = serve(tmp.path());
    let page = get(&app, &format!("/run/{}", ids[0]));
    assert_eq!(page.status, 200, "{}", page.body);
    let b = &page.body;
    assert!(b.contains("<h2>Patch sets</h2>") && b.contains("status ok\">applied</span>"));
    assert!(b.contains("<tr class=\"del\"><td class=\"ln\">2</td><td class=\"ln\"></td><td class=\"code\">-two"), "{b}");
    assert!(b.contains(
        "<tr class=\"add\"><td class=\"ln\"></td><td class=\"ln\">2</td><td class=\"code\">+TWO"
    ));
    assert!(b.contains("<h2>Apply report</h2>") && b.contains("<th>Rung</th>"));
    assert!(b.contains("<td>exact</td>"), "the hunk's rung: {b}");
    assert!(b.contains(&format!(
        "href=\"/run/{}/artifact/raw_reply\">view</a>",
        ids[0]
    )));
    assert!(b.contains(&format!("data-live=\"/api/version?run={}\"", ids[0])));
    // A unique prefix names the run too.
    assert_eq!(get(&app, &format!("/run/{}", &ids[0][..14])).status, 200);
    assert_eq!(
        get(&app, "/run/ffffffffffffffff").status,
        404,
        "an unknown run"
    );
    assert_eq!(get(&app, "/run/not-an-id").status, 404);
    assert_eq!(get(&app, "/run/ffffffffffffffff/restore").status, 404);
    assert_eq!(get(&app, "/no/such/page").status, 404);
}

#[test]
fn a_refused_run_shows_its_candidates() {
    let tmp = repo();
    let twin = "class Alpha:\n    def run(self):\n        self.count = 0\n        return self.count\n\n\nclass Beta:\n    def run(self):\n        self.count = 0\n        return self.count\n";
    std::fs::write(tmp.path().join("twin.py"), twin).unwrap();
    git(tmp.path(), &["add", "twin.py"]);
    git(tmp.path(), &["commit", "-q", "-m", "twin"]);
    let ambiguous = "twin.py\n```python\n<<<<<<< SEARCH\n        self.count = 0\n        return self.count\n=======\n        self.count = 1\n        return self.count\n>>>>>>> REPLACE\n```\n";
    let outcome =
        salve_engine::apply::apply(ambiguous, &salve_engine::apply::Options::new(tmp.path()))
            .unwrap();
    assert_eq!(
        std::fs::read_to_string(tmp.path().join("twin.py")).unwrap(),
        twin,
        "refused"
    );
    let run = outcome.run.unwrap();
    let app = serve(tmp.path());
    let page = get(&app, &format!("/run/{run}"));
    assert_eq!(page.status, 200);
    assert!(page.body.contains("Candidates:"), "{}", page.body);
    assert_eq!(
        page.body.matches("<li>hunk ").count(),
        2,
        "both places are shown"
    );
}

#[test]
fn artifacts_are_viewable_and_downloadable() {
    let (tmp, ids) = repo_with_runs();
    let app = serve(tmp.path());
    let view = get(&app, &format!("/run/{}/artifact/final_diff", ids[0]));
    assert_eq!(view.status, 200);
    assert!(view.body.contains("+TWO"));
    assert_eq!(
        view.header("content-disposition").as_deref(),
        Some("inline")
    );
    let down = get(
        &app,
        &format!("/run/{}/artifact/final_diff?download=1", ids[0]),
    );
    assert_eq!(
        down.header("content-disposition").as_deref(),
        Some("attachment; filename=\"final_diff.txt\"")
    );
    assert_eq!(down.body, view.body);
    assert_ne!(
        get(&app, &format!("/run/{}/artifact/nope", ids[0])).status,
        200
    );
}

#[test]
fn restore_to_here_confirms_rewinds_and_undoes() {
    let (tmp, ids) = repo_with_runs();
    let dir = tmp.path();
    let app = serve(dir);
    let confirm = get(&app, &format!("/run/{}/restore", ids[1]));
    assert_eq!(confirm.status, 200);
    assert!(
        confirm.body.contains("1 file(s) will be written:</p><ul class=\"files\" id=\"files\"><li><code>a.txt</code></li></ul>"),
        "{}",
        confirm.body
    );
    // b.txt was created by the second run: tracked nowhere but in the work tree, it is deleted.
    assert!(
        confirm
            .body
            .contains("1 file(s) will be <strong>deleted</strong>")
            && confirm
                .body
                .contains("id=\"deleted\"><li><code>b.txt</code> <span class=\"badge untracked\">"),
        "{}",
        confirm.body
    );
    assert!(confirm.body.contains("2 run(s) will be"));
    assert!(
        dir.join("b.txt").exists(),
        "the confirmation changes nothing"
    );

    let done = post(&app, &format!("/run/{}/restore", ids[1]), &[]);
    assert_eq!(done.status, 303, "{}", done.body);
    let location = done.header("location").unwrap();
    assert!(location.starts_with("/?note=rewound"), "{location}");
    assert!(!dir.join("b.txt").exists());
    assert_eq!(
        std::fs::read_to_string(dir.join("a.txt")).unwrap(),
        "one\nTWO\nthree\n"
    );
    let page = get(&app, &location);
    assert!(page.body.contains("Undo restore"));
    assert!(
        page.body.contains("id=\"note\"") && page.body.contains("2 run(s) marked rewound"),
        "{}",
        page.body
    );
    let rewound: Vec<&str> = page.body.matches("<tr class=\"run rewound\"").collect();
    assert_eq!(rewound.len(), 2, "the run and the later one");
    assert!(get(&app, "/?status=rewound").body.contains(&ids[2]));

    let checkpoint = page
        .body
        .split("name=\"checkpoint\" value=\"")
        .nth(1)
        .unwrap();
    let checkpoint = checkpoint.split('"').next().unwrap().to_owned();
    let undone = post(&app, "/undo-restore", &[("checkpoint", &checkpoint)]);
    assert_eq!(undone.status, 303, "{}", undone.body);
    let after = get(&app, undone.header("location").unwrap().as_str());
    assert!(after.body.contains("Restore undone"), "{}", after.body);
    assert!(
        !after.body.contains("Undo restore"),
        "undone: nothing left to undo"
    );
    assert_eq!(std::fs::read_to_string(dir.join("b.txt")).unwrap(), "bee\n");
    assert!(std::fs::read_to_string(dir.join("a.txt"))
        .unwrap()
        .contains("<script>"));
    assert!(
        !get(&app, "/").body.contains("run rewound"),
        "the runs are back"
    );
}

#[test]
fn a_run_without_a_checkpoint_cannot_be_restored_to() {
    let tmp = repo();
    let bad = "```diff\n--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n nothing\n-like\n+this\n```\n";
    let run = salve_engine::apply::apply(bad, &salve_engine::apply::Options::new(tmp.path()))
        .unwrap()
        .run
        .unwrap();
    let app = serve(tmp.path());
    assert!(!get(&app, "/").body.contains("Restore to here"));
    let a = post(&app, &format!("/run/{run}/restore"), &[]);
    assert_eq!(a.status, 409);
    assert!(a.body.contains("no checkpoint"));
}

#[test]
fn the_checkpoints_page_restores_and_drops() {
    let (tmp, ids) = repo_with_runs();
    let dir = tmp.path();
    let app = serve(dir);
    let list = salve_engine::checkpoint::list(&salve_engine::checkpoint::ListOptions {
        dir: dir.to_path_buf(),
        here: false,
        limit: None,
        offset: 0,
    })
    .unwrap();
    assert_eq!(list.checkpoints.len(), 3);
    let page = get(&app, "/checkpoints");
    assert_eq!(page.status, 200);
    for c in &list.checkpoints {
        assert!(page.body.contains(&format!("data-checkpoint=\"{}\"", c.id)));
    }
    assert!(page.body.contains("<th>Files changed vs HEAD</th>"));
    // The checkpoint the first apply took (checkpoints of one second list in any order).
    let shown = salve_engine::record::show(&salve_engine::record::ShowOptions {
        dir: dir.to_path_buf(),
        run: ids[0].clone(),
        what: salve_engine::record::Shown::Record,
    })
    .unwrap();
    let salve_engine::record::ShowOutcome::Record(first) = shown else {
        panic!("not a record")
    };
    let oldest = &first.run.checkpoint.unwrap();
    let done = post(&app, &format!("/checkpoints/{oldest}/restore"), &[]);
    assert_eq!(done.status, 303, "{}", done.body);
    assert_eq!(
        std::fs::read_to_string(dir.join("a.txt")).unwrap(),
        "one\ntwo\nthree\n"
    );
    assert!(get(&app, done.header("location").unwrap().as_str())
        .body
        .contains("Undo restore"));
    let dropped = post(&app, &format!("/checkpoints/{oldest}/drop"), &[]);
    assert_eq!(dropped.status, 303);
    assert!(!get(&app, "/checkpoints")
        .body
        .contains(&format!("data-checkpoint=\"{oldest}\"")));
}

#[test]
fn the_version_stamp_moves_when_a_run_is_recorded() {
    let (tmp, ids) = repo_with_runs();
    let app = serve(tmp.path());
    let stamp = |target: &str| {
        let a = get(&app, target);
        assert_eq!(a.status, 200);
        assert_eq!(
            a.header("content-type").as_deref(),
            Some("application/json")
        );
        serde_json::from_str::<serde_json::Value>(&a.body).unwrap()["version"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    let before = stamp("/api/version");
    let run_before = stamp(&format!("/api/version?run={}", ids[0]));
    assert_eq!(
        stamp("/api/version"),
        before,
        "steady while nothing changes"
    );
    apply_reply(
        tmp.path(),
        "```diff\n--- /dev/null\n+++ b/c.txt\n@@ -0,0 +1 @@\n+sea\n```\n",
    );
    assert_ne!(stamp("/api/version"), before);
    assert_eq!(stamp(&format!("/api/version?run={}", ids[0])), run_before);
}

#[test]
fn the_assets_are_served() {
    let (tmp, _) = repo_with_runs();
    let app = serve(tmp.path());
    let css = get(&app, "/static/style.css");
    assert_eq!(css.status, 200);
    assert!(css.header("content-type").unwrap().starts_with("text/css"));
    let js = get(&app, "/static/app.js");
    assert!(js
        .header("content-type")
        .unwrap()
        .starts_with("text/javascript"));
    assert!(js.body.contains("data-live"));
}
