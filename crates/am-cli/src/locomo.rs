//! The LoCoMo data and the issue's fixed ingestion protocol: each sample its
//! own corpus (scope `life`, owner = `sample_id`), one `episode` record per
//! dialog turn, the engine clock at the session's date-time plus the turn's
//! index in seconds; and the evidence normalization of `am eval locomo`.

use crate::error::{CliError, CliResult};
use crate::turn::Turn;
use am_system::MemoryRecordInput;
use am_system::RecordKind;
use regex::Regex;
use serde_json::Value;
use std::collections::HashSet;
use time::{Date, Month, OffsetDateTime, PrimitiveDateTime, Time};

/// One question of a sample.
#[derive(Debug, Clone, PartialEq)]
pub struct Question {
    /// The question text (the cue).
    pub question: String,
    /// Category 1–5 (5 is adversarial).
    pub category: i64,
    /// Normalized evidence dia_ids (`D<int>:<int>`), unknown ids dropped, deduplicated.
    pub evidence: Vec<String>,
}

/// One LoCoMo sample: its turns (in ingestion order) and its questions.
#[derive(Debug, Clone)]
#[allow(
    dead_code,
    reason = "sample_id and questions are read by am eval locomo, which lands with reconstruct"
)]
pub struct Sample {
    /// The sample id (the corpus owner).
    pub sample_id: String,
    /// The turns as records to form.
    pub turns: Vec<Turn>,
    /// The qa items.
    pub questions: Vec<Question>,
}

/// Parse `"1:56 pm on 8 May, 2023"` (`%I:%M %p on %d %B, %Y`, read as UTC).
///
/// # Errors
/// Bad input naming the expected format and the value.
pub fn parse_session_time(s: &str) -> CliResult<OffsetDateTime> {
    let bad = || {
        CliError::invalid(format!(
            "expected a session date-time like \"1:56 pm on 8 May, 2023\" (%I:%M %p on %d %B, %Y), got {s:?}"
        ))
    };
    let (clock, date) = s.trim().split_once(" on ").ok_or_else(bad)?;
    let (hm, ampm) = clock.trim().split_once(' ').ok_or_else(bad)?;
    let (h, m) = hm.split_once(':').ok_or_else(bad)?;
    let h: u8 = h.trim().parse().map_err(|_| bad())?;
    let m: u8 = m.trim().parse().map_err(|_| bad())?;
    if !(1..=12).contains(&h) {
        return Err(bad());
    }
    let hour = match ampm.trim().to_ascii_lowercase().as_str() {
        "am" => h % 12,
        "pm" => h % 12 + 12,
        _ => return Err(bad()),
    };
    let (dm, year) = date.trim().split_once(',').ok_or_else(bad)?;
    let (day, month) = dm.trim().split_once(' ').ok_or_else(bad)?;
    let day: u8 = day.trim().parse().map_err(|_| bad())?;
    let year: i32 = year.trim().parse().map_err(|_| bad())?;
    let month = month_of(month.trim()).ok_or_else(bad)?;
    let date = Date::from_calendar_date(year, month, day).map_err(|_| bad())?;
    let time = Time::from_hms(hour, m, 0).map_err(|_| bad())?;
    Ok(PrimitiveDateTime::new(date, time).assume_utc())
}

fn month_of(name: &str) -> Option<Month> {
    const NAMES: [&str; 12] = [
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
    ];
    let lower = name.to_ascii_lowercase();
    let i = NAMES.iter().position(|n| *n == lower)?;
    Month::try_from(u8::try_from(i + 1).ok()?).ok()
}

fn evidence_regex() -> Regex {
    // A constant pattern: compiling it cannot fail.
    Regex::new(r"D:?(\d+):(\d+)").unwrap_or_else(|_| unreachable!("constant regex"))
}

/// Normalize evidence entries: every match of `D:?(\d+):(\d+)` becomes
/// `D<int>:<int>`; ids not in `known` are dropped; duplicates removed (first kept).
pub fn normalize_evidence(entries: &[String], known: &HashSet<String>) -> Vec<String> {
    let re = evidence_regex();
    let mut out: Vec<String> = Vec::new();
    for e in entries {
        for c in re.captures_iter(e) {
            let (Ok(a), Ok(b)) = (c[1].parse::<u64>(), c[2].parse::<u64>()) else {
                continue;
            };
            let id = format!("D{a}:{b}");
            if known.contains(&id) && !out.contains(&id) {
                out.push(id);
            }
        }
    }
    out
}

