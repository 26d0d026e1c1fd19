//! `am situate`: one past moment of an entity rebuilt (api.md "Situating a
//! past moment"), addressed by `--seq`, `--at` or `--participant` (its first
//! encounter, or its last with `--last`), printed as the fenced historical
//! block or, with `--json`, as the `situate` answer. A pure read: nothing is
//! written.

use crate::ctx::{Ctx, open_for_observing};
use crate::error::{CliError, CliResult};
use crate::text::escape;
use am_system::MemorySystem;
use am_system::situate::{Occurrence, Situate, SituateBudget, situate_prompt_block};
use serde_json::{Value, json};
use std::path::PathBuf;

/// One past moment of an entity: what existed around it, what it was
/// attending to, who it was then and how it changed since, what was still
/// open. Read-only.
#[derive(Debug, clap::Args)]
#[command(group(clap::ArgGroup::new("moment").required(true).args(["at", "seq", "participant"])))]
pub struct SituateCmd {
    /// The SQLite home (must exist).
    home: PathBuf,
    /// The entity whose past this is.
    #[arg(long)]
    owner: String,
    /// The moment at this ISO time (the journal's seq at that time).
    #[arg(long)]
    at: Option<String>,
    /// The moment at this journal seq.
    #[arg(long, allow_negative_numbers = true)]
    seq: Option<i64>,
    /// The moment of the first encounter with this participant (`person:ada`).
    #[arg(long)]
    participant: Option<String>,
    /// With --participant: the last encounter instead of the first.
    #[arg(long, requires = "participant")]
    last: bool,
    /// A scope of the ladder (repeatable; default `self`, `diary`, `life`),
    /// each paired with --owner.
    #[arg(long = "scope")]
    scopes: Vec<String>,
}

impl SituateCmd {
    /// Situate the moment and print it.
    ///
    /// # Errors
    /// As [`situate`]; bad input for an unusable home or `--embedder`.
    pub fn run(self, ctx: &Ctx) -> CliResult<u8> {
        ctx.embedder_spec("none")?;
        let engine = open_for_observing(&self.home)?;
        let occurrence = if self.last {
            Occurrence::Last
        } else {
            Occurrence::First
        };
        let args = Moment {
            at: self.at,
            seq: self.seq,
            participant: self.participant,
            occurrence,
        };
        let (v, t) = situate(&engine.system, &self.owner, &self.scopes, args)?;
        ctx.emit(&v, &t)?;
        Ok(0)
    }
}

/// The moment asked for.
#[derive(Debug, Clone)]
pub struct Moment {
    /// An ISO time.
    pub at: Option<String>,
    /// A journal seq.
    pub seq: Option<i64>,
    /// A participant.
    pub participant: Option<String>,
    /// Which encounter with the participant.
    pub occurrence: Occurrence,
}

/// The moment of `owner` over `scopes` (empty: `self`, `diary`, `life`), as
/// the `situate` answer's JSON and as the fenced block, each line escaped for
/// the terminal.
///
/// # Errors
/// Bad input for a blank owner; the engine's refusal or failure.
pub fn situate(
    sys: &MemorySystem,
    owner: &str,
    scopes: &[String],
    moment: Moment,
) -> CliResult<(Value, String)> {
    let owner = owner.trim();
    if owner.is_empty() {
        return Err(CliError::invalid(
            "am situate needs --owner ID: whose past to situate",
        ));
    }
    let names: Vec<String> = if scopes.is_empty() {
        ["self", "diary", "life"].map(str::to_owned).to_vec()
    } else {
        scopes.to_vec()
    };
    let situation = sys.situate(&Situate {
        scopes: names.into_iter().map(|s| (s, owner.to_owned())).collect(),
        at: moment.at,
        seq: moment.seq,
        participant: moment.participant,
        occurrence: moment.occurrence,
        budget: SituateBudget::DEFAULT,
    })?;
    let mut text: String = situate_prompt_block(&situation)
        .lines()
        .map(|l| format!("{}\n", escape(l)))
        .collect();
    if situation.budget.token_exhausted {
        text.push_str("(the period was cut at its token budget)\n");
    }
    Ok((json!(situation), text))
}
