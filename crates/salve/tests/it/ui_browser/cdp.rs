//! Just enough of the Chrome DevTools protocol to drive a page: start chromium headless with a
//! DevTools port, open a page target, and send it commands over a WebSocket (navigate, evaluate,
//! mouse clicks, screenshots). Waiting is polling with a generous deadline, never a timed check.

use std::io::{BufRead as _, BufReader};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use base64::Engine as _;
use serde_json::{json, Value};
use tungstenite::{Message, WebSocket};

/// How long a wait may take before the test fails (CI machines are slow and shared).
const DEADLINE: Duration = Duration::from_secs(60);

type Socket = WebSocket<TcpStream>;

/// A headless chromium and one page in it.
pub struct Browser {
    child: Child,
    page: Socket,
    next_id: u64,
    _profile: tempfile::TempDir,
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.page.close(None);
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn connect(url: &str) -> Socket {
    let rest = url.strip_prefix("ws://").unwrap();
    let host = &rest[..rest.find('/').unwrap()];
    let stream = TcpStream::connect(host).unwrap();
    let (socket, _) = tungstenite::client::client(url, stream).unwrap();
    socket
}

/// Send a command on `socket` and return its result, skipping events.
fn call(socket: &mut Socket, id: u64, method: &str, params: Value) -> Value {
    let msg = json!({ "id": id, "method": method, "params": params });
    socket.send(Message::text(msg.to_string())).unwrap();
    loop {
        let Message::Text(text) = socket.read().unwrap() else {
            continue;
        };
        let reply: Value = serde_json::from_str(text.as_str()).unwrap();
        if reply["id"].as_u64() == Some(id) {
            assert!(reply.get("error").is_none(), "{method}: {reply}");
            return reply["result"].clone();
        }
    }
}

impl Browser {
    /// Start `chromium` headless at a window of 1400×900 and open a blank page.
    pub fn start(chromium: &Path) -> Browser {
        let profile = tempfile::tempdir().unwrap();
        let mut child = Command::new(chromium)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--no-first-run",
                "--no-default-browser-check",
                "--window-size=1400,900",
                "--remote-debugging-port=0",
                "--remote-allow-origins=*",
            ])
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .arg("about:blank")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stderr = BufReader::new(child.stderr.take().unwrap());
        let mut line = String::new();
        let browser_ws = loop {
            line.clear();
            assert!(stderr.read_line(&mut line).unwrap() > 0, "chromium exited");
            if let Some(at) = line.find("ws://") {
                break line[at..].trim().to_owned();
            }
        };
        // Keep draining chromium's stderr so it never blocks on a full pipe.
        std::thread::spawn(move || for _ in stderr.lines() {});
        let mut browser = connect(&browser_ws);
        let target = call(
            &mut browser,
            1,
            "Target.createTarget",
            json!({ "url": "about:blank" }),
        );
        let target = target["targetId"].as_str().unwrap();
        let port_and_host = &browser_ws["ws://".len()..browser_ws.find("/devtools").unwrap()];
        let page = connect(&format!("ws://{port_and_host}/devtools/page/{target}"));
        let mut out = Browser {
            child,
            page,
            next_id: 1,
            _profile: profile,
        };
        out.send("Page.enable", json!({}));
        out
    }

    fn send(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        call(&mut self.page, self.next_id, method, params)
    }

    /// Open `url` and wait until its document has loaded.
    pub fn navigate(&mut self, url: &str) {
        self.eval("window.__salveOld = true");
        self.send("Page.navigate", json!({ "url": url }));
        self.wait_for_new_page();
    }

    /// Wait until a document that was not there when [`Browser::navigate`] or
    /// [`Browser::click_and_wait`] started has loaded.
    fn wait_for_new_page(&mut self) {
        self.wait_for("!window.__salveOld && document.readyState === 'complete'");
    }

    /// Click `selector` and wait for the page it leads to.
    pub fn click_and_wait(&mut self, selector: &str) {
        self.eval("window.__salveOld = true");
        self.click(selector);
        self.wait_for_new_page();
    }

    /// The value of a JavaScript expression.
    pub fn eval(&mut self, expression: &str) -> Value {
        let result = self.send(
            "Runtime.evaluate",
            json!({ "expression": expression, "returnByValue": true }),
        );
        result["result"]["value"].clone()
    }

    /// Wait until `expression` is true.
    pub fn wait_for(&mut self, expression: &str) {
        let start = Instant::now();
        while self.eval(&format!("!!({expression})")) != Value::Bool(true) {
            assert!(
                start.elapsed() < DEADLINE,
                "never became true: {expression}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Wait for an element matching `selector`.
    pub fn wait_for_element(&mut self, selector: &str) {
        self.wait_for(&format!("document.querySelector({})", json!(selector)));
    }

    /// How many elements match `selector`.
    pub fn count(&mut self, selector: &str) -> u64 {
        self.eval(&format!(
            "document.querySelectorAll({}).length",
            json!(selector)
        ))
        .as_u64()
        .unwrap_or(0)
    }

    /// The page's visible text.
    pub fn text(&mut self) -> String {
        self.eval("document.body.innerText")
            .as_str()
            .unwrap_or_default()
            .to_owned()
    }

    pub fn url(&mut self) -> String {
        self.eval("location.href")
            .as_str()
            .unwrap_or_default()
            .to_owned()
    }

    /// Click the middle of the element `selector` names with the mouse, as a person would.
    pub fn click(&mut self, selector: &str) {
        self.wait_for_element(selector);
        let rect = self.eval(&format!(
            "(() => {{ const e = document.querySelector({}); e.scrollIntoView({{block: 'center'}}); \
             const r = e.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; }})()",
            json!(selector)
        ));
        let (x, y) = (rect[0].as_f64().unwrap(), rect[1].as_f64().unwrap());
        for kind in ["mousePressed", "mouseReleased"] {
            self.send(
                "Input.dispatchMouseEvent",
                json!({ "type": kind, "x": x, "y": y, "button": "left", "clickCount": 1 }),
            );
        }
    }

    /// Lay the page out as a window `width` CSS pixels wide (a narrow window or a phone).
    pub fn set_width(&mut self, width: u32) {
        self.send(
            "Emulation.setDeviceMetricsOverride",
            json!({ "width": width, "height": 900, "deviceScaleFactor": 1, "mobile": false }),
        );
    }

    /// How far the page is wider than the window, in CSS pixels (0: no horizontal scrolling).
    pub fn horizontal_overflow(&mut self) -> f64 {
        self.eval(
            "Math.max(document.documentElement.scrollWidth, document.body.scrollWidth) \
             - document.documentElement.clientWidth",
        )
        .as_f64()
        .unwrap_or(f64::MAX)
    }

    /// Whether the first element `selector` names is shown, whole, within the window's width.
    pub fn visible_in_width(&mut self, selector: &str) -> bool {
        self.eval(&format!(
            "(() => {{ const e = document.querySelector({}); if (!e) return false; \
             const r = e.getBoundingClientRect(); const s = getComputedStyle(e); \
             return r.width > 0 && r.height > 0 && s.visibility !== 'hidden' && \
             r.left >= 0 && r.right <= document.documentElement.clientWidth; }})()",
            json!(selector)
        )) == Value::Bool(true)
    }

    /// A PNG of the whole page, saved at `path`.
    pub fn screenshot(&mut self, path: &Path) {
        let shot = self.send(
            "Page.captureScreenshot",
            json!({ "format": "png", "captureBeyondViewport": true }),
        );
        let png = base64::engine::general_purpose::STANDARD
            .decode(shot["data"].as_str().unwrap())
            .unwrap();
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, png).unwrap();
    }
}
