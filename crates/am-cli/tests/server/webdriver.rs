//! A headless Chromium driven over the W3C WebDriver protocol: chromedriver
//! as a child process, spoken to as JSON over HTTP with the blocking
//! `reqwest` client the suite already has. The handful of commands the page
//! test needs (new session, navigate, execute a script, screenshot, delete
//! session) did not justify a WebDriver client crate and its async tree.
//!
//! Debian's `chromium` and `chromium-driver` (`cargo xtask test` and
//! `.ci/run` install them); `AM_CHROMIUM` / `AM_CHROMEDRIVER` name others.
//! Missing, the test fails saying so: CI must run it, so it never skips.

use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fn find(var: &str, names: &[&str]) -> Option<PathBuf> {
    if let Some(p) = std::env::var_os(var) {
        return Some(PathBuf::from(p));
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .flat_map(|d| names.iter().map(move |n| d.join(n)))
        .find(|p| p.is_file())
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

/// A browser session; the session is deleted and chromedriver killed when
/// dropped.
pub(crate) struct Browser {
    driver: Child,
    base: String,
    session: String,
    http: reqwest::blocking::Client,
}

impl Browser {
    /// Start chromedriver and a headless Chromium session (1400 × 1000).
    pub(crate) fn start() -> Browser {
        let missing = "the operator page's test drives a real browser: it needs Debian's chromium and \
                       chromium-driver (apt-get install -y chromium chromium-driver; `cargo xtask test` and \
                       .ci/run install them), or AM_CHROMIUM / AM_CHROMEDRIVER naming the binaries";
        let chromium = find("AM_CHROMIUM", &["chromium", "chromium-browser"])
            .unwrap_or_else(|| panic!("chromium not found: {missing}"));
        let driver_bin = find("AM_CHROMEDRIVER", &["chromedriver"])
            .unwrap_or_else(|| panic!("chromedriver not found: {missing}"));
        let port = free_port();
        let driver = Command::new(&driver_bin)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", driver_bin.display()));
        let http = reqwest::blocking::Client::builder()
            .timeout(Duration::from_secs(60))
            .build()
            .expect("client");
        let base = format!("http://127.0.0.1:{port}");
        let t0 = Instant::now();
        loop {
            let ready = http
                .get(format!("{base}/status"))
                .send()
                .ok()
                .and_then(|r| r.json::<Value>().ok())
                .is_some_and(|v| v["value"]["ready"] == true);
            if ready {
                break;
            }
            assert!(
                t0.elapsed() < Duration::from_secs(20),
                "chromedriver did not become ready"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        let caps = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": chromium,
                "args": ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                         "--no-first-run", "--disable-dev-shm-usage", "--window-size=1400,1000"]
            }
        }}});
        let mut b = Browser {
            driver,
            base,
            session: String::new(),
            http,
        };
        let v = b.command("POST", "/session", &caps);
        b.session = v["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("no session: {v}"))
            .to_owned();
        b
    }

    fn command(&self, method: &str, path: &str, body: &Value) -> Value {
        let url = format!("{}{path}", self.base);
        let req = match method {
            "POST" => self.http.post(url).json(body),
            "DELETE" => self.http.delete(url),
            _ => self.http.get(url),
        };
        let r = req
            .send()
            .unwrap_or_else(|e| panic!("webdriver {path}: {e}"));
        let status = r.status();
        let v: Value = r.json().expect("a WebDriver answer is JSON");
        assert!(status.is_success(), "webdriver {method} {path}: {v}");
        v["value"].clone()
    }

    fn at(&self, rest: &str) -> String {
        format!("/session/{}{rest}", self.session)
    }

    /// Navigate to `url`.
    pub(crate) fn goto(&self, url: &str) {
        self.command("POST", &self.at("/url"), &json!({"url": url}));
    }

    /// Run `script` (a function body; `arguments` holds `args`) in the page.
    pub(crate) fn eval(&self, script: &str, args: &[Value]) -> Value {
        self.command(
            "POST",
            &self.at("/execute/sync"),
            &json!({"script": script, "args": args}),
        )
    }

    /// The text of the element `selector` (empty when there is none).
    pub(crate) fn text(&self, selector: &str) -> String {
        self.eval(
            "const e = document.querySelector(arguments[0]); return e ? e.textContent : '';",
            &[json!(selector)],
        )
        .as_str()
        .unwrap_or_default()
        .to_owned()
    }

    /// Wait until `ok` holds of the element `selector`'s text, at most
    /// `limit`; the last text seen either way.
    pub(crate) fn wait_text(
        &self,
        selector: &str,
        limit: Duration,
        ok: impl Fn(&str) -> bool,
    ) -> (bool, String) {
        let t0 = Instant::now();
        loop {
            let t = self.text(selector);
            if ok(&t) {
                return (true, t);
            }
            if t0.elapsed() > limit {
                return (false, t);
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Save a PNG screenshot of the window at `path`.
    pub(crate) fn screenshot(&self, path: &Path) {
        let v = self.command("GET", &self.at("/screenshot"), &Value::Null);
        let png = decode_base64(v.as_str().expect("a base64 screenshot"));
        assert!(png.starts_with(b"\x89PNG"), "the screenshot is a PNG");
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).expect("the artifacts directory");
        }
        std::fs::write(path, png).expect("the screenshot is written");
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        if !self.session.is_empty() {
            let _ = self
                .http
                .delete(format!("{}/session/{}", self.base, self.session))
                .send();
        }
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}

/// Standard base64 (with padding), as WebDriver sends a screenshot.
fn decode_base64(s: &str) -> Vec<u8> {
    let val = |c: u8| -> u32 {
        match c {
            b'A'..=b'Z' => u32::from(c - b'A'),
            b'a'..=b'z' => u32::from(c - b'a') + 26,
            b'0'..=b'9' => u32::from(c - b'0') + 52,
            b'+' => 62,
            b'/' => 63,
            _ => panic!("not base64: {c}"),
        }
    };
    let bytes: Vec<u8> = s
        .bytes()
        .filter(|c| !c.is_ascii_whitespace() && *c != b'=')
        .collect();
    let mut out = Vec::with_capacity(bytes.len() * 3 / 4);
    for chunk in bytes.chunks(4) {
        let mut n = 0u32;
        for (i, c) in chunk.iter().enumerate() {
            n |= val(*c) << (18 - 6 * i);
        }
        let take = chunk.len() - 1;
        for i in 0..take {
            out.push((n >> (16 - 8 * i)) as u8);
        }
    }
    out
}

#[test]
fn base64_decodes_as_webdriver_encodes() {
    assert_eq!(decode_base64("aGVsbG8="), b"hello");
    assert_eq!(decode_base64("aGk="), b"hi");
    assert_eq!(decode_base64("YWJj"), b"abc");
}
