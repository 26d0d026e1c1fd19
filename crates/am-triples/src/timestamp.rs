//! The one timestamp parser and the canonical UTC text form.
//!
//! Every timestamp a write carries is parsed (RFC 3339 / ISO 8601; a naive value is
//! UTC; `Z` accepted) and rendered as `YYYY-MM-DDTHH:MM:SS.ffffff+00:00`, so string
//! order equals instant order ("Our rules", spec README). Anything else is
//! `InvalidInput`. [`Timestamp`] is such an instant parsed once, and
//! [`Clock`] the injectable clock that answers one.

use crate::error::{Error, Result};
use time::{Date, Month, OffsetDateTime, PrimitiveDateTime, Time, UtcOffset};

/// Now, as the canonical UTC text form (microsecond precision).
pub fn now_utc() -> String {
    Timestamp::now().canonical()
}

/// Render an instant in the canonical form `2026-01-01T00:00:00.000000+00:00`.
pub fn format_utc(t: OffsetDateTime) -> String {
    let t = t.to_offset(UtcOffset::UTC);
    if let Ok(year) = u32::try_from(t.year())
        && year <= 9999
    {
        // Written digit by digit (the same text as the format! below, without
        // the formatter's per-field padding machinery; stores format per row).
        let mut b = *b"0000-00-00T00:00:00.000000+00:00";
        let mut put = |at: usize, width: usize, mut v: u32| {
            for i in (at..at + width).rev() {
                b[i] = b'0' + u8::try_from(v % 10).unwrap_or(0);
                v /= 10;
            }
        };
        put(0, 4, year);
        put(5, 2, u32::from(u8::from(t.month())));
        put(8, 2, u32::from(t.day()));
        put(11, 2, u32::from(t.hour()));
        put(14, 2, u32::from(t.minute()));
        put(17, 2, u32::from(t.second()));
        put(20, 6, t.microsecond());
        return String::from_utf8_lossy(&b).into_owned();
    }
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:06}+00:00",
        t.year(),
        u8::from(t.month()),
        t.day(),
        t.hour(),
        t.minute(),
        t.second(),
        t.microsecond()
    )
}

/// Parse a timestamp into an instant.
///
/// Accepts `YYYY-MM-DD`, then optionally `T` or a space and `HH:MM[:SS[.fraction]]`,
/// then optionally `Z`/`z` or an offset `±HH:MM`, `±HHMM` or `±HH`. Fractions beyond
/// microseconds are truncated. A value without an offset is UTC.
///
/// # Errors
/// `InvalidInput` naming the value when it is not a timestamp.
pub fn parse_timestamp(value: &str) -> Result<OffsetDateTime> {
    parse_inner(value.trim()).ok_or_else(|| {
        Error::invalid(format!(
            "expected an ISO-8601/RFC-3339 timestamp (e.g. 2026-01-01T00:00:00+00:00), got {value:?}"
        ))
    })
}

/// Parse and render in the canonical UTC form.
///
/// # Errors
/// `InvalidInput` when `value` is not a timestamp.
pub fn normalize_timestamp(value: &str) -> Result<String> {
    parse_timestamp(value).map(format_utc)
}

/// Normalize an optional timestamp; an empty or blank string is `None`.
///
/// # Errors
/// `InvalidInput` when a non-empty value is not a timestamp.
pub fn normalize_optional(value: Option<&str>) -> Result<Option<String>> {
    match value.map(str::trim) {
        None | Some("") => Ok(None),
        Some(v) => normalize_timestamp(v).map(Some),
    }
}

fn digits(s: &[u8], n: usize) -> Option<u32> {
    if s.len() < n || !s[..n].iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(
        s[..n]
            .iter()
            .fold(0u32, |acc, d| acc * 10 + u32::from(d - b'0')),
    )
}

/// The date part: `YYYY-MM-DD`, `YYYYMMDD`, or an ISO week date (`YYYY-Www[-D]`,
/// `YYYYWww[D]`; day 1 when absent), as Python's `fromisoformat` reads them.
fn parse_date(b: &[u8]) -> Option<(Date, &[u8])> {
    let year = i32::try_from(digits(b, 4)?).ok()?;
    let extended = b.get(4) == Some(&b'-');
    let at = if extended { 5 } else { 4 };
    if matches!(b.get(at), Some(b'W')) {
        let week = u8::try_from(digits(&b[at + 1..], 2)?).ok()?;
        let mut used = at + 3;
        let mut day = 1u8;
        let day_at = if extended { used + 1 } else { used };
        let has_day = if extended {
            b.get(used) == Some(&b'-')
        } else {
            b.get(used).is_some_and(u8::is_ascii_digit)
        };
        if has_day {
            day = u8::try_from(digits(&b[day_at..], 1)?).ok()?;
            used = day_at + 1;
        }
        let weekday = match day {
            1 => time::Weekday::Monday,
            2 => time::Weekday::Tuesday,
            3 => time::Weekday::Wednesday,
            4 => time::Weekday::Thursday,
            5 => time::Weekday::Friday,
            6 => time::Weekday::Saturday,
            7 => time::Weekday::Sunday,
            _ => return None,
        };
        let date = Date::from_iso_week_date(year, week, weekday).ok()?;
        return Some((date, &b[used..]));
    }
    let (month, day, used) = if extended {
        if b.get(7) != Some(&b'-') {
            return None;
        }
        (digits(&b[5..], 2)?, digits(&b[8..], 2)?, 10)
    } else {
        (digits(&b[4..], 2)?, digits(&b[6..], 2)?, 8)
    };
    let date = Date::from_calendar_date(
        year,
        Month::try_from(u8::try_from(month).ok()?).ok()?,
        u8::try_from(day).ok()?,
    )
    .ok()?;
    Some((date, &b[used..]))
}

