//! The timeline: every run newest first, filtered by status and kind, a page at a time. Paging
//! is by key (`before=` the last id shown), so the hundredth page costs what the first does.

use salve_engine::checkpoint::{self, Kept};
use salve_engine::record::{self, LogOptions, RunKind, RunSummary, STATUSES};

use crate::actions::banner;
use crate::html::error_page;
use crate::html::{duration, esc, page as frame, status_class, time};
use crate::http::{percent_encode, Request, Response};
use crate::{notes, App};

/// Runs on one page.
pub const PAGE_SIZE: usize = 50;

/// The filters of a listing, as the query string carries them.
#[derive(Clone, Debug, Default)]
struct Filters {
    status: Option<String>,
    kind: Option<RunKind>,
    before: Option<String>,
    /// Text searched in commands, statuses, messages and touched paths.
    search: Option<String>,
}

impl Filters {
    fn parse(request: &Request) -> Filters {
        Filters {
            status: request
                .param("status")
                .filter(|s| STATUSES.contains(s))
                .map(str::to_owned),
            kind: request.param("kind").and_then(RunKind::parse),
            before: request
                .param("before")
                .filter(|b| b.bytes().all(|c| c.is_ascii_hexdigit()))
                .map(str::to_owned),
            search: request
                .param("q")
                .map(str::trim)
                .filter(|q| !q.is_empty())
                .map(|q| q.chars().take(200).collect()),
        }
    }

    /// The query string for these filters with `before` replaced.
    fn query(&self, before: Option<&str>) -> String {
        let mut parts = Vec::new();
        if let Some(s) = &self.status {
            parts.push(format!("status={}", percent_encode(s)));
        }
        if let Some(k) = self.kind {
            parts.push(format!("kind={}", k.as_str()));
        }
        if let Some(q) = &self.search {
            parts.push(format!("q={}", percent_encode(q)));
        }
        if let Some(b) = before {
            parts.push(format!("before={}", percent_encode(b)));
        }
        if parts.is_empty() {
            String::new()
        } else {
            format!("?{}", parts.join("&"))
        }
    }
}

/// `GET /`: the timeline.
pub fn page(app: &App, request: &Request) -> Response {
    let filters = Filters::parse(request);
    let listed = record::log(&LogOptions {
        dir: app.dir.clone(),
        limit: Some(PAGE_SIZE + 1),
        status: filters.status.clone(),
        kind: filters.kind,
        before: filters.before.clone(),
        search: filters.search.clone(),
        usage: true,
        ..LogOptions::default()
    });
    let mut runs = match listed {
        Ok(listed) => listed.runs,
        Err(e) => return error_page(&e),
    };
    let more = runs.len() > PAGE_SIZE;
    runs.truncate(PAGE_SIZE);
    // Outside a repository no run has a checkpoint; offering none is then right.
    let kept = checkpoint::kept(&app.dir).unwrap_or_default();
    let mut content = banner(app);
    content.push_str(&notes::render(request));
    content.push_str("<h1>Runs</h1>");
    content.push_str(&filter_form(&filters));
    content.push_str(&table(&runs, &kept));
    content.push_str(&pager(&filters, &runs, more));
    Response::html(200, frame("Runs", Some("/api/version"), &content))
}

fn filter_form(filters: &Filters) -> String {
    let mut status = String::from("<option value=\"\">any status</option>");
    for s in STATUSES {
        let selected = if filters.status.as_deref() == Some(s) {
            " selected"
        } else {
            ""
        };
        status.push_str(&format!("<option{selected}>{}</option>", esc(s)));
    }
    let mut kind = String::from("<option value=\"\">any kind</option>");
    for k in [RunKind::Apply, RunKind::Ask, RunKind::Fix] {
        let selected = if filters.kind == Some(k) {
            " selected"
        } else {
            ""
        };
        kind.push_str(&format!("<option{selected}>{}</option>", k.as_str()));
    }
    format!(
        "<form class=\"filters\" method=\"get\" action=\"/\">\
         <label>Status <select name=\"status\">{status}</select></label>\
         <label>Kind <select name=\"kind\">{kind}</select></label>\
         <label>Search <input type=\"search\" name=\"q\" value=\"{q}\" maxlength=\"200\" \
         placeholder=\"path, command or status\"></label>\
         <button type=\"submit\">Filter</button></form>",
        q = esc(filters.search.as_deref().unwrap_or("")),
    )
}

