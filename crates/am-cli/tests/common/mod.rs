//! Shared helpers of the `am` integration tests: run the built binary with
//! arguments and standard input, and read its exit code and output.

#![allow(dead_code, reason = "each test binary uses a different subset")]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// What one `am` run answered.
#[derive(Debug)]
pub(crate) struct Out {
    /// The exit code (-1 when killed by a signal).
    pub code: i32,
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
}

impl Out {
    /// Standard output parsed as one JSON value.
    pub(crate) fn json(&self) -> serde_json::Value {
        serde_json::from_str(self.stdout.trim())
            .unwrap_or_else(|e| panic!("stdout is not one JSON value ({e}): {}", self.stdout))
    }

    /// Assert a clean refusal: the exit code, a message on stderr, no panic.
    pub(crate) fn assert_refused(&self, code: i32, needle: &str) {
        assert_eq!(self.code, code, "exit code; stderr: {}", self.stderr);
        assert!(!self.stderr.contains("panicked"), "panic: {}", self.stderr);
        assert!(
            self.stderr.to_lowercase().contains(&needle.to_lowercase()),
            "stderr lacks {needle:?}: {}",
            self.stderr
        );
    }
}

/// Run `am args...` with `stdin` as standard input.
pub(crate) fn am_with_input(args: &[&str], stdin: &str) -> Out {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_am"));
    cmd.args(args);
    run_with_input(cmd, stdin)
}

/// Run `cmd` (an `am` command with its arguments and environment) with
/// `stdin` as its standard input.
pub(crate) fn run_with_input(mut cmd: Command, stdin: &str) -> Out {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the am binary runs");
    child
        .stdin
        .take()
        .expect("stdin is piped")
        .write_all(stdin.as_bytes())
        .expect("stdin accepts the input");
    let out = child.wait_with_output().expect("am finishes");
    Out {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Run `am args...` with empty standard input.
pub(crate) fn am(args: &[&str]) -> Out {
    am_with_input(args, "")
}

/// The shipped demo conversation.
pub(crate) fn demo_conversation() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("data/demo-conversation.jsonl")
}

/// The bytes and modification time of a file.
pub(crate) fn fingerprint(path: &Path) -> (Vec<u8>, std::time::SystemTime) {
    let bytes = std::fs::read(path).expect("the file reads");
    let mtime = std::fs::metadata(path)
        .and_then(|m| m.modified())
        .expect("the file has an mtime");
    (bytes, mtime)
}

/// A home holding the demo conversation (ingested with the offline embedder).
pub(crate) fn demo_home(dir: &Path) -> PathBuf {
    demo_home_with(dir, "home.sqlite3", "offline")
}

/// A home `name` in `dir` holding the demo conversation in `life:demo`,
/// ingested with `embedder`.
pub(crate) fn demo_home_with(dir: &Path, name: &str, embedder: &str) -> PathBuf {
    let home = dir.join(name);
    let conv = demo_conversation();
    let out = am(&[
        "--embedder",
        embedder,
        "ingest",
        "--home",
        home.to_str().expect("utf-8 path"),
        "--format",
        "jsonl",
        "--scope",
        "life:demo",
        conv.to_str().expect("utf-8 path"),
        "--json",
    ]);
    assert_eq!(out.code, 0, "ingest: {}", out.stderr);
    home
}