/// The time part after the separator: `HH`, `HH:MM`, `HHMM`, `HH:MM:SS`,
/// `HHMMSS`, with an optional `.`/`,` fraction after the seconds (truncated to
/// microseconds).
fn parse_time(b: &[u8]) -> Option<(Time, &[u8])> {
    let hour = digits(b, 2)?;
    let mut rest = &b[2..];
    let (mut minute, mut second, mut micro) = (0, 0, 0);
    let extended = rest.first() == Some(&b':');
    let field = |r: &[u8]| -> Option<u32> {
        if extended {
            if r.first() != Some(&b':') {
                return None;
            }
            digits(&r[1..], 2)
        } else {
            digits(r, 2)
        }
    };
    let width = if extended { 3 } else { 2 };
    let starts_field = |r: &[u8]| {
        if extended {
            r.first() == Some(&b':')
        } else {
            r.first().is_some_and(u8::is_ascii_digit)
        }
    };
    if starts_field(rest) {
        minute = field(rest)?;
        rest = &rest[width..];
        if starts_field(rest) {
            second = field(rest)?;
            rest = &rest[width..];
            if matches!(rest.first(), Some(b'.') | Some(b',')) {
                let n = rest[1..].iter().take_while(|c| c.is_ascii_digit()).count();
                if n == 0 {
                    return None;
                }
                let mut padded: Vec<u8> = rest[1..1 + n.min(6)].to_vec();
                padded.resize(6, b'0');
                micro = digits(&padded, 6)?;
                rest = &rest[1 + n..];
            }
        }
    }
    let time = Time::from_hms_micro(
        u8::try_from(hour).ok()?,
        u8::try_from(minute).ok()?,
        u8::try_from(second).ok()?,
        micro,
    )
    .ok()?;
    Some((time, rest))
}

fn parse_inner(s: &str) -> Option<OffsetDateTime> {
    let (date, mut rest) = parse_date(s.as_bytes())?;
    let mut time = Time::MIDNIGHT;
    if let Some(&sep) = rest.first() {
        if sep != b'T' && sep != b't' && sep != b' ' {
            return None;
        }
        let (t, r) = parse_time(&rest[1..])?;
        time = t;
        rest = r;
    }
    let offset = match rest {
        [] | [b'Z'] | [b'z'] => UtcOffset::UTC,
        [sign @ (b'+' | b'-'), tail @ ..] => {
            let h = digits(tail, 2)?;
            let (m, s, used) = match &tail[2..] {
                [] => (0, 0, 2),
                [b':', ..] => {
                    let m = digits(&tail[3..], 2)?;
                    if tail.get(5) == Some(&b':') {
                        (m, digits(&tail[6..], 2)?, 8)
                    } else {
                        (m, 0, 5)
                    }
                }
                _ => (digits(&tail[2..], 2)?, 0, 4),
            };
            if tail.len() != used || h > 23 || m > 59 || s > 59 {
                return None;
            }
            let sign = if *sign == b'-' { -1 } else { 1 };
            UtcOffset::from_hms(
                sign * i8::try_from(h).ok()?,
                sign * i8::try_from(m).ok()?,
                sign * i8::try_from(s).ok()?,
            )
            .ok()?
        }
        _ => return None,
    };
    // Python's datetime holds years 1..=9999 only: an instant whose UTC form falls
    // outside (e.g. 9999-12-31T23:30:00-01:00) is not a timestamp there either.
    let utc = PrimitiveDateTime::new(date, time)
        .assume_offset(offset)
        .checked_to_offset(UtcOffset::UTC)?;
    (1..=9999).contains(&utc.year()).then_some(utc)
}

