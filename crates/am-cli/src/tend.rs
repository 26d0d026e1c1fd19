//! `am tend HOME --owner ID FILE`: parse one tend block (the file's
//! ` ```tend ` fence, or the whole file when it has none; `-` reads stdin)
//! with `parse_tend_block`, then apply its elections with
//! `apply_tend_elections` through the `entity-reflection` channel (the
//! home-direct driver states it: the operator running `am tend` speaks for
//! the entity's own reflection). `--dry-run` plans every election and
//! writes nothing. Readable text, or `{parsed, report, warnings}` with
//! `--json`. Refused lines and refused elections are data: the exit code
//! is 0 whenever the block was read.
//!
//! Spec: api.md "Tending elections"; docs/candidates.md.

use crate::ctx::{Ctx, require_existing_home};
use crate::embedder;
use crate::error::{CliError, CliResult};
use crate::home::{self, HomeSpec, PinnedClock};
use crate::text::escape;
use am_system::MemorySystem;
use am_system::candidates::{
    ApplyTendElections, ParseTendBlock, REFLECTION_CHANNEL, TendAct, TendBlock, TendReport,
    parse_tend_block,
};
use serde_json::{Value, json};
use std::fmt::Write as _;
use std::io::Read as _;
use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};

/// Parse a tend block and apply its elections (keep, revise, let go,
/// revisit, dispose); --dry-run writes nothing.
#[derive(Debug, clap::Args)]
pub struct TendCmd {
    /// The SQLite home (must exist).
    home: PathBuf,
    /// The tending owner: every record target must be theirs.
    #[arg(long)]
    owner: String,
    /// The block: a file holding a ```tend fence (or only the block's
    /// lines); `-` reads stdin.
    file: PathBuf,
    /// The batch's scope (refocus marks it; heal_scar and break_bond
    /// resolve in it).
    #[arg(long, default_value = "life")]
    scope: String,
    /// Who tends.
    #[arg(long, default_value = REFLECTION_CHANNEL)]
    actor: String,
    /// The channel the block came through (only entity-reflection tends).
    #[arg(long, default_value = REFLECTION_CHANNEL)]
    channel: String,
    /// Elections kept from the block (at least 1; the rest are refused).
    #[arg(long, default_value_t = 5)]
    max_elections: i64,
    /// A pair treated as identity scope besides `self` (SCOPE:OWNER,
    /// repeatable): its records are refused pending the ruling.
    #[arg(long = "self-pair", value_name = "SCOPE:OWNER")]
    self_pairs: Vec<String>,
    /// revisit's walk depth.
    #[arg(long, default_value_t = NonZeroUsize::MIN)]
    revisit_depth: NonZeroUsize,
    /// Plan every election and write nothing.
    #[arg(long)]
    dry_run: bool,
}

/// The body of the first ```tend fence of `text`, or `text` itself when it
/// holds none (parse_tend_block skips stray fence lines).
pub fn fence_body(text: &str) -> &str {
    let mut offset = 0;
    let mut start = None;
    for line in text.split_inclusive('\n') {
        let t = line.trim();
        match start {
            None if t.to_ascii_lowercase().starts_with("```tend") => {
                start = Some(offset + line.len());
            }
            Some(s) if t.starts_with("```") => return &text[s..offset],
            _ => {}
        }
        offset += line.len();
    }
    match start {
        Some(s) => &text[s.min(text.len())..],
        None => text,
    }
}

fn read_block(path: &Path) -> CliResult<String> {
    if path.as_os_str() == "-" {
        let mut s = String::new();
        std::io::stdin()
            .read_to_string(&mut s)
            .map_err(|e| CliError::invalid(format!("cannot read the block from stdin: {e}")))?;
        return Ok(s);
    }
    std::fs::read_to_string(path).map_err(|e| {
        CliError::invalid(format!(
            "cannot read the tend block {}: {e}",
            path.display()
        ))
    })
}

impl TendCmd {
    /// Parse the block, apply it and print both.
    ///
    /// # Errors
    /// Bad input for a missing home, an unreadable file, a blank owner, a
    /// cap below 1, a malformed --self-pair; the engine's failure.
    pub fn run(self, ctx: &Ctx) -> CliResult<u8> {
        require_existing_home(&self.home)?;
        let owner = self.owner.trim().to_owned();
        if owner.is_empty() {
            return Err(CliError::invalid(
                "am tend needs --owner ID: whose memory is tended",
            ));
        }
        let mut self_pairs = Vec::new();
        for p in &self.self_pairs {
            let Some((s, o)) = p
                .split_once(':')
                .filter(|(s, o)| !s.trim().is_empty() && !o.trim().is_empty())
            else {
                return Err(CliError::invalid(format!(
                    "--self-pair is SCOPE:OWNER, got {p:?}"
                )));
            };
            self_pairs.push((s.trim().to_owned(), o.trim().to_owned()));
        }
        let text = read_block(&self.file)?;
        let parsed = parse_tend_block(&ParseTendBlock {
            text: fence_body(&text).to_owned(),
            max_elections: self.max_elections,
        })?;
        let facts = home::read_facts(&self.home)?;
        let pin = facts.as_ref().and_then(|f| f.pin.as_ref());
        let spec = embedder::resolve(
            ctx.embedder(),
            "none",
            pin,
            !self.dry_run,
            ctx.allow_vectorless,
            &self.home,
        )?;
        let built = ctx.build_embedder(&spec)?;
        let engine = home::open_queued(
            &HomeSpec::Sqlite(self.home.clone()),
            built,
            &PinnedClock::wall(),
            // A revise election seeds a ripple over the task queue, made
            // when missing; a dry run on a home without one only reads (its
            // revise elections are then refused).
            !self.dry_run || home::keeps_task_queue(&self.home),
        )?;
        let mut args =
            ApplyTendElections::new(parsed.elections.clone(), &self.scope, &owner, &self.actor);
        args.channel = Some(self.channel.clone());
        args.self_pairs = self_pairs;
        args.revisit_depth = self.revisit_depth;
        args.dry_run = self.dry_run;
        let (v, t) = tend(&engine.system, &parsed, &args)?;
        ctx.emit(&v, &t)?;
        Ok(0)
    }
}

