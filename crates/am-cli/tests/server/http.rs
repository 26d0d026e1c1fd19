//! The HTTP routes: every op reachable, the session ops and path-like names
//! refused, `?create=true`, exec lines, the token, the limits, SSE resume,
//! SIGTERM.

use crate::{Server, am, remember};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader};
use std::time::{Duration, Instant};

#[test]
fn every_op_of_the_table_is_reachable_over_http() {
    let dir = tempfile::tempdir().unwrap();
    let s = Server::home(&dir.path().join("h.sqlite3"));
    let (st, _) = s.op("h", "remember", &remember("Seed", "seed"));
    assert_eq!(st, 200);
    let mut reached = 0;
    for verb in am_ops::table() {
        let (status, v) = s.op("h", verb.name, &json!({}));
        assert_eq!(v["op"], json!(verb.name), "{v}");
        if matches!(verb.name, "clock" | "reopen") {
            assert_eq!(status, 422, "{v}");
            continue;
        }
        if status == 200 {
            assert!(v.get("ok").is_some(), "{v}");
        } else {
            let msg = v["error"]["message"].as_str().unwrap_or_default();
            assert!(!msg.starts_with("unknown op"), "{}: {v}", verb.name);
            assert!(v["error"]["kind"].is_string(), "{v}");
        }
        reached += 1;
    }
    assert_eq!(reached, am_ops::table().len() - 2);
}

#[test]
fn the_session_ops_clock_and_reopen_are_refused_over_http_and_in_exec_lines() {
    let dir = tempfile::tempdir().unwrap();
    let s = Server::home(&dir.path().join("h.sqlite3"));
    let before = s.seq("h");
    for op in ["clock", "reopen"] {
        let (status, v) = s.op("h", op, &json!({}));
        assert_eq!(status, 422, "{v}");
        assert_eq!(v["error"]["kind"], "Unsupported");
        assert!(
            v["error"]["message"]
                .as_str()
                .unwrap()
                .contains("session-only"),
            "{v}"
        );
    }
    let text = s
        .client
        .post(s.url("/v1/h/exec"))
        .body("{\"op\": \"reopen\", \"id\": 1}\n")
        .send()
        .unwrap()
        .text()
        .unwrap();
    let line: Value = serde_json::from_str(text.trim()).unwrap();
    assert_eq!(line["error"]["kind"], "Unsupported", "{line}");
    assert_eq!(s.seq("h"), before);
}

#[test]
fn an_unknown_op_is_refused_naming_the_known_ones() {
    let dir = tempfile::tempdir().unwrap();
    let s = Server::home(&dir.path().join("h.sqlite3"));
    let (status, v) = s.op("h", "no_such_op", &json!({}));
    assert_eq!(status, 400);
    assert_eq!(v["error"]["kind"], "InvalidInput");
    assert!(v["error"]["message"].as_str().unwrap().contains("remember"));
}

#[test]
fn a_home_name_that_is_a_path_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let s = Server::start(&["--homes", dir.path().to_str().unwrap()], &[]);
    // (A `..` segment, plain or %2E-encoded, is resolved away by the URL
    // parser before it is sent: such a request never names a home.)
    for name in ["a..b", ".hidden", "a%2Fb", "a%5Cb", "a b"] {
        let r = s
            .client
            .post(s.url(&format!("/v1/{name}/ops/remember?create=true")))
            .body(remember("x", "x").to_string())
            .send()
            .unwrap();
        assert_eq!(r.status().as_u16(), 400, "{name}");
        let v: Value = r.json().unwrap();
        assert!(
            v["error"]["message"]
                .as_str()
                .unwrap()
                .contains("plain file stem"),
            "{name}: {v}"
        );
    }
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn a_new_home_is_created_only_by_a_write_with_create_true() {
    let dir = tempfile::tempdir().unwrap();
    let s = Server::start(&["--homes", dir.path().to_str().unwrap()], &[]);
    let file = dir.path().join("fresh.sqlite3");
    let (st, v) = s.op("fresh", "current_seq", &json!({}));
    assert_eq!((st, &v["error"]["kind"]), (404, &json!("NotFound")), "{v}");
    let (st, _) = s.op("fresh", "remember", &remember("A", "a"));
    assert_eq!(st, 404, "a write without ?create=true creates nothing");
    assert!(!file.exists());
    let r = s
        .client
        .post(s.url("/v1/fresh/ops/current_seq?create=true"))
        .send()
        .unwrap();
    assert_eq!(r.status().as_u16(), 404, "a read never creates a home");
    assert!(!file.exists());
    let r = s
        .client
        .post(s.url("/v1/fresh/ops/remember?create=true"))
        .body(remember("A", "a").to_string())
        .send()
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    assert!(file.exists());
    assert_eq!(s.seq("fresh"), 1);
}

