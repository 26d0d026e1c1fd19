//! The HTTP routes of `am serve` (docs/server.md): the verb table at
//! `POST /v1/{home}/ops/{op}`, exec lines at `POST /v1/{home}/exec`, the
//! replay stream as server-sent events at `GET /v1/{home}/replay`, the jobs,
//! MCP over streamable HTTP at `/mcp` (and `/v1/{home}/mcp`), the operator
//! page at `/`, and `GET /healthz`. Every route but `/healthz` and the page's
//! three static files sits behind the bearer token when one is set; a
//! browser request from another origin is refused (403).

use super::home::{Homes, Served};
use crate::error::CliError;
use am_system::observe::replay::ExportReplay;
use am_triples::ErrorKind;
use axum::Router;
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, Path, Query, Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{any, get, post};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use serde::Deserialize;
use serde_json::{Value, json};
use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;
use subtle::ConstantTimeEq;
use tower_http::timeout::TimeoutLayer;

/// What every route is given.
pub struct AppState {
    /// The homes.
    pub homes: Homes,
    /// The bearer token every request but `/healthz` must carry, when set.
    pub token: Option<String>,
    /// The longest line an exec body may hold, in bytes.
    pub max_line_bytes: usize,
    /// How often a replay stream looks for new journal records.
    pub poll: Duration,
    /// The jobs started on this server.
    pub jobs: super::jobs::Jobs,
    /// The MCP services over streamable HTTP, one per home, made on first
    /// use.
    pub mcp: std::sync::Mutex<std::collections::HashMap<String, McpService>>,
    /// Their configuration (its cancellation token ends every MCP session
    /// when the server stops).
    pub mcp_config: StreamableHttpServerConfig,
}

impl std::fmt::Debug for AppState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AppState")
            .field("homes", &self.homes)
            .field("token", &self.token.as_ref().map(|_| "<set>"))
            .field("max_line_bytes", &self.max_line_bytes)
            .field("poll", &self.poll)
            .finish_non_exhaustive()
    }
}

/// One home's MCP service over streamable HTTP.
pub type McpService = StreamableHttpService<super::mcp::AmMcp, LocalSessionManager>;

impl AppState {
    /// The state of a server over `homes`: `token` is the bearer token, if
    /// any.
    pub fn new(
        homes: Homes,
        token: Option<String>,
        max_line_bytes: usize,
        max_body: usize,
        poll: Duration,
    ) -> AppState {
        let mut mcp_config = StreamableHttpServerConfig::default()
            .with_max_request_body_bytes(max_body)
            .with_sse_keep_alive(Some(Duration::from_secs(15)));
        if token.is_some() {
            // Behind a token a forged Host cannot call (DNS rebinding needs
            // the browser to add the header itself): any Host may reach it.
            mcp_config = mcp_config.disable_allowed_hosts();
        }
        AppState {
            homes,
            token,
            max_line_bytes,
            poll,
            jobs: super::jobs::Jobs::default(),
            mcp: std::sync::Mutex::new(std::collections::HashMap::new()),
            mcp_config,
        }
    }

    fn mcp_service(&self, served: &Arc<Served>) -> McpService {
        let mut all = self
            .mcp
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        all.entry(served.name.clone())
            .or_insert_with(|| {
                let served = Arc::clone(served);
                StreamableHttpService::new(
                    move || Ok(super::mcp::AmMcp::new(Arc::clone(&served), None)),
                    Arc::new(LocalSessionManager::default()),
                    self.mcp_config.clone(),
                )
            })
            .clone()
    }
}

/// The HTTP status of an error kind.
pub fn status_of(kind: ErrorKind) -> StatusCode {
    match kind {
        ErrorKind::InvalidInput => StatusCode::BAD_REQUEST,
        ErrorKind::NotFound => StatusCode::NOT_FOUND,
        ErrorKind::Conflict => StatusCode::CONFLICT,
        ErrorKind::Unsupported | ErrorKind::ProvenanceRequired | ErrorKind::DimensionMismatch => {
            StatusCode::UNPROCESSABLE_ENTITY
        }
        ErrorKind::Embedder => StatusCode::BAD_GATEWAY,
        ErrorKind::Refused => StatusCode::SERVICE_UNAVAILABLE,
        ErrorKind::Timeout => StatusCode::GATEWAY_TIMEOUT,
        _ => StatusCode::INTERNAL_SERVER_ERROR,
    }
}

