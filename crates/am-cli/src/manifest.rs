//! `am manifest`: the engine manifest (api.md "Maintenance, health, and
//! operator tools", `engine_manifest`), generated from the verb table: the
//! passes with their cadence class, honesty properties and flags, every op,
//! the vocabularies, the tunables and the constants. JSON always (it is a
//! machine-readable inventory); `--json` changes nothing.

use crate::ctx::Ctx;
use crate::error::CliResult;

/// Print the engine manifest as one JSON document.
#[derive(Debug, clap::Args)]
pub struct ManifestCmd {}

impl ManifestCmd {
    /// Print the manifest.
    ///
    /// # Errors
    /// A failure when stdout cannot be written.
    pub fn run(self, ctx: &Ctx) -> CliResult<u8> {
        let m = am_ops::engine_manifest();
        let pretty = serde_json::to_string_pretty(&m).unwrap_or_default();
        ctx.emit(&m, &format!("{pretty}\n"))?;
        Ok(0)
    }
}
