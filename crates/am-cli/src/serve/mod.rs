//! `am serve` (the verb table over HTTP, the replay stream as server-sent
//! events) and `am mcp` (the Model Context Protocol over stdio). Both serve
//! the verb table ([`am_ops`]) with no code per verb: docs/server.md.

pub mod home;
pub mod http;
pub mod jobs;
pub mod mcp;
pub mod page;
pub mod pool;

use crate::ctx::Ctx;
use crate::error::{CliError, CliResult};
use home::{Flags, Homes, Place};
use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

/// Serve one home (or a directory of homes) over HTTP: the verb table, exec
/// lines and the live replay stream (docs/server.md).
#[derive(Debug, clap::Args)]
pub struct ServeCmd {
    /// The SQLite home to serve (created when missing), named in URLs by its
    /// file stem.
    #[arg(long, conflicts_with = "homes", required_unless_present = "homes")]
    home: Option<PathBuf>,
    /// Serve every `<name>.sqlite3` in DIR; a missing one is created by a
    /// writing call with `?create=true`.
    #[arg(long, value_name = "DIR")]
    homes: Option<PathBuf>,
    /// The address to listen on. Any address but a loopback one needs
    /// --token-env.
    #[arg(long, default_value = "127.0.0.1:8765")]
    addr: SocketAddr,
    /// The environment variable holding the bearer token every request but
    /// /healthz must carry (never the token itself on the command line).
    #[arg(long, value_name = "NAME")]
    token_env: Option<String>,
    /// The largest request body, in bytes (413 beyond it).
    #[arg(long, default_value_t = 1 << 20)]
    max_body_bytes: usize,
    /// The longest line of an exec body, in bytes (413 beyond it, nothing run).
    #[arg(long, default_value_t = 256 << 10)]
    max_line_bytes: usize,
    /// Each ops or exec request's time limit, in seconds (504 beyond it; the
    /// replay stream is exempt).
    #[arg(long, default_value_t = 30.0)]
    timeout_s: f64,
    /// On SIGTERM, how long running requests may finish before the commit
    /// guard is raised and the process exits, in seconds.
    #[arg(long, default_value_t = 10.0)]
    grace_s: f64,
    /// How often a replay stream looks for new journal records, in
    /// milliseconds.
    #[arg(long, default_value_t = 50)]
    poll_ms: u64,
    /// The retrieval profile of recalls that name none.
    #[arg(long, value_enum, default_value = "spec")]
    profile: crate::eval::Profile,
}

fn seconds(name: &str, x: f64) -> CliResult<Duration> {
    if x.is_finite() && x > 0.0 {
        Ok(Duration::from_secs_f64(x))
    } else {
        Err(CliError::invalid(format!(
            "--{name} is a positive number of seconds, got {x}"
        )))
    }
}

/// The token `--token-env NAME` names, read from the environment.
///
/// # Errors
/// Bad input for an unset or blank variable.
fn read_token(name: &str) -> CliResult<String> {
    match std::env::var(name) {
        Ok(t) if !t.trim().is_empty() => Ok(t),
        _ => Err(CliError::invalid(format!(
            "--token-env {name}: the environment variable {name} is unset or blank (it holds the bearer token)"
        ))),
    }
}

