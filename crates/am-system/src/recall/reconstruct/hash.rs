//! The hash maps of the recall pipeline: std's maps with foldhash's hasher
//! instead of SipHash. Its keys are short strings (record ids, subjects,
//! tokens) hashed many times per recall, where SipHash was measured at about
//! 8% of a LoCoMo question. The hasher is still seeded per process, so the
//! iteration order is as unspecified as before and nothing reads it unsorted.

/// `std::collections::HashMap` with foldhash's per-process seeded hasher.
pub(crate) type HashMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::RandomState>;
/// `std::collections::HashSet` with foldhash's per-process seeded hasher.
pub(crate) type HashSet<K> = std::collections::HashSet<K, foldhash::fast::RandomState>;
