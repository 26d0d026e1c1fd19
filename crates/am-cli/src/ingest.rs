//! `am ingest`: form one record per conversation turn, idempotently (one
//! idempotency key per turn, from its position and content), with the engine
//! clock at the turn's instant.
//! Formats: `locomo` (the benchmark's JSON) and `jsonl` (plain chat lines
//! `{speaker, text, at, session}`).

use crate::ctx::Ctx;
use crate::error::{CliError, CliResult};
use crate::home::{self, HomeSpec, PinnedClock};
use crate::turn::Turn;
use crate::{embedder, locomo, text};
use am_system::RecordKind;
use am_system::Remember;
use am_system::{MemoryRecordInput, MemorySystem};
use clap::ValueEnum;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde_json::{Value, json};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

/// The input formats of `am ingest`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum IngestFormat {
    /// The LoCoMo benchmark JSON (each sample its own corpus).
    Locomo,
    /// Plain chat JSON lines `{speaker, text, at, session}`.
    Jsonl,
}

/// Form one record per conversation turn (idempotent).
#[derive(Debug, clap::Args)]
pub struct IngestCmd {
    /// The SQLite home (created when missing).
    #[arg(long)]
    home: PathBuf,
    /// The input format.
    #[arg(long, value_enum)]
    format: IngestFormat,
    /// For jsonl: the stream as SCOPE:OWNER (default life:chat).
    #[arg(long)]
    scope: Option<String>,
    /// Write into an existing SQLite file that is not an AbstractMemory
    /// home (it gains the store's and journal's tables).
    #[arg(long)]
    force: bool,
    /// The input file.
    file: PathBuf,
}

impl IngestCmd {
    /// The SQLite home this command creates when it is missing.
    pub fn home_to_create(&self) -> Option<&Path> {
        Some(&self.home)
    }

    /// Read the file and form its turns into the home.
    ///
    /// # Errors
    /// Bad input for an unusable home, file, format or scope; the engine's failure.
    pub fn run(self, ctx: &Ctx) -> CliResult<u8> {
        let IngestCmd {
            home,
            format,
            scope,
            force,
            file,
        } = self;
        let json_mode = ctx.json;
        home::check_home_path(&home)?;
        let facts = home::read_facts(&home)?;
        home::refuse_foreign(&home, facts.as_ref(), force)?;
        let pin = facts.as_ref().and_then(|f| f.pin.as_ref());
        let spec = embedder::resolve(
            ctx.embedder(),
            "offline",
            pin,
            true,
            ctx.allow_vectorless,
            &home,
        )?;
        let text = std::fs::read_to_string(&file).map_err(|e| {
            CliError::invalid(format!(
                "cannot read {}: {e} (expected a readable file)",
                file.display()
            ))
        })?;
        let mut notes = Vec::new();
        let turns = match format {
            IngestFormat::Locomo => {
                if scope.is_some() {
                    return Err(CliError::invalid(
                        "--scope applies to --format jsonl only (LoCoMo samples are each their own life:<sample_id> corpus)",
                    ));
                }
                let v: Value = serde_json::from_str(&text).map_err(|e| {
                    CliError::invalid(format!(
                        "{}: expected LoCoMo JSON, got invalid JSON ({e})",
                        file.display()
                    ))
                })?;
                locomo::parse(&v)?
                    .into_iter()
                    .flat_map(|s| s.turns)
                    .collect::<Vec<_>>()
            }
            IngestFormat::Jsonl => {
                let (scope, owner) = parse_scope(scope.as_deref().unwrap_or("life:chat"))?;
                parse_jsonl_noting(&text, &scope, &owner, &mut notes)?
            }
        };
        let clock = PinnedClock::wall();
        // A home that keeps a task queue (it has slept) is opened with it, so
        // each record formed is placed in its provisional topic (api.md
        // "Communities (topics)": placement needs the queue).
        let queued = home::keeps_task_queue(&home);
        let engine = home::open_queued(
            &HomeSpec::Sqlite(home.clone()),
            ctx.build_embedder(&spec)?,
            &clock,
            queued,
        )?;
        let started = std::time::Instant::now();
        engine.bulk_mode()?;
        let bar = progress(turns.len() as u64, "ingest", json_mode);
        let mut report = form_turns(&engine.system, &clock, &turns, &bar)?;
        bar.finish_and_clear();
        report.warnings.splice(0..0, notes);
        let secs = started.elapsed().as_secs_f64();
        let v = json!({"home": home.display().to_string(), "turns": turns.len(),
                       "formed": report.formed, "already_stored": report.already,
                       "warnings": report.warnings,
                       "seconds": (secs * 1000.0).round() / 1000.0});
        if !json_mode {
            for w in &report.warnings {
                eprintln!("warning: {}", text::escape(w));
            }
        }
        ctx.emit(
            &v,
            &format!(
                "ingested {} turns into {}: {} newly formed, {} already stored, in {:.2} s\n",
                turns.len(),
                home.display(),
                report.formed,
                report.already,
                secs
            ),
        )?;
        Ok(0)
    }
}

