//! `SQLiteJournal` (being built): the `memj_*` tables over the home's connection.
