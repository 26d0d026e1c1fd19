//! A real HTTP/1.1 server on 127.0.0.1 for the embedder tests: it records every
//! request and answers through a handler the test supplies, with deterministic
//! vectors in the OpenAI / AbstractGateway reply shape.

#![allow(dead_code, reason = "each test binary uses a different subset")]

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

/// One request as the server read it.
#[derive(Debug, Clone)]
pub(crate) struct Request {
    pub method: String,
    pub path: String,
    /// Header names lowercased.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Request {
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
    }

    pub(crate) fn json(&self) -> Value {
        serde_json::from_slice(&self.body).expect("request body is JSON")
    }

    /// The `input` list of the request body.
    pub(crate) fn inputs(&self) -> Vec<String> {
        self.json()["input"]
            .as_array()
            .expect("input is a list")
            .iter()
            .map(|v| v.as_str().expect("inputs are strings").to_owned())
            .collect()
    }
}

/// What the server answers.
pub(crate) enum Reply {
    /// A status and a JSON body.
    Json(u16, Value),
    /// A status and a raw body sent as `application/json`.
    Raw(u16, String),
    /// Never answer (until the server is dropped).
    Stall,
}

type Handler = dyn Fn(&Request) -> Reply + Send + Sync;

/// The running server; dropping it stops it.
pub(crate) struct TestServer {
    addr: SocketAddr,
    requests: Arc<Mutex<Vec<Request>>>,
    stop: Arc<AtomicBool>,
    accept: Option<JoinHandle<()>>,
}

impl TestServer {
    pub(crate) fn start(handler: impl Fn(&Request) -> Reply + Send + Sync + 'static) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
        let addr = listener.local_addr().unwrap();
        let requests = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let handler: Arc<Handler> = Arc::new(handler);
        let accept = {
            let requests = Arc::clone(&requests);
            let stop = Arc::clone(&stop);
            std::thread::spawn(move || {
                for stream in listener.incoming() {
                    if stop.load(Ordering::SeqCst) {
                        break;
                    }
                    let Ok(stream) = stream else { continue };
                    let requests = Arc::clone(&requests);
                    let stop = Arc::clone(&stop);
                    let handler = Arc::clone(&handler);
                    std::thread::spawn(move || serve(stream, &requests, &stop, handler.as_ref()));
                }
            })
        };
        TestServer {
            addr,
            requests,
            stop,
            accept: Some(accept),
        }
    }

    /// `http://127.0.0.1:<port>`
    pub(crate) fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub(crate) fn requests(&self) -> Vec<Request> {
        self.requests.lock().unwrap().clone()
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wake the accept loop so it sees the flag.
        let _ = TcpStream::connect(self.addr);
        if let Some(h) = self.accept.take() {
            let _ = h.join();
        }
    }
}

fn serve(stream: TcpStream, requests: &Mutex<Vec<Request>>, stop: &AtomicBool, handler: &Handler) {
    let Some(req) = read_request(&stream) else {
        return;
    };
    requests.lock().unwrap().push(req.clone());
    let (status, body) = match handler(&req) {
        Reply::Json(status, v) => (status, v.to_string()),
        Reply::Raw(status, s) => (status, s),
        Reply::Stall => {
            while !stop.load(Ordering::SeqCst) {
                std::thread::sleep(Duration::from_millis(10));
            }
            return;
        }
    };
    let mut stream = stream;
    let head = format!(
        "HTTP/1.1 {status} {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        reason(status),
        body.len()
    );
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(body.as_bytes());
    let _ = stream.flush();
}

fn read_request(stream: &TcpStream) -> Option<Request> {
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    reader.read_line(&mut line).ok()?;
    let mut parts = line.split_whitespace();
    let method = parts.next()?.to_owned();
    let path = parts.next()?.to_owned();
    let mut headers = Vec::new();
    loop {
        let mut h = String::new();
        reader.read_line(&mut h).ok()?;
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        let (n, v) = h.split_once(':')?;
        headers.push((n.trim().to_ascii_lowercase(), v.trim().to_owned()));
    }
    let len = headers
        .iter()
        .find(|(n, _)| n == "content-length")
        .and_then(|(_, v)| v.parse::<usize>().ok())
        .unwrap_or(0);
    let mut body = vec![0; len];
    reader.read_exact(&mut body).ok()?;
    Some(Request {
        method,
        path,
        headers,
        body,
    })
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        404 => "Not Found",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        _ => "Status",
    }
}

/// FNV-1a, for deterministic vectors and shuffles.
fn fnv(bytes: &[u8], seed: u64) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325_u64 ^ seed;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// The deterministic vector the server returns for `text`: `dim` values in
/// [-1, 1) on a 1/1000 grid (exact through JSON), never all zero.
pub(crate) fn vector_for(text: &str, dim: usize) -> Vec<f32> {
    (0..dim)
        .map(|i| {
            let h = fnv(text.as_bytes(), i as u64 + 1);
            let x = (h % 2000) as f32 / 1000.0 - 1.0;
            if x == 0.0 { 0.5 } else { x }
        })
        .collect()
}

/// OpenAI-shaped reply rows for `inputs` with dimension `dim(i)` for input `i`,
/// shuffled (sorted by a hash of the text) and placed by `index`.
pub(crate) fn rows(inputs: &[String], dim: impl Fn(usize) -> usize) -> Vec<Value> {
    reply_order(inputs)
        .into_iter()
        .map(|i| json!({"object": "embedding", "index": i, "embedding": vector_for(&inputs[i], dim(i))}))
        .collect()
}

/// The order in which [`rows`] lists the inputs' positions.
pub(crate) fn reply_order(inputs: &[String]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..inputs.len()).collect();
    order.sort_by_key(|&i| fnv(inputs[i].as_bytes(), 99));
    order
}

/// A well-formed, shuffled OpenAI reply of dimension `dim` echoing the model.
pub(crate) fn openai_ok(req: &Request, dim: usize) -> Reply {
    let body = req.json();
    let inputs = req.inputs();
    Reply::Json(
        200,
        json!({
            "object": "list",
            "data": rows(&inputs, |_| dim),
            "model": body["model"],
            "usage": {"prompt_tokens": 1, "total_tokens": 1},
        }),
    )
}

/// A well-formed, shuffled gateway reply of dimension `dim`, naming `model` if given.
pub(crate) fn gateway_ok(req: &Request, dim: usize, model: Option<&str>) -> Reply {
    let inputs = req.inputs();
    let mut body = json!({"data": rows(&inputs, |_| dim)});
    if let Some(m) = model {
        body["model"] = json!(m);
    }
    Reply::Json(200, body)
}

/// `n` distinct texts.
pub(crate) fn texts(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("text number {i}")).collect()
}

/// A port on 127.0.0.1 where nothing listens (bound, then released).
pub(crate) fn dead_url() -> String {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = l.local_addr().unwrap();
    drop(l);
    format!("http://{addr}")
}

pub(crate) mod pin_checks;
