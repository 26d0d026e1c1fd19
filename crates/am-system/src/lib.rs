//! Layer 2 of AbstractMemory: the `MemorySystem` facade over any `TripleStore`
//! and `MemoryJournal` (with an optional `TextEmbedder`): typed record
//! formation, stimulus-driven reconstruction, commit of use as the only
//! strengthening path, bindings and closures instead of deletes.
//!
//! Spec: api.md "Layer 2: the MemorySystem facade"; memory-system.md.

pub mod attention;
pub mod authoring;
pub mod card;
pub mod config;
pub mod diagnostics;
pub mod diary;
pub mod error;
pub mod formation;
pub mod identity;
pub mod ids;
pub mod kinds;
pub mod lookup;
pub mod outcome;
mod pair_folds;
pub mod reading;
mod reconstruct;
pub mod records;
pub mod replay;
pub mod seam;
pub mod selection;
pub mod system;
mod system_use;
pub mod tasks;
pub mod understanding;
pub mod valence;
pub mod verbs;

pub use am_journal::ActiveMemorySnapshot;
pub use authoring::{
    Author, AuthorContext, AuthorError, AuthorField, Authored, AuthoredRecord, AuthoringDecision,
    AuthoringFailure, AuthoringFailureReason, AuthoringReceipt, FormAuthored, FormedAuthored,
    author_or_pend,
};
pub use config::{
    AttentionConfig, ENTITY_CONTEXT_ACCEPTABLE, ENTITY_CONTEXT_FLOOR, ENTITY_CONTEXT_RECOMMENDED,
    ENTITY_RECALL_CANDIDATE_CAP, Fusion, HybridConfig, RecallBudget, RecallProfile,
    ReconstructConfig, SELF_FRACTION_FLOOR, SpreadParams, entity_recall_budget,
};
pub use diary::{
    ChainReport, DiaryRead, TriggeredCommitment, TriggeredCommitments, open_commitments,
    open_ideas, open_problems, open_questions, triggered_commitments, verify_diary_chain,
};
pub use error::{Error, Result};
pub use formation::{FormationPlan, build_formation_plan, diary_entry_hash};
pub use identity::{
    DEFAULT_SPARK_TEMPLATE, Engram, EngramResult, SHARED_VULNERABILITY_STATEMENT, SelfRecords,
    canonical_spark_hash, is_legacy_birth_label, lint_spark, self_records,
};
pub use outcome::{Outcome, Reason, UnderstandingResult, Warned};
pub use reading::{
    ENTITY_WORDS_KINDS, ReadingProvenance, SourceValidator, UnderstandingFields,
    reading_provenance, understanding_fields,
};
pub use records::MemoryRecordInput;
pub use seam::{
    ActivationParts, Admission, BudgetSpent, DropReason, DroppedEntry, EdgeView, MemoryHandle,
    OrderedMap, Payload, PayloadTier, ReconstructionResult, Stimulus, StmTrailEdge, StopReason,
    View, WalkedEdge,
};
pub use system::{Ablation, Clock, MemorySystem, SystemOptions, write_barrier};
pub use system_use::{AccessCounts, StoredActivation};
pub use tasks::TaskQueue;
pub use understanding::{CurrentOf, DreamReading, RecordUnderstanding, VersionView};
pub use valence::{
    Appraise, BreakBond, FeelingsAbout, Gradation, GradationConfig, GradationScore, HealScar,
    StimulusFeelings, compute_gradation, feelings_about, stimulus_feelings,
};
pub use verbs::{
    Activation, Attenuate, Bind, CloseAssertions, CloseRecord, CommitSelection, Reconstruct,
    Refocus, Reinforce, Remember, RememberMany,
};
pub use verbs::{DeclarePending, NarrateDream, RearmPending, Retitle, RevertDigest, RewriteDigest};

// The reconstruction pipeline (`MemorySystem::reconstruct`, its channels,
// spreading and the shelf) lives in `src/reconstruct/`.
