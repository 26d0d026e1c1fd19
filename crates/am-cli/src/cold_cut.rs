//! `am cold-cut SRC DST --archive-ref REF`: rebuild a home file with its
//! attention-event mass cut (api.md "Maintenance, health, and operator
//! tools", `journal_cold_cut`), then verify the rebuilt file against the
//! source (`verify_cold_cut`). The source is only read; the rebuilt file
//! appears at DST in one rename, so an interrupted cut leaves nothing there.
//! Exit 0 when every check holds, 1 when one does not.

use crate::ctx::Ctx;
use crate::error::{CliError, CliResult};
use crate::home::PinnedClock;
use am_backend_sqlite::cold_cut::{
    ColdCut, ColdCutReport, ColdCutVerification, journal_cold_cut, verify_cold_cut,
};
use serde_json::json;
use std::fmt::Write as _;
use std::path::PathBuf;

/// Rebuild SRC as DST with the attention events at or below the cut removed
/// (the archive at `--archive-ref` keeps the whole life), then verify DST.
#[derive(Debug, clap::Args)]
pub struct ColdCutCmd {
    /// The home file to cut (only read; close its writers first).
    src: PathBuf,
    /// The rebuilt file (must not exist).
    dst: PathBuf,
    /// Where the lossless archive of the whole life is kept (required).
    #[arg(long)]
    archive_ref: String,
    /// Cut every pair's events at or below this seq (every pair with events
    /// below it must then be named by `--pair-cut`).
    #[arg(long, default_value_t = 0)]
    cut_seq: i64,
    /// A pair's own cut, `SCOPE|OWNER=SEQ` (repeatable; 0 keeps the pair whole).
    #[arg(long = "pair-cut")]
    pair_cuts: Vec<String>,
    /// Where an exported event stream is kept.
    #[arg(long)]
    exported_stream_ref: Option<String>,
    /// Keep the vectors of closure-retired rows (default: nulled).
    #[arg(long)]
    keep_retired_embeddings: bool,
    /// Also cut traces and snapshots at or below the highest cut.
    #[arg(long)]
    cut_traces: bool,
}

fn pair_cut(s: &str) -> CliResult<(String, String, i64)> {
    let bad = || {
        CliError::invalid(format!(
            "--pair-cut {s:?}: expected SCOPE|OWNER=SEQ (a seq at least 0)"
        ))
    };
    let (pair, seq) = s.rsplit_once('=').ok_or_else(bad)?;
    let (scope, owner) = pair.split_once('|').ok_or_else(bad)?;
    let seq: i64 = seq.trim().parse().map_err(|_| bad())?;
    if scope.trim().is_empty() || seq < 0 {
        return Err(bad());
    }
    Ok((scope.trim().to_owned(), owner.trim().to_owned(), seq))
}

impl ColdCutCmd {
    /// Cut, verify, print both.
    ///
    /// # Errors
    /// Bad input for an unusable source, an existing destination, a blank
    /// archive reference, a malformed `--pair-cut`, or a global cut that
    /// would erase a pair it does not name; SQLite's failure.
    pub fn run(self, ctx: &Ctx) -> CliResult<u8> {
        let mut args = ColdCut::new(&self.archive_ref);
        args.cut_seq = self.cut_seq;
        args.pair_cuts = self
            .pair_cuts
            .iter()
            .map(|p| pair_cut(p))
            .collect::<CliResult<_>>()?;
        args.exported_stream_ref = self.exported_stream_ref;
        args.null_retired_embeddings = !self.keep_retired_embeddings;
        args.cut_traces = self.cut_traces;
        let at = PinnedClock::wall().now();
        let cut = journal_cold_cut(&self.src, &self.dst, &args, &at)?;
        let verified = verify_cold_cut(&self.src, &self.dst)?;
        ctx.emit(
            &json!({"cut": cut, "verify": verified}),
            &render(&cut, &verified),
        )?;
        Ok(u8::from(!verified.ok))
    }
}

fn render(cut: &ColdCutReport, v: &ColdCutVerification) -> String {
    let mut t = String::new();
    let _ = writeln!(
        t,
        "Cold cut at seq {}: {} of {} attention events kept ({} cut); {} retired vectors nulled.",
        cut.cut_seq,
        cut.events_after,
        cut.events_before,
        cut.events_before - cut.events_after,
        cut.embeddings_nulled
    );
    let _ = writeln!(
        t,
        "Size: {} bytes -> {} bytes. Archive: {}.",
        cut.bytes_before, cut.bytes_after, cut.archive_ref
    );
    let _ = writeln!(
        t,
        "Verify: {} ({} of {} checks hold)",
        if v.ok { "ok" } else { "FAILED" },
        v.checks.iter().filter(|c| c.ok).count(),
        v.checks.len()
    );
    for c in &v.checks {
        let detail = serde_json::to_string(&c.detail).unwrap_or_default();
        let _ = writeln!(
            t,
            "  {} {} {detail}",
            if c.ok { "ok  " } else { "FAIL" },
            c.check
        );
    }
    t
}
