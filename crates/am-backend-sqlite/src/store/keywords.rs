//! Keyword discovery served in process: a mirror of the FTS5 keyword index
//! that answers [`SQLiteTripleStore::keyword_rowids`](super::SQLiteTripleStore)
//! with the rows, order and BM25 scores SQLite's `bm25()` gives, without
//! running the FTS5 query.
//!
//! The mirror holds, per indexed row, its rowid, interned `scope` and
//! `owner_id` and token count, and per term the rows holding it with their
//! counts; the table totals BM25 reads (row count, token count) are its sums.
//! Tokens are the `unicode61` tokenizer's (the index's only tokenizer: an
//! index declared with any `tokenize=` option is not mirrored). Text of ASCII
//! and of non-ASCII characters `unicode61` always reads as separators (dashes,
//! curly quotes, emoji: [`SEPARATORS`], each checked against SQLite by a unit
//! test) is split here: runs of `[0-9A-Za-z]`, lower-cased. A row holding any
//! other character (a letter with an accent, CJK, a combining mark) or a token
//! over `FTS5_MAX_TOKEN_SIZE` bytes is tokenized by SQLite itself, through a
//! `temp` FTS5 table and its `fts5vocab` instance view, so no Unicode letter
//! table is copied here.
//!
//! Scoring repeats `fts5Bm25Function` operation by operation (k1 = 1.2,
//! b = 0.75; IDF `ln((N − n + 0.5) / (n + 0.5))`, floored at 1e-6; one phrase
//! per query token, summed in query order), so the doubles, and therefore the
//! ties, are SQLite's. A query token that is not a run of ASCII letters and
//! digits is answered by SQL instead.
//!
//! Freshness: every answer first reads, in one snapshot, the `fts_high_water`
//! cursor and FTS5's own totals record; rows up to the cursor are appended,
//! and a mirror whose totals differ from FTS5's (an index written by a
//! different rule, or changed in place) stops serving for the life of the
//! handle: SQL answers, the same rows, only slower. A read made while the
//! home's connection is inside a transaction is answered by SQL (the mirror
//! holds committed rows only). Like the vector matrix cache, the mirror takes
//! a row's scope and owner as written once. Its text changes in place only
//! through a digest rewrite (`rewrite.rs`), which bumps `fts_generation` in
//! its transaction: a mirror built at another generation rebuilds, and the
//! writing handle patches its own ([`KeywordCache::patch_row`]). A writer
//! that changes text with raw SQL while keeping FTS5's totals is not detected.
//!
//! The text of a row is read as FTS5 reads it (`CAST(text AS BLOB)`: a BLOB
//! or a number as its text, bytes that are not UTF-8 as they are) and terms
//! come back from `fts5vocab` as bytes, since FTS5 may cut a long token
//! inside a character; only ASCII terms are kept, as no other can equal a
//! query term, but every token counts in the row's length.

use crate::error::Result;
use crate::store::names::Names;
use crate::store::schema;
use rusqlite::types::ValueRef;
use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};
use std::collections::{BinaryHeap, HashMap};

/// `keyword_engine()` when the in-process mirror answered.
pub(super) const KEYWORD_ENGINE_MIRROR: &str = "fts5-mirror";
/// `keyword_engine()` when the FTS5 query answered.
pub(super) const KEYWORD_ENGINE_SQL: &str = "fts5-sql";

/// FTS5's cap on a token's bytes (`FTS5_MAX_TOKEN_SIZE`): longer tokens are cut.
const MAX_TOKEN_BYTES: usize = 32768;
/// BM25's `k1` in `fts5Bm25Function`.
const K1: f64 = 1.2;
/// BM25's `b` in `fts5Bm25Function`.
const B: f64 = 0.75;
/// The `temp` FTS5 table that tokenizes rows holding non-ASCII text.
const TOKENIZER_TABLE: &str = "am_keyword_unicode61";

/// The in-process mirror of one table's FTS5 keyword index.
#[derive(Debug, Default)]
pub(super) struct KeywordCache {
    /// The `fts_generation` the mirror was built at (a digest rewrite of
    /// another handle moves it: the mirror rebuilds).
    generation: i64,
    /// Rows above this rowid are not mirrored yet.
    high_water: i64,
    rowids: Vec<i64>,
    scopes: Vec<u32>,
    owners: Vec<u32>,
    /// Each row's token count (FTS5's `xColumnSize`).
    lens: Vec<u32>,
    names: Names,
    /// Term → (row index, occurrences), ascending row index.
    postings: HashMap<Box<str>, Vec<(u32, u32)>, foldhash::fast::RandomState>,
    total_tokens: i64,
    /// A ranking's scores by row index, all 0.0 between rankings (kept, so
    /// no ranking zeroes an array of the mirror's size).
    scores: Vec<f64>,
    /// The rows a ranking scored, in first-scored order (kept likewise).
    scored: Vec<u32>,
    /// Why the mirror cannot answer exactly (SQL serves), if it cannot.
    defect: Option<String>,
}

