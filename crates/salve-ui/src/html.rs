//! HTML building: escaping (every value from the record goes through [`esc`]: replies are model
//! text and may hold markup or script), the page frame, and small formatting helpers.

use salve_engine::record::Timestamp;

use crate::http::Response;

/// `text` safe inside HTML text and double- or single-quoted attributes.
pub fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The page frame: title, navigation, the content in `#content` (which live updates replace),
/// and the script. `live` is the stamp URL the script polls, if the page follows changes.
pub fn page(title: &str, live: Option<&str>, content: &str) -> String {
    let live = live
        .map(|url| format!(" data-live=\"{}\"", esc(url)))
        .unwrap_or_default();
    format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{title} · salve</title>\
         <link rel=\"icon\" href=\"/favicon.ico\" type=\"image/svg+xml\">\
         <link rel=\"stylesheet\" href=\"/static/style.css\"></head>\
         <body{live}><header><a class=\"brand\" href=\"/\">salve</a>\
         <nav><a href=\"/\">Runs</a><a href=\"/checkpoints\">Checkpoints</a></nav>\
         <span id=\"live\" class=\"live\" hidden>live</span></header>\
         <main id=\"content\">{content}</main>\
         <script src=\"/static/app.js\" defer></script></body></html>\n",
        title = esc(title)
    )
}

/// A POST form that is a single button, carrying the token.
pub fn button_form(action: &str, token: &str, label: &str, fields: &[(&str, &str)]) -> String {
    button_form_with(action, token, label, fields, "")
}

/// [`button_form`] with extra attributes on the form (`data-confirm="..."`).
pub fn button_form_with(
    action: &str,
    token: &str,
    label: &str,
    fields: &[(&str, &str)],
    attributes: &str,
) -> String {
    let mut hidden = format!(
        "<input type=\"hidden\" name=\"token\" value=\"{}\">",
        esc(token)
    );
    for (name, value) in fields {
        hidden.push_str(&format!(
            "<input type=\"hidden\" name=\"{}\" value=\"{}\">",
            esc(name),
            esc(value)
        ));
    }
    format!(
        "<form class=\"inline\" method=\"post\" action=\"{}\"{attributes}>{hidden}\
         <button type=\"submit\">{}</button></form>",
        esc(action),
        esc(label)
    )
}

/// A time as `YYYY-MM-DD HH:MM:SS UTC`: the zone is said, since the page cannot know the
/// reader's.
pub fn time(t: Timestamp) -> String {
    format!("{} UTC", t.to_seconds())
}

/// Seconds since the epoch as `YYYY-MM-DD HH:MM:SS UTC`.
pub fn datetime(secs: i64) -> String {
    time(Timestamp(secs.saturating_mul(1000)))
}

/// A duration in milliseconds for people (`840 ms`, `3.2 s`, `2 min 5 s`).
pub fn duration(ms: i64) -> String {
    match ms {
        ms if ms < 1000 => format!("{ms} ms"),
        ms if ms < 60_000 => format!("{:.1} s", ms as f64 / 1000.0),
        ms => format!("{} min {} s", ms / 60_000, ms / 1000 % 60),
    }
}

/// A CSS class for a status: green, red, amber or plain.
pub fn status_class(status: &str) -> &'static str {
    match status {
        "applied" | "already_applied" | "checked" | "passed_first_try" | "repaired"
        | "rule_applied" | "already_green" | "proposed_applied" | "proposed_enhanced" => "ok",
        "running" => "run",
        "partial" | "no_change" | "interrupted" => "warn",
        _ => "bad",
    }
}

/// A page for "there is no such thing".
pub fn not_found(what: &str) -> Response {
    Response::html(
        404,
        page(
            "Not found",
            None,
            &format!("<h1>Not found</h1><p>{}</p>", esc(what)),
        ),
    )
}

/// An engine error as a page: what happened and what to do, with a status that fits its kind.
pub fn error_page(e: &(impl salve_engine::Classified + std::fmt::Display)) -> Response {
    let status = match (e.kind(), e.code()) {
        // A page for a run or checkpoint that is not there: an address that names nothing.
        (_, "no_such_run" | "bad_run_id" | "no_record" | "no_such_checkpoint") => 404,
        (salve_engine::Kind::User, _) => 400,
        (salve_engine::Kind::Refused, _) => 409,
        _ => 500,
    };
    let hint = e
        .hint()
        .map(|h| format!("<p class=\"hint\">{}</p>", esc(&h)))
        .unwrap_or_default();
    let body = format!(
        "<h1>That did not work</h1><p class=\"error\">{}</p>{hint}<p><code>{}</code></p>\
         <p><a href=\"/\">Back to the runs</a></p>",
        esc(&e.to_string()),
        esc(e.code())
    );
    Response::html(status, page("Error", None, &body))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup_and_quotes() {
        assert_eq!(
            esc("<script>alert('x')</script> & \"y\""),
            "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;y&quot;"
        );
    }

    #[test]
    fn dates_are_utc_calendar_dates() {
        assert_eq!(datetime(0), "1970-01-01 00:00:00 UTC");
        assert_eq!(datetime(1_709_210_096), "2024-02-29 12:34:56 UTC");
    }
}
