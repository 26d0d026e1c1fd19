//! `am identity`, `am feelings` and `am diary`: the operator's three reads of
//! an entity (operator.md §1, §3, §4, §6): the folded identity core, the
//! gradation table or one target's why-walk, and the diary's open sets with
//! the chain check. Pure reads; text by default, `--json` for scripts.

use crate::ctx::{Ctx, open_for_observing};
use crate::error::{CliError, CliResult};
use crate::text::escape;
use am_system::MemorySystem;
use am_system::identity::SelfRecords;
use am_system::observe::diary::{self, DiaryRead};
use am_system::valence::{FeelingsAbout, Gradation, feelings_about};
use am_triples::TripleAssertion;
use serde_json::{Value, json};
use std::fmt::Write as _;
use std::path::PathBuf;

/// The folded identity core of an entity (operator.md §1). Read-only.
#[derive(Debug, clap::Args)]
pub struct IdentityCmd {
    /// The SQLite home (must exist).
    home: PathBuf,
    /// The entity (`entity:<name>`).
    #[arg(long)]
    owner: String,
    /// The identity scope.
    #[arg(long, default_value = "self")]
    scope: String,
}

impl IdentityCmd {
    /// Read the identity core and print it.
    ///
    /// # Errors
    /// As [`identity`]; bad input for an unusable home or `--embedder`.
    pub fn run(self, ctx: &Ctx) -> CliResult<u8> {
        let IdentityCmd { home, owner, scope } = self;
        ctx.embedder_spec("none")?;
        let engine = open_for_observing(&home)?;
        let (v, t) = identity(&engine.system, &scope, &owner)?;
        ctx.emit(&v, &t)?;
        Ok(0)
    }
}

/// The gradation table, or the why-walk for one TARGET (operator.md §4).
/// Read-only.
#[derive(Debug, clap::Args)]
pub struct FeelingsCmd {
    /// The SQLite home (must exist).
    home: PathBuf,
    /// One target (`person:ada`, `tool:web_search`, a record id).
    target: Option<String>,
    /// The entity.
    #[arg(long)]
    owner: String,
    /// The valence scope.
    #[arg(long, default_value = "self")]
    scope: String,
}

impl FeelingsCmd {
    /// Read the feelings and print them.
    ///
    /// # Errors
    /// As [`feelings`]; bad input for an unusable home or `--embedder`.
    pub fn run(self, ctx: &Ctx) -> CliResult<u8> {
        let FeelingsCmd {
            home,
            target,
            owner,
            scope,
        } = self;
        ctx.embedder_spec("none")?;
        let engine = open_for_observing(&home)?;
        let (v, t) = feelings(&engine.system, &scope, &owner, target.as_deref())?;
        ctx.emit(&v, &t)?;
        Ok(0)
    }
}

/// Open questions, problems, ideas and commitments; `--verify` audits
/// the hash chain and exits 1 on a break (operator.md §3, §6). Read-only.
#[derive(Debug, clap::Args)]
pub struct DiaryCmd {
    /// The SQLite home (must exist).
    home: PathBuf,
    /// The entity.
    #[arg(long)]
    owner: String,
    /// The diary scope.
    #[arg(long, default_value = "diary")]
    scope: String,
    /// Check the owner-direct content-hash chain.
    #[arg(long)]
    verify: bool,
}

impl DiaryCmd {
    /// Read the diary and print it; exit code 1 when `--verify` finds a break.
    ///
    /// # Errors
    /// As [`diary()`]; bad input for an unusable home or `--embedder`.
    pub fn run(self, ctx: &Ctx) -> CliResult<u8> {
        let DiaryCmd {
            home,
            owner,
            scope,
            verify,
        } = self;
        ctx.embedder_spec("none")?;
        let engine = open_for_observing(&home)?;
        let (v, t, broken) = diary(&engine.system, &scope, &owner, verify)?;
        ctx.emit(&v, &t)?;
        Ok(u8::from(broken))
    }
}

fn encode<T: serde::Serialize>(v: &T) -> CliResult<Value> {
    serde_json::to_value(v).map_err(|e| CliError::failure(format!("cannot encode the answer: {e}")))
}

fn attr<'a>(a: &'a TripleAssertion, key: &str) -> &'a str {
    a.attributes.get(key).and_then(Value::as_str).unwrap_or("")
}

/// The folded identity core of `owner` in `scope`: JSON rows and the text.
///
/// # Errors
/// The engine's failure.
pub fn identity(sys: &MemorySystem, scope: &str, owner: &str) -> CliResult<(Value, String)> {
    let core = sys.self_records(&SelfRecords::new(scope, owner))?;
    let v = json!({"scope": scope, "owner_id": owner,
                   "records": core.iter().map(TripleAssertion::to_dict).collect::<Vec<_>>()});
    let mut t = format!(
        "identity core of {} in {} ({} records)\n",
        escape(owner),
        escape(scope),
        core.len()
    );
    for a in &core {
        let kind = attr(a, "record_kind");
        let class = match (attr(a, "value_class"), attr(a, "trait_class")) {
            ("", "") => String::new(),
            (c, "") | ("", c) => format!(" ({c})"),
            (c, l) => format!(" ({c}, {l})"),
        };
        let _ = writeln!(
            t,
            "[{kind}{class}] {}: {}",
            escape(attr(a, "title")),
            escape(&a.object)
        );
    }
    if core.is_empty() {
        t.push_str("no prompt-active identity records (never engrammed, or every one retired)\n");
    }
    Ok((v, t))
}

