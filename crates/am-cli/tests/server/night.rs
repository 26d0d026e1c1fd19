//! A night cancelled through the jobs endpoint while it runs: it stops at a
//! sub-phase boundary, answers in its cancelled shape, records no completion;
//! the next night completes. The home is big enough that the night is still
//! running when the cancel lands (`AM_SERVER_NIGHT_RECORDS`, default 1,500;
//! `cargo xtask soak` runs it bigger).

use crate::Server;
use serde_json::{Value, json};
use std::io::{BufRead, BufReader};
use std::time::{Duration, Instant};

const TITLES: &[&str] = &[
    "Watered the beans at the allotment",
    "Aphids on the broad beans again",
    "Ada lent the spare key",
    "Chiara talked about her new job",
    "Rain all afternoon at the plot",
    "Fixed the shed door hinge",
];

/// Fill `home` with `n` records through the API, in batches (many share a
/// title, so the night's tending has groups to weigh).
fn fill(s: &Server, home: &str, n: usize) {
    let mut i = 0;
    while i < n {
        let batch: Vec<Value> = (i..(i + 250).min(n))
            .map(|k| {
                let t = TITLES[k % TITLES.len()];
                json!({"kind": "episode", "title": t,
                       "digest": format!("{t}, day {}: note {k} of the season.", k / TITLES.len())})
            })
            .collect();
        let (st, v) = s.op(
            home,
            "remember_many",
            &json!({"records": batch, "scope": "life", "owner_id": "me",
                    "idempotency_key": format!("fill-{i}")}),
        );
        assert_eq!(st, 200, "{v}");
        i += 250;
    }
}

fn start_night(s: &Server) -> String {
    let r = s
        .client
        .post(s.url("/v1/big/jobs/sleep_pass"))
        .body(json!({"scopes": [["life", "me"]], "owner_id": "me"}).to_string())
        .send()
        .unwrap();
    assert_eq!(r.status().as_u16(), 202);
    r.json::<Value>().unwrap()["job_id"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// Follow job `id`'s events; `on_progress` runs at each progress event.
/// Answers the final event (its name and data).
fn follow(s: &Server, id: &str, mut on_progress: impl FnMut(&Value)) -> (String, Value) {
    let r = s
        .client
        .get(s.url(&format!("/v1/big/jobs/{id}/events")))
        .send()
        .unwrap();
    let (mut name, mut data) = (None::<String>, None::<Value>);
    for line in BufReader::new(r).lines() {
        let line = line.unwrap();
        if let Some(v) = line.strip_prefix("event: ") {
            name = Some(v.to_owned());
        } else if let Some(v) = line.strip_prefix("data: ") {
            data = Some(serde_json::from_str(v).unwrap());
        } else if line.is_empty()
            && let (Some(n), Some(d)) = (name.take(), data.take())
        {
            if n == "progress" {
                on_progress(&d);
            } else {
                return (n, d);
            }
        }
    }
    panic!("the job's events ended without a result");
}

fn last_night(s: &Server) -> Value {
    let (st, v) = s.op(
        "big",
        "tasks.last_maintenance",
        &json!({"scopes": [["life", "me"]]}),
    );
    assert_eq!(st, 200, "{v}");
    v["ok"].clone()
}

#[test]
fn a_night_cancelled_through_the_jobs_endpoint_stops_at_a_boundary_records_no_completion_and_the_next_completes()
 {
    let n: usize = std::env::var("AM_SERVER_NIGHT_RECORDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1500);
    let dir = tempfile::tempdir().unwrap();
    let s = Server::home(&dir.path().join("big.sqlite3"));
    fill(&s, "big", n);
    assert_eq!(last_night(&s), Value::Null, "never slept");

    // The cancel goes out when the night reports its first phase done.
    let id = start_night(&s);
    let t0 = Instant::now();
    let mut phases = Vec::new();
    let mut cancelled_at = None;
    let (kind, end) = follow(&s, &id, |p| {
        phases.push(p["phase"].as_str().unwrap().to_owned());
        if cancelled_at.is_none() {
            let r = s
                .client
                .post(s.url(&format!("/v1/big/jobs/{id}/cancel")))
                .send()
                .unwrap();
            assert_eq!(r.status().as_u16(), 200);
            cancelled_at = Some(t0.elapsed());
        }
    });
    assert_eq!(kind, "result", "{end}");
    let night = &end["ok"];
    let after = night["cancelled_after"]
        .as_str()
        .unwrap_or_else(|| panic!("the night was cancelled: {night}"));
    println!(
        "night over {n} records: cancel sent {:?} in, after phase {:?}; the night stopped after {after}; \
         phases reported {phases:?}",
        cancelled_at.unwrap(),
        phases.first()
    );
    assert_ne!(
        after, "dream",
        "the cancel landed mid-night (a sub-phase never began), not at the very end: make the home bigger"
    );
    assert!(
        ["resolution", "maintenance", "world_models"].contains(&after),
        "the night stopped at a sub-phase boundary: {after}"
    );
    assert_eq!(
        phases,
        ["resolution", "maintenance", "world_models", "dream"],
        "every phase is reported, the ones the cancel skipped too"
    );
    let skipped: Vec<&str> = ["maintenance", "world_models", "dream"]
        .into_iter()
        .filter(|p| {
            night[*p]["skipped_reason"]
                .as_str()
                .is_some_and(|r| r.starts_with("cancelled"))
        })
        .collect();
    assert!(
        !skipped.is_empty(),
        "the phases after it never ran: {night}"
    );
    assert_eq!(night["completion"], json!([]), "no completion recorded");
    assert_eq!(
        last_night(&s),
        Value::Null,
        "the home holds no completed night"
    );
    let (_, jobs) = (0, s.client.get(s.url("/v1/big/jobs")).send().unwrap());
    let jobs: Value = jobs.json().unwrap();
    assert_eq!(jobs["jobs"][0]["cancel_requested"], true, "{jobs}");
    assert_eq!(jobs["jobs"][0]["state"], "done", "{jobs}");

    // The next night runs to its end and records its completion.
    let id = start_night(&s);
    let t1 = Instant::now();
    let (kind, end) = follow(&s, &id, |_| {});
    assert_eq!(kind, "result", "{end}");
    assert_eq!(end["ok"]["cancelled_after"], Value::Null, "{end}");
    assert!(
        !end["ok"]["completion"].as_array().unwrap().is_empty(),
        "{end}"
    );
    assert_ne!(last_night(&s), Value::Null);
    println!("the next night completed in {:?}", t1.elapsed());
    assert!(t0.elapsed() < Duration::from_secs(600));
}
