//! `SQLiteTripleStore` (being built): the triples table, FTS5 keyword index, meta sidecar, vector search.
