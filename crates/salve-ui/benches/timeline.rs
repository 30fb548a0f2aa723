//! The timeline's server time with 100k recorded runs (the bar: the first page under 100 ms).
//!
//! Builds a record of 100,000 runs (apply, ask and fix; each with a touched file, ask and fix
//! with a model attempt) through `salve import`'s engine operation, starts the page on
//! 127.0.0.1, and times complete GET requests over a real socket: the first page, a filtered
//! one and a later page by key. Prints the median and the worst of each.
//!
//! `cargo bench -p salve-ui` (or `-- 20000` for another number of runs).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{Read as _, Write as _};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use salve_engine::record::{
    gc, import, log, stamp, GcOptions, ImportOptions, LogOptions, Timestamp,
};
use salve_ui::{App, Options, Server};

fn main() {
    let runs: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(100_000);
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::create_dir(dir.join(".salve")).unwrap();
    let started = Instant::now();
    let export = export_lines(runs);
    import(
        &ImportOptions {
            dir: dir.to_path_buf(),
            file: None,
        },
        &mut export.as_bytes(),
    )
    .unwrap();
    // One import is one transaction, so its write-ahead log holds the whole record; runs
    // recorded one by one never grow it past the autocheckpoint. `salve gc` (keeping every
    // run) folds it back, as a record built run by run would be.
    gc(&GcOptions {
        dir: dir.to_path_buf(),
        older_than_ms: None,
    })
    .unwrap();
    eprintln!(
        "recorded {runs} runs in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    for e in std::fs::read_dir(dir.join(".salve")).unwrap() {
        let e = e.unwrap();
        eprintln!("  {:?} {}", e.file_name(), e.metadata().unwrap().len());
    }
    let app = Server::bind(&Options::new(dir)).unwrap().spawn();
    // The record read alone, in process: what the page costs before rendering and HTTP.
    let mut reads: Vec<Duration> = (0..30)
        .map(|_| {
            let t = Instant::now();
            let listed = log(&LogOptions {
                dir: dir.to_path_buf(),
                limit: Some(51),
                usage: true,
                ..LogOptions::default()
            })
            .unwrap();
            assert_eq!(listed.runs.len(), 51.min(runs));
            t.elapsed()
        })
        .collect();
    reads.sort();
    let mut stamps: Vec<Duration> = (0..30)
        .map(|_| {
            let t = Instant::now();
            stamp(dir).unwrap();
            t.elapsed()
        })
        .collect();
    stamps.sort();
    println!(
        "record::stamp {runs} runs (in process): median {:.1} ms",
        ms(stamps[15])
    );
    println!(
        "record::log {runs} runs, first page with usage (in process): median {:.1} ms",
        ms(reads[15])
    );
    let last_page_start = format!("/?before={}", run_id(runs / 2));
    for (name, target) in [
        ("first page", "/"),
        ("first page, kind=fix", "/?kind=fix"),
        ("first page, status=repaired", "/?status=repaired"),
        ("a page by key, half way down", last_page_start.as_str()),
        ("live stamp", "/api/version"),
    ] {
        let (median, worst) = time(&app, target, 30);
        println!(
            "timeline {runs} runs, {name}: median {:.1} ms, worst {:.1} ms",
            ms(median),
            ms(worst)
        );
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// The id of the `i`th run: time digits that grow with `i`, so ids sort by age.
fn run_id(i: usize) -> String {
    format!("{:012x}{:08x}", 1_700_000_000_000u64 + i as u64 * 1000, i)
}

fn export_lines(runs: usize) -> String {
    let mut out = String::with_capacity(runs * 700);
    for i in 0..runs {
        let (kind, status, attempts) = match i % 3 {
            0 => ("apply", "applied", String::new()),
            1 => ("ask", "applied", attempt(i, None)),
            _ => (
                "fix",
                if i % 6 == 5 { "repaired" } else { "exhausted" },
                attempt(i, Some("cargo test")),
            ),
        };
        let at = 1_700_000_000_000i64 + i as i64 * 1000;
        let started = serde_json::to_string(&Timestamp(at)).unwrap();
        let ended = serde_json::to_string(&Timestamp(at + 400)).unwrap();
        out.push_str(&format!(
            "{{\"salve_export\":1,\"run\":{{\"id\":\"{id}\",\"kind\":\"{kind}\",\
             \"command\":[\"salve\",\"{kind}\",\"reply-{i}.md\"],\"started_at\":{started},\
             \"ended_at\":{ended},\"status\":\"{status}\",\"files\":1,\"added\":3,\"removed\":1}},\
             \"patch_sets\":[{{\"seq\":1,\"files\":[{{\"path\":\"src/file{f}.rs\",\"change\":\"modify\",\
             \"added\":3,\"removed\":1}}],\"status\":\"applied\"}}],\"attempts\":[{attempts}]}}\n",
            id = run_id(i),
            f = i % 50,
        ));
    }
    out
}

fn attempt(i: usize, check: Option<&str>) -> String {
    let check = check
        .map(|c| format!("\"check_command\":\"{c}\",\"exit_code\":1,\"failure_class\":\"code\","))
        .unwrap_or_default();
    format!(
        "{{\"seq\":1,{check}\"provider\":\"claude\",\"model\":\"sonnet\",\"tokens_in\":{},\
         \"tokens_out\":200,\"cost_usd\":0.0125,\"latency_ms\":900}}",
        1000 + i % 100
    )
}

/// Median and worst of `n` complete requests for `target`.
fn time(app: &App, target: &str, n: usize) -> (Duration, Duration) {
    let mut times: Vec<Duration> = (0..n)
        .map(|_| {
            let t = Instant::now();
            let body = get(app, target);
            let took = t.elapsed();
            assert!(
                body.starts_with("HTTP/1.1 200"),
                "{target}: {}",
                &body[..body.len().min(300)]
            );
            took
        })
        .collect();
    times.sort();
    (times[n / 2], times[n - 1])
}

fn get(app: &App, target: &str) -> String {
    let mut s = TcpStream::connect(app.addr).unwrap();
    write!(
        s,
        "GET {target} HTTP/1.1\r\nHost: {}\r\nCookie: salve_ui_{}={}\r\nConnection: close\r\n\r\n",
        app.addr,
        app.addr.port(),
        app.token
    )
    .unwrap();
    let mut out = Vec::new();
    s.read_to_end(&mut out).unwrap();
    String::from_utf8_lossy(&out).into_owned()
}