fn error_response(op: Option<&str>, kind: ErrorKind, message: &str) -> Response {
    error_with(status_of(kind), op, kind.name(), message)
}

fn error_with(status: StatusCode, op: Option<&str>, kind: &str, message: &str) -> Response {
    let body = json!({"op": op, "error": {"kind": kind, "message": message}});
    (status, axum::Json(body)).into_response()
}

fn cli_error(op: Option<&str>, e: &CliError) -> Response {
    error_response(op, e.kind, &e.message)
}

/// The router over `state`: `timeout` bounds each ops and exec request
/// (the replay stream is exempt), `max_body` each request body.
pub fn router(state: Arc<AppState>, timeout: Duration, max_body: usize) -> Router {
    let bounded = Router::new()
        .route("/v1/{home}/ops/{op}", post(op_route))
        .route("/v1/{home}/exec", post(exec_route))
        .layer(TimeoutLayer::with_status_code(
            StatusCode::GATEWAY_TIMEOUT,
            timeout,
        ));
    let open = Router::new()
        .route("/v1/homes", get(homes_route))
        .route("/mcp", any(mcp_default_route))
        .route("/v1/{home}/mcp", any(mcp_route))
        .route("/v1/{home}/jobs", get(jobs_route))
        .route("/v1/{home}/replay", get(replay_route))
        .route("/v1/{home}/jobs/{op}", post(job_start))
        .route("/v1/{home}/jobs/{id}/events", get(job_events))
        .route("/v1/{home}/jobs/{id}/cancel", post(job_cancel));
    let guarded = bounded
        .merge(open)
        .layer(middleware::from_fn_with_state(Arc::clone(&state), auth));
    Router::new()
        .route("/healthz", get(healthz))
        .route("/", get(super::page::index))
        .route("/page.js", get(super::page::script))
        .route("/page.css", get(super::page::style))
        .merge(guarded)
        .layer(middleware::from_fn(same_origin))
        .layer(DefaultBodyLimit::max(max_body))
        .with_state(state)
}

async fn healthz() -> impl IntoResponse {
    axum::Json(json!({"ok": true}))
}

/// The bearer check, in constant time over the token's bytes.
async fn auth(State(state): State<Arc<AppState>>, request: Request, next: Next) -> Response {
    if let Some(token) = &state.token {
        let given = request
            .headers()
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .unwrap_or("");
        if !bool::from(given.as_bytes().ct_eq(token.as_bytes())) {
            let mut r = error_with(
                StatusCode::UNAUTHORIZED,
                None,
                "Unauthorized",
                "this server needs a bearer token: Authorization: Bearer <token>",
            );
            r.headers_mut()
                .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
            return r;
        }
    }
    next.run(request).await
}

/// A browser's request from another origin is refused (403): a page
/// elsewhere cannot make a browser on this machine write to its memory
/// (a cross-site form or `fetch` sends `Origin`). Clients that are not
/// browsers send no `Origin` and pass.
async fn same_origin(request: Request, next: Next) -> Response {
    if let Some(origin) = request.headers().get(header::ORIGIN) {
        let host = request
            .headers()
            .get(header::HOST)
            .and_then(|h| h.to_str().ok())
            .unwrap_or("");
        let origin = origin.to_str().unwrap_or("");
        let authority = origin
            .strip_prefix("http://")
            .or_else(|| origin.strip_prefix("https://"))
            .unwrap_or("");
        if host.is_empty() || !authority.eq_ignore_ascii_case(host) {
            return error_with(
                StatusCode::FORBIDDEN,
                None,
                "Forbidden",
                &format!(
                    "a browser request from another origin ({origin}) is refused: only this server's own page \
                     ({host}) may call it from a browser"
                ),
            );
        }
    }
    next.run(request).await
}