/// What one ingest run did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Formed {
    /// Records this run formed (a turn already stored is not counted, nor a
    /// record another process formed meanwhile).
    pub formed: u64,
    /// Turns already in the home (formed by an earlier run).
    pub already: u64,
    /// Warnings for the user: turns recall can never show.
    pub warnings: Vec<String>,
}

/// The turns whose record is already stored: under its content-aware key, or
/// under the position-only key of earlier releases with the same digest and
/// instant. One id query per 500 turns.
fn already_stored(system: &MemorySystem, turns: &[Turn]) -> CliResult<Vec<bool>> {
    let mut out = Vec::with_capacity(turns.len());
    for chunk in turns.chunks(500) {
        let mut wanted = Vec::with_capacity(chunk.len() * 2);
        for t in chunk {
            wanted.push(am_system::ids::digest_assertion_id(&t.idempotency_key, 0));
            wanted.push(am_system::ids::digest_assertion_id(&t.legacy_key, 0));
        }
        let rows = system.query(&am_triples::TripleQuery {
            assertion_ids: Some(wanted),
            limit: 0,
            ..am_triples::TripleQuery::default()
        })?;
        let by_id: std::collections::HashMap<&str, &am_triples::TripleAssertion> = rows
            .iter()
            .filter_map(|a| a.assertion_id.as_deref().map(|id| (id, a)))
            .collect();
        for t in chunk {
            let new = am_system::ids::digest_assertion_id(&t.idempotency_key, 0);
            let legacy = am_system::ids::digest_assertion_id(&t.legacy_key, 0);
            let same_legacy = by_id.get(legacy.as_str()).is_some_and(|a| {
                a.object == t.record.digest
                    && a.observed_at == am_triples::timestamp::format_utc(t.at)
                    && a.attributes.get("title").and_then(Value::as_str)
                        == t.record.title.as_deref()
            });
            out.push(by_id.contains_key(new.as_str()) || same_legacy);
        }
    }
    Ok(out)
}

/// The warning for a turn recall can never show: its text alone is over the
/// default recall token budget, so every shelf drops it (`budget_exhausted`).
pub fn oversized_warning(t: &Turn) -> Option<String> {
    let budget = am_system::RecallBudget::default().token_budget;
    let tokens = am_triples::token_estimate(&t.record.digest);
    (tokens > budget).then(|| {
        format!(
            "turn {} ({}) is about {tokens} tokens, over recall's token budget of {budget}: it is stored, \
             but recall drops it from every shelf (budget_exhausted); split it into shorter turns",
            t.legacy_key,
            t.record.title.as_deref().unwrap_or("untitled")
        )
    })
}

/// A progress bar on stderr, hidden when stderr is not a terminal or `quiet`.
pub fn progress(len: u64, label: &str, quiet: bool) -> ProgressBar {
    let bar = ProgressBar::new(len);
    if quiet || !std::io::stderr().is_terminal() {
        bar.set_draw_target(ProgressDrawTarget::hidden());
    } else if let Ok(style) =
        ProgressStyle::with_template("{msg} {bar:40} {pos}/{len} ({elapsed}, eta {eta})")
    {
        bar.set_style(style);
    }
    bar.set_message(label.to_owned());
    bar
}