/// What FTS5 records of the whole index: (rows, tokens).
fn fts_totals(conn: &Connection, table: &str) -> Result<(i64, i64)> {
    let block: Option<Vec<u8>> = conn
        .prepare_cached(&format!("SELECT block FROM {table}_fts_data WHERE id = 1"))?
        .query_row([], |r| r.get(0))
        .optional()?;
    let Some(block) = block else {
        return Ok((0, 0));
    };
    let (rows, used) = varint(&block).unwrap_or((0, 0));
    let (tokens, _) = block.get(used..).and_then(varint).unwrap_or((0, 0));
    Ok((
        i64::try_from(rows).unwrap_or(-1),
        i64::try_from(tokens).unwrap_or(-1),
    ))
}

/// SQLite's varint (big-endian 7-bit groups, a ninth byte of 8 bits): the value
/// and the bytes it used.
fn varint(b: &[u8]) -> Option<(u64, usize)> {
    let mut v: u64 = 0;
    for i in 0..8 {
        let c = *b.get(i)?;
        v = (v << 7) | u64::from(c & 0x7f);
        if c & 0x80 == 0 {
            return Some((v, i + 1));
        }
    }
    Some(((v << 8) | u64::from(*b.get(8)?), 9))
}

/// Non-ASCII code points `unicode61` reads as separators, whatever their
/// neighbours (inclusive ranges): Latin-1 punctuation and symbols, General
/// Punctuation (dashes, curly quotes, spaces, joiners), arrows, miscellaneous
/// symbols, dingbats but their circled digits, variation selectors, and the
/// emoji SQLite's Unicode tables know (newer emoji are unassigned there, and
/// `unicode61` reads unassigned code points as token characters). Read from
/// SQLite by scanning those blocks; the unit test checks every one.
const SEPARATORS: &[(u32, u32)] = &[
    (0x80, 0xA9),
    (0xAB, 0xB1),
    (0xB4, 0xB4),
    (0xB6, 0xB8),
    (0xBB, 0xBB),
    (0xBF, 0xBF),
    (0xD7, 0xD7),
    (0xF7, 0xF7),
    (0x2000, 0x2064),
    (0x206A, 0x206F),
    (0x2190, 0x21FF),
    (0x2600, 0x26FF),
    (0x2701, 0x2775),
    (0x2794, 0x27BF),
    (0xFE00, 0xFE0F),
    (0x1F300, 0x1F320),
    (0x1F330, 0x1F335),
    (0x1F337, 0x1F37C),
    (0x1F380, 0x1F393),
    (0x1F3A0, 0x1F3C4),
    (0x1F3C6, 0x1F3CA),
    (0x1F3E0, 0x1F3F0),
    (0x1F400, 0x1F43E),
    (0x1F440, 0x1F440),
    (0x1F442, 0x1F4F7),
    (0x1F4F9, 0x1F4FC),
    (0x1F500, 0x1F53D),
    (0x1F540, 0x1F543),
    (0x1F550, 0x1F567),
    (0x1F5FB, 0x1F640),
    (0x1F645, 0x1F64F),
    (0x1F680, 0x1F6C5),
    (0x1F700, 0x1F773),
];

fn is_separator(c: char) -> bool {
    let c = u32::from(c);
    SEPARATORS.iter().any(|(lo, hi)| (*lo..=*hi).contains(&c))
}

/// The runs of ASCII letters and digits of `text`, as written.
fn runs(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|t| !t.is_empty())
}

/// `text` when its `unicode61` tokens can be read here: UTF-8 holding only
/// ASCII and [`SEPARATORS`], and no token FTS5 would cut. Its tokens are then
/// its [`runs`], lower-cased. `None`: SQLite tokenizes it.
fn plain_text(bytes: &[u8]) -> Option<&str> {
    let text = std::str::from_utf8(bytes).ok()?;
    let chars_ok = text.is_ascii() || text.chars().all(|c| c.is_ascii() || is_separator(c));
    (chars_ok && runs(text).all(|t| t.len() <= MAX_TOKEN_BYTES)).then_some(text)
}

/// The query term of one discovery term as FTS5 reads the quoted string
/// `"term"`: `None` unless it is one run of ASCII letters and digits, which
/// `unicode61` reads as one lower-cased token.
fn query_term(term: &str) -> Option<String> {
    (!term.is_empty()
        && term.len() <= MAX_TOKEN_BYTES
        && term.bytes().all(|b| b.is_ascii_alphanumeric()))
    .then(|| term.to_ascii_lowercase())
}

/// One row's tokens as the mirror keeps them: how many `unicode61` read (the
/// row's length for BM25) and those that are pure ASCII (the only ones a
/// query term can equal), with repeats.
#[derive(Debug, Default, PartialEq, Eq)]
struct RowTokens {
    count: usize,
    ascii: Vec<String>,
}

