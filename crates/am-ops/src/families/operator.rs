//! Operator (am-system `operator/`): `mind_mass_report` and
//! `redigestion_candidates`, pure reads over a whole home, and
//! `reembed_store` / `reembed_home`, the home moved to a new embedding space.
//!
//! Spec: api.md "Maintenance, health, and operator tools".

use crate::error::{OpError, OpResult};
use crate::home::Home;
use crate::host::Host;
use crate::verb::{Answer, Cadence, CallShape, Family, Verb};
use am_system::operator::{
    ApplyRedigestion, MindMass, MindMassReport, RedigestionApplied, RedigestionCandidates,
    RedigestionDebt, ReembedStore, Reembedded,
};
use serde::Deserialize;

fn mass(home: &mut dyn Home, _: &Host, a: MindMass) -> OpResult<Answer> {
    // The exec op compares the pin with no wired embedder (the spec's
    // default `embedder=None`): the store's claim is read as it stands.
    Answer::of(&home.system()?.mind_mass_report(&a, None)?)
}

fn redigestion(home: &mut dyn Home, _: &Host, a: RedigestionCandidates) -> OpResult<Answer> {
    Answer::of(&home.system()?.redigestion_candidates(&a)?)
}

/// `reembed_store(system, *, embedder, owner_id, model_id=None,
/// marker_scope="life", reason="operator reembed", batch_size=64)` over the
/// wire: the new embedder named by the front end's embedder spec.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ReembedOp {
    /// The new embedding space, as the front end's embedder spec (`am exec`:
    /// `offline`, `openai:<base_url>#<model>`, `gateway:<base_url>`).
    embedder: String,
    /// The owner whose life stream carries the marker.
    owner_id: String,
    /// The new space's model id when the embedder does not name one.
    #[serde(default)]
    model_id: Option<String>,
    /// The marker's scope (default `life`).
    #[serde(default)]
    marker_scope: Option<String>,
    /// Why (kept on the marker; default `operator reembed`).
    #[serde(default)]
    reason: Option<String>,
    /// Texts per embed call (default 64; at least 1).
    #[serde(default)]
    batch_size: Option<usize>,
}

fn apply_redigestion(home: &mut dyn Home, _: &Host, a: ApplyRedigestion) -> OpResult<Answer> {
    Answer::warned(home.system()?.apply_redigestion(&a)?)
}

fn manifest(_: &mut dyn Home, _: &Host, _: crate::args::NoArgs) -> OpResult<Answer> {
    Ok(Answer::value(crate::manifest::engine_manifest()))
}

fn reembed(home: &mut dyn Home, _: &Host, a: ReembedOp) -> OpResult<Answer> {
    let mut args = ReembedStore::new(&a.owner_id);
    args.model_id = a.model_id;
    if let Some(s) = a.marker_scope {
        args.marker_scope = s;
    }
    if let Some(r) = a.reason {
        args.reason = r;
    }
    if let Some(b) = a.batch_size {
        args.batch_size = b;
    }
    // `none` is a spec every front end reads, and it has no space to move
    // into: refused here, once, before any front end builds anything.
    if a.embedder.trim() == "none" {
        return Err(OpError::invalid(format!(
            "embedder {:?}: a re-embed needs a real embedder (none has no space to move into)",
            a.embedder
        )));
    }
    let embedder = home.build_embedder(&a.embedder)?;
    let done = home
        .system()?
        .reembed_store(&args, embedder.clone(), &mut |_, _| {})?;
    // The home answers in the new space from now on: a reopen opens it with
    // the new embedder (the old one would contradict the new pin).
    home.embedder_moved(embedder);
    Answer::of(&done)
}

pub(super) fn verbs() -> Vec<Verb> {
    let f = Family::Operator;
    vec![
        Verb::declare(
            "mind_mass_report",
            f,
            "Is this mind healthy: formation cadence, journal mass, duplicate mass, embedding-space integrity, review backlog and sleep recency over a window of days, every count with its unit, warnings as {word, detail} from the closed WARNING_WORDS. A pure read.",
        )
.cadence(Cadence::GlanceRead, &["pure-read", "window-bounded", "unit-labeled-counts", "warnings-are-structural-facts"])
        .shape(CallShape::StoreJournalFunction)
        .answers::<MindMassReport>()
        .run(mass),
        Verb::declare(
            "redigestion_candidates",
            f,
            "The labelled mechanical-digest debt, worst first (poverty, then the most used): each record with its digest, the residue once act-frame markers are stripped, its verbatim's payload_ref and its use. Protected kinds never appear. A pure read.",
        )
.cadence(Cadence::GlanceRead, &["pure-read", "worst-first", "listing-is-not-use"])
        .answers::<RedigestionDebt>()
        .run(redigestion),
        Verb::declare(
            "apply_redigestion",
            f,
            "Deprecated (use rewrite_digest): authored words for labelled-mechanical records, each formed as a NEW record (same kind, payload_ref, participants, live edges, plus refines) that supersedes the old one, so it starts with zero use; refusals per entry are outcomes; one transaction; the deprecation warning rides the answer.",
        )
        .writes()
        .answers::<RedigestionApplied>()
        .run(apply_redigestion),
        Verb::declare(
            "engine_manifest",
            f,
            "The machine-readable engine inventory: the passes with their cadence class, honesty properties and flags, every op, the vocabularies, the tunables' defaults and the constants, generated from this table and the engine's own constants (MANIFEST_VERSION). Pure.",
        )
        .shape(CallShape::PureFunction)
        .run(manifest),
        Verb::declare(
            "reembed_store",
            f,
            "Move the home to a new embedding space: every stored text re-embedded with the new embedder first, then every vector swapped in one transaction with the new pin written last (all or nothing: an interrupted run leaves the old vectors and pin), then a bookkeeping marker record in the owner's life stream.",
        )
.cadence(Cadence::Doctoring, &["all-or-nothing-swap", "pin-written-last", "memories-untouched"])
        .writes()
        .answers::<Reembedded>()
        .run(reembed),
        Verb::declare(
            "reembed_home",
            f,
            "reembed_store under the name the operator guide uses: the same call, the same answer.",
        )
.cadence(Cadence::Doctoring, &["all-or-nothing-swap", "pin-written-last", "memories-untouched"])
        .writes()
        .answers::<Reembedded>()
        .run(reembed),
    ]
}