#[test]
fn exec_lines_in_answer_one_line_each_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let s = Server::home(&dir.path().join("h.sqlite3"));
    let mut body = String::new();
    body.push_str(&format!(
        "{}\n",
        json!({"id": 1, "op": "remember"})
            .as_object()
            .map_or(String::new(), |m| {
                let mut m = m.clone();
                m.extend(remember("One", "one").as_object().unwrap().clone());
                Value::Object(m).to_string()
            })
    ));
    body.push_str("# a comment\n\n{\"id\": 2, \"op\": \"current_seq\"}\nnot json\n");
    let r = s
        .client
        .post(s.url("/v1/h/exec"))
        .body(body)
        .send()
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    let lines: Vec<Value> = r
        .text()
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[0]["id"], 1);
    assert!(lines[0]["ok"].is_string());
    assert_eq!(lines[1]["ok"], 1);
    assert_eq!(lines[2]["error"]["kind"], "InvalidInput");
}

#[test]
fn without_the_token_a_request_is_refused_with_401_and_healthz_stays_open() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("h.sqlite3");
    let s = Server::start(
        &[
            "--home",
            home.to_str().unwrap(),
            "--token-env",
            "AM_TEST_TOKEN",
        ],
        &[("AM_TEST_TOKEN", "s3cret-token")],
    );
    let url = s.url("/v1/h/ops/remember");
    let none = s
        .client
        .post(&url)
        .body(remember("A", "a").to_string())
        .send()
        .unwrap();
    assert_eq!(none.status().as_u16(), 401);
    assert_eq!(none.headers()["www-authenticate"], "Bearer");
    let wrong = s
        .client
        .post(&url)
        .bearer_auth("s3cret-tokem")
        .body(remember("A", "a").to_string())
        .send()
        .unwrap();
    assert_eq!(wrong.status().as_u16(), 401);
    let replay = s
        .client
        .get(s.url("/v1/h/replay?follow=false"))
        .send()
        .unwrap();
    assert_eq!(replay.status().as_u16(), 401);
    assert_eq!(
        s.client
            .get(s.url("/healthz"))
            .send()
            .unwrap()
            .status()
            .as_u16(),
        200
    );
    let seq = |s: &Server| -> i64 {
        let r = s
            .client
            .post(s.url("/v1/h/ops/current_seq"))
            .bearer_auth("s3cret-token")
            .send()
            .unwrap();
        assert_eq!(r.status().as_u16(), 200);
        r.json::<Value>().unwrap()["ok"].as_i64().unwrap()
    };
    assert_eq!(seq(&s), 0, "the refused write wrote nothing");
    let ok = s
        .client
        .post(&url)
        .bearer_auth("s3cret-token")
        .body(remember("A", "a").to_string())
        .send()
        .unwrap();
    assert_eq!(ok.status().as_u16(), 200);
    assert_eq!(seq(&s), 1);
}

