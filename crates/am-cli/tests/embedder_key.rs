//! Issue 37: a served embedder's API key comes from an environment variable
//! (`--embedder-key-env NAME`, default `OPENAI_API_KEY` for `openai:`), never
//! from the command line, and a 401 names that variable and the flag. Against
//! a real HTTP server on 127.0.0.1 that wants `Authorization: Bearer`.

mod common;
#[path = "../../am-embed/tests/support/mod.rs"]
mod support;

use serde_json::json;
use std::process::Command;
use support::{Reply, TestServer};

fn server() -> TestServer {
    TestServer::start(|r| {
        if r.header("authorization") != Some("Bearer sekrit") {
            return Reply::Json(401, json!({"error": {"message": "bad key"}}));
        }
        let n = r.inputs().len();
        let data: Vec<_> = (0..n)
            .map(|i| json!({"index": i, "embedding": [1.0, 0.5, i as f64 + 1.0]}))
            .collect();
        Reply::Json(200, json!({"data": data}))
    })
}

fn exec(url: &str, env: &[(&str, &str)], extra: &[&str]) -> common::Out {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("h.sqlite3");
    let spec = format!("openai:{url}#test-model");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_am"));
    cmd.args(["--embedder", &spec])
        .args(extra)
        .args(["exec", "--home", home.to_str().unwrap(), "-"])
        .env_remove("OPENAI_API_KEY")
        .env_remove("MY_KEY");
    for (k, v) in env {
        cmd.env(k, v);
    }
    common::run_with_input(
        cmd,
        r#"{"op": "remember", "record": {"kind": "episode", "title": "t", "digest": "Ada signed the lease."}, "scope": "life", "owner_id": "a", "idempotency_key": "k"}"#,
    )
}

#[test]
fn the_key_comes_from_openai_api_key_by_default() {
    let s = server();
    let out = exec(&s.url(), &[("OPENAI_API_KEY", "sekrit")], &[]);
    assert!(
        out.stdout.contains(r#""ok":"ex:episode-"#),
        "{} {}",
        out.stdout,
        out.stderr
    );
}

#[test]
fn embedder_key_env_names_another_variable() {
    let s = server();
    let out = exec(
        &s.url(),
        &[("MY_KEY", "sekrit"), ("OPENAI_API_KEY", "wrong")],
        &["--embedder-key-env", "MY_KEY"],
    );
    assert!(
        out.stdout.contains(r#""ok":"ex:episode-"#),
        "{} {}",
        out.stdout,
        out.stderr
    );
}

#[test]
fn a_401_names_the_variable_and_the_flag() {
    let s = server();
    let out = exec(&s.url(), &[], &[]);
    assert!(
        out.stdout.contains(r#""kind":"Embedder""#),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("OPENAI_API_KEY, which is not set")
            && out.stdout.contains("--embedder-key-env"),
        "{}",
        out.stdout
    );
    let out = exec(
        &s.url(),
        &[("MY_KEY", "wrong")],
        &["--embedder-key-env", "MY_KEY"],
    );
    assert!(
        out.stdout
            .contains("rejected the key in the environment variable MY_KEY"),
        "{}",
        out.stdout
    );
}
