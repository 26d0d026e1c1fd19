//! `am reembed`: move a home to a new embedding space (api.md
//! "Maintenance, health, and operator tools", `reembed_home`; operator.md
//! §6b). Every stored text is embedded with the new embedder first (a
//! progress bar on a terminal), then every vector is swapped in one
//! transaction with the new pin written last: all or nothing, so an
//! interrupted run leaves the old vectors and pin, and a re-run starts over.
//! The act is journaled as a bookkeeping marker in the owner's `life`.

use crate::ctx::{Ctx, require_existing_home};
use crate::error::{CliError, CliResult};
use crate::home::{self, HomeSpec, PinnedClock};
use am_system::operator::{ReembedStore, Reembedded};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::fmt::Write as _;
use std::io::IsTerminal as _;
use std::path::PathBuf;

/// Re-embed every record of a home with `--embedder SPEC` and swap the
/// vectors in whole (all or nothing, pin last).
#[derive(Debug, clap::Args)]
pub struct ReembedCmd {
    /// The SQLite home (must exist; close every other writer first).
    home: PathBuf,
    /// The owner whose `life` stream carries the marker.
    #[arg(long)]
    owner: String,
    /// The new space's model id when the embedder names none.
    #[arg(long)]
    model_id: Option<String>,
    /// Why (kept on the marker).
    #[arg(long, default_value = "operator reembed")]
    reason: String,
    /// Texts per embed call.
    #[arg(long, default_value_t = 64)]
    batch_size: usize,
}

impl ReembedCmd {
    /// Re-embed the home and print what moved.
    ///
    /// # Errors
    /// Bad input for a missing `--embedder`, an unusable home, or an
    /// embedder the pass refuses; the engine's failure.
    pub fn run(self, ctx: &Ctx) -> CliResult<u8> {
        let Some(spec) = ctx.embedder() else {
            return Err(CliError::invalid(
                "am reembed needs --embedder SPEC: the new embedding space to move the home into",
            ));
        };
        let spec = crate::embedder::EmbedderSpec::parse(spec)?;
        let Some(embedder) = ctx.build_embedder(&spec)? else {
            return Err(CliError::invalid(
                "am reembed needs a real embedder (--embedder none has no space to move into)",
            ));
        };
        require_existing_home(&self.home)?;
        // Opened without an embedder: the old one is not needed (its
        // vectors are replaced), and the new one would contradict the pin.
        let engine = home::open_to_read(
            &HomeSpec::Sqlite(self.home.clone()),
            None,
            &PinnedClock::wall(),
            am_system::ReconstructConfig::default(),
        )?;
        let mut args = ReembedStore::new(&self.owner);
        args.model_id = self.model_id;
        args.reason = self.reason;
        args.batch_size = self.batch_size;
        let bar = ProgressBar::new(0);
        if ctx.json || !std::io::stderr().is_terminal() {
            bar.set_draw_target(ProgressDrawTarget::hidden());
        } else if let Ok(style) =
            ProgressStyle::with_template("{bar:40} {pos}/{len} texts embedded ({elapsed}) {msg}")
        {
            bar.set_style(style);
        }
        bar.set_message(
            "the swap is all or nothing: until it commits the home keeps its old vectors",
        );
        let r = engine
            .system
            .reembed_home(&args, embedder, &mut |done, of| {
                bar.set_length(u64::try_from(of).unwrap_or(u64::MAX));
                bar.set_position(u64::try_from(done).unwrap_or(u64::MAX));
            });
        bar.finish_and_clear();
        let r = r?;
        ctx.emit(&serde_json::to_value(&r).unwrap_or_default(), &render(&r))?;
        Ok(0)
    }
}

fn render(r: &Reembedded) -> String {
    let mut t = String::new();
    let _ = writeln!(
        t,
        "Re-embedded: {} of {} rows hold a vector ({} formation edges never embed).",
        r.vectored, r.rows, r.skipped_edges
    );
    let _ = writeln!(
        t,
        "Space: {} -> {}",
        am_triples::EmbeddingPin::note(r.old_pin.as_ref()),
        am_triples::EmbeddingPin::note(Some(&r.new_pin))
    );
    let _ = writeln!(
        t,
        "The swap was all or nothing (one transaction, the pin written last); the act is journaled as {}.",
        r.marker_record_id
    );
    let _ = writeln!(t, "Open the home with this embedder from now on.");
    t
}