/// Apply `parsed`'s elections with `args`: `{parsed, report, warnings}`
/// and the readable text.
///
/// # Errors
/// The engine's refusal of a blank actor or scope; its failure.
pub fn tend(
    sys: &MemorySystem,
    parsed: &TendBlock,
    args: &ApplyTendElections,
) -> CliResult<(Value, String)> {
    let done = sys.apply_tend_elections(args)?;
    let v = json!({"parsed": parsed, "report": done.value, "warnings": done.warnings});
    Ok((v, render(parsed, &done.value, &done.warnings)))
}

fn target(e: &am_system::candidates::TendElection) -> String {
    e.target
        .as_deref()
        .map_or_else(|| "(the whole scope)".to_owned(), escape)
}

fn render(parsed: &TendBlock, r: &TendReport, warnings: &[String]) -> String {
    let mut t = String::new();
    let _ = writeln!(
        t,
        "Parsed {} election(s); {} line(s) refused.",
        parsed.elections.len(),
        parsed.refusals.len()
    );
    for refusal in &parsed.refusals {
        let _ = writeln!(
            t,
            "  refused line: {}\n      {}",
            escape(&refusal.line),
            escape(&refusal.reason)
        );
    }
    let verb = if r.dry_run { "Would apply" } else { "Applied" };
    let _ = writeln!(t, "{verb} ({}):", r.applied.len());
    for a in &r.applied {
        let what = match &a.result {
            TendAct::Event(e) => {
                let resolves = e
                    .scar_event_id
                    .as_deref()
                    .or(e.bond_event_id.as_deref())
                    .map(|m| format!(" resolving {}", escape(m)))
                    .unwrap_or_default();
                format!("{} event {}{resolves}", e.kind, escape(&e.event_id))
            }
            TendAct::Revisit(v) => format!(
                "revisited: {} neighbour(s) (trace {})",
                v.paths_found,
                escape(&v.trace_id)
            ),
            TendAct::Revise(v) => format!(
                "ripple {} {} (magnitude {:.2}, {} reconsideration(s) {}, {} left out)",
                escape(&v.ripple_id),
                match (r.dry_run, v.opened) {
                    (true, _) => "planned",
                    (false, true) => "opened",
                    (false, false) => "stands",
                },
                v.magnitude,
                v.reconsider_task_ids.len(),
                if r.dry_run { "planned" } else { "queued" },
                v.left_out.len()
            ),
            TendAct::Dispose(d) => format!(
                "dream {} {} ({} closure(s){})",
                escape(&d.dream_id),
                match d.disposition {
                    am_system::candidates::DreamDisposition::Confirmed => "confirmed",
                    _ => "dissolved",
                },
                d.closure_ids.len(),
                d.edge
                    .as_ref()
                    .map(|e| format!(", edge {} {}", escape(&e.relation), escape(&e.edge_id)))
                    .unwrap_or_default()
            ),
        };
        let _ = writeln!(
            t,
            "  {} {}: {what}",
            escape(&a.election.verb),
            target(&a.election)
        );
    }
    let _ = writeln!(t, "Refused ({}):", r.refused.len());
    for f in &r.refused {
        let _ = writeln!(
            t,
            "  {} {}: {}",
            escape(&f.election.verb),
            target(&f.election),
            escape(&f.reason)
        );
    }
    for p in &r.revisit_paths {
        let _ = writeln!(
            t,
            "Revisit from {} ({}):",
            escape(&p.seed.graph_id),
            if p.seed.title.is_empty() {
                "title pending".to_owned()
            } else {
                escape(&p.seed.title)
            }
        );
        if p.paths.is_empty() {
            let _ = writeln!(t, "  (no neighbour: nothing links to it or from it)");
        }
        for hit in &p.paths {
            let _ = writeln!(
                t,
                "  {} {}",
                escape(&hit.graph_id),
                escape(&hit.cues.join("; "))
            );
        }
    }
    for w in warnings {
        let _ = writeln!(t, "{}", escape(w));
    }
    if r.dry_run {
        let _ = writeln!(t, "(dry run: nothing written)");
    }
    t
}

#[cfg(test)]
mod tests {
    use super::fence_body;

    #[test]
    fn the_first_tend_fence_is_the_block_and_a_file_without_one_is_whole() {
        let text = "Some words.\n```tend\npin: ex:a — reason: x\n```\nMore.\n";
        assert_eq!(fence_body(text), "pin: ex:a — reason: x\n");
        assert_eq!(fence_body("pin: ex:a — reason: x"), "pin: ex:a — reason: x");
        assert_eq!(
            fence_body("```TEND\nrefocus: — reason: y"),
            "refocus: — reason: y"
        );
    }
}
