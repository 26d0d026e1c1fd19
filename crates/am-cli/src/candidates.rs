//! `am candidates HOME --owner ID`: the review offers waiting on an owner's
//! disposal and their bars, and the pending identity-amendment proposals
//! (`identity_review_pass`); `promote RECORD --witness ID… --reason TEXT`
//! and `reject RECORD --reason TEXT [--hide]` dispose of one
//! (`promote_candidate`, `reject_candidate`). Readable text, or the JSON of
//! the same reads and answers (`--json`). A refusal by the home's state (too
//! few independent origins) is printed with its reason and exits 0:
//! nothing was written.
//!
//! An offer is a standing review offer of the owner's pairs: a record the
//! night's tending or the miner formed `maintenance_candidate` +
//! `review_required`, not closed, neither promoted nor rejected. Its bar is
//! promote_candidate's independence test: corroboration from at least
//! `min_origins` (2) origins independent of each other and of the offer's
//! own (origin = `(source, actor, session)`); the listing counts what its
//! own sources offer, a promotion names its witnesses.
//!
//! Spec: api.md "Candidates, disposal, and deliberate acts"; docs/candidates.md.

use crate::ctx::{Ctx, require_existing_home};
use crate::embedder;
use crate::error::{CliError, CliResult};
use crate::home::{self, HomeSpec, PinnedClock};
use crate::text::escape;
use am_journal::{BindingFilter, ClosureFilter, Lifecycle};
use am_system::MemorySystem;
use am_system::candidates::{
    Disposal, IdentityReview, PromoteCandidate, RejectCandidate, independent_origins, origin_of,
};
use am_triples::{TripleAssertion, TripleQuery};
use serde_json::{Value, json};
use std::fmt::Write as _;
use std::path::PathBuf;

/// The digest predicate (a record's one row naming its kind and title).
const DIGEST: &str = "dcterms:abstract";
/// promote_candidate's default bar.
const MIN_ORIGINS: usize = 2;

/// The review offers of an owner and their bars, the pending identity
/// proposals; promote or reject one with a reason.
#[derive(Debug, clap::Args)]
pub struct CandidatesCmd {
    /// The SQLite home (must exist).
    home: PathBuf,
    /// The owner whose offers these are.
    #[arg(long)]
    owner: String,
    /// A scope of the owner's (repeatable; default `life`).
    #[arg(long = "scope")]
    scopes: Vec<String>,
    /// Dispose of one offer.
    #[command(subcommand)]
    action: Option<Action>,
}

/// A disposal.
#[derive(Debug, clap::Subcommand)]
enum Action {
    /// Promote an offer on independent corroboration.
    Promote {
        /// The offer (either id namespace).
        record: String,
        /// A corroborating record (repeatable): its origin must differ
        /// from the offer's and the other witnesses'.
        #[arg(long = "witness", required = true)]
        witnesses: Vec<String>,
        /// Why (mandatory).
        #[arg(long)]
        reason: String,
        /// Independent origins required.
        #[arg(long, default_value_t = 2)]
        min_origins: i64,
    },
    /// Reject an offer: the honest no, kept indexed unless --hide.
    Reject {
        /// The offer (either id namespace).
        record: String,
        /// Why (mandatory).
        #[arg(long)]
        reason: String,
        /// Also hide it (a separate stated act).
        #[arg(long)]
        hide: bool,
    },
}

