#!/usr/bin/env python3
"""salve ui on a large record (issue 29, section 1): per-request server time and the first view.

Builds two records with `salve import` (the JSON Lines `salve export` writes, so the database is
the one salve keeps): a small one (SMALL runs, default 23) and a large one (RUNS, default
100,000), folds each one's write-ahead log back with `salve gc --older-than never` (as a record
built run by run would be), starts `salve ui` on each, and measures in one run:

  1. the server's CPU time per request (utime + stime of the `salve ui` process over REQUESTS
     requests, divided by their number) and the median wall time of a request, for the live
     stamp every open tab polls each second, the timeline's first page and a run's page; then
     the ratio large / small (the bar: within 2x, that is independent of the record's size);
  2. the browser's first view of the timeline on the large record in headless Chromium over the
     DevTools protocol: DOMContentLoaded and time to first byte from the Navigation Timing entry,
     median of NAV fresh navigations (the bar: under 100 ms).

    scripts/bench-ui.py                        # 100,000 runs against 23
    RUNS=20000 REQUESTS=100 scripts/bench-ui.py
    SALVE=target/release/salve CHROMIUM=/usr/bin/chromium scripts/bench-ui.py

Without Chromium (scripts/install-ui-browser.sh installs it) part 2 says so and is skipped.
Only the standard library is used; the WebSocket client below is just enough for DevTools.
"""

import base64
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RUNS = int(os.environ.get("RUNS", "100000"))
SMALL = int(os.environ.get("SMALL", "23"))
REQUESTS = int(os.environ.get("REQUESTS", "300"))
NAV = int(os.environ.get("NAV", "15"))
ENV = dict(os.environ, GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL="/dev/null", LC_ALL="C")


def note(text):
    print(f"bench-ui: {text}", file=sys.stderr, flush=True)


def salve_binary():
    given = os.environ.get("SALVE")
    if given:
        return os.path.abspath(given)
    subprocess.run(["cargo", "build", "--release", "-q", "-p", "salve"], cwd=ROOT, check=True)
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
    return os.path.join(target, "release", "salve")


def iso(ms):
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ms // 1000)) + f".{ms % 1000:03d}Z"


