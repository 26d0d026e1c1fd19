//! `MemorySystem::payload`: the pure read of a record at a tier.
//!
//! Spec: api.md "Seam types" (`payload`).

use crate::error::{Error, Result};
use crate::record::DigestRow;
use crate::seam::{Payload, PayloadTier};
use crate::system::{MemorySystem, unknown_id};
use am_triples::text::handle_digest;
use am_triples::token_estimate;

impl MemorySystem {
    // -- payload -------------------------------------------------------------------

    /// Pure payload read at a tier. `digest`: the canonical text a handle
    /// carries, `{record_id, tier, content, token_estimate}`; `raw`: the host
    /// artifact reference, `{record_id, tier, payload_ref, content: null,
    /// token_estimate: null}` (the package never fetches verbatim). Diary
    /// projections add `entry_id`. Explicit id reads bypass folds.
    ///
    /// The tier is parsed at the boundary ([`PayloadTier::requested`] refuses
    /// an unknown name and the reserved `summary` / `compact`).
    ///
    /// # Errors
    /// `InvalidInput` for an empty id or `raw` on a record without
    /// `payload_ref`; `NotFound` for an id in neither namespace.
    pub fn payload(&self, record_id: &str, tier: PayloadTier) -> Result<Payload> {
        let rid = record_id.trim();
        if rid.is_empty() {
            return Err(Error::invalid(
                "payload requires a non-empty record_id, got an empty one",
            ));
        }
        let a = self
            .resolve_digest_assertion(rid)?
            .ok_or_else(|| unknown_id(rid))?;
        let entry_id = DigestRow::of(&a).entry_id().map(str::to_owned);
        if tier == PayloadTier::Digest {
            let content = handle_digest(&a);
            return Ok(Payload {
                record_id: rid.to_owned(),
                tier: PayloadTier::Digest,
                payload_ref: None,
                token_estimate: Some(token_estimate(&content)),
                content: Some(content),
                entry_id,
            });
        }
        let Some(payload_ref) = DigestRow::of(&a).payload_ref().map(str::to_owned) else {
            return Err(Error::invalid(format!(
                "payload: record {rid} has no raw tier (no attributes.payload_ref); only its digest is stored"
            )));
        };
        Ok(Payload {
            record_id: rid.to_owned(),
            tier: PayloadTier::Raw,
            payload_ref: Some(payload_ref),
            content: None,
            token_estimate: None,
            entry_id,
        })
    }
}
