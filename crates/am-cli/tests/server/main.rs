//! `am serve` and `am mcp` as real child processes on 127.0.0.1: the verb
//! table over HTTP, exec lines, the replay stream as server-sent events,
//! the token, the limits, many clients on one home, SIGTERM, and an MCP
//! client session over stdio and over streamable HTTP, a night cancelled
//! through the jobs endpoint, and the operator page in a real browser
//! (docs/server.md).

mod http;
mod load;
mod mcp;
mod mcp_http;
mod night;
mod page;
mod webdriver;

use serde_json::{Value, json};
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// The `am` binary under test.
pub fn am() -> &'static str {
    env!("CARGO_BIN_EXE_am")
}

/// A running `am serve` child; killed when dropped.
pub struct Server {
    /// The process.
    pub child: Child,
    /// `http://127.0.0.1:PORT`.
    pub base: String,
    /// A client for the test's requests.
    pub client: reqwest::blocking::Client,
}

impl Server {
    /// Start `am --embedder none serve ARGS --addr 127.0.0.1:0`, with `env`
    /// set, and wait for its address.
    pub fn start(args: &[&str], env: &[(&str, &str)]) -> Server {
        Server::start_with(&["--embedder", "none"], args, env)
    }

    /// Start `am GLOBAL serve ARGS --addr 127.0.0.1:0` (GLOBAL: the global
    /// flags, `--embedder ...`), with `env` set.
    pub fn start_with(global: &[&str], args: &[&str], env: &[(&str, &str)]) -> Server {
        let mut cmd = Command::new(am());
        cmd.args(global)
            .args(["serve", "--addr", "127.0.0.1:0"])
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().expect("am serve starts");
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("stdout"))
            .read_line(&mut line)
            .expect("the address line");
        let addr = line
            .trim()
            .strip_prefix("am serve: listening on ")
            .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
            .to_owned();
        Server {
            child,
            base: addr,
            client: reqwest::blocking::Client::builder()
                .timeout(Duration::from_secs(60))
                .build()
                .expect("client"),
        }
    }

    /// Serve the one home at `path`.
    pub fn home(path: &Path) -> Server {
        Server::start(&["--home", path.to_str().expect("utf-8 path")], &[])
    }

    /// The URL of `rest` on this server.
    pub fn url(&self, rest: &str) -> String {
        format!("{}{rest}", self.base)
    }

    /// POST `body` (JSON) to `/v1/{home}/ops/{op}`: the status and the JSON answer.
    pub fn op(&self, home: &str, op: &str, body: &Value) -> (u16, Value) {
        let r = self
            .client
            .post(self.url(&format!("/v1/{home}/ops/{op}")))
            .body(body.to_string())
            .send()
            .expect("the request is answered");
        let status = r.status().as_u16();
        let v: Value = r.json().expect("a JSON answer");
        (status, v)
    }

    /// [`Server::op`] with the bearer token.
    pub fn op_with_token(&self, home: &str, op: &str, body: &Value, token: &str) -> (u16, Value) {
        let r = self
            .client
            .post(self.url(&format!("/v1/{home}/ops/{op}")))
            .bearer_auth(token)
            .body(body.to_string())
            .send()
            .expect("the request is answered");
        let status = r.status().as_u16();
        let v: Value = r.json().expect("a JSON answer");
        (status, v)
    }

    /// The home's journal seq.
    pub fn seq(&self, home: &str) -> i64 {
        let (s, v) = self.op(home, "current_seq", &json!({}));
        assert_eq!(s, 200, "{v}");
        v["ok"].as_i64().expect("a seq")
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The cargo target directory of this build (`$CARGO_TARGET_DIR` when set,
/// else the one holding the `am` binary under test): test artifacts go to
/// its `artifacts/`.
pub fn target_dir() -> std::path::PathBuf {
    if let Some(d) = std::env::var_os("CARGO_TARGET_DIR") {
        return d.into();
    }
    Path::new(am())
        .parent()
        .and_then(Path::parent)
        .expect("the am binary lives in <target>/<profile>/")
        .to_path_buf()
}

/// Build the demo home at `path` as `am demo --home` builds it.
pub fn demo_home(path: &Path) {
    let out = Command::new(am())
        .args(["--json", "demo", "--home"])
        .arg(path)
        .output()
        .expect("am demo runs");
    assert!(
        out.status.success(),
        "am demo: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A remember call's arguments.
pub fn remember(title: &str, key: &str) -> Value {
    json!({
        "record": {"kind": "episode", "title": title, "digest": format!("{title}, as it happened.")},
        "scope": "life",
        "owner_id": "me",
        "idempotency_key": key,
    })
}