/// Tokenize `rows` (rowid, text bytes) with SQLite's own `unicode61`, through
/// a `temp` FTS5 table (never the home's file). Terms are read as bytes: FTS5
/// cuts a token at `FTS5_MAX_TOKEN_SIZE` bytes, possibly inside a character.
fn sqlite_tokens(conn: &Connection, rows: &[(i64, Vec<u8>)]) -> Result<HashMap<i64, RowTokens>> {
    conn.execute_batch(&format!(
        "CREATE VIRTUAL TABLE IF NOT EXISTS temp.{TOKENIZER_TABLE} USING fts5(text);
         CREATE VIRTUAL TABLE IF NOT EXISTS temp.{TOKENIZER_TABLE}_v \
             USING fts5vocab(temp, {TOKENIZER_TABLE}, instance);
         DELETE FROM temp.{TOKENIZER_TABLE};"
    ))?;
    {
        let mut insert = conn.prepare_cached(&format!(
            "INSERT INTO temp.{TOKENIZER_TABLE} (rowid, text) VALUES (?1, ?2)"
        ))?;
        for (rowid, text) in rows {
            insert.execute(params![rowid, text])?;
        }
    }
    let mut out: HashMap<i64, RowTokens> = HashMap::new();
    {
        let mut stmt =
            conn.prepare_cached(&format!("SELECT doc, term FROM temp.{TOKENIZER_TABLE}_v"))?;
        let mut it = stmt.query([])?;
        while let Some(r) = it.next()? {
            let row = out.entry(r.get(0)?).or_default();
            row.count += 1;
            if let ValueRef::Text(term) | ValueRef::Blob(term) = r.get_ref(1)?
                && term.is_ascii()
                && let Ok(term) = std::str::from_utf8(term)
            {
                row.ascii.push(term.to_owned());
            }
        }
    }
    conn.execute(&format!("DELETE FROM temp.{TOKENIZER_TABLE}"), [])?;
    Ok(out)
}

impl KeywordCache {
    /// Bring the mirror of `table`'s keyword index up to date (built on first
    /// use), in one read snapshot of the home.
    ///
    /// # Errors
    /// `Storage` when SQLite fails.
    /// The caller must not be inside a transaction (`conn.is_autocommit()`):
    /// rows a transaction has not committed are never mirrored.
    pub(super) fn refresh(
        cache: &mut Option<KeywordCache>,
        conn: &mut Connection,
        table: &str,
    ) -> Result<()> {
        let tx = conn.transaction_with_behavior(TransactionBehavior::Deferred)?;
        Self::refresh_in(cache, &tx, table)?;
        tx.commit()?;
        Ok(())
    }

    fn refresh_in(cache: &mut Option<KeywordCache>, conn: &Connection, table: &str) -> Result<()> {
        let generation = schema::meta_int(conn, table, schema::META_FTS_GENERATION)?;
        if cache.as_ref().is_some_and(|c| c.generation != generation) {
            *cache = None;
        }
        let c = match cache {
            Some(c) => c,
            None => cache.insert(Self::new(conn, table)?),
        };
        if c.defect.is_some() {
            return Ok(());
        }
        let high_water = schema::meta_int(conn, table, schema::META_FTS_HIGH_WATER)?;
        if high_water > c.high_water {
            c.append(conn, table, high_water)?;
        }
        let totals = fts_totals(conn, table)?;
        let ours = (i64::try_from(c.rowids.len()).unwrap_or(-1), c.total_tokens);
        if c.defect.is_none() && totals != ours {
            c.fail(format!(
                "the FTS5 index records {} rows and {} tokens, the mirror {} and {}",
                totals.0, totals.1, ours.0, ours.1
            ));
        }
        Ok(())
    }

    fn new(conn: &Connection, table: &str) -> Result<Self> {
        let mut cache = KeywordCache {
            generation: schema::meta_int(conn, table, schema::META_FTS_GENERATION)?,
            ..KeywordCache::default()
        };
        let sql: Option<String> = conn
            .query_row(
                "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?1",
                [format!("{table}_fts")],
                |r| r.get(0),
            )
            .optional()?
            .flatten();
        match sql {
            None => cache.fail("the home has no FTS5 keyword index".into()),
            Some(s) if s.to_ascii_lowercase().contains("tokenize") => {
                cache.fail(format!(
                    "the FTS5 keyword index declares its own tokenizer: {s}"
                ));
            }
            Some(_) => {}
        }
        Ok(cache)
    }

    fn fail(&mut self, why: String) {
        *self = KeywordCache {
            generation: self.generation,
            defect: Some(why),
            ..KeywordCache::default()
        };
    }

    /// Patch one row after this handle's committed digest rewrite moved
    /// `fts_generation` from `generation`: its postings, length and the
    /// totals replaced from the `old` indexed text to the `new` one (empty:
    /// not indexed). The mirror then stands at the new generation. A mirror
    /// built at another generation, or a row whose text the mirror does not
    /// read itself (SQLite tokenizes it), is left to rebuild.
    pub(super) fn patch_row(&mut self, generation: i64, rowid: i64, old: &[u8], new: &[u8]) {
        if self.generation != generation {
            return;
        }
        if self.defect.is_none() && rowid <= self.high_water && !self.patch(rowid, old, new) {
            return;
        }
        self.generation = generation + 1;
    }

