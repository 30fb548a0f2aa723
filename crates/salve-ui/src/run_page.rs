//! One run's page: what it was, its patch sets in order with their diffs, each apply report
//! (every hunk's rung, and the candidates of a refusal), the attempts of an ask or a fix loop
//! with their check output, the decisions with confidence and evidence, and the artifacts.

use salve_engine::record::{self, NamedReport, RunRecord, ShowOptions, ShowOutcome, Shown};
use salve_engine::report::FileReport;

use crate::actions::banner;
use crate::html::{duration, esc, page as frame, status_class, time};
use crate::html::{error_page, not_found};
use crate::http::{percent_encode, Request, Response};
use crate::{diff, App};

/// Lines of a check's output shown on the page (the artifact holds it all).
const EXCERPT_LINES: usize = 40;

/// The run `id` names, in full.
pub fn load(app: &App, id: &str) -> Result<RunRecord, record::Error> {
    match record::show(&ShowOptions {
        dir: app.dir.clone(),
        run: id.to_owned(),
        what: Shown::Record,
    })? {
        ShowOutcome::Record(r) => Ok(*r),
        _ => Err(salve_engine::record::StoreError::NoSuchRun(id.to_owned()).into()),
    }
}

/// One artifact's text (lossy), or `None` when it cannot be read.
fn artifact_text(app: &App, run: &str, name: &str) -> Option<String> {
    match record::show(&ShowOptions {
        dir: app.dir.clone(),
        run: run.to_owned(),
        what: Shown::Artifact(name.to_owned()),
    }) {
        Ok(ShowOutcome::Artifact(bytes)) => Some(String::from_utf8_lossy(&bytes).into_owned()),
        _ => None,
    }
}

/// `GET /run/ID`.
pub fn page(app: &App, id: &str) -> Response {
    let record = match load(app, id) {
        Ok(r) => r,
        Err(e) => return error_page(&e),
    };
    let run = &record.run;
    let kept = salve_engine::checkpoint::kept(&app.dir).unwrap_or_default();
    let mut content = banner(app);
    content.push_str(&header(&record, &kept));
    content.push_str(&patch_sets(app, &record));
    content.push_str(&reports(app, &record));
    if !record.attempts.is_empty() {
        content.push_str(&attempts(app, &record));
    }
    if !record.decisions.is_empty() {
        content.push_str(&decisions(&record));
    }
    content.push_str(&artifacts(&record));
    let live = format!("/api/version?run={}", percent_encode(&run.id));
    let title = format!("Run {}", &run.id[..run.id.len().min(10)]);
    Response::html(200, frame(&title, Some(&live), &content))
}

fn header(record: &RunRecord, kept: &salve_engine::checkpoint::Kept) -> String {
    let r = &record.run;
    let rewound = if r.rewound_by.is_some() {
        " <span class=\"badge rewound\">rewound</span>"
    } else {
        ""
    };
    let mut facts = vec![
        (
            "Command",
            format!("<code>{}</code>", esc(&record::shell_words(&r.command))),
        ),
        ("Started", time(r.started_at)),
    ];
    if let Some(end) = r.ended_at {
        facts.push(("Took", duration(end.0 - r.started_at.0)));
    }
    let files = if r.status == "checked" {
        // A check run places the edit and writes nothing: its counts are not a change.
        "none written (a check: the edit was placed, not applied)".to_owned()
    } else {
        format!(
            "{} (<span class=\"add\">+{}</span> <span class=\"del\">−{}</span>)",
            r.files, r.added, r.removed
        )
    };
    facts.push(("Files", files));
    for (label, value) in [("Message", &r.message), ("Baseline", &r.baseline)] {
        if let Some(v) = value {
            facts.push((label, format!("<code>{}</code>", esc(v))));
        }
    }
    match &r.checkpoint {
        // A kept checkpoint links to its diff against HEAD.
        Some(c) if kept.holds(c) => facts.push((
            "Checkpoint",
            format!(
                "<a href=\"/checkpoints/{}\"><code>{}</code></a>",
                esc(&percent_encode(c)),
                esc(c)
            ),
        )),
        Some(c) if !c.is_empty() => {
            facts.push(("Checkpoint", format!("<code>{}</code> (dropped)", esc(c))));
        }
        _ => {}
    }
    let dl: String = facts
        .iter()
        .map(|(k, v)| format!("<dt>{k}</dt><dd>{v}</dd>"))
        .collect();
    let restore = match (&r.checkpoint, &r.rewound_by) {
        (Some(c), None) if !c.is_empty() && kept.holds(c) => format!(
            "<p><a class=\"action\" id=\"restore-here\" href=\"/run/{}/restore\">Restore to here</a> \
             <span class=\"muted\">brings the files back to just before this run</span></p>",
            esc(&r.id)
        ),
        (Some(c), None) if !c.is_empty() => format!(
            "<p class=\"muted\" id=\"no-restore\">Restore to here is not offered: the checkpoint \
             this run took (<code>{}</code>) was dropped, so the files from just before it are \
             no longer kept.</p>",
            esc(c)
        ),
        _ => String::new(),
    };
    format!(
        "<h1>{kind} run <code>{id}</code> <span class=\"status {class}\">{status}</span>{rewound}</h1>\
         <dl class=\"facts\">{dl}</dl>{restore}",
        kind = r.kind.as_str(),
        id = esc(&r.id),
        class = status_class(&r.status),
        status = esc(&r.status),
    )
}

