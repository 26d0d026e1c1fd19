//! `am mass`: the mind-mass report of a home (api.md "Maintenance, health,
//! and operator tools", `mind_mass_report`): formation cadence, journal
//! mass, duplicate mass, embedding-space integrity, review backlog and
//! sleep recency, as readable text or the report's JSON with `--json`. A
//! pure read: nothing is deposited.

use crate::ctx::{Ctx, open_for_observing};
use crate::error::{CliError, CliResult};
use crate::text::escape;
use am_system::operator::{MindMass, MindMassReport};
use am_triples::{Narrow, TripleQuery};
use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::PathBuf;

/// The mind-mass report of a home: every (scope, owner) pair it holds, or
/// the pairs named. Read-only; with `--embedder SPEC` the pin is compared
/// with that embedder.
#[derive(Debug, clap::Args)]
pub struct MassCmd {
    /// The SQLite home (must exist).
    home: PathBuf,
    /// Only this owner's pairs.
    #[arg(long)]
    owner: Option<String>,
    /// Only these scopes (repeatable).
    #[arg(long = "scope")]
    scopes: Vec<String>,
    /// The window, in days.
    #[arg(long, default_value_t = 30)]
    days: i64,
}

impl MassCmd {
    /// Read the report and print it.
    ///
    /// # Errors
    /// Bad input for an unusable home, `--embedder` or window, or a home
    /// holding no pair to report on; the engine's failure.
    pub fn run(self, ctx: &Ctx) -> CliResult<u8> {
        let spec = ctx.embedder_spec("none")?;
        let wired = ctx.build_embedder(&spec)?;
        let engine = open_for_observing(&self.home)?;
        let sys = &engine.system;
        let mut pairs: BTreeSet<(String, String)> = BTreeSet::new();
        let rows = sys.store().query_narrow(
            &TripleQuery {
                predicate: Some("dcterms:abstract".to_owned()),
                limit: 0,
                ..TripleQuery::default()
            },
            Narrow {
                attributes: &[],
                provenance: &[],
            },
        )?;
        for a in rows {
            pairs.insert((a.scope.clone(), a.owner_id.clone().unwrap_or_default()));
        }
        let owner = self.owner.as_deref().map(str::trim);
        let scopes: Vec<String> = self
            .scopes
            .iter()
            .map(|s| s.trim().to_lowercase())
            .collect();
        let ladder: Vec<(String, String)> = pairs
            .into_iter()
            .filter(|(s, o)| {
                owner.is_none_or(|w| w == o) && (scopes.is_empty() || scopes.contains(s))
            })
            .collect();
        if ladder.is_empty() {
            return Err(CliError::invalid(
                "am mass found no (scope, owner) pair to report on: the home holds no record \
                 (or none under the --owner / --scope given)",
            ));
        }
        let mut args = MindMass::new(&[]);
        args.scopes = ladder;
        args.days = self.days;
        let report = sys.mind_mass_report(&args, wired.as_deref())?;
        ctx.emit(
            &serde_json::to_value(&report).unwrap_or_default(),
            &render(&report),
        )?;
        Ok(0)
    }
}

fn render(r: &MindMassReport) -> String {
    let mut t = String::new();
    let _ = writeln!(
        t,
        "Mind mass at seq {} (window {} days: {} .. {})",
        r.as_of_seq, r.window.days, r.window.since, r.window.until
    );
    let _ = writeln!(
        t,
        "Formation: {} records ({} machine), {} formed in the window",
        r.formation.records_total,
        r.formation.machine_records,
        r.formation.by_day.iter().map(|d| d.total).sum::<usize>()
    );
    for (kind, n) in &r.formation.total_by_kind {
        let _ = writeln!(t, "  {:<14} {n}", escape(kind));
    }
    let _ = writeln!(t, "Pairs:");
    for p in &r.pairs.by_pair {
        let _ = writeln!(
            t,
            "  {}/{}: {} records, {} in the window",
            escape(&p.scope),
            escape(&p.owner_id),
            p.records,
            p.formed_in_window
        );
    }
    let _ = writeln!(
        t,
        "Journal: {} records walked since seq {} (head {}); compaction: {}",
        r.journal.walked,
        r.journal.since_seq,
        r.journal.current_seq,
        if r.journal.compaction.available {
            "recorded".to_owned()
        } else {
            r.journal.compaction.detail.clone().unwrap_or_default()
        }
    );
    let _ = writeln!(
        t,
        "Duplicates: {} title clusters ({} records); wake-cue clusters: {}",
        r.duplicates.title_clusters,
        r.duplicates.title_cluster_records,
        r.duplicates
            .wake_cue_clusters
            .map_or("not counted".to_owned(), |n| format!(
                "{n} ({} records)",
                r.duplicates.wake_cue_members.unwrap_or(0)
            ))
    );
    let v = &r.embedding.vector_scan;
    let _ = writeln!(
        t,
        "Embedding: {}; scanned {} of {} records: {} vectorless, {} off the pin's dimension",
        escape(&r.embedding.pin_note),
        v.scanned,
        v.of,
        v.vectorless,
        v.off_dimension
    );
    let _ = writeln!(
        t,
        "Review: {} unresolved dreams, {} pending candidates",
        r.review.unresolved_dreams, r.review.candidates.pending
    );
    let _ = writeln!(
        t,
        "Sleep: last artifact at seq {}, newest dream {}",
        r.sleep.last_artifact_seq,
        r.sleep.newest_dream_at.as_deref().unwrap_or("never")
    );
    if r.warnings.is_empty() {
        let _ = writeln!(t, "Warnings: none");
    } else {
        let _ = writeln!(t, "Warnings:");
        for w in &r.warnings {
            let _ = writeln!(t, "  [{}] {}", w.word.as_str(), escape(&w.detail));
        }
    }
    t
}