    fn patch(&mut self, rowid: i64, old: &[u8], new: &[u8]) -> bool {
        let (Some(old), Some(new)) = (plain_text(old), plain_text(new)) else {
            return false;
        };
        // Only a row mirrored before and after (a digest stays indexed).
        let (Ok(i), false, false) = (
            self.rowids.binary_search(&rowid),
            old.is_empty(),
            new.is_empty(),
        ) else {
            return false;
        };
        let (Ok(row), Ok(len)) = (u32::try_from(i), u32::try_from(runs(new).count())) else {
            return false;
        };
        let counts = |text: &str| {
            let mut m: HashMap<String, u32> = HashMap::new();
            for t in runs(text) {
                *m.entry(t.to_ascii_lowercase()).or_default() += 1;
            }
            m
        };
        for term in counts(old).keys() {
            if let Some(list) = self.postings.get_mut(term.as_str()) {
                if let Ok(j) = list.binary_search_by_key(&row, |(r, _)| *r) {
                    list.remove(j);
                }
                if list.is_empty() {
                    self.postings.remove(term.as_str());
                }
            }
        }
        for (term, n) in counts(new) {
            let list = self.postings.entry(term.into_boxed_str()).or_default();
            let j = list.partition_point(|(r, _)| *r < row);
            list.insert(j, (row, n));
        }
        self.total_tokens += i64::from(len) - i64::from(self.lens[i]);
        self.lens[i] = len;
        true
    }

    /// Mirror the indexed rows in `(high_water, to]`: the rows
    /// `schema::sync_fts_index` indexes.
    fn append(&mut self, conn: &Connection, table: &str, to: i64) -> Result<()> {
        // The bytes FTS5 tokenizes: the text value as text (a BLOB as its
        // bytes, a number as SQLite writes it), whatever its type or encoding.
        let mut batch: Vec<(i64, Vec<u8>, u32, u32)> = Vec::new();
        {
            let mut stmt = conn.prepare_cached(&format!(
                "SELECT rowid, CAST(COALESCE(text, '') AS BLOB), scope, owner_id FROM {table} \
                 WHERE rowid > ?1 AND rowid <= ?2 \
                 AND json_extract(COALESCE(attributes_json, '{{}}'), '$.record_edge') IS NULL \
                 AND json_extract(COALESCE(attributes_json, '{{}}'), '$.bookkeeping') IS NULL \
                 ORDER BY rowid"
            ))?;
            let mut rows = stmt.query(params![self.high_water, to])?;
            while let Some(r) = rows.next()? {
                let scope = self.names.intern(r.get_ref(2)?);
                let owner = self.names.intern(r.get_ref(3)?);
                batch.push((r.get(0)?, r.get(1)?, scope, owner));
            }
        }
        let foreign: Vec<(i64, Vec<u8>)> = batch
            .iter()
            .filter(|(_, text, _, _)| plain_text(text).is_none())
            .map(|(rowid, text, _, _)| (*rowid, text.clone()))
            .collect();
        let mut by_sqlite = if foreign.is_empty() {
            HashMap::new()
        } else {
            sqlite_tokens(conn, &foreign)?
        };
        for (rowid, text, scope, owner) in &batch {
            match plain_text(text) {
                Some(text) => self.push(*rowid, *scope, *owner, runs(text).count(), runs(text)),
                None => {
                    // A row SQLite tokenized into nothing is absent from its answer.
                    let t = by_sqlite.remove(rowid).unwrap_or_default();
                    self.push(
                        *rowid,
                        *scope,
                        *owner,
                        t.count,
                        t.ascii.iter().map(String::as_str),
                    );
                }
            }
        }
        self.high_water = to;
        Ok(())
    }