/// `GET /v1/homes`: the names of the homes this server serves (for
/// `--homes DIR`, every `<name>.sqlite3` there now).
async fn homes_route(State(state): State<Arc<AppState>>) -> Response {
    let st = Arc::clone(&state);
    match tokio::task::spawn_blocking(move || st.homes.names()).await {
        Ok(names) => axum::Json(json!({"homes": names})).into_response(),
        Err(e) => error_response(
            None,
            ErrorKind::Internal,
            &format!("listing the homes: {e}"),
        ),
    }
}

/// `GET /v1/{home}/jobs`: the jobs of this home started on this server,
/// newest first.
async fn jobs_route(State(state): State<Arc<AppState>>, Path(home): Path<String>) -> Response {
    if let Err(e) = super::home::check_name(&home) {
        return cli_error(None, &e);
    }
    axum::Json(json!({"jobs": state.jobs.list(&home)})).into_response()
}

/// `/mcp`: MCP over streamable HTTP on the home `--home` names (with
/// `--homes DIR`, each home has its own at `/v1/{home}/mcp`).
async fn mcp_default_route(State(state): State<Arc<AppState>>, request: Request) -> Response {
    let Some(name) = state.homes.single().map(str::to_owned) else {
        return error_response(
            None,
            ErrorKind::NotFound,
            "this server serves a directory of homes (--homes): each home's MCP endpoint is /v1/{home}/mcp",
        );
    };
    mcp_serve(&state, name, request).await
}

/// `/v1/{home}/mcp`: MCP over streamable HTTP on one home.
async fn mcp_route(
    State(state): State<Arc<AppState>>,
    Path(home): Path<String>,
    request: Request,
) -> Response {
    mcp_serve(&state, home, request).await
}

async fn mcp_serve(state: &Arc<AppState>, home: String, request: Request) -> Response {
    let served = match open_home(state, home, false).await {
        Ok(s) => s,
        Err(e) => return cli_error(None, &e),
    };
    let service = state.mcp_service(&served);
    service.handle(request).await.into_response()
}

/// `?create=true`: a writing call may create a missing home in `--homes`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct CreateQuery {
    #[serde(default)]
    create: bool,
}

async fn open_home(
    state: &Arc<AppState>,
    name: String,
    create: bool,
) -> Result<Arc<Served>, CliError> {
    if let Some(open) = state.homes.get_open(&name) {
        return Ok(open);
    }
    let st = Arc::clone(state);
    super::pool::run(move || st.homes.get(&name, create))
        .await
        .map_err(|e| CliError::failure(format!("the home's open failed: {e}")))?
}

async fn op_route(
    State(state): State<Arc<AppState>>,
    Path((home, op)): Path<(String, String)>,
    query: Result<Query<CreateQuery>, axum::extract::rejection::QueryRejection>,
    body: Bytes,
) -> Response {
    let create = match query {
        Ok(q) => q.create,
        Err(e) => return error_response(Some(&op), ErrorKind::InvalidInput, &e.body_text()),
    };
    if let Err(e) = super::home::refuse_session_op(&op) {
        return error_response(Some(&op), e.kind, &e.message);
    }
    let Some(verb) = am_ops::find(&op) else {
        let e = am_ops::unknown_op(&op);
        return error_response(Some(&op), e.kind, &e.message);
    };
    // One trip to the pool: the arguments are parsed, the call runs and its
    // answer is written out on one thread, so what the call allocates is
    // freed by the thread that allocated it (docs/server.md, "Threads").
    let name = op.clone();
    let writes = verb.writes;
    let done = super::pool::run(move || {
        let args = match parse_args(&body) {
            Ok(a) => a,
            Err(m) => return error_response(Some(&name), ErrorKind::InvalidInput, &m),
        };
        let served = match state.homes.get(&home, create && writes) {
            Ok(s) => s,
            Err(e) => return cli_error(Some(&name), &e),
        };
        match served.call(&name, args) {
            Ok(a) => json_response(&json!({"op": name, "ok": a.value, "warnings": a.warnings})),
            Err(e) => error_response(Some(&name), e.kind, &e.message),
        }
    })
    .await;
    done.unwrap_or_else(|e| {
        error_response(
            Some(&op),
            ErrorKind::Internal,
            &format!("internal failure while running {op}: {e}"),
        )
    })
}

