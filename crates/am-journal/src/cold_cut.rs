//! The cold cut's data (`journal_cold_cut` / `verify_cold_cut`): its
//! keywords, its report and its parity checks. The cut itself rebuilds a
//! home FILE, so it lives with the file's backend (`am_backend_sqlite::
//! cold_cut`); its types live here, below every front end, so the verb
//! table can read a call's arguments and answer its report without knowing
//! which backend cuts.
//!
//! Spec: api.md "Maintenance, health, and operator tools"
//! (`journal_cold_cut`, `verify_cold_cut`). The report keys and the checks'
//! names follow AbstractMemory 0.3.2.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// `journal_cold_cut(src_path, dst_path, *, cut_seq=0, pair_cuts=None,
/// archive_ref, exported_stream_ref=None, null_retired_embeddings=True,
/// cut_traces=False)`'s keywords.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ColdCut {
    /// Events at or below this seq are cut in every pair (0: no global cut).
    pub cut_seq: i64,
    /// Per-pair cuts `(scope, owner_id, cut)` (0 keeps the pair whole).
    pub pair_cuts: Vec<(String, String, i64)>,
    /// Where the lossless archive of the whole life is kept (required: the
    /// cut is legal only with the archive recorded beside it).
    pub archive_ref: String,
    /// Where an exported event stream is kept, if one was exported.
    pub exported_stream_ref: Option<String>,
    /// Null the vectors of closure-retired rows.
    pub null_retired_embeddings: bool,
    /// Also cut traces and snapshots at or below the highest cut.
    pub cut_traces: bool,
}

impl ColdCut {
    /// A cut recorded beside the archive at `archive_ref`, with 0.3.2's
    /// defaults (no cut seq, retired vectors nulled, traces kept).
    pub fn new(archive_ref: &str) -> Self {
        ColdCut {
            cut_seq: 0,
            pair_cuts: Vec::new(),
            archive_ref: archive_ref.to_owned(),
            exported_stream_ref: None,
            null_retired_embeddings: true,
            cut_traces: false,
        }
    }
}

/// What a cut did (0.3.2's report, key for key).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ColdCutReport {
    /// `journal_cold_cut`.
    pub pass_name: String,
    /// The global cut.
    pub cut_seq: i64,
    /// Attention events in the source.
    pub events_before: i64,
    /// Attention events in the rebuilt file.
    pub events_after: i64,
    /// Vectors nulled on closure-retired rows.
    pub embeddings_nulled: i64,
    /// The source's bytes (the file, its WAL and its shared memory).
    pub bytes_before: u64,
    /// The rebuilt file's bytes.
    pub bytes_after: u64,
    /// The archive the cut is recorded beside.
    pub archive_ref: String,
    /// The exported stream, if any.
    pub exported_stream_ref: Option<String>,
}

/// One parity check: its name, whether it holds, and its own numbers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ColdCutCheck {
    /// The check's name (`triples_row_parity`, `events_accounting`, ...).
    pub check: String,
    /// Whether it holds.
    pub ok: bool,
    /// The numbers it measured.
    #[serde(flatten)]
    pub detail: Map<String, Value>,
}

/// `verify_cold_cut`'s answer: `{pass_name, ok, checks}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ColdCutVerification {
    /// `verify_cold_cut`.
    pub pass_name: String,
    /// Whether every check holds.
    pub ok: bool,
    /// The checks, in order.
    pub checks: Vec<ColdCutCheck>,
}