#[test]
fn a_non_loopback_address_without_a_token_is_refused_at_start() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("h.sqlite3");
    let out = std::process::Command::new(am())
        .args(["--embedder", "none", "serve", "--home"])
        .arg(&home)
        .args(["--addr", "0.0.0.0:0"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--token-env"));
    assert!(!home.exists(), "nothing was opened");
}

#[test]
fn oversized_and_malformed_bodies_are_refused_with_nothing_written() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("h.sqlite3");
    let s = Server::start(
        &[
            "--home",
            home.to_str().unwrap(),
            "--max-body-bytes",
            "4096",
            "--max-line-bytes",
            "1024",
        ],
        &[],
    );
    let before = s.seq("h");
    let post = |path: &str, body: Vec<u8>| {
        s.client
            .post(s.url(path))
            .body(body)
            .send()
            .unwrap()
            .status()
            .as_u16()
    };
    let big = remember(&"x".repeat(5000), "big").to_string().into_bytes();
    assert_eq!(post("/v1/h/ops/remember", big.clone()), 413);
    assert_eq!(post("/v1/h/ops/remember", b"{\"record\": ".to_vec()), 400);
    assert_eq!(post("/v1/h/ops/remember", b"[1, 2]".to_vec()), 400);
    assert_eq!(post("/v1/h/ops/remember", b"\xff\xfe".to_vec()), 400);
    // An exec body whose first line is a good write and a later line is
    // too long: refused whole, the good line not run.
    let mut m = remember("Fine", "fine");
    m["op"] = json!("remember");
    let body = format!(
        "{m}\n{{\"op\": \"current_seq\", \"pad\": \"{}\"}}\n",
        "y".repeat(2000)
    );
    assert_eq!(post("/v1/h/exec", body.into_bytes()), 413);
    assert_eq!(post("/v1/h/exec", big), 413);
    assert_eq!(post("/v1/h/exec", b"\xff\n".to_vec()), 400);
    assert_eq!(s.seq("h"), before, "nothing was written");
    let (st, v) = s.op("h", "query", &json!({"q": {}}));
    assert_eq!(st, 200, "{v}");
    assert_eq!(v["ok"].as_array().map(Vec::len), Some(0), "{v}");
}

/// Read SSE events from `r` until `stop` says enough: the (id, seq in data) pairs.
fn read_events(
    r: reqwest::blocking::Response,
    mut stop: impl FnMut(&[(i64, i64)]) -> bool,
) -> Vec<(i64, i64)> {
    let mut seen = Vec::new();
    let mut id = None;
    let mut data = None;
    let mut reader = BufReader::new(r);
    let mut line = String::new();
    loop {
        line.clear();
        if reader.read_line(&mut line).unwrap() == 0 {
            return seen;
        }
        let l = line.trim_end_matches(['\n', '\r']);
        if let Some(v) = l.strip_prefix("id: ") {
            id = Some(v.parse::<i64>().unwrap());
        } else if let Some(v) = l.strip_prefix("data: ") {
            data = Some(serde_json::from_str::<Value>(v).unwrap());
        } else if l.is_empty()
            && let (Some(i), Some(d)) = (id.take(), data.take())
        {
            seen.push((i, d["seq"].as_i64().unwrap()));
            if stop(&seen) {
                return seen;
            }
        }
    }
}