    /// Append one row of `count` tokens, of which `terms` (as written; stored
    /// lower-cased) are the ASCII ones.
    fn push<'t>(
        &mut self,
        rowid: i64,
        scope: u32,
        owner: u32,
        count: usize,
        terms: impl Iterator<Item = &'t str>,
    ) {
        let Ok(row) = u32::try_from(self.rowids.len()) else {
            self.fail("more rows than the mirror numbers".into());
            return;
        };
        let Ok(len) = u32::try_from(count) else {
            self.fail(format!(
                "row {rowid} holds more tokens than the mirror counts"
            ));
            return;
        };
        self.total_tokens += i64::from(len);
        let mut term = String::new();
        for t in terms {
            term.clear();
            term.push_str(t);
            term.make_ascii_lowercase();
            match self.postings.get_mut(term.as_str()) {
                Some(list) => match list.last_mut() {
                    Some((r, n)) if *r == row => *n += 1,
                    _ => list.push((row, 1)),
                },
                None => {
                    self.postings.insert(term.as_str().into(), vec![(row, 1)]);
                }
            }
        }
        self.rowids.push(rowid);
        self.scopes.push(scope);
        self.owners.push(owner);
        self.lens.push(len);
    }

    /// Bytes held: 20 per row (rowid, scope and owner ids, token count), 8 per posting, each
    /// term and interned string once, and the rankings' scratch (up to 12 per row).
    pub(super) fn bytes(&self) -> usize {
        self.rowids.capacity() * 8
            + (self.scopes.capacity() + self.owners.capacity() + self.lens.capacity()) * 4
            + self.scores.capacity() * 8
            + self.scored.capacity() * 4
            + self
                .postings
                .iter()
                .map(|(k, v)| k.len() + 16 + v.capacity() * 8)
                .sum::<usize>()
            + self.names.bytes()
    }

    /// The rowids `keyword_rowids` answers: rows of `scope` (and `owner_id`,
    /// when given) with rowid in `range` holding any of `terms` (the
    /// discovery's `match_terms`, one phrase each), best BM25 first, ties
    /// newest rowid first, at most `limit`. `None` when the mirror cannot
    /// answer exactly (a defect, or a term `unicode61` would not read as one
    /// ASCII token): SQL answers. Each rowid comes with its BM25 score as a
    /// positive number (FTS5's `-bm25()`, the same double).
    ///
    /// Scored phrase by phrase in query order, which is `fts5Bm25Function`'s
    /// order of summation (every row's score is the same double): each
    /// phrase's postings are read once, in a row, into one score per row.
    /// Then only a row that can still enter the first `limit` kept so far
    /// (a score below the `limit`-th cannot; a tie can, by its newer rowid)
    /// reaches the heap of the best; nothing is sorted whole.
    pub(super) fn rank(
        &mut self,
        terms: &[String],
        scope: &str,
        owner_id: Option<&str>,
        limit: usize,
        range: (i64, i64),
    ) -> Option<Vec<(i64, f64)>> {
        let mut scores = std::mem::take(&mut self.scores);
        let mut scored = std::mem::take(&mut self.scored);
        let answer = self.rank_into(
            terms,
            scope,
            owner_id,
            limit,
            range,
            &mut scores,
            &mut scored,
        );
        self.scores = scores;
        self.scored = scored;
        answer
    }

    /// [`KeywordCache::rank`] with its scratch (`scores`: 0.0 for every row
    /// on entry and on return).
    #[allow(clippy::too_many_arguments)]
    fn rank_into(
        &self,
        terms: &[String],
        scope: &str,
        owner_id: Option<&str>,
        limit: usize,
        range: (i64, i64),
        scores: &mut Vec<f64>,
        scored: &mut Vec<u32>,
    ) -> Option<Vec<(i64, f64)>> {
        let q = match self.prepare(terms, scope, owner_id, limit, range)? {
            Prepared::Answer(answer) => return Some(answer),
            Prepared::Rank(q) => q,
        };
        scores.resize(self.rowids.len(), 0.0);
        scored.clear();
        // A row's BM25 term frequency part depends on its length and the
        // phrase's occurrences only: computed once per pair of small ones
        // (NaN: not yet), by the same operations, so the same double.
        let mut parts = [f64::NAN; SMALL_LEN * SMALL_COUNT];
        for (p, list) in q.lists.iter().enumerate() {
            for &(row, n) in *list {
                let i = row as usize;
                let len = self.lens[i] as usize;
                let tf = if len < SMALL_LEN && (n as usize) < SMALL_COUNT {
                    let slot = &mut parts[len * SMALL_COUNT + n as usize];
                    if slot.is_nan() {
                        *slot = q.tf(n, q.norm(i));
                    }
                    *slot
                } else {
                    q.tf(n, q.norm(i))
                };
                let part = q.idf[p] * tf;
                // Every contribution is positive: 0.0 is a row not scored yet.
                if scores[i] == 0.0 {
                    scored.push(row);
                }
                scores[i] += part;
            }
        }
        let mut best: BinaryHeap<Ranked> = BinaryHeap::new();
        for &row in scored.iter() {
            let i = row as usize;
            let score = std::mem::replace(&mut scores[i], 0.0);
            if !q.here(i) || (best.len() >= limit && best.peek().is_some_and(|w| score < w.score)) {
                continue;
            }
            let entry = Ranked {
                score,
                rowid: self.rowids[i],
            };
            if best.len() < limit {
                best.push(entry);
            } else if let Some(mut worst) = best.peek_mut()
                && entry < *worst
            {
                *worst = entry;
            }
        }
        // Best first: ORDER BY bm25 (= −score), rowid DESC.
        let mut ranked = best.into_vec();
        ranked.sort_unstable();
        Some(ranked.into_iter().map(|r| (r.rowid, r.score)).collect())
    }

    /// What every ranking reads first: `Answer` when the answer is known
    /// without scoring (no such scope or owner, nothing asked), `None` when
    /// the mirror cannot answer exactly.
    fn prepare(
        &self,
        terms: &[String],
        scope: &str,
        owner_id: Option<&str>,
        limit: usize,
        range: (i64, i64),
    ) -> Option<Prepared<'_>> {
        if self.defect.is_some() {
            return None;
        }
        let terms: Vec<String> = terms.iter().map(|t| query_term(t)).collect::<Option<_>>()?;
        let (Some(Some(scope)), Some(owner)) =
            (self.names.filter(Some(scope)), self.names.filter(owner_id))
        else {
            return Some(Prepared::Answer(Vec::new()));
        };
        if terms.is_empty() || limit == 0 || range.0 > range.1 || self.rowids.is_empty() {
            return Some(Prepared::Answer(Vec::new()));
        }
        let n_row = i64::try_from(self.rowids.len()).ok()?;
        // fts5Bm25GetData: avgdl and one IDF per phrase, over the whole index.
        #[allow(clippy::cast_precision_loss)]
        let avgdl = self.total_tokens as f64 / n_row as f64;
        let empty: &[(u32, u32)] = &[];
        let lists: Vec<&[(u32, u32)]> = terms
            .iter()
            .map(|t| self.postings.get(t.as_str()).map_or(empty, Vec::as_slice))
            .collect();
        #[allow(clippy::cast_precision_loss)]
        let idf: Vec<f64> = lists
            .iter()
            .map(|l| {
                let n_hit = l.len() as i64;
                let v = ((n_row - n_hit) as f64 + 0.5) / (n_hit as f64 + 0.5);
                let v = v.ln();
                if v <= 0.0 { 1e-6 } else { v }
            })
            .collect();
        let lo = u32::try_from(self.rowids.partition_point(|r| *r < range.0)).ok()?;
        let hi = u32::try_from(self.rowids.partition_point(|r| *r <= range.1)).ok()?;
        // Each phrase's postings within the range.
        let lists: Vec<&[(u32, u32)]> = lists
            .into_iter()
            .map(|l| {
                let start = l.partition_point(|(r, _)| *r < lo);
                let end = start + l[start..].partition_point(|(r, _)| *r < hi);
                &l[start..end]
            })
            .collect();
        Some(Prepared::Rank(Ranking {
            cache: self,
            lists,
            idf,
            avgdl,
            scope,
            owner,
        }))
    }
}

