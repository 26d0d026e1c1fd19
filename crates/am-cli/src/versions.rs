//! `am versions`: a record's readings oldest first, with who wrote each
//! (the operator's read of `MemorySystem::versions`). Read-only.
//!
//! Spec: api.md "Understanding: in-place rewrites and versions" (`versions`);
//! operator.md (read-only inspection).

use crate::ctx::{Ctx, require_existing_home};
use crate::embedder;
use crate::error::{CliError, CliResult};
use crate::home::{self, HomeSpec, PinnedClock};
use crate::text::escape;
use am_system::VersionView;
use serde_json::Value;
use std::path::PathBuf;

/// A record's readings oldest first, with who wrote each (its
/// understanding versions). Read-only.
#[derive(Debug, clap::Args)]
pub struct VersionsCmd {
    /// The SQLite home (must exist).
    #[arg(long)]
    home: PathBuf,
    /// The field (default the record's own: `digest`, `card` for a card;
    /// also `title`, `narration`, `target`, `pending`).
    #[arg(long)]
    field: Option<String>,
    /// The record: its graph id (`ex:…`) or its digest assertion id.
    record_id: String,
}

impl VersionsCmd {
    /// Read the record's versions and print them.
    ///
    /// # Errors
    /// Bad input for a missing home or an unknown record; the engine's failure.
    pub fn run(self, ctx: &Ctx) -> CliResult<u8> {
        let VersionsCmd {
            home,
            field,
            record_id,
        } = self;
        require_existing_home(&home)?;
        let facts = home::read_facts(&home)?;
        let pin = facts.as_ref().and_then(|f| f.pin.as_ref());
        let spec = embedder::resolve(ctx.embedder(), "offline", pin, false, true, &home)?;
        let clock = PinnedClock::wall();
        let engine = home::open_to_read(
            &HomeSpec::Sqlite(home),
            ctx.build_embedder(&spec)?,
            &clock,
            am_system::ReconstructConfig::default(),
        )?;
        let list = engine.system.versions(&record_id, field.as_deref())?;
        let v = serde_json::to_value(&list)
            .map_err(|e| CliError::failure(format!("cannot encode the answer: {e}")))?;
        ctx.emit(&v, &render(&record_id, &list))?;
        Ok(0)
    }
}

fn who(author: &am_triples::JsonMap) -> String {
    let kind = author
        .get("kind")
        .and_then(Value::as_str)
        .unwrap_or("unrecorded");
    match author.get("id").and_then(Value::as_str) {
        Some(id) => format!("{kind}:{id}"),
        None => kind.to_owned(),
    }
}

fn cause(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Object(m) => {
            let name = m.get("cause").and_then(Value::as_str).unwrap_or("?");
            let rest: Vec<String> = m
                .iter()
                .filter(|(k, _)| k.as_str() != "cause")
                .map(|(k, v)| format!("{k}={v}"))
                .collect();
            if rest.is_empty() {
                name.to_owned()
            } else {
                format!("{name} ({})", rest.join(", "))
            }
        }
        other => other.to_string(),
    }
}

/// The readings as text: one header line per version (number, field, current
/// mark, when, who, the model, why), then its words indented.
pub fn render(record_id: &str, versions: &[VersionView]) -> String {
    if versions.is_empty() {
        return format!(
            "{}: never rewritten (no versions; its reading is the one it formed with)\n",
            escape(record_id)
        );
    }
    let mut out = String::new();
    for v in versions {
        let u = &v.version;
        let reader = u.reader.as_ref().map_or(String::new(), |r| {
            let p = r.get("provider").and_then(Value::as_str).unwrap_or("?");
            let m = r.get("model").and_then(Value::as_str).unwrap_or("?");
            format!(" reader {p}/{m}")
        });
        out.push_str(&format!(
            "v{} {}{} {} by {}{} cause {}\n",
            u.version,
            u.field,
            if v.current { " [current]" } else { "" },
            u.understood_at,
            escape(&who(&u.author)),
            escape(&reader),
            escape(&cause(&u.cause)),
        ));
        let text = u.text.as_deref().unwrap_or("(no title: it was pending)");
        for line in text.lines() {
            out.push_str(&format!("    {}\n", escape(line)));
        }
    }
    out
}
