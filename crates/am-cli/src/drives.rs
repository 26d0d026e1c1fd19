//! `am drives`: what is alive and pressing for an entity (api.md "Drives:
//! what is alive and pressing"): the alive drives, the pressure counts, the
//! groups where it concentrates and the health ratios, as readable text or
//! their JSON with `--json`. A pure read: nothing is deposited.

use crate::ctx::{Ctx, open_for_observing};
use crate::error::{CliError, CliResult};
use crate::text::escape;
use am_system::MemorySystem;
use am_system::drives::{
    AliveDrive, AliveDrives, CognitionHealth, DrivePartition, DrivePressure, DriveScopes,
};
use serde_json::{Value, json};
use std::fmt::Write as _;
use std::path::PathBuf;

/// The drives of an entity: the alive ones (strongest first), the pressure
/// counts, the groups and the health ratios. Read-only.
#[derive(Debug, clap::Args)]
pub struct DrivesCmd {
    /// The SQLite home (must exist).
    home: PathBuf,
    /// The entity whose drives these are.
    #[arg(long)]
    owner: String,
    /// A scope of the ladder (repeatable; default `self`, `diary`, `life`),
    /// each paired with --owner.
    #[arg(long = "scope")]
    scopes: Vec<String>,
    /// How many alive drives to list.
    #[arg(long, default_value_t = 5)]
    k: usize,
}

impl DrivesCmd {
    /// Read the drives and print them.
    ///
    /// # Errors
    /// As [`drives`]; bad input for an unusable home or `--embedder`.
    pub fn run(self, ctx: &Ctx) -> CliResult<u8> {
        ctx.embedder_spec("none")?;
        let engine = open_for_observing(&self.home)?;
        let (v, t) = drives(&engine.system, &self.owner, &self.scopes, self.k)?;
        ctx.emit(&v, &t)?;
        Ok(0)
    }
}

/// The drives of `owner` over `scopes` (empty: `self`, `diary`, `life`), as
/// JSON (`{alive, pressure, groups, health}`) and as text.
///
/// # Errors
/// Bad input for a blank owner; the engine's refusal or failure.
pub fn drives(
    sys: &MemorySystem,
    owner: &str,
    scopes: &[String],
    k: usize,
) -> CliResult<(Value, String)> {
    let owner = owner.trim();
    if owner.is_empty() {
        return Err(CliError::invalid(
            "am drives needs --owner ID: whose drives to read",
        ));
    }
    let names: Vec<String> = if scopes.is_empty() {
        ["self", "diary", "life"].map(str::to_owned).to_vec()
    } else {
        scopes.to_vec()
    };
    let ladder: Vec<(String, String)> = names.into_iter().map(|s| (s, owner.to_owned())).collect();
    let alive = sys.alive_drives(&AliveDrives {
        scopes: ladder.clone(),
        k,
    })?;
    let args = DriveScopes { scopes: ladder };
    let pressure = sys.drive_pressure(&args)?;
    let groups = sys.open_drive_partition(&args)?;
    let health = sys.cognition_health(&args)?;
    let v = json!({"alive": alive, "pressure": pressure, "groups": groups, "health": health});
    Ok((v, render(&alive, &pressure, &groups, &health)))
}

fn ratio(r: Option<f64>) -> String {
    r.map_or_else(
        || "no ratio yet".to_owned(),
        |r| format!("{:.0}%", r * 100.0),
    )
}

fn render(
    alive: &[AliveDrive],
    p: &DrivePressure,
    groups: &DrivePartition,
    h: &CognitionHealth,
) -> String {
    let mut t = String::new();
    let _ = writeln!(t, "Alive now ({}):", alive.len());
    if alive.is_empty() {
        let _ = writeln!(t, "  (a quiet desk: no drive is alive)");
    }
    for d in alive {
        let title = match d.title.as_deref().filter(|s| !s.is_empty()) {
            Some(s) => escape(s),
            None => "(title pending)".to_owned(),
        };
        let _ = writeln!(
            t,
            "  [{} {} {}] {} (via {})",
            escape(&d.drive),
            escape(&d.record_id),
            d.born_at.as_deref().unwrap_or("?"),
            title,
            escape(&d.alive_via)
        );
        let _ = writeln!(t, "      {}", escape(&d.digest));
        if let Some(n) = d.group_size {
            let terms = d.group_shared_terms.clone().unwrap_or_default().join(", ");
            let _ = writeln!(t, "      speaks for {n} drives sharing: {}", escape(&terms));
        }
    }
    let _ = writeln!(t, "Pressure ({} open):", p.total_open);
    for (label, n) in [
        ("open questions", p.open_questions),
        ("open problems", p.open_problems),
        ("open commitments", p.open_commitments),
        ("incubating ideas", p.incubating_ideas),
        ("unexplored interests", p.unexplored_interests),
        ("unresolved dreams", p.unresolved_tensions),
    ] {
        let _ = writeln!(t, "  {label}: {n}");
    }
    let listed: Vec<_> = groups
        .families()
        .into_iter()
        .flat_map(|(f, gs)| gs.iter().map(move |g| (f, g)))
        .collect();
    let _ = writeln!(t, "Groups ({}):", listed.len());
    for (family, g) in listed {
        let _ = writeln!(
            t,
            "  {family} x{}: {} (exemplar {})",
            g.size,
            escape(&g.shared_terms.join(", ")),
            escape(&g.exemplar)
        );
    }
    let _ = writeln!(t, "Health:");
    let _ = writeln!(
        t,
        "  questions: {} open, {} resolved ({})",
        h.questions.open,
        h.questions.resolved,
        ratio(h.questions.ratio)
    );
    let _ = writeln!(
        t,
        "  problems: {} open, {} repaired ({})",
        h.problems.open,
        h.problems.repaired,
        ratio(h.problems.ratio)
    );
    let _ = writeln!(
        t,
        "  interests: {} open, {} explored ({})",
        h.interests.open,
        h.interests.explored,
        ratio(h.interests.ratio)
    );
    let _ = writeln!(t, "  review offers waiting: {}", h.candidates.pending);
    t
}
