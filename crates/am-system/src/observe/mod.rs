//! Observation: the pure reads that look at a home without changing what it
//! recalls next. The diary reads and the hash-chain audit, the recall
//! diagnostics, the replay stream of the journal, and the entity card.
//!
//! Spec: api.md "Diary reads and chain verification", "Recall diagnostics",
//! "Replay", "The entity identity card".

pub mod card;
pub mod diagnostics;
pub mod diary;
pub mod replay;