impl CandidatesCmd {
    /// List the offers, or dispose of one, and print the answer.
    ///
    /// # Errors
    /// Bad input for a missing home, a blank owner or reason, an unknown
    /// record; the engine's failure.
    pub fn run(self, ctx: &Ctx) -> CliResult<u8> {
        require_existing_home(&self.home)?;
        let owner = self.owner.trim().to_owned();
        if owner.is_empty() {
            return Err(CliError::invalid(
                "am candidates needs --owner ID: whose offers to read",
            ));
        }
        let scopes: Vec<String> = if self.scopes.is_empty() {
            vec!["life".to_owned()]
        } else {
            self.scopes
                .iter()
                .map(|s| s.trim().to_lowercase())
                .collect()
        };
        let writes = self.action.is_some();
        let facts = home::read_facts(&self.home)?;
        let pin = facts.as_ref().and_then(|f| f.pin.as_ref());
        let spec = embedder::resolve(
            ctx.embedder(),
            "none",
            pin,
            writes,
            ctx.allow_vectorless,
            &self.home,
        )?;
        let built = ctx.build_embedder(&spec)?;
        let engine = home::open(
            &HomeSpec::Sqlite(self.home.clone()),
            built,
            &PinnedClock::wall(),
            am_system::ReconstructConfig::default(),
        )?;
        let sys = &engine.system;
        let (v, t) = match self.action {
            None => {
                let v = listing(sys, &owner, &scopes)?;
                let t = render(&v);
                (v, t)
            }
            Some(Action::Promote {
                record,
                witnesses,
                reason,
                min_origins,
            }) => {
                let refs: Vec<&str> = witnesses.iter().map(String::as_str).collect();
                let mut args = PromoteCandidate::new(&record, "", "", &refs, &reason);
                args.min_origins = min_origins;
                let answer = sys.promote_candidate(&args)?;
                let t = match &answer {
                    Disposal::Done(p) => format!(
                        "Promoted {} ({} independent origin(s)).\n",
                        escape(&p.record_id),
                        p.independent_origins
                    ),
                    Disposal::Refused(r) => format!(
                        "Refused ({}): {}\nNothing was written.\n",
                        json!(r.reason).as_str().unwrap_or(""),
                        escape(&r.message)
                    ),
                };
                (json!(answer), t)
            }
            Some(Action::Reject {
                record,
                reason,
                hide,
            }) => {
                let mut args = RejectCandidate::new(&record, "", "", &reason);
                args.hide = hide;
                let r = sys.reject_candidate(&args)?;
                let t = format!(
                    "Rejected {}{}.\n",
                    escape(&r.record_id),
                    if r.hidden {
                        " and hid it"
                    } else {
                        " (still indexed)"
                    }
                );
                (json!(r), t)
            }
        };
        ctx.emit(&v, &t)?;
        Ok(0)
    }
}

fn text_of(a: &TripleAssertion, key: &str) -> String {
    a.attributes
        .get(key)
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned()
}

fn flag(a: &TripleAssertion, key: &str) -> bool {
    a.attributes.get(key).is_some_and(|v| match v {
        Value::Bool(b) => *b,
        Value::Null => false,
        Value::String(s) => !s.is_empty(),
        _ => true,
    })
}

/// The standing review offers of `owner` in `scopes` with their bars, and
/// the identity review: `{offers: [...], identity_review}`.
///
/// # Errors
/// The engine's failure.
pub fn listing(sys: &MemorySystem, owner: &str, scopes: &[String]) -> CliResult<Value> {
    let mut offers = Vec::new();
    for scope in scopes {
        let rows = sys.store().query(&TripleQuery {
            predicate: Some(DIGEST.to_owned()),
            scope: Some(scope.clone()),
            owner_id: Some(owner.to_owned()),
            limit: 0,
            ..TripleQuery::default()
        })?;
        for a in rows {
            if !(flag(&a, "maintenance_candidate") && flag(&a, "review_required")) {
                continue;
            }
            let row_id = a.assertion_id.clone().unwrap_or_default();
            let closed = !sys
                .journal()
                .closures(&ClosureFilter {
                    assertion_id: Some(row_id.clone()),
                    until_seq: None,
                    limit: 1,
                })?
                .is_empty();
            if closed {
                continue;
            }
            let lifecycle = sys
                .journal()
                .bindings(&BindingFilter {
                    record_id: Some(a.subject.clone()),
                    scope: None,
                    owner_id: None,
                    fold: true,
                    until_seq: None,
                })?
                .last()
                .map_or(Lifecycle::InactiveCandidate, |b| b.lifecycle);
            if matches!(lifecycle, Lifecycle::Promoted | Lifecycle::Rejected) {
                continue;
            }
            offers.push(offer(sys, &a)?);
        }
    }
    let pairs: Vec<(&str, &str)> = scopes.iter().map(|s| (s.as_str(), owner)).collect();
    let review = sys.identity_review_pass(&IdentityReview::new(&pairs, owner))?;
    Ok(json!({"owner_id": owner, "offers": offers, "identity_review": review}))
}

