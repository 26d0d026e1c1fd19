//! Interned `scope` / `owner_id` cells for the in-process caches (the vector
//! matrix and the keyword mirror), so their partition filters compare ids, not
//! strings, and match exactly the rows SQL's `col = ?` with a text parameter
//! selects.

use rusqlite::types::ValueRef;
use std::collections::HashMap;

/// The id of a cell no `= ?` text filter matches (NULL or a non-text value).
pub(super) const NEVER: u32 = u32::MAX;

/// Each distinct text cell once, numbered in first-seen order.
#[derive(Debug, Default)]
pub(super) struct Names {
    ids: HashMap<String, u32>,
}

impl Names {
    /// The id of a `scope`/`owner_id` cell: text is interned, anything else is
    /// [`NEVER`].
    pub(super) fn intern(&mut self, cell: ValueRef<'_>) -> u32 {
        let ValueRef::Text(bytes) = cell else {
            return NEVER;
        };
        let Ok(text) = std::str::from_utf8(bytes) else {
            return NEVER;
        };
        if let Some(&id) = self.ids.get(text) {
            return id;
        }
        let id = u32::try_from(self.ids.len()).unwrap_or(NEVER);
        if id != NEVER {
            self.ids.insert(text.to_owned(), id);
        }
        id
    }

    /// The filter id of `value`: `Some(None)` for no filter, `Some(Some(id))`
    /// for a held value, `None` when no interned cell equals it (the filter
    /// selects nothing).
    pub(super) fn filter(&self, value: Option<&str>) -> Option<Option<u32>> {
        match value {
            None => Some(None),
            Some(v) => self.ids.get(v).map(|id| Some(*id)),
        }
    }

    /// Bytes held by the strings (plus 8 per entry for its id and slot).
    pub(super) fn bytes(&self) -> usize {
        self.ids.keys().map(|k| k.len() + 8).sum()
    }
}
