//! Jobs: a call that runs beside the request that started it
//! (`POST /v1/{home}/jobs/{op}` answers a job id at once), its progress and
//! its result arriving as server-sent events
//! (`GET /v1/{home}/jobs/{id}/events`), cancelled through the `cancelled`
//! hook (`POST /v1/{home}/jobs/{id}/cancel`). For the long verbs: a night
//! (`sleep_pass`) and the other passes. Jobs are exempt from the request
//! timeout.

use super::home::Served;
use am_ops::Host;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// One job.
#[derive(Debug)]
pub struct Job {
    /// Its id.
    pub id: String,
    /// Its number on this server (the id's digits).
    number: u64,
    /// The home it runs on.
    pub home: String,
    /// The op it runs.
    pub op: String,
    /// Set by a cancel: the pass sees `cancelled() == true` at its next
    /// sub-phase boundary.
    pub cancel: Arc<AtomicBool>,
    /// Its events so far: (`progress` | `result` | `error`, data).
    events: Mutex<Vec<(&'static str, Value)>>,
    done: AtomicBool,
}

impl Job {
    /// The events from index `from` on, and whether the job is done.
    pub fn events_from(&self, from: usize) -> (Vec<(usize, &'static str, Value)>, bool) {
        let done = self.done.load(Ordering::SeqCst);
        let events = self
            .events
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let out = events
            .iter()
            .enumerate()
            .skip(from)
            .map(|(i, (k, v))| (i + 1, *k, v.clone()))
            .collect();
        (out, done)
    }

    fn push(&self, kind: &'static str, data: Value) {
        self.events
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push((kind, data));
    }
}

/// The server's jobs, by id.
#[derive(Debug, Default)]
pub struct Jobs {
    next: AtomicU64,
    all: Mutex<HashMap<String, Arc<Job>>>,
}

impl Jobs {
    /// The job `id` of home `home`.
    pub fn get(&self, home: &str, id: &str) -> Option<Arc<Job>> {
        self.all
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(id)
            .filter(|j| j.home == home)
            .cloned()
    }

    /// The jobs of home `home`, newest first: `{job_id, op, state
    /// (running | done | error), cancel_requested, last_phase}`.
    pub fn list(&self, home: &str) -> Vec<Value> {
        let mut jobs: Vec<Arc<Job>> = self
            .all
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .values()
            .filter(|j| j.home == home)
            .cloned()
            .collect();
        jobs.sort_by_key(|j| std::cmp::Reverse(j.number));
        jobs.iter()
            .map(|j| {
                let (events, done) = j.events_from(0);
                let last_phase = events
                    .iter()
                    .rev()
                    .find(|(_, k, _)| *k == "progress")
                    .and_then(|(_, _, v)| v.get("phase").cloned());
                let state = match events.last() {
                    Some((_, "error", _)) => "error",
                    _ if done => "done",
                    _ => "running",
                };
                json!({
                    "job_id": j.id,
                    "op": j.op,
                    "state": state,
                    "cancel_requested": j.cancel.load(Ordering::SeqCst),
                    "last_phase": last_phase,
                })
            })
            .collect()
    }

    /// Start `op` with `args` on `served` in a thread of its own; answers
    /// the job.
    pub fn start(&self, served: Arc<Served>, op: &str, args: am_triples::JsonMap) -> Arc<Job> {
        let n = self.next.fetch_add(1, Ordering::SeqCst) + 1;
        let job = Arc::new(Job {
            id: format!("job-{n}"),
            number: n,
            home: served.name.clone(),
            op: op.to_owned(),
            cancel: Arc::new(AtomicBool::new(false)),
            events: Mutex::new(Vec::new()),
            done: AtomicBool::new(false),
        });
        self.all
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(job.id.clone(), Arc::clone(&job));
        let mut host: Host = served.host.clone();
        let (c1, c2) = (Arc::clone(&job.cancel), Arc::clone(&job.cancel));
        let (server_cancelled, server_continue) =
            (host.cancelled.take(), host.should_continue.take());
        host.cancelled = Some(Arc::new(move || {
            c1.load(Ordering::SeqCst) || server_cancelled.as_ref().is_some_and(|f| f())
        }));
        host.should_continue = Some(Arc::new(move || {
            !c2.load(Ordering::SeqCst) && server_continue.as_ref().is_none_or(|f| f())
        }));
        let sink = Arc::downgrade(&job);
        host.progress = Some(Arc::new(move |phase: &str| {
            if let Some(j) = sink.upgrade() {
                j.push("progress", json!({"phase": phase}));
            }
        }));
        let j = Arc::clone(&job);
        std::thread::spawn(move || {
            let answer = served.call_with(&j.op, args, &host);
            match answer {
                Ok(a) => j.push(
                    "result",
                    json!({"op": j.op, "ok": a.value, "warnings": a.warnings}),
                ),
                Err(e) => j.push(
                    "error",
                    json!({"op": j.op, "error": {"kind": e.kind.name(), "message": e.message}}),
                ),
            }
            j.done.store(true, Ordering::SeqCst);
        });
        job
    }
}