#[test]
fn the_replay_stream_resumes_after_a_dropped_connection_losing_and_repeating_no_envelope() {
    let dir = tempfile::tempdir().unwrap();
    let s = Server::home(&dir.path().join("h.sqlite3"));
    for i in 0..6 {
        s.op(
            "h",
            "remember",
            &remember(&format!("Before {i}"), &format!("b{i}")),
        );
    }
    // First connection: read three envelopes, then drop it.
    let r = s.client.get(s.url("/v1/h/replay")).send().unwrap();
    assert_eq!(r.status().as_u16(), 200);
    assert_eq!(r.headers()["content-type"], "text/event-stream");
    let first = read_events(r, |seen| seen.len() == 3);
    let last = first.last().unwrap().0;
    // Resume with Last-Event-ID; writes land while the stream follows.
    let r = s
        .client
        .get(s.url("/v1/h/replay"))
        .header("Last-Event-ID", last.to_string())
        .send()
        .unwrap();
    let writer = {
        let base = s.base.clone();
        std::thread::spawn(move || {
            let c = reqwest::blocking::Client::new();
            for i in 0..5 {
                std::thread::sleep(Duration::from_millis(30));
                let r = c
                    .post(format!("{base}/v1/h/ops/remember"))
                    .body(remember(&format!("Live {i}"), &format!("l{i}")).to_string())
                    .send()
                    .unwrap();
                assert_eq!(r.status().as_u16(), 200);
            }
        })
    };
    let t0 = Instant::now();
    let second = read_events(r, |seen| {
        seen.len() >= 8 || t0.elapsed() > Duration::from_secs(20)
    });
    writer.join().unwrap();
    let mut all: Vec<i64> = first.iter().chain(&second).map(|(id, _)| *id).collect();
    for (id, seq) in first.iter().chain(&second) {
        assert_eq!(id, seq, "the event id is the envelope's seq");
    }
    let whole: Vec<i64> = read_events(
        s.client
            .get(s.url("/v1/h/replay?follow=false"))
            .send()
            .unwrap(),
        |_| false,
    )
    .into_iter()
    .map(|(id, _)| id)
    .collect();
    assert_eq!(whole.len(), 11, "{whole:?}");
    assert_eq!(all, whole, "no envelope lost, none repeated, in seq order");
    all.dedup();
    assert_eq!(all.len(), 11);
}

#[test]
fn a_replay_anchor_outside_the_journal_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let s = Server::home(&dir.path().join("h.sqlite3"));
    for (h, v) in [("Last-Event-ID", "7"), ("Last-Event-ID", "x")] {
        let r = s
            .client
            .get(s.url("/v1/h/replay"))
            .header(h, v)
            .send()
            .unwrap();
        assert_eq!(r.status().as_u16(), 400, "{v}");
    }
    let r = s
        .client
        .get(s.url("/v1/h/replay?families=nope"))
        .send()
        .unwrap();
    assert_eq!(r.status().as_u16(), 400);
}

#[test]
#[allow(unsafe_code, reason = "libc::kill sends SIGTERM to our own child")]
fn sigterm_stops_the_server_and_it_exits_0_with_every_answered_write_kept() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("h.sqlite3");
    let mut s = Server::home(&home);
    for i in 0..5 {
        let (st, _) = s.op(
            "h",
            "remember",
            &remember(&format!("K {i}"), &format!("k{i}")),
        );
        assert_eq!(st, 200);
    }
    // A live replay stream must not hold the shutdown open.
    let stream = s.client.get(s.url("/v1/h/replay")).send().unwrap();
    let pid = s.child.id() as i32;
    // SAFETY: kill(2) on our own child's pid.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGTERM) }, 0);
    let t0 = Instant::now();
    let status = loop {
        if let Some(st) = s.child.try_wait().unwrap() {
            break st;
        }
        assert!(
            t0.elapsed() < Duration::from_secs(15),
            "the server did not stop"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(status.code(), Some(0));
    drop(stream);
    let out = std::process::Command::new(am())
        .args(["--embedder", "none", "exec", "--home"])
        .arg(&home)
        .arg("-")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            use std::io::Write;
            c.stdin
                .take()
                .unwrap()
                .write_all(b"{\"op\": \"current_seq\"}\n")?;
            c.wait_with_output()
        })
        .unwrap();
    let line: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(line["ok"], 5, "{line}");
}

