//! Observation: the pure reads that look at a home without changing what it
//! recalls next. The diary reads and the hash-chain audit, the recall
//! diagnostics, the replay stream of the journal, and the entity card.
//!
//! Spec: api.md "Diary reads and chain verification", "Recall diagnostics",
//! "Replay", "The entity identity card".
//!
//! The card's mirrors: a system keeps the ladder mirror (`card/mirror.rs`)
//! and the valence index between cards, caught up at the start of every card
//! as the recall index is (the change feed within each ladder pair, the
//! journal's tail in chunks, the understanding versions since the last card);
//! a failed card drops them. They have no row cap. The system's card equals
//! the card read from nothing (`tests/card_fresh.rs`, on both stacks).

pub mod card;
pub mod diagnostics;
pub mod diary;
pub mod replay;
