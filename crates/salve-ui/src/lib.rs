//! salve's local page: the record's runs and the checkpoints of one work tree, with "Restore to
//! here", served on 127.0.0.1 while `salve ui` runs.
//!
//! The server is small and synchronous (`tiny_http`, a fixed pool of worker threads): pages are
//! rendered on the server from the engine's operations ([`salve_engine::record`],
//! [`salve_engine::rewind`], [`salve_engine::restore`], [`salve_engine::checkpoint`]); a little
//! plain JavaScript, shipped inside the binary, polls for changes so the pages follow runs
//! recorded by other processes. There is no build step.
//!
//! The page can rewrite the work tree, so every request passes [`guard`] first: the Host header
//! must name the bound address (DNS rebinding fails), a random per-start token is required (in
//! the printed URL, then an HttpOnly SameSite=Strict cookie), state changes are POSTs carrying
//! the token from a same-origin page, no CORS header is ever sent, and a strict CSP goes with
//! every answer. Every value from the record is HTML-escaped ([`html::esc`]): replies are model
//! text.
//!
//! | route | shows or does |
//! |---|---|
//! | `GET /` | the timeline: runs newest first, filters, keyset paging ([`timeline`]) |
//! | `GET /run/ID` | one run: patch sets, diffs, apply report, attempts, decisions ([`run_page`]) |
//! | `GET /run/ID/artifact/NAME` | an artifact as text (`?download=1` as a file) |
//! | `GET /run/ID/restore`, `POST` | the confirmation listing the files, then the rewind ([`actions`]) |
//! | `POST /undo-restore` | take back the last restore while it is the newest change (every page shows a banner with the button then) |
//! | `GET /checkpoints`, `GET /checkpoints/ID` (its diff against HEAD), `POST /checkpoints/ID/restore`, `POST /checkpoints/ID/drop` | [`checkpoints`] |
//! | `GET /api/version` | a stamp of the record (or of one run, or `?what=checkpoints`) that moves when it does, at a cost independent of the record's size |
//! | `GET /static/*`, `GET /favicon.ico` | the stylesheet, the script and the icon |

pub mod actions;
pub mod checkpoints;
pub mod diff;
pub mod guard;
pub mod html;
pub mod http;
pub mod notes;
pub mod routes;
pub mod run_page;
pub mod timeline;

use std::net::{Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::sync::Arc;

pub use http::{Request, Response};

/// Worker threads answering requests: enough for a page, its assets and its polling.
pub const DEFAULT_THREADS: usize = 4;

/// How to start the page.
#[derive(Clone, Debug)]
pub struct Options {
    /// A directory inside the work tree whose record and checkpoints are shown.
    pub dir: PathBuf,
    /// The port on 127.0.0.1; 0 picks a free one.
    pub port: u16,
    /// Worker threads.
    pub threads: usize,
}

impl Options {
    /// Serve the work tree at `dir` on a free port.
    pub fn new(dir: impl Into<PathBuf>) -> Options {
        Options {
            dir: dir.into(),
            port: 0,
            threads: DEFAULT_THREADS,
        }
    }
}

/// Why the page could not be served.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The port is taken or cannot be bound.
    #[error("cannot listen on 127.0.0.1:{port}: {message}")]
    Bind { port: u16, message: String },
    /// No randomness for the token.
    #[error("cannot make a random token: {0}")]
    Random(#[source] std::io::Error),
    /// The directory is not a directory.
    #[error("{} is not a directory", .0.display())]
    NotADirectory(PathBuf),
}

impl salve_engine::Classified for Error {
    fn kind(&self) -> salve_engine::Kind {
        match self {
            Error::Bind { .. } | Error::Random(_) => salve_engine::Kind::Environment,
            Error::NotADirectory(_) => salve_engine::Kind::User,
        }
    }

    fn code(&self) -> &'static str {
        match self {
            Error::Bind { .. } => "port_unavailable",
            Error::Random(_) => "no_randomness",
            Error::NotADirectory(_) => "not_a_directory",
        }
    }

    fn hint(&self) -> Option<String> {
        Some(
            match self {
                Error::Bind { .. } => "pick another port with --port, or 0 for any free one",
                Error::Random(_) => "check that /dev/urandom is readable",
                Error::NotADirectory(_) => "check the directory given with -C",
            }
            .to_owned(),
        )
    }
}

