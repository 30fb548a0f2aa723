//! Who may ask: the checks every request passes before any route sees it.
//!
//! 1. The `Host` header names the bound address (`127.0.0.1:PORT` or `localhost:PORT`): a page
//!    on another site that rebinds its DNS name to 127.0.0.1 still sends its own name, and is
//!    refused.
//! 2. The per-start token: in the query of the printed URL once (answered with a redirect that
//!    sets an HttpOnly, SameSite=Strict cookie and drops the token from the address bar), in
//!    that cookie afterwards. The cookie's name carries the port, since cookies ignore ports.
//! 3. A state change is a POST whose form carries the token too, and which comes from this
//!    origin: `Origin` equal to it, or without `Origin` a `Sec-Fetch-Site: same-origin`, or a
//!    `Referer` on this origin. Anything else is refused before it reaches a route.

use std::io::Read as _;

use crate::http::{percent_encode, Request, Response};
use crate::App;

/// A fresh random token: 128 bits from the operating system, in hex.
pub fn new_token() -> std::io::Result<String> {
    let mut bytes = [0u8; 16];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut bytes)?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// The cookie that carries the token for the page on `port`.
pub fn cookie_name(port: u16) -> String {
    format!("salve_ui_{port}")
}

/// Equal without telling by timing where the first difference is.
fn same_secret(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}

/// `None` when `request` may go on to its route; otherwise the refusal (or the redirect that
/// turns a token in the URL into a cookie).
pub fn check(app: &App, request: &Request) -> Option<Response> {
    let port = app.addr.port();
    let host = request.header("host").unwrap_or_default();
    if host != format!("127.0.0.1:{port}") && host != format!("localhost:{port}") {
        return Some(refuse(400, "this page answers only to its own address"));
    }
    if !matches!(request.method.as_str(), "GET" | "HEAD" | "POST") {
        return Some(refuse(405, "method not allowed"));
    }
    if let Some(given) = request.query.get("token") {
        if !same_secret(given, &app.token) {
            return Some(refuse(401, "wrong token: open the URL `salve ui` printed"));
        }
        if request.method != "POST" {
            return Some(hand_over(app, request));
        }
    }
    let cookie = request.cookie(&cookie_name(port)).unwrap_or_default();
    if !same_secret(cookie, &app.token) {
        return Some(refuse(
            401,
            "no token: open the URL `salve ui` printed (it carries the token)",
        ));
    }
    if request.method == "POST" {
        let form_token = request.form.get("token").map(String::as_str);
        if !form_token.is_some_and(|t| same_secret(t, &app.token)) {
            return Some(refuse(403, "a change needs the page's token"));
        }
        if !same_origin(request, host) {
            return Some(refuse(403, "a change must come from this page"));
        }
    }
    None
}

/// Whether a POST came from a page of this origin.
fn same_origin(request: &Request, host: &str) -> bool {
    let origin = format!("http://{host}");
    if let Some(o) = request.header("origin") {
        return o == origin;
    }
    if let Some(site) = request.header("sec-fetch-site") {
        return site == "same-origin";
    }
    request
        .header("referer")
        .is_some_and(|r| r == origin || r.starts_with(&format!("{origin}/")))
}

/// Set the cookie and send the browser to the same address without the token.
fn hand_over(app: &App, request: &Request) -> Response {
    let rest: Vec<String> = request
        .query
        .iter()
        .filter(|(k, _)| k.as_str() != "token")
        .map(|(k, v)| format!("{}={}", percent_encode(k), percent_encode(v)))
        .collect();
    let mut location = percent_encode_path(&request.path);
    if !rest.is_empty() {
        location.push('?');
        location.push_str(&rest.join("&"));
    }
    Response::see_other(&location).with(
        "Set-Cookie",
        &format!(
            "{}={}; Path=/; HttpOnly; SameSite=Strict",
            cookie_name(app.addr.port()),
            app.token
        ),
    )
}

/// A path with its segments encoded, slashes kept.
fn percent_encode_path(path: &str) -> String {
    let encoded: Vec<String> = path.split('/').map(percent_encode).collect();
    let joined = encoded.join("/");
    if joined.starts_with('/') {
        joined
    } else {
        format!("/{joined}")
    }
}

fn refuse(status: u16, why: &str) -> Response {
    Response::text(status, format!("salve ui: {why}\n"))
}