/// A 200 answer holding `v` as JSON, written out where it is called.
fn json_response(v: &Value) -> Response {
    match serde_json::to_vec(v) {
        Ok(bytes) => (
            [(
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            )],
            bytes,
        )
            .into_response(),
        Err(e) => error_response(
            None,
            ErrorKind::Internal,
            &format!("the answer could not be written as JSON: {e}"),
        ),
    }
}

/// A call's arguments: an empty body is `{}`, else one JSON object.
fn parse_args(body: &[u8]) -> Result<am_triples::JsonMap, String> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(am_triples::JsonMap::new());
    }
    match serde_json::from_slice::<Value>(body) {
        Ok(Value::Object(m)) => Ok(m),
        Ok(other) => Err(format!(
            "the body is the op's arguments as one JSON object, got {}",
            kind_of(&other)
        )),
        Err(e) => Err(format!(
            "the body is the op's arguments as one JSON object, got invalid JSON ({e}); nothing was run"
        )),
    }
}

fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

async fn exec_route(
    State(state): State<Arc<AppState>>,
    Path(home): Path<String>,
    query: Result<Query<CreateQuery>, axum::extract::rejection::QueryRejection>,
    body: Bytes,
) -> Response {
    let create = match query {
        Ok(q) => q.create,
        Err(e) => return error_response(None, ErrorKind::InvalidInput, &e.body_text()),
    };
    let Ok(text) = std::str::from_utf8(&body) else {
        return error_response(
            None,
            ErrorKind::InvalidInput,
            "the body is JSON lines in UTF-8; got bytes that are not UTF-8, and nothing was run",
        );
    };
    let lines: Vec<String> = text.lines().map(str::to_owned).collect();
    if let Some((i, l)) = lines
        .iter()
        .enumerate()
        .find(|(_, l)| l.len() > state.max_line_bytes)
    {
        return error_with(
            StatusCode::PAYLOAD_TOO_LARGE,
            None,
            ErrorKind::InvalidInput.name(),
            &format!(
                "line {} holds {} bytes, more than the server's line limit of {} (--max-line-bytes); nothing was run",
                i + 1,
                l.len(),
                state.max_line_bytes
            ),
        );
    }
    let writes = lines.iter().any(|l| {
        serde_json::from_str::<Value>(l)
            .ok()
            .and_then(|v| v.get("op").and_then(Value::as_str).and_then(am_ops::find))
            .is_some_and(|v| v.writes)
    });
    let served = match open_home(&state, home, create && writes).await {
        Ok(s) => s,
        Err(e) => return cli_error(None, &e),
    };
    let out = super::pool::run(move || {
        let mut out = String::new();
        for line in &lines {
            if let Some(v) = served.exec_line(line) {
                out.push_str(&v.to_string());
                out.push('\n');
            }
        }
        out
    })
    .await;
    match out {
        Ok(text) => ([(header::CONTENT_TYPE, "application/x-ndjson")], text).into_response(),
        Err(e) => error_response(None, ErrorKind::Internal, &format!("exec failed: {e}")),
    }
}

/// The replay stream's query: the spec's filters, `since_seq` (the
/// `Last-Event-ID` header wins), and `follow` (default true: keep the
/// stream open and send new envelopes as the home's journal grows).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ReplayQuery {
    since_seq: Option<i64>,
    scope: Option<String>,
    owner_id: Option<String>,
    /// Comma-separated family names.
    families: Option<String>,
    enrich: Option<bool>,
    follow: Option<bool>,
}

