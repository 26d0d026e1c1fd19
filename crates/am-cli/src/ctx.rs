//! What every `am` subcommand is given ([`Ctx`]: the global flags `--json`,
//! `--embedder`, `--embedder-key-env` and `--allow-vectorless`) and the helpers the subcommands
//! share: choosing the embedder, printing the answer, refusing a path that is
//! not an existing home, opening a home for a pure read.

use crate::embedder::EmbedderSpec;
use crate::error::{CliError, CliResult};
use crate::home::{self, HomeSpec, PinnedClock};
use serde_json::Value;
use std::io::Write;
use std::path::Path;

/// The global flags, as every subcommand's `run` reads them.
#[derive(Debug, Clone, Default)]
pub struct Ctx {
    /// `--json`: machine-readable JSON output (and JSON errors on stderr).
    pub json: bool,
    /// `--embedder SPEC`, when given.
    pub embedder: Option<String>,
    /// `--embedder-key-env NAME`: the environment variable holding a served
    /// embedder's key (default per kind: [`EmbedderSpec::key_env_default`]).
    pub embedder_key_env: Option<String>,
    /// `--allow-vectorless`: `--embedder none` may write rows without
    /// vectors into a home pinned to an embedder.
    pub allow_vectorless: bool,
}

impl Ctx {
    /// The `--embedder` spec as given, if any.
    pub fn embedder(&self) -> Option<&str> {
        self.embedder.as_deref()
    }

    /// The `--embedder` spec parsed, or `default` when none was given.
    ///
    /// # Errors
    /// Bad input for a spec that does not parse.
    pub fn embedder_spec(&self, default: &str) -> CliResult<EmbedderSpec> {
        EmbedderSpec::parse(self.embedder().unwrap_or(default))
    }

    /// Build the embedder `spec` names, a served one with the key from the
    /// environment variable `--embedder-key-env` names.
    ///
    /// # Errors
    /// As [`EmbedderSpec::build_keyed`].
    pub fn build_embedder(
        &self,
        spec: &EmbedderSpec,
    ) -> CliResult<Option<std::sync::Arc<dyn am_triples::TextEmbedder>>> {
        spec.build_keyed(self.embedder_key_env.as_deref())
    }

    /// Print `value` as one JSON line, or `human` when not in JSON mode.
    ///
    /// # Errors
    /// A failure when stdout cannot be written.
    pub fn emit(&self, value: &Value, human: &str) -> CliResult<()> {
        let mut out = std::io::stdout().lock();
        let r = if self.json {
            writeln!(out, "{value}")
        } else {
            write!(out, "{human}")
        };
        r.and_then(|()| out.flush())
            .map_err(|e| CliError::failure(format!("cannot write to stdout: {e}")))
    }
}

/// Open an existing home for a pure read (`replay`, `explain`, `card`): no
/// embedder, no pin declared, the wall clock.
///
/// # Errors
/// As [`require_existing_home`]; the engine's failure to open it.
pub fn open_for_observing(home: &Path) -> CliResult<home::Engine> {
    require_existing_home(home)?;
    home::open_to_read(
        &HomeSpec::Sqlite(home.to_path_buf()),
        None,
        &PinnedClock::wall(),
        am_system::ReconstructConfig::default(),
    )
}

/// A command that reads a home (`query`, `recall`) refuses, before anything
/// opens it for writing, a path that is not an existing AbstractMemory home:
/// a missing or empty file, a file that is not SQLite, a SQLite database
/// without the store's table.
///
/// # Errors
/// Bad input naming the path and what was expected.
pub fn require_existing_home(path: &Path) -> CliResult<()> {
    home::check_home_path(path)?;
    if !path.is_file() {
        return Err(CliError::invalid(format!(
            "--home {}: no such home file (expected an existing SQLite home; `am ingest` creates one)",
            path.display()
        )));
    }
    let conn = home::open_read_only(path)?;
    if !home::table_exists(&conn, "triples")? {
        return Err(CliError::invalid(format!(
            "--home {} is not an AbstractMemory home (expected a SQLite file holding the `triples` \
             store; `am ingest` creates one)",
            path.display()
        )));
    }
    Ok(())
}
