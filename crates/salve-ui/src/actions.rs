//! "Restore to here" and "Undo restore": the confirmation that lists the files a rewind will
//! change (deletions apart, files git does not track marked), the rewind itself
//! ([`salve_engine::rewind`]), and the banner that offers to take back the last restore on
//! every page for as long as it is the newest change of the work tree
//! ([`salve_engine::undo::last_restore`]), read from the operation log, never from the URL.

use salve_engine::{rewind, undo};

use crate::html::{button_form, datetime, error_page, esc, page as frame};
use crate::http::{percent_encode, Request, Response};
use crate::App;

/// The banner every page shows while the newest change is a restore, with the button that
/// takes it back; empty otherwise (or when the log cannot be read: the page still works).
pub fn banner(app: &App) -> String {
    let Ok(Some(last)) = undo::last_restore(&app.dir) else {
        return String::new();
    };
    let short = |c: &str| c.chars().take(12).collect::<String>();
    let target = last
        .target
        .as_deref()
        .map(|t| format!(" brought back checkpoint <code>{}</code>", esc(&short(t))))
        .unwrap_or_default();
    format!(
        "<div class=\"banner\" id=\"undo-banner\" role=\"status\">The last change to the work \
         tree, at {time}, was a restore:{target}. The state before it is kept as checkpoint \
         <code>{before}</code>. {button}</div>",
        time = datetime(last.time),
        before = esc(&short(&last.before)),
        button = button_form(
            "/undo-restore",
            &app.token,
            "Undo restore",
            &[("checkpoint", &last.before)]
        )
    )
}

/// `GET /run/ID/restore`: what a rewind to the run would change, and the button that does it.
pub fn confirm(app: &App, id: &str) -> Response {
    let preview = match rewind::preview(&rewind::Options::new(&app.dir, id)) {
        Ok(p) => p,
        Err(e) => return error_page(&e),
    };
    let files = files_list(&preview);
    let content = format!(
        "{banner}<h1>Restore to just before run <code>{run}</code>?</h1>\
         <div class=\"warning\">The work tree goes back to checkpoint <code>{checkpoint}</code>. \
         The current state is checkpointed first, so this can be undone. {runs} run(s) will be \
         marked rewound (kept in the record).</div>{files}<p>{button} \
         <a href=\"/run/{run}\">Cancel</a></p>",
        banner = banner(app),
        run = esc(&preview.run),
        checkpoint = esc(&preview.checkpoint),
        runs = preview.runs.len(),
        button = button_form(
            &format!("/run/{}/restore", percent_encode(&preview.run)),
            &app.token,
            "Restore",
            &[]
        ),
    );
    Response::html(200, frame("Restore to here", None, &content))
}

/// The files a rewind writes, then those it deletes, the user's untracked ones marked.
fn files_list(preview: &rewind::Preview) -> String {
    if preview.files.is_empty() {
        return "<p class=\"empty\">No file differs from that checkpoint: nothing will be \
                written.</p>"
            .to_owned();
    }
    let written: Vec<&String> = preview
        .files
        .iter()
        .filter(|f| !preview.deleted.contains(f))
        .collect();
    let mut out = String::new();
    if !written.is_empty() {
        let items: String = written
            .iter()
            .map(|f| format!("<li><code>{}</code></li>", esc(f)))
            .collect();
        out.push_str(&format!(
            "<p>{} file(s) will be written:</p><ul class=\"files\" id=\"files\">{items}</ul>",
            written.len()
        ));
    }
    if !preview.deleted.is_empty() {
        let items: String = preview
            .deleted
            .iter()
            .map(|f| {
                let mark = if preview.untracked.contains(f) {
                    " <span class=\"badge untracked\">untracked: yours, in no commit</span>"
                } else {
                    ""
                };
                format!("<li><code>{}</code>{mark}</li>", esc(f))
            })
            .collect();
        out.push_str(&format!(
            "<p class=\"deleting\">{} file(s) will be <strong>deleted</strong> (they did not \
             exist at that checkpoint; the checkpoint taken first keeps them):</p>\
             <ul class=\"files deleted\" id=\"deleted\">{items}</ul>",
            preview.deleted.len()
        ));
    }
    if written.is_empty() {
        // The browser test and scripts wait for #files: keep it on every confirmation.
        out.push_str("<ul class=\"files\" id=\"files\" hidden></ul>");
    }
    out
}

/// `POST /run/ID/restore`: rewind, then the timeline says what happened (and the banner offers
/// the undo).
pub fn rewind(app: &App, id: &str) -> Response {
    match rewind::rewind(&rewind::Options::new(&app.dir, id)) {
        Ok(done) => Response::see_other(&format!(
            "/?note=rewound&run={}&written={}&deleted={}&runs={}",
            percent_encode(&done.run),
            done.restore.written.len(),
            done.restore.deleted.len(),
            done.rewound.len()
        )),
        Err(e) => error_page(&e),
    }
}

/// `POST /undo-restore` with `checkpoint`: take back the restore that took that checkpoint,
/// only while it is still the newest change.
pub fn undo_restore(app: &App, request: &Request) -> Response {
    let Some(checkpoint) = request.form.get("checkpoint").filter(|c| !c.is_empty()) else {
        return Response::text(400, "which checkpoint? the form names none\n");
    };
    match undo::undo_restore(&undo::Options::new(&app.dir), checkpoint) {
        Ok(done) => {
            let (written, deleted, runs) = done
                .restore
                .as_ref()
                .map(|r| (r.written.len(), r.deleted.len(), r.unrewound.len()))
                .unwrap_or_default();
            Response::see_other(&format!(
                "/?note=undone&written={written}&deleted={deleted}&runs={runs}"
            ))
        }
        Err(e) => error_page(&e),
    }
}