async fn replay_route(
    State(state): State<Arc<AppState>>,
    Path(home): Path<String>,
    query: Result<Query<ReplayQuery>, axum::extract::rejection::QueryRejection>,
    headers: HeaderMap,
) -> Response {
    let Query(q) = match query {
        Ok(q) => q,
        Err(e) => return error_response(None, ErrorKind::InvalidInput, &e.body_text()),
    };
    let since = match headers.get("last-event-id") {
        Some(v) => match v.to_str().ok().and_then(|s| s.trim().parse::<i64>().ok()) {
            Some(n) => n,
            None => {
                return error_response(
                    None,
                    ErrorKind::InvalidInput,
                    "Last-Event-ID is the seq of the last envelope received (an integer)",
                );
            }
        },
        None => q.since_seq.unwrap_or(0),
    };
    let mut args = json!({"since_seq": since});
    if let Some(s) = q.scope {
        args["scope"] = json!(s);
    }
    if let Some(o) = q.owner_id {
        args["owner_id"] = json!(o);
    }
    if let Some(f) = q.families {
        let names: Vec<&str> = f
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .collect();
        args["families"] = json!(names);
    }
    if let Some(e) = q.enrich {
        args["enrich"] = json!(e);
    }
    let base: ExportReplay = match serde_json::from_value(args) {
        Ok(b) => b,
        Err(e) => {
            return error_response(
                None,
                ErrorKind::InvalidInput,
                &format!(
                    "replay: {e} (families are event, binding, closure, trace, snapshot, valence, revision)"
                ),
            );
        }
    };
    let served = match open_home(&state, home, false).await {
        Ok(s) => s,
        Err(e) => return cli_error(None, &e),
    };
    // Check the anchor now, so a bad one is a plain 400, not a stream.
    let hw = match served.system().current_seq() {
        Ok(n) => n,
        Err(e) => return error_response(None, e.kind(), &e.to_string()),
    };
    if base.since_seq < 0 || base.since_seq > hw {
        return error_response(
            None,
            ErrorKind::InvalidInput,
            &format!(
                "since_seq (or Last-Event-ID) must be within 0..={hw}, the journal's high-water mark; got {}",
                base.since_seq
            ),
        );
    }
    let follow = q.follow.unwrap_or(true);
    let (tx, rx) = tokio::sync::mpsc::channel::<Event>(256);
    let flags = state.homes.flags().clone();
    let poll = state.poll;
    std::thread::spawn(move || pump(&served, base, follow, poll, &flags, &tx));
    let stream = futures::stream::unfold(rx, |mut rx| async move {
        rx.recv().await.map(|e| (Ok::<_, Infallible>(e), rx))
    });
    Sse::new(stream)
        .keep_alive(KeepAlive::default())
        .into_response()
}

/// Read the replay stream from `base.since_seq` into `tx`, one SSE event per
/// envelope (`id` = its seq), then with `follow` poll the journal for new
/// records until the client goes away or the server stops.
fn pump(
    served: &Served,
    base: ExportReplay,
    follow: bool,
    poll: Duration,
    flags: &super::home::Flags,
    tx: &tokio::sync::mpsc::Sender<Event>,
) {
    let mut cursor = base.since_seq;
    loop {
        if flags.is_stopping() || tx.is_closed() {
            return;
        }
        let hw = match served.system().current_seq() {
            Ok(n) => n,
            Err(e) => {
                let _ = tx.blocking_send(Event::default().event("error").data(e.to_string()));
                return;
            }
        };
        if hw > cursor {
            let args = ExportReplay {
                since_seq: cursor,
                until_seq: Some(hw),
                ..base.clone()
            };
            let stream = match served.system().export_replay(&args) {
                Ok(s) => s,
                Err(e) => {
                    let _ = tx.blocking_send(Event::default().event("error").data(e.to_string()));
                    return;
                }
            };
            for env in stream {
                let event = match env {
                    Ok(env) => {
                        let data = serde_json::to_string(&env).unwrap_or_default();
                        Event::default().id(env.seq.to_string()).data(data)
                    }
                    Err(e) => {
                        let _ =
                            tx.blocking_send(Event::default().event("error").data(e.to_string()));
                        return;
                    }
                };
                if tx.blocking_send(event).is_err() {
                    return;
                }
            }
            cursor = hw;
        }
        if !follow {
            return;
        }
        std::thread::sleep(poll);
    }
}

