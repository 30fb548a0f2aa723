//! The page's own view of HTTP: a [`Request`] with what the guard and the routes read, and a
//! [`Response`] that always carries the security headers. Keeping `tiny_http` behind this
//! module keeps handlers plain functions of a request.

use std::collections::BTreeMap;
use std::io::Read as _;

use crate::App;

/// Bodies larger than this are refused: the page only posts small forms.
const MAX_BODY: u64 = 64 * 1024;

/// The answer's policy: scripts, styles and fetches from this origin only; no frames, no
/// plugins, forms post back here.
pub const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; \
                       img-src 'self' data:; connect-src 'self'; form-action 'self'; \
                       frame-ancestors 'none'; base-uri 'none'";

/// An HTTP request as the handlers see it.
#[derive(Clone, Debug, Default)]
pub struct Request {
    /// `GET`, `POST`, ...
    pub method: String,
    /// The path, percent-decoded, without the query.
    pub path: String,
    /// Query parameters, percent-decoded.
    pub query: BTreeMap<String, String>,
    /// Header values by lowercased name (the last one wins).
    pub headers: BTreeMap<String, String>,
    /// The form fields of a `application/x-www-form-urlencoded` body.
    pub form: BTreeMap<String, String>,
}

impl Request {
    /// A header's value.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).map(String::as_str)
    }

    /// A query parameter, empty ones read as absent.
    pub fn param(&self, name: &str) -> Option<&str> {
        self.query
            .get(name)
            .map(String::as_str)
            .filter(|v| !v.is_empty())
    }

    /// A cookie's value.
    pub fn cookie(&self, name: &str) -> Option<&str> {
        self.header("cookie")?.split(';').find_map(|pair| {
            let (k, v) = pair.trim().split_once('=')?;
            (k == name).then_some(v)
        })
    }

    /// Build a request from a method, a target (`/path?query`) and headers; for tests.
    pub fn new(method: &str, target: &str, headers: &[(&str, &str)]) -> Request {
        let (path, query) = target.split_once('?').unwrap_or((target, ""));
        Request {
            method: method.to_owned(),
            path: percent_decode(path),
            query: parse_pairs(query),
            headers: headers
                .iter()
                .map(|(k, v)| (k.to_ascii_lowercase(), (*v).to_owned()))
                .collect(),
            form: BTreeMap::new(),
        }
    }
}

/// An answer.
#[derive(Clone, Debug)]
pub struct Response {
    pub status: u16,
    pub content_type: &'static str,
    pub body: Vec<u8>,
    /// Extra headers (`Location`, `Set-Cookie`, `Content-Disposition`).
    pub headers: Vec<(String, String)>,
}

impl Response {
    /// An HTML page.
    pub fn html(status: u16, body: String) -> Response {
        Response {
            status,
            content_type: "text/html; charset=utf-8",
            body: body.into_bytes(),
            headers: Vec::new(),
        }
    }

    /// Plain text (artifacts, errors of the API).
    pub fn text(status: u16, body: impl Into<Vec<u8>>) -> Response {
        Response {
            status,
            content_type: "text/plain; charset=utf-8",
            body: body.into(),
            headers: Vec::new(),
        }
    }

    /// A JSON document.
    pub fn json(value: &serde_json::Value) -> Response {
        Response {
            status: 200,
            content_type: "application/json",
            body: value.to_string().into_bytes(),
            headers: Vec::new(),
        }
    }

    /// A redirect to `location` (a path on this server) after a POST or a token hand-over.
    pub fn see_other(location: &str) -> Response {
        Response::text(303, "").with("Location", location)
    }

    /// Add a header.
    pub fn with(mut self, name: &str, value: &str) -> Response {
        self.headers.push((name.to_owned(), value.to_owned()));
        self
    }
}

/// Read `raw`, answer it through `app`, send the answer. A client that went away is not an
/// error worth reporting.
pub(crate) fn answer(app: &App, mut raw: tiny_http::Request) {
    let request = read(&mut raw);
    let response = match request {
        Some(request) => app.handle(&request),
        None => Response::text(413, "request too large"),
    };
    let _ = raw.respond(into_tiny(response));
}

fn read(raw: &mut tiny_http::Request) -> Option<Request> {
    let headers = raw
        .headers()
        .iter()
        .map(|h| {
            (
                h.field.as_str().as_str().to_ascii_lowercase(),
                h.value.as_str().to_owned(),
            )
        })
        .collect::<Vec<_>>();
    let mut request = Request::new(raw.method().as_str(), raw.url(), &[]);
    request.headers = headers.into_iter().collect();
    if request.method == "POST" {
        let mut body = String::new();
        raw.as_reader()
            .take(MAX_BODY + 1)
            .read_to_string(&mut body)
            .ok()?;
        if body.len() as u64 > MAX_BODY {
            return None;
        }
        request.form = parse_pairs(&body);
    }
    Some(request)
}

fn into_tiny(response: Response) -> tiny_http::Response<std::io::Cursor<Vec<u8>>> {
    let mut out = tiny_http::Response::from_data(response.body).with_status_code(response.status);
    let mut headers = vec![
        ("Content-Type".to_owned(), response.content_type.to_owned()),
        ("Content-Security-Policy".to_owned(), CSP.to_owned()),
        ("X-Content-Type-Options".to_owned(), "nosniff".to_owned()),
        ("X-Frame-Options".to_owned(), "DENY".to_owned()),
        ("Referrer-Policy".to_owned(), "same-origin".to_owned()),
        ("Cache-Control".to_owned(), "no-store".to_owned()),
    ];
    headers.extend(response.headers);
    for (name, value) in headers {
        if let Ok(h) = tiny_http::Header::from_bytes(name.as_bytes(), value.as_bytes()) {
            out.add_header(h);
        }
    }
    out
}

/// `a=1&b=x%20y` as pairs, `+` read as a space.
pub fn parse_pairs(text: &str) -> BTreeMap<String, String> {
    text.split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            (
                percent_decode(&k.replace('+', " ")),
                percent_decode(&v.replace('+', " ")),
            )
        })
        .collect()
}

/// Decode `%XX` escapes; invalid ones stay as they are, invalid UTF-8 becomes U+FFFD.
pub fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let (Some(h), Some(l)) = (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Percent-encode everything but unreserved characters (for links built from record values).
pub fn percent_encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}