/// The gradation table of `owner` in `scope`, or the why-walk for `target`.
///
/// # Errors
/// The engine's failure.
pub fn feelings(
    sys: &MemorySystem,
    scope: &str,
    owner: &str,
    target: Option<&str>,
) -> CliResult<(Value, String)> {
    if let Some(target) = target {
        let args = FeelingsAbout {
            gradation_config: sys.gradation_config().clone(),
            ..FeelingsAbout::new(target, &[(scope, owner)])
        };
        let r = feelings_about(Some(&**sys.journal()), &args)?;
        let mut t = format!("feelings about {}\n", escape(&r.target));
        match &r.standing {
            None => {
                let _ = writeln!(
                    t,
                    "  {}",
                    escape(r.note.as_deref().unwrap_or("no standing"))
                );
            }
            Some(s) => {
                let _ = writeln!(
                    t,
                    "  net {:+} (positive {} over {}, negative {} over {}){}{}",
                    s.net,
                    s.positive,
                    s.positive_count,
                    s.negative,
                    s.negative_count,
                    if s.scarred { ", scarred" } else { "" },
                    if s.bonded { ", bonded" } else { "" }
                );
                let _ = writeln!(t, "  {} events, newest first:", r.total_events);
                for e in &r.events {
                    let _ = writeln!(
                        t,
                        "  {} {} {}{} {}",
                        escape(&e.when),
                        e.kind,
                        if e.sign > 0 { '+' } else { '-' },
                        e.magnitude,
                        escape(&e.reason)
                    );
                }
            }
        }
        return Ok((encode(&r)?, t));
    }
    let g = sys.gradation(&Gradation::new(scope, owner))?;
    let mut rows: Vec<(&str, &am_system::GradationScore)> = g.iter().collect();
    rows.sort_by(|a, b| b.1.net.total_cmp(&a.1.net).then_with(|| a.0.cmp(b.0)));
    let mut t = format!(
        "gradation of {} in {} ({} targets)\n",
        escape(owner),
        escape(scope),
        rows.len()
    );
    let _ = writeln!(t, "{:>7} {:>6} {:>6}  markers    target", "net", "G+", "G-");
    for (target, s) in &rows {
        let markers = match (s.scarred, s.bonded) {
            (true, true) => "scar+bond",
            (true, false) => "scar",
            (false, true) => "bond",
            (false, false) => "-",
        };
        let _ = writeln!(
            t,
            "{:>+7.1} {:>6.1} {:>6.1}  {markers:<9}  {}",
            s.net,
            s.positive,
            s.negative,
            escape(target)
        );
    }
    Ok((encode(&g)?, t))
}

/// The diary's open sets of `owner` in `scope`, and with `verify` the chain
/// report; the `bool` is whether the chain is broken.
///
/// # Errors
/// The engine's failure.
pub fn diary(
    sys: &MemorySystem,
    scope: &str,
    owner: &str,
    verify: bool,
) -> CliResult<(Value, String, bool)> {
    let store = &**sys.store();
    let journal = Some(&**sys.journal());
    let args = DiaryRead {
        limit: 0,
        ..DiaryRead::new(scope, owner)
    };
    let sets = [
        ("questions", diary::open_questions(store, journal, &args)?),
        ("problems", diary::open_problems(store, journal, &args)?),
        ("ideas", diary::open_ideas(store, journal, &args)?),
        (
            "commitments",
            diary::open_commitments(store, journal, &args)?,
        ),
    ];
    let mut v = json!({"scope": scope, "owner_id": owner});
    let mut t = format!("diary of {} in {}\n", escape(owner), escape(scope));
    for (name, rows) in &sets {
        v[format!("open_{name}")] =
            Value::Array(rows.iter().map(TripleAssertion::to_dict).collect());
        let _ = writeln!(t, "open {name}: {}", rows.len());
        for a in rows {
            let when: String = a.observed_at.chars().take(10).collect();
            let _ = writeln!(t, "  {when} {} {}", a.subject, escape(attr(a, "title")));
        }
    }
    let mut broken = false;
    if verify {
        let report = diary::verify_diary_chain(store, scope, owner)?;
        broken = !report.intact;
        match &report.break_at {
            None => {
                let _ = writeln!(t, "chain: intact ({} entries)", report.entries);
            }
            Some(at) => {
                let _ = writeln!(
                    t,
                    "chain: BROKEN at {} ({} entries)",
                    escape(at),
                    report.entries
                );
            }
        }
        v["chain"] = encode(&report)?;
    }
    Ok((v, t, broken))
}
