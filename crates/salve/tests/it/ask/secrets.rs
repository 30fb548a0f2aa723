//! API keys never leave salve: not on stdout or stderr (human or `--json`), not in an error,
//! not in the record, not in a cassette. A distinctive fake key goes through every path: a
//! server that echoes it in its error body, and a model that repeats it in its reply and edit.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::{command_provider, fixture, project, run, salve};

/// An HTTP server on 127.0.0.1 that answers every request (up to `count`) with 401 and an
/// error body echoing `key`, as some APIs echo a wrong key.
fn echoing_server(key: &str, count: usize) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    let body = format!(r#"{{"error":{{"message":"Incorrect API key provided: {key}"}}}}"#);
    std::thread::spawn(move || {
        for stream in listener.incoming().take(count) {
            let Ok(mut stream) = stream else { return };
            let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut length = 0usize;
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
                if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    length = v.trim().parse().unwrap_or(0);
                }
            }
            let mut sink = vec![0u8; length];
            let _ = reader.read_exact(&mut sink);
            let _ = write!(
                stream,
                "HTTP/1.1 401 Unauthorized\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    url
}

fn files_below(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else {
                out.push(path);
            }
        }
    }
    out
}

#[test]
fn an_api_key_never_reaches_output_errors_record_or_cassette() {
    let key = "sk-salve-canary-7c1e55aa90d34b2f8e61";
    let url = echoing_server(key, 4);
    let providers = format!(
        "[providers.api]\nkind = \"openai\"\nbase_url = \"{url}\"\nmodel = \"m\"\napi_key_env = \"SALVE_TEST_LEAK_KEY\"\ntimeout_secs = 10\n\n{}\n[chains]\ndefault = [\"api\", \"parrot\"]\n",
        command_provider("parrot", &["sh", &fixture("leak.sh")]),
    );
    let tree = project(&providers);
    let cassette = tree.outside().join("cassette.jsonl");
    let mut outputs = Vec::new();
    for json in [true, false] {
        let mut cmd = salve(&tree);
        cmd.env("SALVE_TEST_LEAK_KEY", key);
        if json {
            cmd.arg("--json");
        }
        cmd.args([
            "ask",
            "Fix the typo.",
            "--file",
            "app.py",
            "--dry-run",
            "--record",
        ])
        .arg(&cassette);
        let out = run(cmd);
        out.code(0);
        outputs.push(out);
    }
    // The failure reason was recorded, without the key.
    let json = outputs[0].json();
    let reason = json["attempts"][0]["reason"].as_str().unwrap();
    assert!(
        reason.contains("HTTP 401") && reason.contains("[REDACTED]"),
        "{reason}"
    );
    // Applied for real too, so the record has a final diff.
    let mut cmd = salve(&tree);
    cmd.env("SALVE_TEST_LEAK_KEY", key)
        .args(["ask", "Fix the typo.", "--file", "app.py"]);
    outputs.push(run(cmd));
    outputs[2].code(0);
    // All-failed errors too: only the API in the chain.
    let mut cmd = salve(&tree);
    cmd.env("SALVE_TEST_LEAK_KEY", key)
        .env("SALVE_CHAIN_DEFAULT", "api")
        .args(["ask", "Again.", "--file", "app.py"]);
    outputs.push(run(cmd));
    outputs[3].code(1);
    assert!(
        outputs[3].stdout.contains("All providers failed"),
        "{}",
        outputs[3].stdout
    );
    let mut cmd = salve(&tree);
    cmd.env("SALVE_TEST_LEAK_KEY", key)
        .args(["--json", "doctor"]);
    outputs.push(run(cmd));
    assert!(
        outputs[4].stdout.contains("SALVE_TEST_LEAK_KEY is set"),
        "{}",
        outputs[4].stdout
    );
    let log = run({
        let mut c = salve(&tree);
        c.args(["--json", "log"]);
        c
    });
    for id in log
        .json()
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap().to_owned())
    {
        let mut c = salve(&tree);
        c.args(["--json", "show", &id]);
        outputs.push(run(c));
    }
    for out in &outputs {
        assert!(!out.stdout.contains(key), "key on stdout:\n{}", out.stdout);
        assert!(!out.stderr.contains(key), "key on stderr:\n{}", out.stderr);
    }
    let store = tree.root.join(".git/salve");
    let mut stored = files_below(&store);
    stored.push(cassette.clone());
    assert!(stored.len() > 3, "nothing recorded: {stored:?}");
    for file in stored {
        let bytes = std::fs::read(&file).unwrap();
        let text = String::from_utf8_lossy(&bytes);
        assert!(!text.contains(key), "the key is in {}", file.display());
    }
    assert!(std::fs::read_to_string(&cassette)
        .unwrap()
        .contains("[REDACTED]"));
}