/// Rows shorter than this many tokens, holding a phrase fewer than
/// [`SMALL_COUNT`] times, share their term frequency parts within a ranking.
const SMALL_LEN: usize = 128;
/// See [`SMALL_LEN`].
const SMALL_COUNT: usize = 8;

/// A ranking's answer known before scoring, or the query to score.
enum Prepared<'c> {
    Answer(Vec<(i64, f64)>),
    Rank(Ranking<'c>),
}

/// One ranking's query: each phrase's postings within the range and its
/// IDF, and the rows' filter.
struct Ranking<'c> {
    cache: &'c KeywordCache,
    lists: Vec<&'c [(u32, u32)]>,
    idf: Vec<f64>,
    avgdl: f64,
    scope: u32,
    owner: Option<u32>,
}

impl Ranking<'_> {
    /// Whether row `i` is of the scope (and owner) asked.
    fn here(&self, i: usize) -> bool {
        self.cache.scopes[i] == self.scope && self.owner.is_none_or(|o| self.cache.owners[i] == o)
    }

    /// Row `i`'s length term of `fts5Bm25Function` (`k1·(1 − b + b·d/avgdl)`).
    fn norm(&self, i: usize) -> f64 {
        let d = f64::from(self.cache.lens[i]);
        K1 * (1.0 - B + B * d / self.avgdl)
    }

    /// The term frequency part of a phrase's contribution to a row holding
    /// it `n` times, of length term `norm` (the contribution is the phrase's
    /// IDF times it): `fts5Bm25Function`'s operations in its order.
    fn tf(&self, n: u32, norm: f64) -> f64 {
        let f = f64::from(n);
        (f * (K1 + 1.0)) / (f + norm)
    }
}

/// A row kept among the best: ordered best first (higher score, then newer
/// rowid), so a max-heap's top is the worst kept.
#[derive(Debug)]
struct Ranked {
    score: f64,
    rowid: i64,
}

impl PartialEq for Ranked {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other).is_eq()
    }
}

impl Eq for Ranked {}

impl Ord for Ranked {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        other
            .score
            .total_cmp(&self.score)
            .then(other.rowid.cmp(&self.rowid))
    }
}

impl PartialOrd for Ranked {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tokens the mirror reads from `text`, lower-cased, when it reads them.
    fn plain_tokens(text: &str) -> Option<Vec<String>> {
        plain_text(text.as_bytes()).map(|t| runs(t).map(str::to_ascii_lowercase).collect())
    }

    fn sqlite(texts: &[String]) -> HashMap<i64, Vec<String>> {
        let conn = Connection::open_in_memory().unwrap();
        let rows: Vec<(i64, Vec<u8>)> = texts
            .iter()
            .enumerate()
            .map(|(i, t)| (i64::try_from(i).unwrap() + 1, t.clone().into_bytes()))
            .collect();
        sqlite_tokens(&conn, &rows)
            .unwrap()
            .into_iter()
            .map(|(rowid, mut t)| {
                assert_eq!(t.count, t.ascii.len(), "only ASCII tokens here");
                t.ascii.sort();
                (rowid, t.ascii)
            })
            .collect()
    }

