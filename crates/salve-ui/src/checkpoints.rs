//! The checkpoints page: every snapshot with its time, message and the files it changed
//! against its HEAD, with restore (undoable) and drop.

use salve_engine::checkpoint::{self, DropOptions, DropSelection, ListOptions};
use salve_engine::restore;

use crate::html::error_page;
use crate::html::{button_form_with, datetime, esc, page as frame};
use crate::http::{percent_encode, Request, Response};
use crate::timeline::undo_banner;
use crate::App;

/// `GET /checkpoints`.
pub fn page(app: &App, request: &Request) -> Response {
    let list = match checkpoint::list(&ListOptions {
        dir: app.dir.clone(),
        here: false,
        limit: None,
        offset: 0,
    }) {
        Ok(list) => list,
        Err(e) => return error_page(&e),
    };
    let mut content = String::from("<h1>Checkpoints</h1>");
    if let Some(checkpoint) = request.param("undo") {
        content.push_str(&undo_banner(app, checkpoint));
    }
    if list.checkpoints.is_empty() {
        content.push_str("<p class=\"empty\">No checkpoints yet.</p>");
        return Response::html(200, frame("Checkpoints", None, &content));
    }
    let rows: String = list
        .checkpoints
        .iter()
        .map(|c| {
            let base = format!("/checkpoints/{}", percent_encode(&c.id));
            let restore = button_form_with(
                &format!("{base}/restore"),
                &app.token,
                "Restore",
                &[],
                &format!(
                    " data-confirm=\"Restore checkpoint {}? The current state is checkpointed first.\"",
                    esc(&c.id)
                ),
            );
            let drop = button_form_with(
                &format!("{base}/drop"),
                &app.token,
                "Drop",
                &[],
                &format!(" data-confirm=\"Drop checkpoint {}?\"", esc(&c.id)),
            );
            format!(
                "<tr data-checkpoint=\"{id}\"><td><code>{id}</code></td><td>{time}</td>\
                 <td>{message}</td><td>{files}</td><td>{branch}</td><td>{restore} {drop}</td></tr>",
                id = esc(&c.id),
                time = datetime(c.time),
                message = esc(&c.message),
                files = c.files_changed.map(|n| n.to_string()).unwrap_or_default(),
                branch = esc(c.branch.as_deref().unwrap_or("").trim_start_matches("refs/heads/")),
            )
        })
        .collect();
    content.push_str(&format!(
        "<table><thead><tr><th>Id</th><th>Taken</th><th>Message</th>\
         <th>Files changed vs HEAD</th><th>Branch</th><th></th></tr></thead>\
         <tbody>{rows}</tbody></table>"
    ));
    Response::html(200, frame("Checkpoints", None, &content))
}

/// `POST /checkpoints/ID/restore`.
pub fn restore(app: &App, id: &str) -> Response {
    match restore::restore(&restore::Options::new(&app.dir, id)) {
        Ok(done) => Response::see_other(&format!(
            "/checkpoints?undo={}",
            percent_encode(&done.before)
        )),
        Err(e) => error_page(&e),
    }
}

/// `POST /checkpoints/ID/drop`.
pub fn drop(app: &App, id: &str) -> Response {
    match checkpoint::drop(&DropOptions {
        dir: app.dir.clone(),
        selection: DropSelection::Id(id.to_owned()),
    }) {
        Ok(_) => Response::see_other("/checkpoints"),
        Err(e) => error_page(&e),
    }
}
