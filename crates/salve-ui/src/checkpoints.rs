//! The checkpoints page: every snapshot with its time, message, the run that took it and the
//! files it changed against its HEAD (with that diff, on its own page), with restore (undoable)
//! and drop. Live: it follows checkpoints taken or dropped by other processes.

use salve_engine::checkpoint::{self, DropOptions, DropSelection, ListOptions};
use salve_engine::{record, restore};

use crate::actions::banner;
use crate::html::{button_form_with, datetime, error_page, esc, page as frame};
use crate::http::{percent_encode, Request, Response};
use crate::{notes, App};

/// `GET /checkpoints`.
pub fn page(app: &App, request: &Request) -> Response {
    let list = match checkpoint::list(&ListOptions {
        dir: app.dir.clone(),
        // This work tree's own: only those can be restored from here.
        here: true,
        limit: None,
        offset: 0,
    }) {
        Ok(list) => list,
        Err(e) => return error_page(&e),
    };
    let live = Some("/api/version?what=checkpoints");
    let mut content = banner(app);
    content.push_str(&notes::render(request));
    content.push_str("<h1>Checkpoints</h1>");
    if list.checkpoints.is_empty() {
        content.push_str("<p class=\"empty\">No checkpoints yet.</p>");
        return Response::html(200, frame("Checkpoints", live, &content));
    }
    let ids: Vec<String> = list.checkpoints.iter().map(|c| c.id.clone()).collect();
    // Without a record the list still shows; the runs column stays empty.
    let runs = record::runs_by_checkpoint(&app.dir, &ids).unwrap_or_default();
    let rows: String = list
        .checkpoints
        .iter()
        .map(|c| {
            let run = runs
                .iter()
                .find(|(checkpoint, _)| *checkpoint == c.id)
                .map(|(_, run)| run.as_str());
            row(app, c, run)
        })
        .collect();
    content.push_str(&format!(
        "<table class=\"checkpoints stack\"><thead><tr><th>Id</th><th>Taken (UTC)</th>\
         <th>Message</th><th>Run</th><th>Files changed vs HEAD</th><th>Branch</th><th></th>\
         </tr></thead><tbody>{rows}</tbody></table>"
    ));
    Response::html(200, frame("Checkpoints", live, &content))
}

fn row(app: &App, c: &checkpoint::Listed, run: Option<&str>) -> String {
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
    let run = run
        .map(|r| {
            format!(
                "<a href=\"/run/{}\"><code>{}</code></a>",
                esc(&percent_encode(r)),
                esc(&r.chars().take(12).collect::<String>())
            )
        })
        .unwrap_or_default();
    let files = match c.files_changed {
        Some(n) => format!("<a href=\"{base}\" title=\"its diff against HEAD\">{n}</a>"),
        None => String::new(),
    };
    format!(
        "<tr data-checkpoint=\"{id}\"><td data-label=\"Id\"><code>{id}</code></td>\
         <td data-label=\"Taken\">{time}</td><td data-label=\"Message\">{message}</td>\
         <td data-label=\"Run\">{run}</td><td data-label=\"Files vs HEAD\">{files}</td>\
         <td data-label=\"Branch\">{branch}</td><td class=\"actions\">{restore} {drop}</td></tr>",
        id = esc(&c.id),
        time = datetime(c.time),
        message = esc(&c.message),
        branch = esc(c
            .branch
            .as_deref()
            .unwrap_or("")
            .trim_start_matches("refs/heads/")),
    )
}

/// `POST /checkpoints/ID/restore`.
pub fn restore(app: &App, id: &str) -> Response {
    match restore::restore(&restore::Options::new(&app.dir, id)) {
        Ok(done) => Response::see_other(&format!(
            "/checkpoints?note=restored&checkpoint={}&written={}&deleted={}",
            percent_encode(&done.target),
            done.written.len(),
            done.deleted.len()
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
        Ok(done) => Response::see_other(&format!(
            "/checkpoints?note=dropped&checkpoint={}",
            percent_encode(done.dropped.first().map_or(id, String::as_str))
        )),
        Err(e) => error_page(&e),
    }
}

/// `GET /checkpoints/ID`: the checkpoint's diff against the HEAD it was taken on.
pub fn diff(app: &App, id: &str) -> Response {
    let shown = match checkpoint::diff(&app.dir, id) {
        Ok(d) => d,
        Err(e) => return error_page(&e),
    };
    let head = shown
        .head
        .as_deref()
        .map(|h| {
            format!(
                "HEAD <code>{}</code>",
                esc(&h.chars().take(12).collect::<String>())
            )
        })
        .unwrap_or_else(|| "an empty tree (no commit yet)".to_owned());
    let body = if shown.diff.trim().is_empty() {
        "<p class=\"empty\">No file differs from that HEAD.</p>".to_owned()
    } else {
        format!(
            "<div id=\"diff\">{}</div>",
            crate::diff::render(&shown.diff)
        )
    };
    let content = format!(
        "{}<h1>Checkpoint <code>{}</code></h1><p>Its files against {head}, the commit checked \
         out when it was taken.</p>{body}<p><a href=\"/checkpoints\">All checkpoints</a></p>",
        banner(app),
        esc(&shown.id),
    );
    Response::html(200, frame("Checkpoint", None, &content))
}