fn table(runs: &[RunSummary], kept: &Kept) -> String {
    if runs.is_empty() {
        return "<p class=\"empty\">No runs recorded here yet. <code>salve apply</code>, \
                <code>salve ask</code> and <code>salve fix</code> record theirs.</p>"
            .to_owned();
    }
    let mut rows = String::new();
    for r in runs {
        rows.push_str(&row(r, kept));
    }
    format!(
        "<table class=\"runs stack\"><thead><tr><th>Run</th><th>Kind</th><th>Command</th>\
         <th>Status</th><th>Started (UTC)</th><th class=\"minor\">Took</th><th>Files</th>\
         <th>Lines</th><th class=\"minor\">Provider · model</th><th class=\"minor\">Calls · checks</th>\
         <th class=\"minor\">Tokens</th><th class=\"minor\">Cost</th><th></th>\
         </tr></thead><tbody id=\"runs\">{rows}</tbody></table>"
    )
}

fn row(summary: &RunSummary, kept: &Kept) -> String {
    let r = &summary.run;
    let rewound = r.rewound_by.is_some();
    let took = r
        .ended_at
        .map(|end| duration(end.0 - r.started_at.0))
        .unwrap_or_default();
    let usage = summary.usage.clone().unwrap_or_default();
    let model = match (&usage.provider, &usage.model) {
        (Some(p), Some(m)) => format!("{p} · {m}"),
        (Some(p), None) => p.clone(),
        (None, Some(m)) => m.clone(),
        (None, None) => String::new(),
    };
    let tokens = if usage.tokens_in + usage.tokens_out > 0 {
        format!("{} / {}", usage.tokens_in, usage.tokens_out)
    } else {
        String::new()
    };
    let cost = usage
        .cost_usd
        .map(|c| format!("${c:.4}"))
        .unwrap_or_default();
    // Checks and model calls apart: a fix loop with one repair records a failing check, the
    // call, and the check that passed, which is one repair, not three.
    let attempts = match (usage.calls, usage.checks) {
        (0, 0) => String::new(),
        (calls, 0) => format!("{calls} call(s)"),
        (0, checks) => format!("{checks} check(s)"),
        (calls, checks) => format!("{calls} call(s), {checks} check(s)"),
    };
    let badge = if rewound {
        " <span class=\"badge rewound\">rewound</span>"
    } else {
        ""
    };
    format!(
        "<tr class=\"run{}\" data-run=\"{id}\"><td data-label=\"Run\"><a href=\"/run/{id}\">\
         <code>{short}</code></a></td><td data-label=\"Kind\">{kind}</td>\
         <td class=\"cmd\" data-label=\"Command\" title=\"{paths}\">{command}</td>\
         <td data-label=\"Status\"><span class=\"status {class}\">{status}</span>{badge}</td>\
         <td data-label=\"Started\">{started}</td><td class=\"minor\" data-label=\"Took\">{took}</td>\
         <td data-label=\"Files\">{files}</td><td data-label=\"Lines\"><span class=\"add\">+{added}</span> \
         <span class=\"del\">−{removed}</span></td><td class=\"minor\" data-label=\"Model\">{model}</td>\
         <td class=\"minor\" data-label=\"Calls\">{attempts}</td>\
         <td class=\"minor\" data-label=\"Tokens\">{tokens}</td><td class=\"minor\" data-label=\"Cost\">{cost}</td>\
         <td class=\"actions\">{restore}</td></tr>",
        if rewound { " rewound" } else { "" },
        id = esc(&r.id),
        short = esc(&summary.short_id),
        kind = r.kind.as_str(),
        paths = esc(&summary.paths.join(", ")),
        command = esc(&record::shell_words(&r.command)),
        class = status_class(&r.status),
        status = esc(&r.status),
        started = time(r.started_at),
        files = r.files,
        added = r.added,
        removed = r.removed,
        model = esc(&model),
        restore = restore_cell(r, kept),
    )
}

/// "Restore to here" while the run's checkpoint is kept; once it was dropped, a note that says
/// so instead of a button that could not work.
fn restore_cell(r: &record::Run, kept: &Kept) -> String {
    match (&r.checkpoint, r.rewound_by.is_some()) {
        (Some(c), false) if !c.is_empty() && kept.holds(c) => format!(
            "<a class=\"action\" href=\"/run/{}/restore\">Restore to here</a>",
            esc(&r.id)
        ),
        (Some(c), false) if !c.is_empty() => format!(
            "<span class=\"muted dropped\" title=\"checkpoint {} was dropped\">checkpoint \
             dropped</span>",
            esc(c)
        ),
        _ => String::new(),
    }
}

fn pager(filters: &Filters, runs: &[RunSummary], more: bool) -> String {
    let mut links = Vec::new();
    if filters.before.is_some() {
        links.push(format!(
            "<a href=\"/{}\">Newest</a>",
            esc(&filters.query(None))
        ));
    }
    if let (true, Some(last)) = (more, runs.last()) {
        links.push(format!(
            "<a href=\"/{}\" rel=\"next\">Older runs</a>",
            esc(&filters.query(Some(&last.run.id)))
        ));
    }
    format!("<nav class=\"pager\">{}</nav>", links.join(" "))
}
