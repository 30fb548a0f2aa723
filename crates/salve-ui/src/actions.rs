//! "Restore to here" and "Undo restore": the confirmation that lists the files a rewind will
//! change, the rewind itself ([`salve_engine::rewind`]), and restoring the checkpoint a restore
//! took first ([`salve_engine::restore`]), which brings rewound runs back.

use salve_engine::{restore, rewind};

use crate::html::error_page;
use crate::html::{button_form, esc, page as frame};
use crate::http::{percent_encode, Request, Response};
use crate::App;

/// `GET /run/ID/restore`: what a rewind to the run would change, and the button that does it.
pub fn confirm(app: &App, id: &str) -> Response {
    let preview = match rewind::preview(&rewind::Options::new(&app.dir, id)) {
        Ok(p) => p,
        Err(e) => return error_page(&e),
    };
    let files = if preview.files.is_empty() {
        "<p class=\"empty\">No file differs from that checkpoint: nothing will be written.</p>"
            .to_owned()
    } else {
        let items: String = preview
            .files
            .iter()
            .map(|f| format!("<li><code>{}</code></li>", esc(f)))
            .collect();
        format!(
            "<p>These {} file(s) will be written or deleted:</p><ul class=\"files\" id=\"files\">{items}</ul>",
            preview.files.len()
        )
    };
    let content = format!(
        "<h1>Restore to just before run <code>{run}</code>?</h1>\
         <div class=\"warning\">The work tree goes back to checkpoint <code>{checkpoint}</code>. \
         The current state is checkpointed first, so this can be undone. {runs} run(s) will be \
         marked rewound (kept in the record).</div>{files}<p>{button} \
         <a href=\"/run/{run}\">Cancel</a></p>",
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

/// `POST /run/ID/restore`: rewind, then show the timeline with the button that undoes it.
pub fn rewind(app: &App, id: &str) -> Response {
    match rewind::rewind(&rewind::Options::new(&app.dir, id)) {
        Ok(done) => {
            Response::see_other(&format!("/?undo={}", percent_encode(&done.restore.before)))
        }
        Err(e) => error_page(&e),
    }
}

/// `POST /undo-restore` with `checkpoint`: restore the checkpoint a restore took first.
pub fn undo_restore(app: &App, request: &Request) -> Response {
    let Some(checkpoint) = request.form.get("checkpoint").filter(|c| !c.is_empty()) else {
        return Response::text(400, "which checkpoint? the form names none\n");
    };
    match restore::restore(&restore::Options::new(&app.dir, checkpoint)) {
        Ok(_) => Response::see_other("/"),
        Err(e) => error_page(&e),
    }
}