impl ServeCmd {
    /// Run the server until SIGTERM / SIGINT.
    ///
    /// # Errors
    /// Bad input for an unusable home, address or flag; a failure when the
    /// address cannot be bound.
    pub fn run(self, ctx: &Ctx) -> CliResult<u8> {
        let timeout = seconds("timeout-s", self.timeout_s)?;
        let grace = seconds("grace-s", self.grace_s)?;
        let token = self.token_env.as_deref().map(read_token).transpose()?;
        if !self.addr.ip().is_loopback() && token.is_none() {
            return Err(CliError::invalid(format!(
                "--addr {} is not a loopback address: serving beyond this machine needs a bearer token \
                 (--token-env NAME)",
                self.addr
            )));
        }
        let place = match (self.home, self.homes) {
            (Some(path), None) => {
                let name = path
                    .file_stem()
                    .and_then(|s| s.to_str())
                    .unwrap_or_default()
                    .to_owned();
                home::check_name(&name).map_err(|e| {
                    CliError::invalid(format!("--home {}: {}", path.display(), e.message))
                })?;
                Place::One { name, path }
            }
            (None, Some(dir)) => {
                if !dir.is_dir() {
                    return Err(CliError::invalid(format!(
                        "--homes {} is not a directory",
                        dir.display()
                    )));
                }
                Place::Dir(dir)
            }
            _ => return Err(CliError::invalid("give --home H or --homes DIR")),
        };
        let flags = Flags::default();
        let homes = Homes::new(
            place.clone(),
            ctx.clone(),
            self.profile.config(),
            flags.clone(),
        );
        if let Place::One { name, .. } = &place {
            homes.get(name, true)?;
        }
        let state = Arc::new(http::AppState::new(
            homes,
            token,
            self.max_line_bytes,
            self.max_body_bytes,
            Duration::from_millis(self.poll_ms.max(1)),
        ));
        let app = http::router(Arc::clone(&state), timeout, self.max_body_bytes);
        let rt = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
            .map_err(|e| CliError::failure(format!("cannot start the server's runtime: {e}")))?;
        rt.block_on(serve(app, self.addr, &state, grace))
    }
}

async fn serve(
    app: axum::Router,
    addr: SocketAddr,
    state: &Arc<http::AppState>,
    grace: Duration,
) -> CliResult<u8> {
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| CliError::invalid(format!("cannot listen on {addr}: {e}")))?;
    let bound = listener
        .local_addr()
        .map_err(|e| CliError::failure(format!("cannot read the bound address: {e}")))?;
    {
        let mut out = std::io::stdout().lock();
        writeln!(out, "am serve: listening on http://{bound}")
            .and_then(|()| out.flush())
            .map_err(|e| CliError::failure(format!("cannot write to stdout: {e}")))?;
    }
    let flags = state.homes.flags().clone();
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(async move {
        axum::serve(listener, app)
            .with_graceful_shutdown(async {
                let _ = stop_rx.await;
            })
            .await
    });
    wait_for_signal().await?;
    // Stop accepting; running passes see cancelled() at their next
    // boundary, replay streams end, other requests finish.
    flags.stopping.store(true, Ordering::SeqCst);
    state.mcp_config.cancellation_token.cancel();
    let _ = stop_tx.send(());
    let finished = tokio::time::timeout(grace, server).await.is_ok();
    if !finished {
        eprintln!(
            "am serve: requests still running after the {:.1} s grace period",
            grace.as_secs_f64()
        );
    }
    // Raise the commit guard inside each home's write barrier: no write is
    // mid-transaction, and none commits after this (nothing tears).
    let st = Arc::clone(state);
    let raised = tokio::task::spawn_blocking(move || {
        let mut failures = Vec::new();
        for served in st.homes.opened() {
            if let Err(e) = served.raise_guard(st.homes.flags(), Duration::from_secs(5)) {
                failures.push(format!("{}: {}", served.name, e.message));
            }
        }
        // A home the barrier could not take still refuses every commit
        // from here on.
        st.homes.flags().guard_raised.store(true, Ordering::SeqCst);
        failures
    })
    .await
    .unwrap_or_default();
    for f in &raised {
        eprintln!("am serve: the write barrier timed out ({f}); the guard is raised anyway");
    }
    Ok(0)
}

async fn wait_for_signal() -> CliResult<()> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut term = signal(SignalKind::terminate())
        .map_err(|e| CliError::failure(format!("cannot install the signal handler: {e}")))?;
    let mut int = signal(SignalKind::interrupt())
        .map_err(|e| CliError::failure(format!("cannot install the signal handler: {e}")))?;
    tokio::select! {
        _ = term.recv() => {}
        _ = int.recv() => {}
    }
    Ok(())
}