def export_line(i, n, now):
    """One run as `salve export` writes it: apply, ask and fix runs, statuses mixed, one to
    three touched files, a model attempt for ask and fix."""
    t = now - (n - i) * 60_000
    run_id = f"{t:012x}{i:08x}"
    kind = ("apply", "ask", "fix")[i % 3]
    status = {"apply": ("applied", "refused", "checked"), "ask": ("applied", "no_change", "applied"),
              "fix": ("repaired", "exhausted", "passed_first_try")}[kind][i // 3 % 3]
    files = [{"path": f"src/mod{i % 50}/file{f}.rs", "change": "modify",
              "added": (i * 7 + f) % 40, "removed": (i * 3 + f) % 20} for f in range(i % 3 + 1)]
    rejected = status in ("refused", "no_change", "exhausted")
    attempts = []
    if kind != "apply":
        attempts.append({"seq": 1, "provider": "claude", "model": "sonnet",
                         "tokens_in": 1000 + i % 100, "tokens_out": 200, "cost_usd": 0.0125,
                         "latency_ms": 900})
    return json.dumps({
        "salve_export": 1,
        "run": {"id": run_id, "kind": kind, "command": ["salve", kind, f"reply-{i}.md"],
                "baseline": None, "checkpoint": None, "started_at": iso(t),
                "ended_at": iso(t + 150), "status": status,
                "files": 0 if rejected else len(files),
                "added": 0 if rejected else sum(f["added"] for f in files),
                "removed": 0 if rejected else sum(f["removed"] for f in files)},
        "patch_sets": [{"seq": 1, "files": files, "format": "unified",
                        "status": "rejected" if rejected else "applied"}],
        "attempts": attempts, "decisions": [], "artifacts": [],
    }, separators=(",", ":"))


def make_record(salve, scratch, n):
    repo = os.path.join(scratch, f"repo-{n}")
    os.makedirs(repo)
    subprocess.run(["git", "init", "-q", "-b", "main", repo], check=True, env=ENV)
    now = int(time.time() * 1000)
    path = os.path.join(scratch, f"runs-{n}.jsonl")
    with open(path, "w", encoding="utf-8") as out:
        for i in range(n):
            out.write(export_line(i, n, now) + "\n")
    started = time.monotonic()
    quiet = {"check": True, "env": ENV, "stdout": subprocess.DEVNULL,
             "stderr": subprocess.DEVNULL}
    subprocess.run([salve, "-C", repo, "import", path], **quiet)
    subprocess.run([salve, "-C", repo, "gc", "--older-than", "never"], **quiet)
    note(f"{n} runs imported in {time.monotonic() - started:.1f} s")
    return repo, f"{now - 60_000:012x}{n - 1:08x}"


class Ui:
    """`salve ui --port 0` in `repo`, and what a request needs to pass its guard."""

    def __init__(self, salve, repo):
        self.proc = subprocess.Popen([salve, "ui", "--port", "0"], cwd=repo, env=ENV,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        line = self.proc.stdout.readline().strip()
        if not line.startswith("salve ui: "):
            raise SystemExit(f"bench-ui: salve ui printed no URL: {line!r}")
        self.url = line[len("salve ui: "):]
        hostport = self.url.split("/")[2]
        self.host, port = hostport.split(":")
        self.port = int(port)
        self.origin = f"http://{hostport}"
        self.cookie = f"salve_ui_{self.port}={self.url.split('token=')[1]}"

    def get(self, target):
        with socket.create_connection((self.host, self.port)) as s:
            s.sendall(f"GET {target} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n"
                      f"Cookie: {self.cookie}\r\nConnection: close\r\n\r\n".encode())
            chunks = []
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    break
                chunks.append(chunk)
        answer = b"".join(chunks)
        if not answer.startswith(b"HTTP/1.1 200"):
            raise SystemExit(f"bench-ui: {target} answered {answer[:12]!r}")
        return answer

    def cpu_seconds(self):
        with open(f"/proc/{self.proc.pid}/stat", encoding="ascii") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def stop(self):
        self.proc.terminate()
        self.proc.wait()


def per_request(ui, target):
    """(server CPU ms per request, median wall ms, runs listed) over REQUESTS requests, after a
    warm-up."""
    for _ in range(19):
        ui.get(target)
    listed = ui.get(target).count(b'data-run="')
    walls = []
    cpu = ui.cpu_seconds()
    for _ in range(REQUESTS):
        t = time.perf_counter()
        ui.get(target)
        walls.append(time.perf_counter() - t)
    cpu = ui.cpu_seconds() - cpu
    return cpu * 1000 / REQUESTS, statistics.median(walls) * 1000, listed


# --- just enough WebSocket and DevTools ----------------------------------------------------------

class Socket:
    def __init__(self, url):
        hostport, path = url[len("ws://"):].split("/", 1)
        host, port = hostport.split(":")
        self.sock = socket.create_connection((host, int(port)))
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall(f"GET /{path} HTTP/1.1\r\nHost: {hostport}\r\nUpgrade: websocket\r\n"
                          f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                          "Sec-WebSocket-Version: 13\r\n\r\n".encode())
        head = b""
        while b"\r\n\r\n" not in head:
            head += self.sock.recv(1)
        if b" 101 " not in head.split(b"\r\n")[0]:
            raise SystemExit(f"bench-ui: no WebSocket: {head!r}")
        self.next_id = 0

    def _exact(self, n):
        out = b""
        while len(out) < n:
            chunk = self.sock.recv(n - len(out))
            if not chunk:
                raise SystemExit("bench-ui: the browser closed the connection")
            out += chunk
        return out

    def send(self, text):
        data = text.encode()
        mask = os.urandom(4)
        n = len(data)
        if n < 126:
            head = bytes([0x81, 0x80 | n])
        elif n < 65536:
            head = bytes([0x81, 0x80 | 126]) + n.to_bytes(2, "big")
        else:
            head = bytes([0x81, 0x80 | 127]) + n.to_bytes(8, "big")
        self.sock.sendall(head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data)))

    def receive(self):
        message = b""
        while True:
            b0, b1 = self._exact(2)
            n = b1 & 0x7F
            if n == 126:
                n = int.from_bytes(self._exact(2), "big")
            elif n == 127:
                n = int.from_bytes(self._exact(8), "big")
            payload = self._exact(n)
            if b0 & 0x0F in (0x1, 0x0):
                message += payload
                if b0 & 0x80:
                    return message.decode()

    def call(self, method, params=None):
        self.next_id += 1
        self.send(json.dumps({"id": self.next_id, "method": method, "params": params or {}}))
        while True:
            reply = json.loads(self.receive())
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise SystemExit(f"bench-ui: {method}: {reply['error']}")
                return reply.get("result", {})

    def eval(self, expression):
        result = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        return result.get("result", {}).get("value")


