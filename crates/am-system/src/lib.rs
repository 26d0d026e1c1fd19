//! Layer 2 of AbstractMemory: the `MemorySystem` facade over any `TripleStore`
//! and `MemoryJournal` (with an optional `TextEmbedder`): typed record
//! formation, stimulus-driven reconstruction, commit of use as the only
//! strengthening path, bindings and closures instead of deletes.
//!
//! Spec: api.md "Layer 2: the MemorySystem facade"; memory-system.md.

// The core: what every faculty shares.
pub mod concepts;
pub mod config;
pub mod error;
mod feed;
mod hooks;
pub mod ids;
pub mod kinds;
mod locks;
pub mod lookup;
pub mod outcome;
mod pair_folds;
mod record;
pub mod seam;
pub mod system;

// The faculties, in their declared order (ARCHITECTURE.md "Faculties").
pub mod candidates;
pub mod communities;
pub mod drives;
pub mod formation;
pub mod identity;
pub mod observe;
pub mod operator;
pub mod reach;
pub mod recall;
pub mod ripple;
pub mod situate;
pub mod sleep;
pub mod tasks;
pub mod understanding;
pub mod valence;
pub mod world_models;

/// The installed `card_rekey` hook ([`hooks::CardRekey`]): `retitle` and
/// `declare_pending` of an interest move its world-model card through
/// `world_models`' plan.
static CARD_REKEY: &dyn hooks::CardRekey = &world_models::rekey::InterestCards;

/// The installed placement hook ([`hooks::Placement`]): formation places
/// each record it forms in its provisional community through
/// `communities`' index.
static PLACEMENT: &dyn hooks::Placement = &communities::placement::Placer;

/// The installed ripple packet hook ([`hooks::RipplePacket`]): `task_packet`
/// of a ripple task carries its `ripple` key through `ripple`'s reads.
static RIPPLE_PACKET: &dyn hooks::RipplePacket = &ripple::consolidate::Packets;

pub use am_journal::{ActiveMemorySnapshot, AuthorKind, AuthorRef, ReaderRef, SourceRef};
pub use concepts::{
    ConceptAdmission, ConceptAnchorTuning, concept_terms, expand_by_concepts, record_concepts,
};
pub use config::{
    AttentionConfig, ENTITY_CONTEXT_ACCEPTABLE, ENTITY_CONTEXT_FLOOR, ENTITY_CONTEXT_RECOMMENDED,
    ENTITY_RECALL_CANDIDATE_CAP, Fusion, HybridConfig, RecallBudget, RecallProfile,
    ReconstructConfig, SELF_FRACTION_FLOOR, SpreadParams, entity_recall_budget,
};
pub use error::{Error, Result};
pub use formation::args::{Remember, RememberMany};
pub use formation::authoring::{
    Author, AuthorContext, AuthorError, AuthorField, Authored, AuthoredRecord, AuthoringDecision,
    AuthoringFailure, AuthoringFailureReason, AuthoringReceipt, FormAuthored, FormedAuthored,
    author_or_pend,
};
pub use formation::reading::{
    ENTITY_WORDS_KINDS, ReadingProvenance, UnderstandingFields, reading_provenance,
    understanding_fields,
};
pub use formation::records::MemoryRecordInput;
pub use formation::{FormationPlan, build_formation_plan, diary_entry_hash};
pub use identity::{
    DEFAULT_SPARK_TEMPLATE, Engram, EngramResult, SHARED_VULNERABILITY_STATEMENT, SelfRecords,
    canonical_spark_hash, is_legacy_birth_label, lint_spark, self_records,
};
pub use kinds::RecordKind;
pub use observe::diary::{
    ChainReport, DiaryRead, TriggeredCommitment, TriggeredCommitments, open_commitments,
    open_ideas, open_problems, open_questions, triggered_commitments, verify_diary_chain,
};
pub use outcome::{Outcome, Reason, UnderstandingResult, Warned};
pub use recall::args::{
    Activation, Attenuate, Bind, CloseAssertions, CloseRecord, CommitSelection, Reconstruct,
    Refocus, Reinforce,
};
pub use recall::commit::{AccessCounts, StoredActivation};
pub use seam::{
    ActivationParts, Admission, BudgetSpent, DropReason, DroppedEntry, EdgeView, MemoryHandle,
    OrderedMap, Payload, PayloadTier, ReconstructionResult, Stimulus, StmTrailEdge, StopReason,
    View, WalkedEdge,
};
pub use system::{Ablation, Clock, MemorySystem, SystemOptions, write_barrier};
pub use tasks::TaskQueue;
pub use understanding::args::{
    DeclarePending, NarrateDream, RearmPending, Retitle, RevertDigest, RewriteDigest,
};
pub use understanding::reading::Reading;
pub use understanding::{CurrentOf, DreamReading, RecordUnderstanding, VersionView};
pub use valence::{
    Appraise, BreakBond, FeelingsAbout, Gradation, GradationConfig, GradationScore, HealScar,
    StimulusFeelings, compute_gradation, feelings_about, stimulus_feelings,
};