/// An instant in the canonical UTC form: microsecond precision, years
/// 1..=9999, parsed once at the boundary (an exec line, an arguments struct,
/// the engine's clock) so verbs compare and order instants instead of
/// re-parsing text.
///
/// Its text (`Display`, serde) is the canonical `YYYY-MM-DDTHH:MM:SS.ffffff+00:00`,
/// so a JSON field of this type reads any accepted form and writes the spec's
/// string; order is instant order.
///
/// ```
/// use am_triples::Timestamp;
/// let t = Timestamp::parse("2026-01-01T02:30:00.5+02:00").unwrap();
/// assert_eq!(t.to_string(), "2026-01-01T00:30:00.500000+00:00");
/// assert_eq!(serde_json::to_value(t).unwrap(), "2026-01-01T00:30:00.500000+00:00");
/// let back: Timestamp = serde_json::from_value("2026-01-01T00:30:00.5Z".into()).unwrap();
/// assert_eq!(back, t);
/// assert!(Timestamp::parse("tomorrow").is_err());
/// ```
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp(OffsetDateTime);

impl Timestamp {
    /// Now (the wall clock), truncated to microseconds.
    pub fn now() -> Timestamp {
        let t = OffsetDateTime::now_utc();
        Timestamp(t.replace_nanosecond(t.microsecond() * 1000).unwrap_or(t))
    }

    /// Parse any accepted form ([`parse_timestamp`]).
    ///
    /// # Errors
    /// `InvalidInput` naming the value when it is not a timestamp.
    pub fn parse(value: &str) -> Result<Timestamp> {
        parse_timestamp(value).map(Timestamp)
    }

    /// Parse an optional value; an empty or blank string is `None`
    /// (as [`normalize_optional`]).
    ///
    /// # Errors
    /// `InvalidInput` when a non-empty value is not a timestamp.
    pub fn parse_optional(value: Option<&str>) -> Result<Option<Timestamp>> {
        match value.map(str::trim) {
            None | Some("") => Ok(None),
            Some(v) => Timestamp::parse(v).map(Some),
        }
    }

    /// The instant as a UTC `OffsetDateTime` (for arithmetic).
    pub fn as_datetime(self) -> OffsetDateTime {
        self.0
    }

    /// The instant `t` (any offset) in UTC, truncated to microseconds.
    ///
    /// # Errors
    /// `InvalidInput` when its UTC year falls outside 1..=9999.
    pub fn from_datetime(t: OffsetDateTime) -> Result<Timestamp> {
        let utc = t.to_offset(UtcOffset::UTC);
        if !(1..=9999).contains(&utc.year()) {
            return Err(Error::invalid(format!(
                "a timestamp's year must be within 1..=9999, got {}",
                utc.year()
            )));
        }
        Ok(Timestamp(
            utc.replace_nanosecond(utc.microsecond() * 1000)
                .unwrap_or(utc),
        ))
    }

    /// The canonical text form (`Display`).
    pub fn canonical(self) -> String {
        format_utc(self.0)
    }
}

impl std::fmt::Display for Timestamp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&format_utc(self.0))
    }
}

impl std::fmt::Debug for Timestamp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Timestamp({})", format_utc(self.0))
    }
}

impl std::str::FromStr for Timestamp {
    type Err = Error;

    fn from_str(s: &str) -> Result<Timestamp> {
        Timestamp::parse(s)
    }
}

impl From<Timestamp> for String {
    fn from(t: Timestamp) -> String {
        t.canonical()
    }
}

impl PartialEq<str> for Timestamp {
    fn eq(&self, other: &str) -> bool {
        format_utc(self.0) == other
    }
}

impl PartialEq<&str> for Timestamp {
    fn eq(&self, other: &&str) -> bool {
        format_utc(self.0) == *other
    }
}

impl serde::Serialize for Timestamp {
    fn serialize<S: serde::Serializer>(
        &self,
        serializer: S,
    ) -> std::result::Result<S::Ok, S::Error> {
        serializer.serialize_str(&format_utc(self.0))
    }
}

impl<'de> serde::Deserialize<'de> for Timestamp {
    fn deserialize<D: serde::Deserializer<'de>>(
        deserializer: D,
    ) -> std::result::Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        Timestamp::parse(&text).map_err(serde::de::Error::custom)
    }
}

/// A JSON string: written in the canonical `YYYY-MM-DDTHH:MM:SS.ffffff+00:00`,
/// read in any form [`parse_timestamp`] accepts.
impl schemars::JsonSchema for Timestamp {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Timestamp".into()
    }

    fn schema_id() -> std::borrow::Cow<'static, str> {
        "am_triples::Timestamp".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "string",
            "description": "An instant. Written as `YYYY-MM-DDTHH:MM:SS.ffffff+00:00` \
                (UTC, microsecond precision, years 1..=9999). Read from an ISO 8601 \
                date (`YYYY-MM-DD`, `YYYYMMDD` or a week date `YYYY-Www[-D]`), then \
                optionally `T` or a space and a time (`HH`, `HH:MM`, `HHMM`, \
                `HH:MM:SS`, `HHMMSS`, with an optional `.`/`,` fraction truncated \
                to microseconds), then optionally `Z` or an offset `+HH:MM`, \
                `+HHMM` or `+HH` (or `-`); a value without an offset is UTC.",
            "examples": ["2026-01-01T00:00:00.000000+00:00"],
        })
    }
}