    impl KeywordCache {
        /// The ranking [`KeywordCache::rank`] replaced: the phrases'
        /// postings merged by row, every matching row scored, all of them
        /// sorted, the first `limit` kept.
        fn rank_exhaustive(
            &self,
            terms: &[String],
            scope: &str,
            owner_id: Option<&str>,
            limit: usize,
            range: (i64, i64),
        ) -> Option<Vec<(i64, f64)>> {
            let q = match self.prepare(terms, scope, owner_id, limit, range)? {
                Prepared::Answer(answer) => return Some(answer),
                Prepared::Rank(q) => q,
            };
            let (idf, avgdl) = (&q.idf, q.avgdl);
            let mut heads: Vec<&[(u32, u32)]> = q.lists.clone();
            let mut scored: Vec<(f64, i64)> = Vec::new();
            while let Some(row) = heads
                .iter()
                .filter_map(|h| h.first())
                .map(|(r, _)| *r)
                .min()
            {
                let i = row as usize;
                let here = q.here(i);
                let d = f64::from(self.lens[i]);
                let mut score = 0.0f64;
                for (p, head) in heads.iter_mut().enumerate() {
                    if let Some(&(r, n)) = head.first()
                        && r == row
                    {
                        *head = &head[1..];
                        if here {
                            let f = f64::from(n);
                            score +=
                                idf[p] * ((f * (K1 + 1.0)) / (f + K1 * (1.0 - B + B * d / avgdl)));
                        }
                    }
                }
                if here {
                    scored.push((-score, self.rowids[i]));
                }
            }
            let order = |a: &(f64, i64), b: &(f64, i64)| a.0.total_cmp(&b.0).then(b.1.cmp(&a.1));
            if scored.len() > limit {
                scored.select_nth_unstable_by(limit, order);
                scored.truncate(limit);
            }
            scored.sort_unstable_by(order);
            Some(scored.into_iter().map(|(s, r)| (r, -s)).collect())
        }
    }

    const VOCABULARY: [&str; 6] = ["alpha", "beta", "gamma", "delta", "eps", "zeta"];

    /// A row's text from word numbers (few words, few lengths: equal rows,
    /// hence tied scores, are common).
    fn row_text(words: &[usize]) -> String {
        words
            .iter()
            .map(|w| VOCABULARY[*w % VOCABULARY.len()])
            .collect::<Vec<_>>()
            .join(" ")
    }