/// What every request handler shares: where the work tree is and who may ask.
#[derive(Clone, Debug)]
pub struct App {
    /// The work tree's directory.
    pub dir: PathBuf,
    /// The bound address.
    pub addr: SocketAddr,
    /// The secret every request must carry.
    pub token: String,
}

impl App {
    /// The URL to open, token included.
    pub fn url(&self) -> String {
        format!("http://{}/?token={}", self.addr, self.token)
    }

    /// Answer one request: the guard first, then the route.
    pub fn handle(&self, request: &Request) -> Response {
        guard::check(self, request).unwrap_or_else(|| routes::route(self, request))
    }
}

/// Listen on `addr` with Nagle's algorithm off for the connections accepted (they inherit it
/// from the listening socket). The server writes an answer's head and body separately; with
/// Nagle on, the body's last segment waits for the browser's delayed acknowledgement of the
/// head, about 40 ms on each page and asset, most of a first view's time.
fn listen(addr: SocketAddr) -> std::io::Result<std::net::TcpListener> {
    use socket2::{Domain, Protocol, Socket, Type};
    let socket = Socket::new(Domain::IPV4, Type::STREAM, Some(Protocol::TCP))?;
    socket.set_reuse_address(true)?;
    socket.set_tcp_nodelay(true)?;
    socket.bind(&addr.into())?;
    socket.listen(128)?;
    Ok(socket.into())
}

/// A bound page, ready to serve.
pub struct Server {
    http: Arc<tiny_http::Server>,
    app: Arc<App>,
    threads: usize,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("addr", &self.app.addr)
            .finish()
    }
}

impl Server {
    /// Bind 127.0.0.1 (never another address) and make this start's token.
    pub fn bind(options: &Options) -> Result<Server, Error> {
        if !options.dir.is_dir() {
            return Err(Error::NotADirectory(options.dir.clone()));
        }
        let wanted = SocketAddr::from((Ipv4Addr::LOCALHOST, options.port));
        let bind_error = |message: String| Error::Bind {
            port: options.port,
            message,
        };
        let listener = listen(wanted).map_err(|e| bind_error(e.to_string()))?;
        let http = tiny_http::Server::from_listener(listener, None)
            .map_err(|e| bind_error(e.to_string()))?;
        let addr = http.server_addr().to_ip().ok_or_else(|| Error::Bind {
            port: options.port,
            message: "not an IP address".to_owned(),
        })?;
        let dir = std::fs::canonicalize(&options.dir).unwrap_or_else(|_| options.dir.clone());
        let token = guard::new_token().map_err(Error::Random)?;
        Ok(Server {
            http: Arc::new(http),
            app: Arc::new(App { dir, addr, token }),
            threads: options.threads.max(1),
        })
    }

    /// What the handlers share (the URL, the token).
    pub fn app(&self) -> &App {
        &self.app
    }

    /// Serve until the process ends: each worker takes the next request and answers it.
    pub fn serve(self) {
        let workers: Vec<_> = (0..self.threads)
            .map(|_| {
                let http = Arc::clone(&self.http);
                let app = Arc::clone(&self.app);
                std::thread::spawn(move || {
                    while let Ok(request) = http.recv() {
                        http::answer(&app, request);
                    }
                })
            })
            .collect();
        for worker in workers {
            let _ = worker.join();
        }
    }

    /// Serve on background threads and return; for tests and embedding.
    pub fn spawn(self) -> App {
        let app = (*self.app).clone();
        std::thread::spawn(move || self.serve());
        app
    }
}