/// Form every turn not stored yet, in order, with the clock set to each
/// turn's instant. Counts what THIS run formed: the turns already stored are
/// read first (one id query per 500 turns) and skipped, so a replay forms
/// none and a concurrent ingest's records are not counted here.
///
/// # Errors
/// The system's refusal or failure, naming the turn's idempotency key.
pub fn form_turns(
    system: &MemorySystem,
    clock: &PinnedClock,
    turns: &[Turn],
    bar: &ProgressBar,
) -> CliResult<Formed> {
    let stored = already_stored(system, turns)?;
    let mut report = Formed::default();
    for (t, stored) in turns.iter().zip(stored) {
        if stored {
            report.already += 1;
            bar.inc(1);
            continue;
        }
        report.warnings.extend(oversized_warning(t));
        clock.set(t.at);
        let formed = system
            .remember(&Remember::new(
                t.record.clone(),
                &t.scope,
                &t.owner_id,
                &t.idempotency_key,
            ))
            .map_err(|e| CliError::from(e).context(&format!("turn {}", t.idempotency_key)))?;
        // What the write raised (a vectorless row, a first-write pin), once each.
        for w in formed.warnings {
            if !report.warnings.contains(&w) {
                report.warnings.push(w);
            }
        }
        report.formed += 1;
        bar.inc(1);
    }
    Ok(report)
}

/// Parse a `SCOPE:OWNER` pair (the owner may contain `:`; it may not be blank).
///
/// # Errors
/// Bad input naming the expected form.
pub fn parse_scope(s: &str) -> CliResult<(String, String)> {
    match s.split_once(':') {
        Some((scope, owner)) if !scope.trim().is_empty() && !owner.trim().is_empty() => {
            Ok((scope.trim().to_lowercase(), owner.trim().to_owned()))
        }
        _ => Err(CliError::invalid(format!(
            "--scope expects SCOPE:OWNER (e.g. life:conv-26), got {s:?}"
        ))),
    }
}

/// Parse plain chat JSON lines `{speaker, text, at, session}` into turns of
/// `(scope, owner)`: kind `episode`, title `<speaker> — session <session>`,
/// digest the trimmed text, participants `person:<speaker lowercased>`,
/// idempotency key `<owner>:<session>:<index in session>`, attributes
/// `{session, turn}`, formed at `at`. Blank lines are skipped.
///
/// # Errors
/// Bad input naming the line and field.
pub fn parse_jsonl(text: &str, scope: &str, owner: &str) -> CliResult<Vec<Turn>> {
    parse_jsonl_noting(text, scope, owner, &mut Vec::new())
}