    type Corpus = Vec<(u8, u8, Vec<usize>, u8)>;
    type Query = (Vec<usize>, usize, Option<u8>, u8, (usize, usize));

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(400))]

        /// The ranking answers what the merged walk it replaced answers:
        /// the same rows in the same order with the same doubles, on random
        /// corpora (two scopes, three owners, rows that tie, tokens the
        /// mirror does not keep, rows patched in place) and random queries
        /// (repeated and absent terms, any limit and range), one mirror
        /// answering them all in turn (its scratch is left clean).
        #[test]
        fn the_ranking_is_the_merged_walk(
            corpus in proptest::collection::vec(
                (0u8..2, 0u8..3, proptest::collection::vec(0usize..6, 0..6), 0u8..3),
                0..80,
            ),
            patches in proptest::collection::vec(
                (0usize..80, proptest::collection::vec(0usize..6, 1..6)),
                0..6,
            ),
            queries in proptest::collection::vec(
                (
                    proptest::collection::vec(0usize..8, 1..6),
                    0usize..24,
                    proptest::option::of(0u8..3),
                    0u8..2,
                    (0usize..200, 0usize..200),
                ),
                1..8,
            ),
        ) {
            check_ranking(&corpus, &patches, &queries);
        }
    }

    fn check_ranking(corpus: &Corpus, patches: &[(usize, Vec<usize>)], queries: &[Query]) {
        let mut cache = KeywordCache::default();
        let scopes = ["s0", "s1"].map(|s| cache.names.intern(ValueRef::Text(s.as_bytes())));
        let owners = ["o0", "o1", "o2"].map(|s| cache.names.intern(ValueRef::Text(s.as_bytes())));
        let mut texts: Vec<(i64, String)> = Vec::new();
        let mut rowid = 0i64;
        for (scope, owner, words, gap) in corpus {
            rowid += 1 + i64::from(*gap);
            let text = row_text(words);
            // `gap` extra tokens the mirror counts but does not keep.
            cache.push(
                rowid,
                scopes[usize::from(*scope)],
                owners[usize::from(*owner)],
                runs(&text).count() + usize::from(*gap),
                runs(&text),
            );
            texts.push((rowid, text));
        }
        for (at, words) in patches {
            if texts.is_empty() {
                break;
            }
            let at = at % texts.len();
            let new = row_text(words);
            if !texts[at].1.is_empty()
                && cache.patch(texts[at].0, texts[at].1.as_bytes(), new.as_bytes())
            {
                texts[at].1 = new;
            }
        }
        for (terms, limit, owner, scope, (a, b)) in queries {
            // Numbers past the vocabulary: a term no row holds.
            let terms: Vec<String> = terms
                .iter()
                .map(|t| {
                    VOCABULARY
                        .get(*t)
                        .map_or_else(|| format!("absent{t}"), |w| (*w).to_owned())
                })
                .collect();
            let owner = owner.map(|o| format!("o{o}"));
            let scope = format!("s{scope}");
            let range = (i64::try_from(*a).unwrap(), i64::try_from(*b).unwrap());
            let ranked = cache.rank(&terms, &scope, owner.as_deref(), *limit, range);
            let whole = cache.rank_exhaustive(&terms, &scope, owner.as_deref(), *limit, range);
            let bits = |r: Option<Vec<(i64, f64)>>| {
                r.map(|v| {
                    v.into_iter()
                        .map(|(id, s)| (id, s.to_bits()))
                        .collect::<Vec<_>>()
                })
            };
            assert_eq!(
                bits(ranked),
                bits(whole),
                "{terms:?} limit {limit} {scope} {owner:?} {range:?}"
            );
        }
    }

    #[test]
    fn a_ranking_of_many_tied_rows_keeps_the_newest() {
        // 300 rows holding `alpha` once at one length tie; 50 rows that hold
        // `beta` too score above them; the `gamma` rows below both.
        let mut cache = KeywordCache::default();
        let s = cache.names.intern(ValueRef::Text(b"s"));
        let o = cache.names.intern(ValueRef::Text(b"o"));
        let mut rowid = 0;
        for i in 0..1000 {
            rowid += 1;
            let text = match i % 20 {
                0 => "alpha beta",
                1..=6 => "alpha zeta",
                _ => "gamma zeta",
            };
            cache.push(rowid, s, o, 2, runs(text));
        }
        let terms: Vec<String> = ["gamma", "alpha", "beta", "alpha"]
            .map(str::to_owned)
            .to_vec();
        for limit in [1, 10, 50, 60, 120, 400, 2000] {
            let ranked = cache.rank(&terms, "s", Some("o"), limit, (i64::MIN, i64::MAX));
            let whole = cache.rank_exhaustive(&terms, "s", Some("o"), limit, (i64::MIN, i64::MAX));
            assert_eq!(ranked, whole, "limit {limit}");
        }
    }

    #[test]
    fn every_listed_separator_is_a_separator_to_sqlite_unicode61() {
        let chars: Vec<char> = SEPARATORS
            .iter()
            .flat_map(|(lo, hi)| *lo..=*hi)
            .filter_map(char::from_u32)
            .collect();
        assert!(chars.len() > 1500, "{}", chars.len());
        // Between letters, before a token, after one, and alone.
        let texts: Vec<String> = chars
            .iter()
            .flat_map(|c| {
                [
                    format!("a{c}b"),
                    format!("{c}a b"),
                    format!("a b{c}"),
                    format!("{c}"),
                ]
            })
            .collect();
        let by_sqlite = sqlite(&texts);
        for (i, text) in texts.iter().enumerate() {
            let rowid = i64::try_from(i).unwrap() + 1;
            let theirs = by_sqlite.get(&rowid).cloned().unwrap_or_default();
            let ours = plain_tokens(text).expect("a listed separator is read here");
            assert_eq!(
                ours,
                theirs,
                "U+{:04X} in {text:?}",
                u32::from(text.chars().find(|c| !c.is_ascii()).unwrap())
            );
        }
    }

    #[test]
    fn text_read_here_is_tokenized_as_sqlite_tokenizes_it() {
        let texts: Vec<String> = [
            "",
            "Melanie \u{2014} session 3",
            "I\u{2019}m  at the park\u{2026} with 2 dogs!!",
            "CamelCase and snake_case and x-y and a.b:c",
            "star\u{1F31F}bright \u{1F418}\u{200D}\u{2640}\u{FE0F}yoga",
            "\u{00AB}quoted\u{00BB} 3\u{00D7}4 \u{00BF}que?",
            "0123 ABC abc AbC",
        ]
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
        let by_sqlite = sqlite(&texts);
        for (i, text) in texts.iter().enumerate() {
            let rowid = i64::try_from(i).unwrap() + 1;
            let mut ours = plain_tokens(text).expect("plain text");
            ours.sort();
            assert_eq!(
                ours,
                by_sqlite.get(&rowid).cloned().unwrap_or_default(),
                "{text:?}"
            );
        }
    }

    #[test]
    fn text_with_other_characters_or_overlong_tokens_is_left_to_sqlite() {
        for text in [
            "caf\u{e9}",
            "\u{65e5}\u{672c}",
            "e\u{301}",
            "\u{2776}",
            "\u{aa}",
        ] {
            assert_eq!(plain_tokens(text), None, "{text:?}");
        }
        assert_eq!(plain_tokens(&"a".repeat(MAX_TOKEN_BYTES + 1)), None);
        assert_eq!(
            plain_tokens(&"a".repeat(MAX_TOKEN_BYTES)).map(|t| t.len()),
            Some(1)
        );
    }

    #[test]
    fn fts5_varints_decode_as_sqlite_writes_them() {
        assert_eq!(varint(&[0x05]), Some((5, 1)));
        assert_eq!(varint(&[0x81, 0x00]), Some((128, 2)));
        assert_eq!(varint(&[0xff; 9]), Some((u64::MAX, 9)));
        assert_eq!(varint(&[0x81]), None);
    }
}