fn patch_sets(app: &App, record: &RunRecord) -> String {
    if record.patch_sets.is_empty() {
        return "<h2>Patch sets</h2><p class=\"empty\">None: this run changed no file.</p>".into();
    }
    let mut rows = String::new();
    let mut diffs = String::new();
    // An apply has no rationale (only a model's repair states one): no empty column for it.
    let rationale = record
        .patch_sets
        .iter()
        .any(|p| p.rationale.as_deref().is_some_and(|r| !r.trim().is_empty()));
    for p in &record.patch_sets {
        let files: Vec<String> = p
            .files
            .iter()
            .map(|f| {
                format!(
                    "{} <span class=\"muted\">{}</span> <span class=\"add\">+{}</span> \
                     <span class=\"del\">−{}</span>",
                    esc(&f.path),
                    f.change.as_str(),
                    f.added,
                    f.removed
                )
            })
            .collect();
        rows.push_str(&format!(
            "<tr><td>{}</td><td><span class=\"status {}\">{}</span></td><td>{}</td><td>{}</td>\
             {}<td>{}</td></tr>",
            p.seq,
            if p.status.as_str() == "applied" {
                "ok"
            } else {
                "warn"
            },
            p.status.as_str(),
            esc(p.format.as_deref().unwrap_or("")),
            files.join("<br>"),
            if rationale {
                format!("<td>{}</td>", esc(p.rationale.as_deref().unwrap_or("")))
            } else {
                String::new()
            },
            esc(p.reason.as_deref().unwrap_or("")),
        ));
        let name = p.diff_sha256.as_ref().and_then(|sha| {
            record
                .artifacts
                .iter()
                .find(|a| &a.sha256 == sha)
                .map(|a| a.name.clone())
        });
        if let Some(text) = name.and_then(|n| artifact_text(app, &record.run.id, &n)) {
            diffs.push_str(&format!(
                "<h3>Patch set {} <span class=\"muted\">({})</span></h3>{}",
                p.seq,
                p.status.as_str(),
                diff::render(&text)
            ));
        }
    }
    format!(
        "<h2>Patch sets</h2><div class=\"scroll\"><table><thead><tr><th>#</th><th>Status</th>\
         <th>Format</th><th>Files</th>{}<th>Why</th></tr></thead><tbody>{rows}</tbody></table>\
         </div><h2>Diff</h2><div id=\"diff\">{}</div>",
        if rationale { "<th>Rationale</th>" } else { "" },
        if diffs.is_empty() {
            "<p class=\"empty\">No diff was kept.</p>".to_owned()
        } else {
            diffs
        }
    )
}