/// An injectable clock: the engine's and the graph's record time, as a
/// [`Timestamp`] (so no verb re-parses what a clock said).
pub type Clock = std::sync::Arc<dyn Fn() -> Timestamp + Send + Sync>;

/// The wall clock ([`Timestamp::now`]).
pub fn wall_clock() -> Clock {
    std::sync::Arc::new(Timestamp::now)
}

/// A clock that always answers `at` (tests, replays, a pinned host clock).
pub fn fixed_clock(at: Timestamp) -> Clock {
    std::sync::Arc::new(move || at)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn naive_is_utc_and_z_is_accepted() {
        assert_eq!(
            normalize_timestamp("2026-01-01T00:00:00").unwrap(),
            "2026-01-01T00:00:00.000000+00:00"
        );
        assert_eq!(
            normalize_timestamp("2026-01-01T00:00:00Z").unwrap(),
            "2026-01-01T00:00:00.000000+00:00"
        );
        assert_eq!(
            normalize_timestamp("2026-01-01").unwrap(),
            "2026-01-01T00:00:00.000000+00:00"
        );
    }

    #[test]
    fn offsets_convert_to_utc() {
        assert_eq!(
            normalize_timestamp("2026-01-01T02:30:00.5+02:00").unwrap(),
            "2026-01-01T00:30:00.500000+00:00"
        );
        assert_eq!(
            normalize_timestamp("2025-12-31 23:00:00-0100").unwrap(),
            "2026-01-01T00:00:00.000000+00:00"
        );
        assert_eq!(
            normalize_timestamp("2026-01-01T00:00:00.1234567+00:00").unwrap(),
            "2026-01-01T00:00:00.123456+00:00"
        );
    }

    #[test]
    fn basic_week_and_hour_only_forms_parse_as_python_reads_them() {
        for (input, expected) in [
            ("20260101T000000Z", "2026-01-01T00:00:00.000000+00:00"),
            ("20260102", "2026-01-02T00:00:00.000000+00:00"),
            ("2026-01-01T05", "2026-01-01T05:00:00.000000+00:00"),
            ("2026-01-01T0530+0100", "2026-01-01T04:30:00.000000+00:00"),
            ("2026-W01-1", "2025-12-29T00:00:00.000000+00:00"),
            ("2026W013", "2025-12-31T00:00:00.000000+00:00"),
            ("2026-W01", "2025-12-29T00:00:00.000000+00:00"),
            ("2026-01-01T00:00:00,5Z", "2026-01-01T00:00:00.500000+00:00"),
        ] {
            assert_eq!(normalize_timestamp(input).unwrap(), expected, "{input}");
        }
    }

    #[test]
    fn garbage_is_invalid_input() {
        for bad in [
            "",
            "yesterday",
            "2026-13-01",
            "2026-02-30",
            "2026-01-01T25:00",
            "2026-01-01T00:00:00+",
            "2026-01-01T00:00:00.",
            "2026-01-01Tx",
            "2026-01-01T00:00:00+24:00",
            "9999-12-31T23:30:00-01:00",
            "0001-01-01T00:30:00+01:00",
            "0000-06-01T00:00:00",
            "2026-W54-1",
            "2026-W01-8",
            "2026-01-01T00:0",
            "2026-01-01T0000:00",
            "202601",
            "2026-0101",
        ] {
            let err = normalize_timestamp(bad).unwrap_err();
            assert_eq!(err.kind(), crate::ErrorKind::InvalidInput, "{bad}");
        }
    }

    #[test]
    fn canonical_form_sorts_as_instants() {
        let a = normalize_timestamp("2026-01-01T01:00:00+02:00").unwrap();
        let b = normalize_timestamp("2026-01-01T00:00:00Z").unwrap();
        assert!(a < b, "{a} should sort before {b}");
    }

    #[test]
    fn the_canonical_form_is_zero_padded_to_microseconds() {
        for (text, want) in [
            (
                "0001-02-03T04:05:06.000007Z",
                "0001-02-03T04:05:06.000007+00:00",
            ),
            (
                "9999-12-31T23:59:59.999999+00:00",
                "9999-12-31T23:59:59.999999+00:00",
            ),
            (
                "2026-05-01 00:00:00.5-01:30",
                "2026-05-01T01:30:00.500000+00:00",
            ),
        ] {
            assert_eq!(normalize_timestamp(text).unwrap(), want);
        }
    }
}