/// [`parse_jsonl`], pushing onto `notes` one warning naming the fields the
/// lines carried beside the four a turn stores (they are not stored).
///
/// # Errors
/// As [`parse_jsonl`].
pub fn parse_jsonl_noting(
    text: &str,
    scope: &str,
    owner: &str,
    notes: &mut Vec<String>,
) -> CliResult<Vec<Turn>> {
    const FIELDS: [&str; 4] = ["speaker", "text", "at", "session"];
    let mut ignored: Vec<(String, usize)> = Vec::new();
    let mut turns = Vec::new();
    let mut per_session: Vec<(String, u64)> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let n = i + 1;
        let v: Value = serde_json::from_str(line).map_err(|e| {
            CliError::invalid(format!(
                "line {n}: expected a JSON object, got invalid JSON ({e})"
            ))
        })?;
        let s = |key: &str| -> CliResult<String> {
            match v.get(key) {
                Some(Value::String(s)) if !s.trim().is_empty() => Ok(s.trim().to_owned()),
                Some(Value::Number(x)) if key == "session" => Ok(x.to_string()),
                other => Err(CliError::invalid(format!(
                    "line {n}: field {key:?} must be a non-empty string, got {}",
                    other.map_or_else(|| "nothing".to_owned(), Value::to_string)
                ))),
            }
        };
        if !v.is_object() {
            return Err(CliError::invalid(format!(
                "line {n}: expected a JSON object {{speaker, text, at, session}}, got {}",
                excerpt(line)
            )));
        }
        if let Some(obj) = v.as_object() {
            for k in obj.keys().filter(|k| !FIELDS.contains(&k.as_str())) {
                if !ignored.iter().any(|(seen, _)| seen == k) {
                    ignored.push((k.clone(), n));
                }
            }
        }
        let speaker = s("speaker")?;
        let text = s("text")?;
        let at = s("at")?;
        let session = s("session")?;
        let at = am_triples::timestamp::parse_timestamp(&at)
            .map_err(|e| CliError::from(e).context(&format!("line {n}: at")))?;
        let idx = match per_session.iter_mut().find(|(k, _)| *k == session) {
            Some(slot) => {
                slot.1 += 1;
                slot.1
            }
            None => {
                per_session.push((session.clone(), 0));
                0
            }
        };
        let record = MemoryRecordInput {
            participants: vec![format!("person:{}", speaker.to_lowercase())],
            ..MemoryRecordInput::new(
                RecordKind::Episode,
                &format!("{speaker} — session {session}"),
                &text,
            )
        }
        .with_attribute("session", session.clone())
        .with_attribute("turn", idx);
        turns.push(Turn::new(
            scope,
            owner,
            format!("{owner}:{session}:{idx}"),
            at,
            record,
        ));
    }
    if turns.is_empty() {
        return Err(CliError::invalid(
            "the chat file holds no turns: expected JSON lines {speaker, text, at, session}",
        ));
    }
    if !ignored.is_empty() {
        let names: Vec<String> = ignored
            .iter()
            .map(|(k, line)| format!("{} (first on line {line})", excerpt(k)))
            .collect();
        notes.push(format!(
            "fields not stored: {}; a turn stores speaker, text, at and session only",
            names.join(", ")
        ));
    }
    Ok(turns)
}

/// At most the first 80 characters of `text`, marked when cut (an error names
/// what it got without echoing a whole file).
pub fn excerpt(text: &str) -> String {
    const MAX: usize = 80;
    // Escaped: an error message is printed to a terminal.
    match text.char_indices().nth(MAX) {
        Some((i, _)) => format!(
            "{}… ({} bytes in all)",
            crate::text::escape(&text[..i]),
            text.len()
        ),
        None => crate::text::escape(text),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chat_lines_become_episodes_keyed_per_session_turn() {
        let text = "{\"speaker\":\"Ada\",\"text\":\" hi \",\"at\":\"2026-01-01T10:00:00Z\",\"session\":\"1\"}\n\n\
                    {\"speaker\":\"Bo\",\"text\":\"yo\",\"at\":\"2026-01-01T10:00:05Z\",\"session\":1}\n";
        let turns = parse_jsonl(text, "life", "demo").unwrap();
        assert_eq!(turns[1].legacy_key, "demo:1:1");
        assert!(turns[1].idempotency_key.starts_with("demo:1:1:"));
        assert_eq!(turns[0].record.title.as_deref(), Some("Ada — session 1"));
        assert_eq!(turns[0].record.digest, "hi");
        assert_eq!(turns[1].record.participants, ["person:bo"]);
    }

    #[test]
    fn malformed_chat_lines_are_refused_naming_the_line() {
        for (text, needle) in [
            ("{", "line 1"),
            ("[1]", "JSON object"),
            (
                "{\"speaker\":\"a\",\"text\":\"t\",\"at\":\"yesterday\",\"session\":\"1\"}",
                "timestamp",
            ),
            (
                "{\"speaker\":\"a\",\"text\":\"\",\"at\":\"2026-01-01\",\"session\":\"1\"}",
                "text",
            ),
            ("\n\n", "no turns"),
        ] {
            let e = parse_jsonl(text, "life", "o").unwrap_err();
            assert_eq!(e.code, 2);
            assert!(e.message.contains(needle), "{}", e.message);
        }
    }

    #[test]
    fn scopes_are_scope_colon_owner() {
        assert_eq!(
            parse_scope("Life:conv-26").unwrap(),
            ("life".into(), "conv-26".into())
        );
        assert_eq!(parse_scope("a:b:c").unwrap(), ("a".into(), "b:c".into()));
        for bad in ["life", ":x", "life:", " : "] {
            assert_eq!(parse_scope(bad).unwrap_err().code, 2);
        }
    }
}