def chromium_binary():
    given = os.environ.get("CHROMIUM")
    if given:
        return given
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


def navigate(page, url):
    page.eval("window.__benchOld = true")
    page.call("Page.navigate", {"url": url})
    deadline = time.monotonic() + 60
    while not page.eval("!window.__benchOld && document.readyState === 'complete'"):
        if time.monotonic() > deadline:
            raise SystemExit(f"bench-ui: {url} never loaded")
        time.sleep(0.02)


def first_views(chromium, ui, scratch):
    """Navigation Timing of NAV fresh loads of the timeline: (DOMContentLoaded, TTFB) in ms."""
    profile = tempfile.mkdtemp(dir=scratch)
    browser = subprocess.Popen(
        [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
         "--no-first-run", "--no-default-browser-check", "--window-size=1400,900",
         "--remote-debugging-port=0", "--remote-allow-origins=*", f"--user-data-dir={profile}",
         "about:blank"],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        while True:
            line = browser.stderr.readline()
            if not line:
                raise SystemExit("bench-ui: chromium exited")
            if "ws://" in line:
                ws = line[line.index("ws://"):].strip()
                break
        top = Socket(ws)
        target = top.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        hostport = ws[len("ws://"):].split("/")[0]
        page = Socket(f"ws://{hostport}/devtools/page/{target}")
        page.call("Page.enable")
        navigate(page, ui.url)  # the token becomes a cookie
        timings = []
        for _ in range(NAV):
            navigate(page, ui.origin + "/")
            entry = page.eval("(() => { const e = performance.getEntriesByType('navigation')[0]; "
                              "return [e.domContentLoadedEventEnd, e.responseStart, "
                              "document.querySelectorAll('tr[data-run]').length]; })()")
            if entry[2] == 0:
                raise SystemExit("bench-ui: the timeline listed no run")
            timings.append((entry[0], entry[1]))
        return timings
    finally:
        browser.terminate()
        browser.wait()


def main():
    salve = salve_binary()
    scratch = tempfile.mkdtemp(prefix="bench-ui-")
    try:
        records = {n: make_record(salve, scratch, n) for n in (SMALL, RUNS)}
        results = {}
        views = None
        for n, (repo, newest) in records.items():
            ui = Ui(salve, repo)
            try:
                results[n] = {
                    "live stamp (/api/version)": per_request(ui, "/api/version"),
                    "timeline, first page (/)": per_request(ui, "/"),
                    "a run's page (/run/ID)": per_request(ui, f"/run/{newest}"),
                }
                if n == RUNS:
                    chromium = chromium_binary()
                    if chromium:
                        views = first_views(chromium, ui, scratch)
                    else:
                        views = None
                        note("chromium not found: the first view is not measured "
                             "(scripts/install-ui-browser.sh installs it)")
            finally:
                ui.stop()
        print(f"salve ui, {REQUESTS} requests each: server CPU per request (wall median)")
        print(f"{'request':<30} {SMALL:>8} runs {RUNS:>10} runs    ratio")
        for name in results[SMALL]:
            (cs, ws, ns), (cl, wl, nl) = results[SMALL][name], results[RUNS][name]
            ratio = cl / cs if cs > 0 else float("inf")
            print(f"{name:<30} {cs:6.2f} ms ({ws:5.2f}) {cl:8.2f} ms ({wl:5.2f})  {ratio:5.2f}x")
            if ns and nl and ns != nl:
                # A page lists up to 50 runs: a small record fills fewer rows.
                per_s, per_l = cs / ns, cl / nl
                label = f"  per run listed ({ns} / {nl})"
                print(f"{label:<30} {per_s:6.3f} ms {'':7} {per_l:8.3f} ms {'':7}  "
                      f"{per_l / per_s if per_s > 0 else float('inf'):5.2f}x")
        if views:
            dcl = statistics.median(v[0] for v in views)
            ttfb = statistics.median(v[1] for v in views)
            print(f"first timeline view, {RUNS} runs, {len(views)} navigations: "
                  f"DOMContentLoaded median {dcl:.1f} ms (worst {max(v[0] for v in views):.1f}), "
                  f"time to first byte median {ttfb:.1f} ms")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
