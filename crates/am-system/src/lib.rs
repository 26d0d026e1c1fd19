//! Layer 2 of AbstractMemory (not yet built): the `MemorySystem` facade over any
//! `TripleStore` + `MemoryJournal` (+ an optional `TextEmbedder`): typed record
//! formation, stimulus-driven reconstruction, commit of use as the only
//! strengthening path, bindings and closures instead of deletes.
//!
//! Spec: api.md "Layer 2: the MemorySystem facade"; memory-system.md.
