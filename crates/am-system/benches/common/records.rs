//! The formation bench's records, shared with the `write_amplification`
//! example so both measure the same write.

use am_system::MemoryRecordInput;
use am_system::RecordKind;

/// A batch of `n` typed records (every third a lesson), each with two keywords
/// and, after the first, one `follows` edge to its previous sibling.
pub(crate) fn batch(n: usize, salt: u64) -> Vec<MemoryRecordInput> {
    (0..n)
        .map(|i| {
            let r = MemoryRecordInput::new(
                if i % 3 == 0 {
                    RecordKind::Lesson
                } else {
                    RecordKind::Episode
                },
                &format!("Record {salt}-{i}"),
                &format!("Record {i} of batch {salt} says something about pools and outages."),
            )
            .with_keywords(&["pool", "outage"]);
            if i > 0 {
                r.with_edge("follows", &format!("local:{}", i - 1))
            } else {
                r
            }
        })
        .collect()
}
