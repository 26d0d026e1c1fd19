//! Operator (am-system `operator/`): `mind_mass_report` and
//! `redigestion_candidates`, pure reads over a whole home,
//! `reembed_store` / `reembed_home`, the home moved to a new embedding
//! space, and the path functions `journal_cold_cut` / `verify_cold_cut`
//! (a home file rebuilt with its attention-event mass cut, by the front
//! end's [`Home::journal_cold_cut`]: the file's backend cuts it), and the
//! embedding pin's two functions: `read_embedding_pin`, a pure peek at a
//! store file's pin ([`Home::read_embedding_pin`]), and `build_pin`, the
//! normalized pin of model facts (a pure constructor).
//!
//! Spec: api.md "Maintenance, health, and operator tools".

use crate::error::{OpError, OpResult};
use crate::home::Home;
use crate::host::{Hook, Host};
use crate::verb::{Answer, Cadence, CallShape, Family, Verb};
use am_journal::cold_cut::{ColdCut, ColdCutReport, ColdCutVerification};
use am_system::operator::{
    ApplyRedigestion, MindMass, MindMassReport, RedigestionApplied, RedigestionCandidates,
    RedigestionDebt, ReembedStore, Reembedded,
};
use am_triples::EmbeddingPin;
use serde::Deserialize;
use std::path::Path;

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
    /// `offline`, `openai:<base_url>#<model>`, `gateway:<base_url>`); a host
    /// with objects passes an embedder object instead ([`Hook::Embedder`]).
    #[serde(default)]
    embedder: Option<String>,
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

/// `journal_cold_cut(src_path, dst_path, *, cut_seq=0, pair_cuts=None,
/// archive_ref, exported_stream_ref=None, null_retired_embeddings=True,
/// cut_traces=False)` over the wire.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ColdCutOp {
    /// The home file to cut (only read: any home file, the open one or
    /// another; close its other writers first).
    src_path: String,
    /// The rebuilt file (must not exist; it appears there in one rename).
    dst_path: String,
    /// Events at or below this seq are cut in every pair (0, no global cut;
    /// every pair with events at or below it must be named in `pair_cuts`).
    #[serde(default)]
    cut_seq: i64,
    /// Per-pair cuts `[[scope, owner_id, cut], ...]` (0 keeps a pair whole).
    #[serde(default)]
    pair_cuts: Option<Vec<(String, String, i64)>>,
    /// Where the lossless archive of the whole life is kept (required,
    /// non-blank: the cut is legal only with the archive recorded beside it).
    archive_ref: String,
    /// Where an exported event stream is kept, if one was exported.
    #[serde(default)]
    exported_stream_ref: Option<String>,
    /// Null the vectors of closure-retired rows (default true).
    #[serde(default = "yes")]
    null_retired_embeddings: bool,
    /// Also cut traces and snapshots at or below the highest cut.
    #[serde(default)]
    cut_traces: bool,
}

fn yes() -> bool {
    true
}

/// `verify_cold_cut(src_path, dst_path)` over the wire.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct VerifyColdCutOp {
    /// The home file that was cut.
    src_path: String,
    /// Its rebuilt cut.
    dst_path: String,
}

/// A path argument, refused blank (a blank path would name the working
/// directory's files).
fn path_arg<'a>(op: &str, name: &str, v: &'a str) -> OpResult<&'a Path> {
    if v.trim().is_empty() {
        return Err(OpError::invalid(format!(
            "{op}: {name} is blank; it names a home file"
        )));
    }
    Ok(Path::new(v))
}

fn cold_cut(home: &mut dyn Home, _: &Host, a: ColdCutOp) -> OpResult<Answer> {
    let op = "journal_cold_cut";
    let src = path_arg(op, "src_path", &a.src_path)?;
    let dst = path_arg(op, "dst_path", &a.dst_path)?;
    let mut args = ColdCut::new(&a.archive_ref);
    args.cut_seq = a.cut_seq;
    args.pair_cuts = a.pair_cuts.unwrap_or_default();
    args.exported_stream_ref = a.exported_stream_ref;
    args.null_retired_embeddings = a.null_retired_embeddings;
    args.cut_traces = a.cut_traces;
    // The compaction record's instant: the front end's clock (a session's
    // pinned clock), as every record the engine writes.
    let at = home.system()?.now()?;
    Answer::of(&home.journal_cold_cut(src, dst, &args, &at)?)
}

fn verify_cut(home: &mut dyn Home, _: &Host, a: VerifyColdCutOp) -> OpResult<Answer> {
    let op = "verify_cold_cut";
    let src = path_arg(op, "src_path", &a.src_path)?;
    let dst = path_arg(op, "dst_path", &a.dst_path)?;
    Answer::of(&home.verify_cold_cut(src, dst)?)
}

/// `read_embedding_pin(path, *, table_name="triples")` over the wire.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ReadPinOp {
    /// The store file (only read: a read-only connection that never creates
    /// it, a table or the schema).
    path: String,
    /// The store's table (default `triples`; a plain SQL identifier).
    #[serde(default)]
    table_name: Option<String>,
}