fn field<'a>(obj: &'a Value, key: &str, what: &str) -> CliResult<&'a Value> {
    obj.get(key)
        .ok_or_else(|| CliError::invalid(format!("{what}: missing field {key:?}")))
}

fn str_field<'a>(obj: &'a Value, key: &str, what: &str) -> CliResult<&'a str> {
    field(obj, key, what)?.as_str().ok_or_else(|| {
        CliError::invalid(format!(
            "{what}: field {key:?} must be a string, got {}",
            obj[key]
        ))
    })
}

/// Parse the LoCoMo JSON (a list of samples) into samples with their turns
/// per the protocol.
///
/// # Errors
/// Bad input naming the sample and field that is malformed.
pub fn parse(data: &Value) -> CliResult<Vec<Sample>> {
    let list = data.as_array().ok_or_else(|| {
        CliError::invalid(format!(
            "LoCoMo data must be a JSON list of samples, got {}",
            json_type(data)
        ))
    })?;
    if list.is_empty() {
        return Err(CliError::invalid(
            "LoCoMo data holds no samples (expected a non-empty JSON list of samples)",
        ));
    }
    list.iter()
        .enumerate()
        .map(|(i, s)| parse_sample(i, s))
        .collect()
}

fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

fn parse_sample(i: usize, s: &Value) -> CliResult<Sample> {
    let what = format!("sample {i}");
    let sample_id = str_field(s, "sample_id", &what)?.trim().to_owned();
    if sample_id.is_empty() {
        return Err(CliError::invalid(format!(
            "{what}: sample_id must be non-empty"
        )));
    }
    let what = format!("sample {sample_id}");
    let conv = field(s, "conversation", &what)?
        .as_object()
        .ok_or_else(|| CliError::invalid(format!("{what}: conversation must be an object")))?;
    let mut sessions: Vec<(u64, &Vec<Value>)> = Vec::new();
    for (k, v) in conv {
        if let Some(n) = k.strip_prefix("session_")
            && let Ok(n) = n.parse::<u64>()
        {
            let list = v
                .as_array()
                .ok_or_else(|| CliError::invalid(format!("{what}: {k} must be a list of turns")))?;
            sessions.push((n, list));
        }
    }
    sessions.sort_by_key(|(n, _)| *n);
    let mut turns = Vec::new();
    let mut known = HashSet::new();
    for (n, list) in sessions {
        let key = format!("session_{n}_date_time");
        let dt = conv
            .get(&key)
            .and_then(Value::as_str)
            .ok_or_else(|| CliError::invalid(format!("{what}: missing string {key:?}")))?;
        let start = parse_session_time(dt).map_err(|e| e.context(&format!("{what} {key}")))?;
        for (idx, t) in list.iter().enumerate() {
            let tw = format!("{what} session_{n} turn {idx}");
            let speaker = str_field(t, "speaker", &tw)?;
            let dia_id = str_field(t, "dia_id", &tw)?.trim().to_owned();
            let text = str_field(t, "text", &tw)?;
            let digest = match t.get("blip_caption").and_then(Value::as_str) {
                Some(c) if !c.is_empty() => format!("{text} [shares: {c}]"),
                _ => text.to_owned(),
            };
            let digest = digest.trim().to_owned();
            let record = MemoryRecordInput {
                participants: vec![format!("person:{}", speaker.to_lowercase())],
                ..MemoryRecordInput::new(
                    RecordKind::Episode,
                    &format!("{speaker} — session {n}"),
                    &digest,
                )
            }
            .with_attribute("dia_id", dia_id.clone());
            known.insert(dia_id.clone());
            let secs = i64::try_from(idx).unwrap_or(i64::MAX);
            let at = start
                .checked_add(time::Duration::seconds(secs))
                .ok_or_else(|| {
                    CliError::invalid(format!("{tw}: the turn's instant is out of range"))
                })?;
            turns.push(Turn::new(
                "life",
                &sample_id,
                format!("{sample_id}:{dia_id}"),
                at,
                record,
            ));
        }
    }
    let mut questions = Vec::new();
    if let Some(qa) = s.get("qa") {
        let qa = qa
            .as_array()
            .ok_or_else(|| CliError::invalid(format!("{what}: qa must be a list")))?;
        for (qi, q) in qa.iter().enumerate() {
            let qw = format!("{what} qa {qi}");
            let question = str_field(q, "question", &qw)?.to_owned();
            let category = field(q, "category", &qw)?
                .as_i64()
                .ok_or_else(|| CliError::invalid(format!("{qw}: category must be an integer")))?;
            let entries: Vec<String> = match q.get("evidence") {
                Some(Value::Array(a)) => a
                    .iter()
                    .filter_map(|e| e.as_str().map(str::to_owned))
                    .collect(),
                _ => Vec::new(),
            };
            questions.push(Question {
                question,
                category,
                evidence: normalize_evidence(&entries, &known),
            });
        }
    }
    Ok(Sample {
        sample_id,
        turns,
        questions,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn session_times_read_as_utc_in_the_twelve_hour_format() {
        let t = parse_session_time("1:56 pm on 8 May, 2023").unwrap();
        assert_eq!(
            am_triples::timestamp::format_utc(t),
            "2023-05-08T13:56:00.000000+00:00"
        );
        let t = parse_session_time("12:09 am on 13 September, 2023").unwrap();
        assert_eq!(
            am_triples::timestamp::format_utc(t),
            "2023-09-13T00:09:00.000000+00:00"
        );
        for bad in [
            "",
            "13:00 pm on 8 May, 2023",
            "1:56 pm on 31 February, 2023",
            "1:56 xm on 8 May, 2023",
        ] {
            assert_eq!(parse_session_time(bad).unwrap_err().code, 2, "{bad}");
        }
    }

    #[test]
    fn evidence_matches_become_d_int_colon_int_unknown_dropped_duplicates_removed() {
        let known: HashSet<String> = ["D8:6", "D9:17", "D11:26", "D30:5"]
            .iter()
            .map(|s| (*s).to_owned())
            .collect();
        let got = normalize_evidence(
            &[
                "D8:6; D9:17".into(),
                "D:11:26".into(),
                "D30:05".into(),
                "D8:6".into(),
                "D99:1".into(),
            ],
            &known,
        );
        assert_eq!(got, ["D8:6", "D9:17", "D11:26", "D30:5"]);
    }

    #[test]
    fn a_turn_becomes_an_episode_per_the_protocol() {
        let data = json!([{
            "sample_id": "conv-x",
            "conversation": {
                "speaker_a": "Ann", "speaker_b": "Bo",
                "session_2_date_time": "9:00 am on 2 May, 2023",
                "session_2": [{"speaker": "Bo", "dia_id": "D2:1", "text": "later"}],
                "session_1_date_time": "1:56 pm on 1 May, 2023",
                "session_1": [
                    {"speaker": "Ann", "dia_id": "D1:1", "text": "hi "},
                    {"speaker": "Bo", "dia_id": "D1:2", "text": "look", "blip_caption": "a dog"}
                ],
                "session_3_date_time": "9:00 am on 3 May, 2023"
            },
            "qa": [{"question": "q?", "answer": "a", "evidence": ["D1:2; D:2:1", "D7:7"], "category": 1}]
        }]);
        let s = &parse(&data).unwrap()[0];
        let keys: Vec<&str> = s.turns.iter().map(|t| t.legacy_key.as_str()).collect();
        assert_eq!(keys, ["conv-x:D1:1", "conv-x:D1:2", "conv-x:D2:1"]);
        let t = &s.turns[1];
        assert_eq!(t.record.title.as_deref(), Some("Bo — session 1"));
        assert_eq!(t.record.digest, "look [shares: a dog]");
        assert_eq!(t.record.participants, ["person:bo"]);
        assert_eq!(t.record.kind, RecordKind::Episode);
        assert_eq!(t.record.attributes["dia_id"], "D1:2");
        assert_eq!((t.scope.as_str(), t.owner_id.as_str()), ("life", "conv-x"));
        assert_eq!(
            am_triples::timestamp::format_utc(t.at),
            "2023-05-01T13:56:01.000000+00:00"
        );
        assert_eq!(s.turns[0].record.digest, "hi");
        assert_eq!(s.questions[0].evidence, ["D1:2", "D2:1"]);
    }

    #[test]
    fn malformed_samples_are_refused_naming_the_field() {
        for (data, needle) in [
            (json!({}), "JSON list"),
            (json!([{"conversation": {}}]), "sample_id"),
            (
                json!([{"sample_id": "s", "conversation": {"session_1": [{}]}}]),
                "session_1_date_time",
            ),
            (
                json!([{"sample_id": "s", "conversation": {"session_1_date_time": "1:56 pm on 8 May, 2023", "session_1": [{"speaker": 1}]}}]),
                "speaker",
            ),
        ] {
            let e = parse(&data).unwrap_err();
            assert_eq!(e.code, 2);
            assert!(e.message.contains(needle), "{}", e.message);
        }
    }
}
