//! `am ripples`: the operator's view of a home's ripples: the ripples
//! (open, settled, consolidating, consolidated) with their seed, cause,
//! magnitude, changed members and what they left out; with a RIPPLE_ID,
//! that ripple's gate decisions hop by hop with their potentials and its
//! tasks. Readable text, or the JSON of the same reads (`--json`). It
//! reads only.
//!
//! Spec: api.md "Ripple: a change reconsidered through connected memories"
//! (`ripples`, `ripple`); docs/ripple.md.

use crate::ctx::{Ctx, require_existing_home};
use crate::error::{CliError, CliResult};
use crate::home::{self, HomeSpec, PinnedClock};
use crate::text::escape;
use am_system::MemorySystem;
use am_system::ripple::{ListRipples, RippleStatus};
use serde_json::{Value, json};
use std::fmt::Write as _;
use std::path::PathBuf;

/// The ripples: each with its seed, cause, magnitude, status, changed
/// members and left-out count; with RIPPLE_ID, one ripple's gate decisions
/// hop by hop with their potentials, and its tasks. Reads only.
#[derive(Debug, clap::Args)]
pub struct RipplesCmd {
    /// The SQLite home (must exist), as `--home HOME` (like `am tasks`).
    #[arg(long = "home", value_name = "HOME")]
    home_flag: Option<PathBuf>,
    /// Only this owner's ripples.
    #[arg(long)]
    owner: Option<String>,
    /// Only ripples in this status: open | settled | consolidating | consolidated.
    #[arg(long)]
    status: Option<String>,
    /// At most this many, newest first (0: all).
    #[arg(long, default_value_t = 50)]
    limit: usize,
    /// `[HOME] [RIPPLE_ID]`: the home, when `--home` does not name it
    /// (issue 41 writes `am ripples HOME`), then one ripple: its decisions
    /// hop by hop and its tasks.
    #[arg(value_name = "HOME] [RIPPLE_ID", num_args = 0..=2)]
    positional: Vec<String>,
}

/// The home and the ripple id of `am ripples`' arguments: with `--home`,
/// the one positional argument is the ripple; without it, the first names
/// the home and the second the ripple.
fn home_and_ripple(
    home_flag: Option<PathBuf>,
    mut positional: Vec<String>,
) -> CliResult<(PathBuf, Option<String>)> {
    match home_flag {
        Some(home) => match positional.len() {
            0 => Ok((home, None)),
            1 => Ok((home, positional.pop())),
            _ => Err(CliError::invalid(format!(
                "am ripples takes the home once: --home {} was given, so {:?} can only be one RIPPLE_ID",
                home.display(),
                positional
            ))),
        },
        None => {
            if positional.is_empty() {
                return Err(CliError::invalid(
                    "am ripples needs the home: `am ripples HOME [RIPPLE_ID]` or `am ripples --home HOME [RIPPLE_ID]`",
                ));
            }
            let home = PathBuf::from(positional.remove(0));
            Ok((home, positional.pop()))
        }
    }
}

impl RipplesCmd {
    /// Read the ripples and print them.
    ///
    /// # Errors
    /// Bad input for a missing home, a bad status or an unknown ripple; the
    /// engine's failure.
    pub fn run(self, ctx: &Ctx) -> CliResult<u8> {
        let RipplesCmd {
            home_flag,
            owner,
            status,
            limit,
            positional,
        } = self;
        let (home, ripple_id) = home_and_ripple(home_flag, positional)?;
        require_existing_home(&home)?;
        ctx.embedder_spec("none")?;
        let status: Option<RippleStatus> = status
            .map(|s| {
                serde_json::from_value(json!(s.trim()))
                    .map_err(|e| CliError::invalid(format!("--status: {e}")))
            })
            .transpose()?;
        let clock = PinnedClock::wall();
        let engine = home::open_queued(&HomeSpec::Sqlite(home), None, &clock, true)?;
        let (v, text) = match ripple_id {
            Some(id) => {
                let v = one(&engine.system, &id)?;
                let t = render_one(&v);
                (v, t)
            }
            None => {
                let v = list(
                    &engine.system,
                    &ListRipples {
                        owner_id: owner,
                        status,
                        limit,
                        ..ListRipples::default()
                    },
                )?;
                let t = render_list(&v);
                (v, t)
            }
        };
        ctx.emit(&v, &text)?;
        Ok(0)
    }
}

