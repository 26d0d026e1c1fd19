//! World models: the orientation cards an entity holds about the people and
//! topics in its life, one card per target, revised append-only.
//!
//! How it works. A card is a formed record of kind `world_model` keyed by
//! `attributes.target` (`person:ada`, `topic:soil health`), never by its
//! title. [`world_model_pass`](crate::MemorySystem::world_model_pass) (the
//! sleep phase) scans the lived records that may evidence a card (closure
//! and hidden folded; dreams, cards, bookkeeping, edges and maintenance
//! candidates never do), groups them by target (participants other than
//! the owner, elected topics, an interest's subject keyed by
//! [`interest_target`], compound keywords recurring across sessions), and
//! for each target whose evidence clears the floor and whose evidence
//! fingerprint changed forms revision N+1 PENDING its authored title and
//! summary: the evidence briefing (`mechanical-card-v2`, or the carried
//! authored lead plus "Since then", `authored-card-v1+delta`) is only the
//! provisional body the host's `author` writes from (formation's
//! `form_authored_or_pending`, the one authored-or-pending step). The new
//! card `refines` the prior one, which is closed `supersede`; a crash
//! between the two leaves two standing cards, which the next pass repairs.
//! [`world_model_update`](crate::MemorySystem::world_model_update) is the
//! same body over a bounded newest-window scan of the named targets.
//!
//! `author_world_model` writes a card's authored words in place through
//! understanding's card door (field `card`, `understanding.card`).
//! `rekey_world_model` moves a card's key in place through understanding's
//! target door (field `target`, `understanding.target`), the old key kept
//! as an alias; the same plan is the `card_rekey` hook the crate root
//! installs for `retitle` / `declare_pending` of an interest.
//!
//! The reads ([`standing_world_models`], [`current_world_models`],
//! [`alias_map`]) are pure; [`alias_candidates`] only proposes.
//!
//! Spec: api.md "World models (orientation cards)", "Authored with the
//! record", the task kinds of "The memory task queue".

pub mod alias;
pub mod args;
pub mod author;
mod briefing;
pub mod cards;
pub mod evidence;
mod history;
pub mod pass;
pub mod rekey;
mod revise;

pub use alias::{
    ALIAS_OVERLAP_FLOOR, AliasBound, AliasCandidates, AliasProposal, AliasWorldModel,
    alias_candidates, alias_map,
};
pub use args::{AuthorWorldModel, CardAuthor, CardsOf, WorldModelPass, WorldModelUpdate};
pub use author::AuthoredCard;
pub use cards::{current_world_models, standing_world_models};
pub use evidence::interest_target;
pub use history::card_history;
pub use pass::{CardVerdict, RepairedCard, SkippedTarget, UnchangedCard, WorldModelReport};
pub use rekey::RekeyWorldModel;
