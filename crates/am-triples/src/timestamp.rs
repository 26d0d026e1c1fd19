//! The one timestamp parser and the canonical UTC text form.
//!
//! Every timestamp a write carries is parsed (RFC 3339 / ISO 8601; a naive value is
//! UTC; `Z` accepted) and rendered as `YYYY-MM-DDTHH:MM:SS.ffffff+00:00`, so string
//! order equals instant order ("Our rules", spec README). Anything else is
//! [`Error::InvalidInput`].

use crate::error::{Error, Result};
use time::{Date, Month, OffsetDateTime, PrimitiveDateTime, Time, UtcOffset};

/// Now, as the canonical UTC text form (microsecond precision).
pub fn now_utc() -> String {
    format_utc(OffsetDateTime::now_utc())
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
/// [`Error::InvalidInput`] naming the value when it is not a timestamp.
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
/// [`Error::InvalidInput`] when `value` is not a timestamp.
pub fn normalize_timestamp(value: &str) -> Result<String> {
    parse_timestamp(value).map(format_utc)
}

/// Normalize an optional timestamp; an empty or blank string is `None`.
///
/// # Errors
/// [`Error::InvalidInput`] when a non-empty value is not a timestamp.
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

fn parse_inner(s: &str) -> Option<OffsetDateTime> {
    let b = s.as_bytes();
    let year = digits(b, 4)?;
    if b.get(4) != Some(&b'-') || b.get(7) != Some(&b'-') {
        return None;
    }
    let month = digits(&b[5..], 2)?;
    let day = digits(&b[8..], 2)?;
    let date = Date::from_calendar_date(
        i32::try_from(year).ok()?,
        Month::try_from(u8::try_from(month).ok()?).ok()?,
        u8::try_from(day).ok()?,
    )
    .ok()?;
    let mut rest = &b[10..];
    let mut time = Time::MIDNIGHT;
    if let Some(&sep) = rest.first() {
        if sep != b'T' && sep != b't' && sep != b' ' {
            return None;
        }
        rest = &rest[1..];
        let hour = digits(rest, 2)?;
        if rest.get(2) != Some(&b':') {
            return None;
        }
        let minute = digits(&rest[3..], 2)?;
        rest = &rest[5..];
        let mut second = 0;
        let mut micro = 0;
        if rest.first() == Some(&b':') {
            second = digits(&rest[1..], 2)?;
            rest = &rest[3..];
            if matches!(rest.first(), Some(b'.') | Some(b',')) {
                let frac: Vec<u8> = rest[1..]
                    .iter()
                    .take_while(|c| c.is_ascii_digit())
                    .copied()
                    .collect();
                if frac.is_empty() {
                    return None;
                }
                let mut padded = frac.clone();
                padded.resize(6, b'0');
                micro = digits(&padded[..6], 6)?;
                rest = &rest[1 + frac.len()..];
            }
        }
        time = Time::from_hms_micro(
            u8::try_from(hour).ok()?,
            u8::try_from(minute).ok()?,
            u8::try_from(second).ok()?,
            micro,
        )
        .ok()?;
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