/// One offer: what it is, what it rests on and its bar.
fn offer(sys: &MemorySystem, a: &TripleAssertion) -> CliResult<Value> {
    let mine = origin_of(a);
    let mut sources = Vec::new();
    let mut rows = Vec::new();
    for relation in ["summarizes", "derived_from"] {
        for e in sys.store().query(&TripleQuery {
            subject: Some(a.subject.clone()),
            predicate: Some(relation.to_owned()),
            limit: 0,
            ..TripleQuery::default()
        })? {
            if let Some(src) = sys.resolve_digest_assertion(&e.object)? {
                let o = origin_of(&src);
                sources.push(json!({
                    "record_id": src.subject,
                    "title": text_of(&src, "title"),
                    "via": relation,
                    "origin": o,
                    "independent": o != mine,
                }));
                rows.push(src);
            }
        }
    }
    let independent = independent_origins(&rows)
        .into_iter()
        .filter(|o| *o != mine)
        .count();
    let title = text_of(a, "title");
    Ok(json!({
        "record_id": a.subject,
        "row_id": a.assertion_id,
        "kind": text_of(a, "record_kind"),
        "proposed_kind": text_of(a, "proposed_kind"),
        "title": if title.is_empty() { Value::Null } else { json!(title) },
        "scope": a.scope,
        "formed_at": a.observed_at,
        "origin": mine,
        "sources": sources,
        "bar": {
            "min_origins": MIN_ORIGINS,
            "independent_origins": independent,
            "met": independent >= MIN_ORIGINS,
        },
    }))
}

fn origin_text(o: &Value) -> String {
    let parts: Vec<&str> = o
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    if parts.iter().all(|p| p.is_empty()) {
        "(no origin recorded)".to_owned()
    } else {
        escape(&parts.join(" / "))
    }
}

fn render(v: &Value) -> String {
    let mut t = String::new();
    let offers = v["offers"].as_array().cloned().unwrap_or_default();
    let _ = writeln!(t, "Review offers ({}):", offers.len());
    if offers.is_empty() {
        let _ = writeln!(t, "  (none waiting)");
    }
    for o in &offers {
        let title = o["title"]
            .as_str()
            .map_or_else(|| "(title pending)".to_owned(), escape);
        // A review offer without a `proposed_kind` is the night's
        // consolidation (the drives' fold counts it so).
        let kind = o["proposed_kind"]
            .as_str()
            .filter(|k| !k.is_empty())
            .unwrap_or("consolidation");
        let kind = format!("{} offer", escape(kind));
        let _ = writeln!(
            t,
            "  [{kind}] {} {title}",
            escape(o["record_id"].as_str().unwrap_or(""))
        );
        let _ = writeln!(t, "      origin: {}", origin_text(&o["origin"]));
        for s in o["sources"].as_array().into_iter().flatten() {
            let _ = writeln!(
                t,
                "      {} {} \"{}\" ({}{})",
                escape(s["via"].as_str().unwrap_or("")),
                escape(s["record_id"].as_str().unwrap_or("")),
                escape(s["title"].as_str().unwrap_or("")),
                origin_text(&s["origin"]),
                if s["independent"].as_bool() == Some(true) {
                    ""
                } else {
                    ", the offer's own origin"
                }
            );
        }
        let bar = &o["bar"];
        let _ = writeln!(
            t,
            "      bar: {} of {} independent origins among its sources — {}",
            bar["independent_origins"],
            bar["min_origins"],
            if bar["met"].as_bool() == Some(true) {
                "promote it naming witnesses: am candidates HOME --owner ID promote RECORD --witness ID --witness ID --reason TEXT"
            } else {
                "not met: promoting needs witnesses from other origins"
            }
        );
    }
    let review = &v["identity_review"];
    let pending = review["pending"].as_array().cloned().unwrap_or_default();
    let _ = writeln!(t, "Identity proposals pending ({}):", pending.len());
    for p in &pending {
        let failures: Vec<String> = p["bar_failures"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(escape)
            .collect();
        let _ = writeln!(
            t,
            "  {} {} (evidence {} of {} alive){}",
            escape(p["record_id"].as_str().unwrap_or("")),
            escape(p["title"].as_str().unwrap_or("")),
            p["evidence"]["alive"],
            p["evidence"]["total"],
            if failures.is_empty() {
                " — bar met".to_owned()
            } else {
                format!(" — {}", failures.join("; "))
            }
        );
    }
    t
}