/// `build_pin(model_id, dimension, *, source, claimed_by=None)` over the
/// wire.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct BuildPinOp {
    /// The model identity (trimmed; blank is none).
    #[serde(default)]
    model_id: Option<String>,
    /// The vector dimension (at least 1).
    #[serde(default)]
    dimension: Option<usize>,
    /// Why the pin is written: `creation`, `first-write` or `reembed`
    /// (blank: `creation`).
    source: String,
    /// Who claimed the model id when no operator vouched for it (kept only
    /// beside a model id).
    #[serde(default)]
    claimed_by: Option<String>,
}

fn read_pin(home: &mut dyn Home, _: &Host, a: ReadPinOp) -> OpResult<Answer> {
    let path = path_arg("read_embedding_pin", "path", &a.path)?;
    Answer::of(&home.read_embedding_pin(path, a.table_name.as_deref())?)
}

fn build_pin(home: &mut dyn Home, _: &Host, a: BuildPinOp) -> OpResult<Answer> {
    let mut pin: EmbeddingPin = am_triples::build_pin(
        a.model_id.as_deref(),
        a.dimension,
        &a.source,
        a.claimed_by.as_deref(),
    )?;
    // `pinned_at` is the front end's clock (a session's pinned clock), as
    // every instant the engine writes.
    pin.pinned_at = home.system()?.now()?;
    Answer::of(&pin)
}

fn apply_redigestion(home: &mut dyn Home, _: &Host, a: ApplyRedigestion) -> OpResult<Answer> {
    Answer::warned(home.system()?.apply_redigestion(&a)?)
}

fn manifest(_: &mut dyn Home, _: &Host, _: crate::args::NoArgs) -> OpResult<Answer> {
    Ok(Answer::value(crate::manifest::engine_manifest()))
}

fn reembed(home: &mut dyn Home, host: &Host, a: ReembedOp) -> OpResult<Answer> {
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
    let embedder = match (a.embedder, &host.embedder_arg) {
        (Some(spec), Some(_)) => {
            return Err(OpError::invalid(format!(
                "embedder given twice: the spec {spec:?} and an embedder object; pass one"
            )));
        }
        (None, Some(object)) => object.clone(),
        // `none` is a spec every front end reads, and it has no space to
        // move into: refused here, once, before any front end builds
        // anything.
        (Some(spec), None) if spec.trim() == "none" => {
            return Err(OpError::invalid(format!(
                "embedder {spec:?}: a re-embed needs a real embedder (none has no space to move into)"
            )));
        }
        (Some(spec), None) => home.build_embedder(&spec)?,
        (None, None) => {
            return Err(OpError::invalid(
                "a re-embed needs embedder: the new space, as an embedder spec (offline, openai:<base_url>#<model>, gateway:<base_url>) or, where the host has objects, an embedder object",
            ));
        }
    };
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
        .hooks(&[Hook::Embedder])
        .answers::<Reembedded>()
        .run(reembed),
        Verb::declare(
            "reembed_home",
            f,
            "reembed_store under the name the operator guide uses: the same call, the same answer.",
        )
.cadence(Cadence::Doctoring, &["all-or-nothing-swap", "pin-written-last", "memories-untouched"])
        .writes()
        .hooks(&[Hook::Embedder])
        .answers::<Reembedded>()
        .run(reembed),
        Verb::declare(
            "journal_cold_cut",
            f,
            "Rebuild a home file as a NEW file with its attention-event mass cut (events at or below the cut, per pair; retired rows' vectors nulled; optionally old traces and snapshots), every other row kept, the seq high water kept, a compaction record naming the archive appended. The source is only read; the new file appears at dst_path in one rename (a killed cut leaves nothing there).",
        )
        .shape(CallShape::PathFunction)
        .writes()
        .answers::<ColdCutReport>()
        .run(cold_cut),
        Verb::declare(
            "verify_cold_cut",
            f,
            "The parity checks between a home file and its rebuilt cut, each named with its own numbers (row parity per table, selected counts, the compaction record, event accounting, nothing below a cut, the high water, nulls only on retired rows). Reads both files.",
        )
        .shape(CallShape::PathFunction)
        .answers::<ColdCutVerification>()
        .run(verify_cut),
        Verb::declare(
            "read_embedding_pin",
            f,
            "A pure peek at a SQLite store file's embedding pin without opening the store: a read-only connection that never creates the file, a table or the schema. null for a missing file, a file that is no home, no pin or an unreadable one; a table_name that is not a plain SQL identifier is refused.",
        )
        .shape(CallShape::PathFunction)
        .answers::<Option<EmbeddingPin>>()
        .run(read_pin),
        Verb::declare(
            "build_pin",
            f,
            "The normalized embedding pin of model facts: model_id trimmed (blank is none), the dimension (at least 1), the source (blank: creation), claimed_by kept only beside a model id, pinned_at now. At least one of model_id and dimension: an empty pin would enforce nothing and lie about it. Pure: writes nothing.",
        )
        .shape(CallShape::PureFunction)
        .answers::<EmbeddingPin>()
        .run(build_pin),
    ]
}
