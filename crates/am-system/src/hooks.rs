//! The calls the spec requires against the faculty order, as hook traits the
//! core defines, a later faculty implements and the crate root installs
//! (ARCHITECTURE.md "Faculties").
//!
//! [`CardRekey`]: `retitle` and `declare_pending` (understanding) move an
//! interest's world-model card (`card_rekey`), which `world_models`, later
//! in the DAG, owns. Understanding asks the installed hook for the move as a
//! plan, and writes the card's row and version rows in its own transaction,
//! beside the interest's: the two land together or not at all.
//!
//! The hook is installed once, in the crate root (`lib.rs`, the one module
//! that assembles the faculties): a `static`, so no field joins
//! `MemorySystem` and no call site can forget to install it.

use crate::error::Result;
use crate::system::MemorySystem;
use am_journal::UnderstandingVersion;
use am_triples::{JsonMap, TripleAssertion};
use serde_json::Value;

/// The reading an understanding write records, as the hook receives it:
/// validated already, in its stored (dict) form.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct HookReading {
    /// `{kind, id}`.
    pub(crate) author: JsonMap,
    /// `{provider, model, thinking}`, when a model read.
    pub(crate) reader: Option<JsonMap>,
    /// Ledger `SourceRef` dicts.
    pub(crate) sources: Vec<Value>,
    /// The cause's name (the verb's own cause, without its extra keys).
    pub(crate) cause: String,
    /// When the write happens (canonical UTC).
    pub(crate) at: String,
}

/// What happened to an interest's title.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum InterestTitle<'a> {
    /// `retitle` gave it this title (its card keyed `topic:<graph id>`, if
    /// any, moves to the title's subject head).
    Landed(&'a str),
    /// `declare_pending` declared it pending (its card moves to
    /// `topic:<graph id>`, unless other active interests elect the card).
    DeclaredPending,
}

/// One card row rewritten in place: the row as read (the compare-and-set),
/// its new attributes, and the version rows the move writes.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct CardMove {
    /// The card's digest row as read.
    pub(crate) row: TripleAssertion,
    /// Its attributes after the move.
    pub(crate) attributes: JsonMap,
    /// The version rows (field `target`).
    pub(crate) versions: Vec<UnderstandingVersion>,
}

/// The hook's answer: the result's `card_rekey` object, and the write when
/// the card moves.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct CardRekeyPlan {
    /// `card_rekey` as the result carries it.
    pub(crate) report: JsonMap,
    /// The card's move (`None`: the card stays, the report says why).
    pub(crate) write: Option<CardMove>,
}

/// `card_rekey`: what an interest's title change does to its card.
pub(crate) trait CardRekey: Sync {
    /// Plan the move of `interest`'s card for `change` (pure: reads only).
    /// `None` when the interest keys no standing card the change concerns.
    ///
    /// # Errors
    /// The store's or journal's failure.
    fn plan(
        &self,
        system: &MemorySystem,
        interest: &TripleAssertion,
        change: InterestTitle<'_>,
        reading: &HookReading,
    ) -> Result<Option<CardRekeyPlan>>;
}

/// The installed [`CardRekey`].
pub(crate) fn card_rekey() -> &'static dyn CardRekey {
    crate::CARD_REKEY
}

/// A record formation is about to store, as placement sees it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Formed {
    /// Its graph id.
    pub(crate) record_id: String,
    /// Its `(scope, owner_id)`.
    pub(crate) pair: (String, String),
    /// The vector it will be stored with (`None`: vector-less).
    pub(crate) vector: Option<Vec<f32>>,
    /// The graph ids its formation edges name (`written_amid` left out).
    pub(crate) neighbours: Vec<String>,
}

/// Placement at formation (api.md "Communities (topics)"): `remember_many`
/// places each non-community record it forms in its provisional community,
/// in the record's own transaction. Formation (core) asks the installed
/// hook, which `communities` implements.
pub(crate) trait Placement: Sync {
    /// Whether any of `pairs` has a communities version (before the first
    /// sleep nothing is placed, and formation asks for no vector).
    ///
    /// # Errors
    /// The store's or journal's failure.
    fn active(&self, system: &MemorySystem, pairs: &[(String, String)]) -> Result<bool>;

    /// The `placed` events of `formed` (pure: reads the in-memory index
    /// only, once caught up), each validated; `now` stamps them.
    ///
    /// # Errors
    /// The store's or journal's failure.
    fn plan(
        &self,
        system: &MemorySystem,
        formed: &[Formed],
        now: &str,
    ) -> Result<Vec<am_journal::MemoryEvent>>;

    /// The events committed (as planned, without their seqs) and the
    /// assertion ids of the rows formed in their transaction: the index
    /// notes them.
    fn committed(
        &self,
        system: &MemorySystem,
        events: &[am_journal::MemoryEvent],
        row_ids: &[String],
    );
}

/// The installed [`Placement`].
pub(crate) fn placement() -> &'static dyn Placement {
    crate::PLACEMENT
}

/// The `ripple` key of a `ripple.reconsider` / `ripple.consolidate` task's
/// packet (api.md "Ripple"): `task_packet` (tasks) asks the installed hook,
/// which `ripple`, later in the DAG, implements.
pub(crate) trait RipplePacket: Sync {
    /// The packet's `ripple` value for `task` (`None`: not a ripple task,
    /// or its ripple is not stored). A pure read.
    ///
    /// # Errors
    /// The home's read failure.
    fn packet(&self, system: &MemorySystem, task: &am_journal::TaskRow) -> Result<Option<Value>>;
}

/// The installed [`RipplePacket`].
pub(crate) fn ripple_packet() -> &'static dyn RipplePacket {
    crate::RIPPLE_PACKET
}