fn reports(app: &App, record: &RunRecord) -> String {
    let shown = record::show(&ShowOptions {
        dir: app.dir.clone(),
        run: record.run.id.clone(),
        what: Shown::Reports,
    });
    let Ok(ShowOutcome::Reports(reports)) = shown else {
        return String::new();
    };
    let mut out = String::new();
    for NamedReport { name, report } in &reports {
        let mut report = report.clone();
        // A check run's report is the placement of an edit that was never written.
        if record.run.status == "checked" {
            report.check_only = true;
        }
        out.push_str(&format!(
            "<h3>{} <span class=\"muted\">{}</span></h3>",
            esc(name),
            esc(&report.summary())
        ));
        for file in &report.files {
            out.push_str(&report_file(file));
        }
    }
    if out.is_empty() {
        return String::new();
    }
    format!("<h2>Apply report</h2>{out}")
}

fn report_file(file: &FileReport) -> String {
    let mut rows = String::new();
    let mut candidates = String::new();
    for h in &file.hunks {
        // Numbered from 1, as the decisions and the command line number them.
        let number = h.index + 1;
        // A refused hunk has no place of its own: its cells say where it could have gone.
        let lines = match (h.lines, h.candidates.as_slice()) {
            (Some(l), _) => format!("{}–{}", l.start, l.end),
            (None, []) => String::new(),
            (None, found) => found
                .iter()
                .map(|c| format!("{}–{}?", c.lines.start, c.lines.end))
                .collect::<Vec<_>>()
                .join(", "),
        };
        let best = h
            .candidates
            .iter()
            .map(|c| c.score)
            .fold(None, |a: Option<f64>, s| Some(a.map_or(s, |a| a.max(s))));
        let similarity = match (h.similarity, best) {
            (Some(s), _) => format!("{s:.2}"),
            (None, Some(b)) => format!("best {b:.2}"),
            (None, None) => String::new(),
        };
        rows.push_str(&format!(
            "<tr><td>{number}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            esc(h.status.as_str()),
            esc(h.rung.map(|r| r.as_str()).unwrap_or("")),
            esc(&lines),
            esc(&similarity),
            esc(h.message.as_deref().unwrap_or("")),
        ));
        for c in &h.candidates {
            candidates.push_str(&candidate(number, c));
        }
    }
    let candidates = if candidates.is_empty() {
        String::new()
    } else {
        format!("<p>Candidates:</p><ul class=\"candidates\">{candidates}</ul>")
    };
    format!(
        "<p><code>{}</code> {} <span class=\"status\">{}</span> {}</p>\
         <div class=\"scroll\"><table><thead><tr><th>Hunk</th><th>Status</th><th>Rung</th><th>Lines</th>\
         <th>Similarity</th><th>Note</th></tr></thead><tbody>{rows}</tbody></table></div>{candidates}",
        esc(&file.path),
        esc(file.change.as_str()),
        esc(file.status.as_str()),
        esc(file.message.as_deref().unwrap_or("")),
    )
}

/// One place a refused hunk could have gone: its lines, score, scope, the file's numbered
/// lines around it, and the character diff against what the edit expected.
fn candidate(hunk: usize, c: &salve_engine::report::Candidate) -> String {
    let scope = c
        .scope
        .as_ref()
        .map(|s| format!(" in <code>{}</code> (line {})", esc(&s.text), s.line))
        .unwrap_or_default();
    let excerpt = if c.excerpt.is_empty() {
        String::new()
    } else {
        let width = c
            .excerpt
            .iter()
            .map(|l| l.line.to_string().len())
            .max()
            .unwrap_or(1);
        let lines: Vec<String> = c
            .excerpt
            .iter()
            .map(|l| {
                let mark = if (c.lines.start..=c.lines.end).contains(&l.line) {
                    '>'
                } else {
                    ' '
                };
                format!("{mark} {:>width$} | {}", l.line, esc(&l.text))
            })
            .collect();
        format!("<pre class=\"excerpt\">{}</pre>", lines.join("\n"))
    };
    format!(
        "<li>hunk {hunk}: lines {}–{} (score {:.2}){scope}{excerpt}<pre>{}</pre></li>",
        c.lines.start,
        c.lines.end,
        c.score,
        esc(&c.diff),
    )
}

