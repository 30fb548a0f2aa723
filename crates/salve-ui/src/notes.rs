//! What just happened, said on the page a change redirects to (`?note=...`). A note is plain
//! text built from a fixed sentence and numbers or hex ids checked here; anything else in the
//! query is ignored, so a crafted link can at most show a harmless sentence, never a button.

use crate::html::esc;
use crate::http::Request;

/// The note `request` asks for, as HTML, or nothing.
pub fn render(request: &Request) -> String {
    let number = |name: &str| {
        request
            .param(name)
            .and_then(|v| v.parse::<u64>().ok())
            .unwrap_or(0)
    };
    let hex = |name: &str| {
        request
            .param(name)
            .filter(|v| v.len() <= 64 && v.bytes().all(|b| b.is_ascii_hexdigit()))
            .map(|v| esc(&v.chars().take(12).collect::<String>()))
    };
    let files = format!(
        "{} file(s) written, {} deleted",
        number("written"),
        number("deleted")
    );
    let text = match request.param("note") {
        Some("rewound") => format!(
            "Restored to just before run <code>{}</code>: {files}; {} run(s) marked rewound.",
            hex("run").unwrap_or_default(),
            number("runs")
        ),
        Some("undone") => format!(
            "Restore undone: the files are as they were before it ({files}); {} rewound \
             run(s) brought back.",
            number("runs")
        ),
        Some("restored") => format!(
            "Restored checkpoint <code>{}</code>: {files}.",
            hex("checkpoint").unwrap_or_default()
        ),
        Some("dropped") => format!(
            "Dropped checkpoint <code>{}</code>: it is no longer listed, and no run can be \
             restored to it.",
            hex("checkpoint").unwrap_or_default()
        ),
        _ => return String::new(),
    };
    format!("<div class=\"note\" id=\"note\" role=\"status\">{text}</div>")
}
