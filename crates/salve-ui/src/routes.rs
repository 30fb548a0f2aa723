//! Which handler answers which request (after [`crate::guard`] let it through), the static
//! assets, the live-update stamp, and how engine errors read on a page.

use salve_engine::record::{self, ShowOptions, ShowOutcome, Shown};
use salve_engine::{checkpoint, undo};

use crate::html::not_found;
use crate::http::{Request, Response};
use crate::{actions, checkpoints, run_page, timeline, App};

const STYLE: &str = include_str!("assets/style.css");
const SCRIPT: &str = include_str!("assets/app.js");
const ICON: &str = include_str!("assets/icon.svg");

/// Answer a request that passed the guard.
pub fn route(app: &App, request: &Request) -> Response {
    let segments: Vec<&str> = request.path.split('/').filter(|s| !s.is_empty()).collect();
    let post = request.method == "POST";
    match (post, segments.as_slice()) {
        (false, []) => timeline::page(app, request),
        (false, ["static", "style.css"]) => asset(STYLE, "text/css; charset=utf-8"),
        (false, ["static", "app.js"]) => asset(SCRIPT, "text/javascript; charset=utf-8"),
        (false, ["favicon.ico"]) => asset(ICON, "image/svg+xml"),
        (false, ["api", "version"]) => version(app, request),
        (false, ["run", id]) => run_page::page(app, id),
        (false, ["run", id, "artifact", name]) => run_page::artifact(app, request, id, name),
        (false, ["run", id, "restore"]) => actions::confirm(app, id),
        (true, ["run", id, "restore"]) => actions::rewind(app, id),
        (true, ["undo-restore"]) => actions::undo_restore(app, request),
        (false, ["checkpoints"]) => checkpoints::page(app, request),
        (false, ["checkpoints", id]) => checkpoints::diff(app, id),
        (true, ["checkpoints", id, "restore"]) => checkpoints::restore(app, id),
        (true, ["checkpoints", id, "drop"]) => checkpoints::drop(app, id),
        (true, _) if known_get(&segments) => Response::text(405, "use GET\n"),
        (false, _) if known_post(&segments) => {
            Response::text(405, "a change must be a POST\n").with("Allow", "POST")
        }
        _ => not_found("no such page"),
    }
}

fn known_get(segments: &[&str]) -> bool {
    matches!(
        segments,
        [] | ["static", _]
            | ["favicon.ico"]
            | ["api", "version"]
            | ["run", _]
            | ["run", _, "artifact", _]
            | ["checkpoints"]
            | ["checkpoints", _]
    )
}

fn known_post(segments: &[&str]) -> bool {
    matches!(
        segments,
        ["undo-restore"] | ["checkpoints", _, "restore"] | ["checkpoints", _, "drop"]
    )
}

fn asset(body: &str, content_type: &'static str) -> Response {
    Response {
        content_type,
        ..Response::text(200, body)
    }
}

/// A stamp that changes whenever the listing (or the run `?run=ID`, or the checkpoints with
/// `?what=checkpoints`) would, or the undo banner every page shows: the script polls it and
/// reloads the content when it moves. Each part is a constant-cost read: a counter row of the
/// record, the catalog's ref, the end of the operation log.
fn version(app: &App, request: &Request) -> Response {
    // Every page shows the undo banner: the end of the operation log moves every stamp. The
    // runs and the checkpoints show which checkpoints are kept: the catalog's commit moves
    // theirs (not a run's own page, which would then move at every later run; it catches up on
    // its next change or view). Outside a repository there are neither.
    let last = undo::last_restore(&app.dir)
        .ok()
        .flatten()
        .map(|r| r.before)
        .unwrap_or_default();
    let catalog = match request.param("run") {
        Some(_) => String::new(),
        None => checkpoint::stamp(&app.dir).unwrap_or_default(),
    };
    let stamp = match (request.param("what"), request.param("run")) {
        (Some("checkpoints"), _) => Ok(String::new()),
        (_, Some(run)) => record::show(&ShowOptions {
            dir: app.dir.clone(),
            run: run.to_owned(),
            what: Shown::Record,
        })
        .map(|shown| match shown {
            ShowOutcome::Record(r) => serde_json::to_string(&r).unwrap_or_default(),
            _ => String::new(),
        })
        .map(|json| format!("{:016x}", fnv(json.as_bytes()))),
        (_, None) => record::stamp(&app.dir),
    };
    match stamp {
        Ok(stamp) => {
            Response::json(&serde_json::json!({ "version": format!("{stamp}-{catalog}-{last}") }))
        }
        Err(e) => Response::json(&serde_json::json!({ "error": e.to_string() })),
    }
}

/// FNV-1a: a cheap fingerprint, not a secret.
fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3)
    })
}
