//! A scripted HTTP/1.1 server on 127.0.0.1 for the HTTP provider tests: each accepted
//! connection gets the next scripted [`Script`] and is closed afterwards. Requests are kept for
//! the test to inspect. The server stops after its script is used up, or after a deadline, so a
//! failing test cannot leave it running.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

/// What the server does with one connection.
#[derive(Clone, Debug)]
pub enum Script {
    /// A complete response.
    Respond {
        status: u16,
        headers: Vec<(String, String)>,
        body: String,
    },
    /// A chunked `text/event-stream` response of these chunks; `complete: false` closes the
    /// connection without the final chunk (a drop mid-stream).
    Stream { chunks: Vec<String>, complete: bool },
    /// Wait this long before answering with `then`.
    Slow { delay: Duration, then: Box<Script> },
}

impl Script {
    pub fn json(status: u16, body: &str) -> Script {
        Script::Respond {
            status,
            headers: vec![("content-type".into(), "application/json".into())],
            body: body.to_owned(),
        }
    }

    pub fn with_header(self, name: &str, value: &str) -> Script {
        match self {
            Script::Respond {
                status,
                mut headers,
                body,
            } => {
                headers.push((name.to_owned(), value.to_owned()));
                Script::Respond {
                    status,
                    headers,
                    body,
                }
            }
            other => other,
        }
    }
}

/// One request as received.
#[derive(Clone, Debug)]
pub struct Received {
    pub method: String,
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Received {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).unwrap()
    }
}

pub struct Server {
    pub base_url: String,
    received: Arc<Mutex<Vec<Received>>>,
    handle: Option<JoinHandle<()>>,
}

/// The server gives up waiting for connections after this long.
const LIFETIME: Duration = Duration::from_secs(20);

impl Server {
    pub fn start(script: Vec<Script>) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let base_url = format!("http://{}/v1", listener.local_addr().unwrap());
        let received = Arc::new(Mutex::new(Vec::new()));
        let log = Arc::clone(&received);
        let handle = thread::spawn(move || {
            let deadline = Instant::now() + LIFETIME;
            let mut script = script.into_iter();
            let mut next = script.next();
            while let Some(step) = next.take() {
                if Instant::now() > deadline {
                    return;
                }
                match listener.accept() {
                    Ok((stream, _)) => {
                        stream.set_nonblocking(false).unwrap();
                        serve(stream, &step, &log);
                        next = script.next();
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                        next = Some(step);
                        thread::sleep(Duration::from_millis(5));
                    }
                    Err(_) => return,
                }
            }
        });
        Server {
            base_url,
            received,
            handle: Some(handle),
        }
    }

    pub fn received(&self) -> Vec<Received> {
        self.received.lock().unwrap().clone()
    }

    /// Wait for the script to be used up.
    pub fn finish(mut self) -> Vec<Received> {
        if let Some(h) = self.handle.take() {
            h.join().unwrap();
        }
        self.received()
    }
}

fn serve(stream: TcpStream, step: &Script, log: &Mutex<Vec<Received>>) {
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut line = String::new();
    if reader.read_line(&mut line).unwrap_or(0) == 0 {
        return;
    }
    let mut parts = line.split_whitespace();
    let method = parts.next().unwrap_or("").to_owned();
    let path = parts.next().unwrap_or("").to_owned();
    let mut headers = Vec::new();
    let mut length = 0usize;
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h).unwrap_or(0) == 0 {
            break;
        }
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        if let Some((name, value)) = h.split_once(':') {
            let (name, value) = (name.trim().to_owned(), value.trim().to_owned());
            if name.eq_ignore_ascii_case("content-length") {
                length = value.parse().unwrap_or(0);
            }
            headers.push((name, value));
        }
    }
    let mut body = vec![0u8; length];
    reader.read_exact(&mut body).unwrap();
    log.lock().unwrap().push(Received {
        method,
        path,
        headers,
        body: String::from_utf8_lossy(&body).into_owned(),
    });
    respond(stream, step);
}

fn respond(mut stream: TcpStream, step: &Script) {
    // Write errors mean the client gave up (a timeout test): nothing to do.
    match step {
        Script::Slow { delay, then } => {
            thread::sleep(*delay);
            respond(stream, then);
        }
        Script::Respond {
            status,
            headers,
            body,
        } => {
            let mut head = format!("HTTP/1.1 {status} {}\r\n", reason(*status));
            for (n, v) in headers {
                head.push_str(&format!("{n}: {v}\r\n"));
            }
            head.push_str(&format!(
                "content-length: {}\r\nconnection: close\r\n\r\n",
                body.len()
            ));
            let _ = stream.write_all(head.as_bytes());
            let _ = stream.write_all(body.as_bytes());
            let _ = stream.flush();
        }
        Script::Stream { chunks, complete } => {
            let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\
                        transfer-encoding: chunked\r\nconnection: close\r\n\r\n";
            let _ = stream.write_all(head.as_bytes());
            for chunk in chunks {
                let _ = stream.write_all(format!("{:x}\r\n{chunk}\r\n", chunk.len()).as_bytes());
                let _ = stream.flush();
                thread::sleep(Duration::from_millis(5));
            }
            if *complete {
                let _ = stream.write_all(b"0\r\n\r\n");
            }
            let _ = stream.flush();
            let _ = stream.shutdown(std::net::Shutdown::Both);
        }
    }
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        401 => "Unauthorized",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        529 => "Site Overloaded",
        _ => "Status",
    }
}