fn attempts(app: &App, record: &RunRecord) -> String {
    let mut rows = String::new();
    let mut logs = String::new();
    for a in &record.attempts {
        let opt = |v: Option<String>| esc(&v.unwrap_or_default());
        rows.push_str(&format!(
            "<tr><td>{}</td><td><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>\
             <td>{}</td><td>{}</td><td>{}</td></tr>",
            a.seq,
            opt(a.check_command.clone()),
            opt(a.exit_code.map(|c| c.to_string())),
            opt(a.failure_class.clone()),
            opt(a.provider.clone()),
            opt(a.model.clone()),
            opt(match (a.tokens_in, a.tokens_out) {
                (None, None) => None,
                (i, o) => Some(format!("{} / {}", i.unwrap_or(0), o.unwrap_or(0))),
            }),
            opt(a.cost_usd.map(|c| format!("${c:.4}"))),
            opt(a.duration_ms.or(a.latency_ms).map(|d| duration(d as i64))),
        ));
        if let Some(name) = &a.log_artifact {
            if let Some(text) = artifact_text(app, &record.run.id, name) {
                let lines: Vec<&str> = text.lines().collect();
                let tail = lines[lines.len().saturating_sub(EXCERPT_LINES)..].join("\n");
                logs.push_str(&format!(
                    "<h3>Attempt {} check output <span class=\"muted\">(last {} lines)</span></h3>\
                     <pre>{}</pre>",
                    a.seq,
                    EXCERPT_LINES.min(lines.len()),
                    esc(&tail)
                ));
            }
        }
    }
    format!(
        "<h2>Attempts</h2><table><thead><tr><th>#</th><th>Check</th><th>Exit</th>\
         <th>Failure class</th><th>Provider</th><th>Model</th><th>Tokens in / out</th>\
         <th>Cost</th><th>Took</th></tr></thead><tbody>{rows}</tbody></table>{logs}"
    )
}

fn decisions(record: &RunRecord) -> String {
    let rows: String = record
        .decisions
        .iter()
        .map(|d| {
            format!(
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td><pre>{}</pre></td></tr>",
                d.seq,
                esc(&d.chosen),
                esc(&d.alternatives.join(", ")),
                d.confidence.map(|c| format!("{c:.2}")).unwrap_or_default(),
                esc(d.evidence.as_deref().unwrap_or("")),
            )
        })
        .collect();
    format!(
        "<h2>Decisions</h2><table><thead><tr><th>#</th><th>Chosen</th><th>Alternatives</th>\
         <th>Confidence</th><th>Evidence</th></tr></thead><tbody>{rows}</tbody></table>"
    )
}

fn artifacts(record: &RunRecord) -> String {
    if record.artifacts.is_empty() {
        return String::new();
    }
    let rows: String = record
        .artifacts
        .iter()
        .map(|a| {
            let href = format!(
                "/run/{}/artifact/{}",
                percent_encode(&record.run.id),
                percent_encode(&a.name)
            );
            format!(
                "<tr><td><code>{}</code></td><td>{} bytes</td><td><a href=\"{href}\">view</a> · \
                 <a href=\"{href}?download=1\">download</a></td></tr>",
                esc(&a.name),
                a.size,
                href = esc(&href)
            )
        })
        .collect();
    format!(
        "<h2>Artifacts</h2><table><thead><tr><th>Name</th><th>Size</th><th></th></tr></thead>\
         <tbody>{rows}</tbody></table>"
    )
}

/// `GET /run/ID/artifact/NAME`: the bytes as plain text (never HTML, whatever they hold), or
/// as a download with `?download=1`.
pub fn artifact(app: &App, request: &Request, id: &str, name: &str) -> Response {
    let shown = record::show(&ShowOptions {
        dir: app.dir.clone(),
        run: id.to_owned(),
        what: Shown::Artifact(name.to_owned()),
    });
    let bytes = match shown {
        Ok(ShowOutcome::Artifact(bytes)) => bytes,
        Ok(_) => return not_found("no such artifact"),
        Err(e) => return error_page(&e),
    };
    let file: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let disposition = if request.param("download").is_some() {
        format!("attachment; filename=\"{file}.txt\"")
    } else {
        "inline".to_owned()
    };
    Response::text(200, bytes).with("Content-Disposition", &disposition)
}