async fn job_start(
    State(state): State<Arc<AppState>>,
    Path((home, op)): Path<(String, String)>,
    query: Result<Query<CreateQuery>, axum::extract::rejection::QueryRejection>,
    body: Bytes,
) -> Response {
    let create = match query {
        Ok(q) => q.create,
        Err(e) => return error_response(Some(&op), ErrorKind::InvalidInput, &e.body_text()),
    };
    if let Err(e) = super::home::refuse_session_op(&op) {
        return error_response(Some(&op), e.kind, &e.message);
    }
    let Some(verb) = am_ops::find(&op) else {
        let e = am_ops::unknown_op(&op);
        return error_response(Some(&op), e.kind, &e.message);
    };
    let args = match parse_args(&body) {
        Ok(a) => a,
        Err(m) => return error_response(Some(&op), ErrorKind::InvalidInput, &m),
    };
    // Arguments the verb would refuse are refused now, not in the job.
    let mut probe = args.clone();
    let _ = am_ops::Host::default().scripted(verb.name, verb.hooks, &mut probe);
    if let Err(e) = verb.check_args(probe) {
        return error_response(Some(&op), e.kind, &e.message);
    }
    let served = match open_home(&state, home, create && verb.writes).await {
        Ok(s) => s,
        Err(e) => return cli_error(Some(&op), &e),
    };
    let job = state.jobs.start(served, &op, args);
    (
        StatusCode::ACCEPTED,
        axum::Json(json!({"job_id": job.id, "op": job.op})),
    )
        .into_response()
}

fn no_job(id: &str) -> Response {
    error_response(
        None,
        ErrorKind::NotFound,
        &format!("no job {id:?} on this home (a job lives as long as the server)"),
    )
}

async fn job_cancel(
    State(state): State<Arc<AppState>>,
    Path((home, id)): Path<(String, String)>,
) -> Response {
    let Some(job) = state.jobs.get(&home, &id) else {
        return no_job(&id);
    };
    job.cancel.store(true, std::sync::atomic::Ordering::SeqCst);
    axum::Json(json!({"job_id": job.id, "cancel_requested": true})).into_response()
}

async fn job_events(
    State(state): State<Arc<AppState>>,
    Path((home, id)): Path<(String, String)>,
    headers: HeaderMap,
) -> Response {
    let Some(job) = state.jobs.get(&home, &id) else {
        return no_job(&id);
    };
    let from = match headers.get("last-event-id") {
        Some(v) => match v.to_str().ok().and_then(|s| s.trim().parse::<usize>().ok()) {
            Some(n) => n,
            None => {
                return error_response(
                    None,
                    ErrorKind::InvalidInput,
                    "Last-Event-ID is the id of the last job event received (an integer)",
                );
            }
        },
        None => 0,
    };
    let (tx, rx) = tokio::sync::mpsc::channel::<Event>(64);
    let poll = state.poll;
    let flags = state.homes.flags().clone();
    std::thread::spawn(move || {
        let mut next = from;
        loop {
            let (events, done) = job.events_from(next);
            for (i, kind, data) in events {
                let e = Event::default()
                    .id(i.to_string())
                    .event(kind)
                    .data(data.to_string());
                if tx.blocking_send(e).is_err() {
                    return;
                }
                next = i;
            }
            if done && job.events_from(next).0.is_empty() {
                return;
            }
            if tx.is_closed() || (flags.is_stopping() && done) {
                return;
            }
            std::thread::sleep(poll);
        }
    });
    let stream = futures::stream::unfold(rx, |mut rx| async move {
        rx.recv().await.map(|e| (Ok::<_, Infallible>(e), rx))
    });
    Sse::new(stream)
        .keep_alive(KeepAlive::default())
        .into_response()
}