/// Read a job's SSE events (id, event name, data) to the end of the stream.
fn job_events(s: &Server, id: &str, last: Option<usize>) -> Vec<(usize, String, Value)> {
    let mut req = s.client.get(s.url(&format!("/v1/h/jobs/{id}/events")));
    if let Some(l) = last {
        req = req.header("Last-Event-ID", l.to_string());
    }
    let r = req.send().unwrap();
    assert_eq!(r.status().as_u16(), 200);
    let mut out = Vec::new();
    let (mut eid, mut name, mut data) = (None, None, None);
    for line in BufReader::new(r).lines() {
        let line = line.unwrap();
        if let Some(v) = line.strip_prefix("id: ") {
            eid = Some(v.parse::<usize>().unwrap());
        } else if let Some(v) = line.strip_prefix("event: ") {
            name = Some(v.to_owned());
        } else if let Some(v) = line.strip_prefix("data: ") {
            data = Some(serde_json::from_str::<Value>(v).unwrap());
        } else if line.is_empty()
            && let (Some(i), Some(n), Some(d)) = (eid.take(), name.take(), data.take())
        {
            out.push((i, n, d));
        }
    }
    out
}

#[test]
fn a_night_runs_as_a_job_its_phases_and_result_arriving_as_resumable_events() {
    let dir = tempfile::tempdir().unwrap();
    let s = Server::home(&dir.path().join("h.sqlite3"));
    for i in 0..3 {
        s.op(
            "h",
            "remember",
            &remember(&format!("Day {i}"), &format!("d{i}")),
        );
    }
    let r = s
        .client
        .post(s.url("/v1/h/jobs/sleep_pass"))
        .body(json!({"scopes": [["life", "me"]], "owner_id": "me"}).to_string())
        .send()
        .unwrap();
    assert_eq!(r.status().as_u16(), 202);
    let started: Value = r.json().unwrap();
    let id = started["job_id"].as_str().unwrap().to_owned();
    let all = job_events(&s, &id, None);
    let ids: Vec<usize> = all.iter().map(|(i, _, _)| *i).collect();
    assert_eq!(ids, (1..=all.len()).collect::<Vec<_>>(), "ids count from 1");
    let (_, last_kind, last) = all.last().unwrap();
    assert_eq!(last_kind, "result", "{last}");
    assert_eq!(last["ok"]["pass_name"], "sleep_pass");
    let phases: Vec<&str> = all
        .iter()
        .filter(|(_, k, _)| k == "progress")
        .map(|(_, _, d)| d["phase"].as_str().unwrap())
        .collect();
    let reported: Vec<&str> = last["ok"]["phases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap())
        .collect();
    assert_eq!(
        phases, reported,
        "one progress event per phase the night ran"
    );
    let tail = job_events(&s, &id, Some(2));
    assert_eq!(tail, all[2..].to_vec(), "Last-Event-ID resumes after it");
    let r = s
        .client
        .post(s.url(&format!("/v1/h/jobs/{id}/cancel")))
        .send()
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
}

#[test]
fn a_job_with_arguments_the_verb_refuses_is_refused_before_it_starts() {
    let dir = tempfile::tempdir().unwrap();
    let s = Server::home(&dir.path().join("h.sqlite3"));
    let before = s.seq("h");
    let r = s
        .client
        .post(s.url("/v1/h/jobs/sleep_pass"))
        .body(json!({"scopes": [["life", "me"]], "bogus": 1}).to_string())
        .send()
        .unwrap();
    assert_eq!(r.status().as_u16(), 400);
    let v: Value = r.json().unwrap();
    assert!(
        v["error"]["message"].as_str().unwrap().contains("bogus"),
        "{v}"
    );
    for path in ["/v1/h/jobs/job-1/events", "/v1/h/jobs/job-1/cancel"] {
        let r = if path.ends_with("cancel") {
            s.client.post(s.url(path)).send().unwrap()
        } else {
            s.client.get(s.url(path)).send().unwrap()
        };
        assert_eq!(r.status().as_u16(), 404, "{path}: no job was made");
    }
    assert_eq!(s.seq("h"), before);
}
