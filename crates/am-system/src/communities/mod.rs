//! Communities: the home's topics, `community` records formed by
//! [`communities_pass`](crate::MemorySystem::communities_pass), which the
//! host runs during its sleep, and the reads that serve them.
//!
//! How it works. The pass reads the graph of the home pair (the live formed
//! records, their engraved edges, the store's vectors), builds a sparse
//! similarity graph over the vectored records ([`graph`]: the engraved edges
//! weighted by cosine, plus each record's few nearest neighbours found inside
//! deterministic random-hyperplane buckets), runs a deterministic Louvain
//! warm-started from the previous version ([`louvain`]), attaches the
//! vector-less records through their engraved neighbours, carries each
//! topic's `community_key` across versions by membership overlap, lays the
//! topics out, and writes one `community` record per new or changed topic,
//! each `refines` its previous version (closed `supersede`), with its title
//! and summary authored by the host's `author` within `budget` or pending,
//! in ONE commit-guarded transaction. The reads ([`reads`]) serve the
//! payload, one record's community, and the membership-only read from an
//! in-memory index kept in the faculty state.
//!
//! The choices the spec leaves open (the graph, the resolution, the tie
//! order, the layout) are documented in `docs/communities.md`.
//!
//! Spec: api.md "Communities (topics)"; memory-system.md "Topics:
//! communities".

pub mod args;
pub mod embed;
pub mod graph;
pub(crate) mod index;
pub mod louvain;
pub mod pass;
pub(crate) mod placement;
pub mod reads;
mod topics;

pub use args::{Communities, CommunitiesPass, CommunityKeysOf, CommunityOf, EmbedMissing};
pub use embed::{EmbedFailure, EmbedMissingReport};
pub use index::TopicKey;
pub use pass::CommunitiesReport;
pub use reads::{
    CommunitiesPayload, CommunityMembership, CommunityOfAnswer, CommunityView, PerRecord,
};

/// `COMMUNITIES_PAYLOAD_VERSION`: the version of the `communities` payload.
pub const COMMUNITIES_PAYLOAD_VERSION: u32 = 2;
/// `COMMUNITY_KIND`: the record kind of a topic.
pub const COMMUNITY_KIND: &str = "community";
/// `PLACED_EVENT_KIND`: the audit event of a provisional placement.
pub const PLACED_EVENT_KIND: &str = "placed";
/// `FACTS_WINDOW_DAYS`: the window of a community's `activity` and `paths`.
pub const FACTS_WINDOW_DAYS: i64 = 7;
/// `FACTS_PATHS_TOP`: how many member pairs `paths` names.
pub const FACTS_PATHS_TOP: usize = 5;
/// `MAX_DETECTION_ROUNDS`: the most Louvain rounds (aggregation levels) one
/// pass runs.
pub const MAX_DETECTION_ROUNDS: usize = 5;

/// The name this port gives its detection (`algorithm` in the payload and
/// `basis.algorithm` on each record).
pub const ALGORITHM: &str = "louvain-lsh-knn-v1";
