//! One conversation turn to form ([`Turn`]): the record, its stream, its
//! idempotency key and instant, shared by the readers of conversations
//! (`ingest`'s JSON lines, `locomo`) and the forming (`ingest::form_turns`).

use am_system::MemoryRecordInput;
use time::OffsetDateTime;

/// One turn to form: the record, its stream, its idempotency key and instant.
#[derive(Debug, Clone)]
pub struct Turn {
    /// The record's scope.
    pub scope: String,
    /// The record's owner.
    pub owner_id: String,
    /// The per-turn idempotency key: the turn's position (`<owner>:<session>:<i>`,
    /// `<sample>:<dia_id>`) and a hash of its content (title, text, instant),
    /// so a re-ingest of the same file is a no-op and a different conversation
    /// reusing the session ids forms its own records.
    pub idempotency_key: String,
    /// The position-only key earlier `am` releases derived; a turn stored
    /// under it with the same text and instant counts as already formed.
    pub legacy_key: String,
    /// The engine clock while forming it (the record's `observed_at`).
    pub at: OffsetDateTime,
    /// The record.
    pub record: MemoryRecordInput,
}

impl Turn {
    /// A turn at `position` (the position-only key) of `(scope, owner_id)`,
    /// keyed by its position and content.
    pub fn new(
        scope: &str,
        owner_id: &str,
        position: String,
        at: OffsetDateTime,
        record: MemoryRecordInput,
    ) -> Self {
        let content = format!(
            "{}\n{}\n{}",
            record.title.as_deref().unwrap_or(""),
            record.digest,
            am_triples::timestamp::format_utc(at)
        );
        let hash = am_system::ids::derived_hex(&content, 16);
        Turn {
            scope: scope.to_owned(),
            owner_id: owner_id.to_owned(),
            idempotency_key: format!("{position}:{hash}"),
            legacy_key: position,
            at,
            record,
        }
    }
}