/// The ripples as JSON (`ripples(...)`'s rows).
///
/// # Errors
/// The home's read failure.
pub fn list(sys: &MemorySystem, a: &ListRipples) -> CliResult<Value> {
    Ok(serde_json::to_value(sys.ripples(a)?).unwrap_or(Value::Null))
}

/// One ripple as JSON (`ripple(id)`).
///
/// # Errors
/// Bad input for an unknown ripple; the home's read failure.
pub fn one(sys: &MemorySystem, id: &str) -> CliResult<Value> {
    let Some(d) = sys.ripple(id)? else {
        return Err(CliError::invalid(format!("no ripple {id:?} in this home")));
    };
    Ok(serde_json::to_value(d).unwrap_or(Value::Null))
}

/// A value as the text shows it (stored text escaped).
fn s(v: &Value) -> String {
    match v {
        Value::String(s) => escape(s),
        Value::Null => "-".into(),
        other => escape(&other.to_string()),
    }
}

fn n(v: &Value) -> String {
    v.as_f64().map_or_else(|| "-".into(), |x| format!("{x:.3}"))
}

fn cause_name(v: &Value) -> String {
    match v {
        Value::Object(m) => s(m.get("cause").unwrap_or(&Value::Null)),
        other => s(other),
    }
}

fn len(v: &Value) -> usize {
    v.as_array().map_or(0, Vec::len)
}

/// The readable list: one line per ripple.
pub fn render_list(v: &Value) -> String {
    let rows = v.as_array().cloned().unwrap_or_default();
    let mut out = String::new();
    let _ = writeln!(out, "ripples: {}", rows.len());
    for r in &rows {
        let _ = writeln!(
            out,
            "  {} {} seed {} cause {} {} magnitude {} changed {} left out {} opened {}",
            s(&r["ripple_id"]),
            s(&r["status"]),
            s(&r["seed_id"]),
            cause_name(&r["cause"]),
            s(&r["change"]),
            n(&r["magnitude"]),
            len(&r["changed"]),
            len(&r["left_out"]),
            s(&r["opened_at"]),
        );
    }
    out
}

/// The readable ripple: its head, its decisions hop by hop, its changes and
/// its tasks.
pub fn render_one(v: &Value) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "ripple {} {}: seed {} (owner {}), cause {} {}, magnitude {}, budget {}",
        s(&v["ripple_id"]),
        s(&v["status"]),
        s(&v["seed_id"]),
        s(&v["owner_id"]),
        cause_name(&v["cause"]),
        s(&v["change"]),
        n(&v["magnitude"]),
        s(&v["budget"]),
    );
    if !v["surprise"].is_null() {
        let _ = writeln!(out, "surprise: {}", s(&v["surprise"]));
    }
    let decisions = v["decisions"].as_array().cloned().unwrap_or_default();
    let mut hop: Option<i64> = None;
    for d in &decisions {
        let h = d["hop"].as_i64().unwrap_or(0);
        if hop != Some(h) {
            let _ = writeln!(out, "hop {h}:");
            hop = Some(h);
        }
        let _ = writeln!(
            out,
            "  {} {} via {} from {}: received {} x reliance {} -> potential {} (activation {})",
            s(&d["decision"]),
            s(&d["record_id"]),
            s(&d["via"]),
            s(&d["from"]),
            n(&d["received"]),
            n(&d["reliance"]),
            n(&d["potential"]),
            n(&d["activation"]),
        );
    }
    let changed = v["changed"].as_array().cloned().unwrap_or_default();
    let _ = writeln!(out, "changed: {}", changed.len());
    for c in &changed {
        let _ = writeln!(
            out,
            "  {} hop {} v{} -> v{} received {} onward {}",
            s(&c["record_id"]),
            s(&c["hop"]),
            s(&c["before_version"]),
            s(&c["after_version"]),
            n(&c["received"]),
            n(&c["onward"]),
        );
    }
    let left = v["left_out"].as_array().cloned().unwrap_or_default();
    let _ = writeln!(out, "left out: {}", left.len());
    for l in &left {
        let _ = writeln!(
            out,
            "  {} {} hop {} potential {}",
            s(&l["decision"]),
            s(&l["record_id"]),
            s(&l["hop"]),
            n(&l["potential"]),
        );
    }
    let tasks = v["tasks"].as_array().cloned().unwrap_or_default();
    let _ = writeln!(out, "tasks: {}", tasks.len());
    for t in &tasks {
        let _ = writeln!(
            out,
            "  {} {} {} {}",
            s(&t["task_id"]),
            s(&t["kind"]),
            s(&t["status"]),
            s(&t["target_id"]),
        );
    }
    out
}
