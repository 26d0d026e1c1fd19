//! The gradation fold: a valence stream folded into per-target dual-channel
//! standing, and the amplitude-authority rule appraisals pass before they are
//! written. Pure: no journal, no store, no clock.
//!
//! Spec: api.md "Valence and gradation" (`compute_gradation`,
//! `GradationConfig`, `GradationScore`); memory-system.md "Valence: how
//! experience felt"; algorithms.md §8 (the fold, step by step).

use crate::error::{Error, Result};
use am_journal::{ValenceEvent, ValenceKind};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::HashMap;

/// The largest magnitude a deterministic trigger may write
/// (`AMPLITUDE_TRIGGER_MAX`); above it the actor needs authority.
pub const AMPLITUDE_TRIGGER_MAX: f64 = 3.0;

/// How many reason strings a score keeps (newest first).
pub const MAX_CONTRIBUTIONS: usize = 5;

pub use crate::config::{GradationConfig, PRIVILEGED_ACTORS};

/// One target's standing on the valence axis. JSON: `{net, positive,
/// negative, positive_count, negative_count, scarred, bonded, contributions}`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub struct GradationScore {
    /// `clamp(G⁺ − G⁻, ±channel_clamp)`, then capped at 0 by an unhealed scar
    /// and floored at 0 by an unbroken bond (both: exactly 0).
    pub net: f64,
    /// G⁺, the positive channel.
    pub positive: f64,
    /// G⁻, the negative channel (a magnitude, ≥ 0).
    pub negative: f64,
    /// How many positive appraisals fed G⁺.
    pub positive_count: u64,
    /// How many negative appraisals fed G⁻.
    pub negative_count: u64,
    /// An unhealed scar stands.
    pub scarred: bool,
    /// An unbroken bond stands.
    pub bonded: bool,
    /// The last [`MAX_CONTRIBUTIONS`] reasons, newest first (`"+2 helped"`).
    pub contributions: Vec<String>,
}

impl GradationScore {
    /// The shape of a target with no events: zeros and no markers.
    pub fn neutral() -> Self {
        GradationScore::default()
    }
}

/// Amplitude authority: a magnitude above [`AMPLITUDE_TRIGGER_MAX`] needs a
/// privileged actor or `provenance.outcome_class == "catastrophic"`.
///
/// # Errors
/// `InvalidInput` naming the magnitude, the actors allowed and the actor given.
pub fn validate_amplitude_authority(
    magnitude: f64,
    actor: &str,
    provenance: Option<&am_triples::JsonMap>,
    config: &GradationConfig,
) -> Result<()> {
    if magnitude <= AMPLITUDE_TRIGGER_MAX || config.is_privileged(actor) {
        return Ok(());
    }
    let catastrophic = provenance
        .and_then(|p| p.get("outcome_class"))
        .is_some_and(|v| value_text(v).to_lowercase() == "catastrophic");
    if catastrophic {
        return Ok(());
    }
    Err(Error::invalid(format!(
        "amplitude authority: a magnitude above {} needs an actor in {:?} or provenance.outcome_class \
         \"catastrophic\"; got magnitude {} from actor {actor:?} (deterministic triggers write 1..3)",
        fmt_g(AMPLITUDE_TRIGGER_MAX),
        config.privileged_actors,
        fmt_g(magnitude)
    )))
}

/// A provenance value as trimmed text (strings as themselves, others as JSON).
pub(crate) fn value_text(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::String(s) => s.trim().to_owned(),
        other => other.to_string(),
    }
}

/// Python's `format(x, "g")`: six significant digits, trailing zeros cut,
/// exponent form outside `1e-4 <= |x| < 1e6`. The contribution strings
/// (`"+2.5 helped"`) are written in it.
pub fn fmt_g(x: f64) -> String {
    if x == 0.0 {
        return if x.is_sign_negative() { "-0" } else { "0" }.to_owned();
    }
    if !x.is_finite() {
        return if x.is_nan() {
            "nan".to_owned()
        } else if x > 0.0 {
            "inf".to_owned()
        } else {
            "-inf".to_owned()
        };
    }
    // The exponent after rounding to six significant digits.
    let sci = format!("{x:.5e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if (-4..6).contains(&exp) {
        let decimals = usize::try_from(5 - exp).unwrap_or(0);
        trim_zeros(&format!("{x:.decimals$}"))
    } else {
        let m = trim_zeros(mantissa);
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{m}e{sign}{:02}", exp.abs())
    }
}

fn trim_zeros(s: &str) -> String {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_owned()
    } else {
        s.to_owned()
    }
}

/// The scar ids some healing resolves and the bond ids some break dissolves,
/// across every target of the stream.
///
/// Each id maps to the earliest seq that resolves it, so one set answers any
/// anchor: at anchor `a` an id is resolved when that seq is at most `a`.
#[derive(Debug, Default, Clone)]
pub(crate) struct Resolutions {
    healed: HashMap<String, i64>,
    broken: HashMap<String, i64>,
}

/// The event id a `heals` / `breaks` value names: a non-blank string, or a
/// non-zero number as its text (0.3.2 reads the value through `str(v or "")`).
fn reference(v: &Value) -> Option<String> {
    match v {
        Value::String(s) if !s.trim().is_empty() => Some(s.trim().to_owned()),
        Value::Number(n) if n.as_f64() != Some(0.0) => Some(n.to_string()),
        _ => None,
    }
}

impl Resolutions {
    pub(crate) fn note(&mut self, e: &ValenceEvent) {
        let (key, set) = match e.kind {
            ValenceKind::Healing => ("heals", &mut self.healed),
            ValenceKind::Break => ("breaks", &mut self.broken),
            _ => return,
        };
        if let Some(r) = e.provenance.get(key).and_then(reference) {
            let at = set.entry(r).or_insert(e.seq);
            *at = (*at).min(e.seq);
        }
    }

    /// Take in `other`'s resolutions (the earliest seq of each id kept), so
    /// one set answers for several streams folded together.
    pub(crate) fn absorb(&mut self, other: &Resolutions) {
        for (mine, theirs) in [
            (&mut self.healed, &other.healed),
            (&mut self.broken, &other.broken),
        ] {
            for (id, seq) in theirs {
                let at = mine.entry(id.clone()).or_insert(*seq);
                *at = (*at).min(*seq);
            }
        }
    }

    fn healed(&self, id: &str, anchor: i64) -> bool {
        self.healed.get(id).is_some_and(|s| *s <= anchor)
    }

    fn broken(&self, id: &str, anchor: i64) -> bool {
        self.broken.get(id).is_some_and(|s| *s <= anchor)
    }
}

/// Fold the valence `events` into per-target standing (algorithms.md §8).
///
/// The events are those of one `(scope, owner)` stream up to an anchor, in
/// any order; each target's are walked chronologically (by seq). Healings and
/// breaks count across targets. No decay and no window of any kind.
///
/// # Errors
/// `InvalidInput` for an event without a journal-assigned seq (`seq < 0`) or
/// a config whose clamp or break magnitude is not positive.
pub fn compute_gradation(
    events: &[ValenceEvent],
    config: &GradationConfig,
) -> Result<HashMap<String, GradationScore>> {
    config.validate()?;
    let mut by_target: HashMap<&str, Vec<&ValenceEvent>> = HashMap::new();
    let mut resolutions = Resolutions::default();
    for e in events {
        if e.seq < 0 {
            return Err(Error::invalid(format!(
                "valence event {:?} has seq {}; gradation folds journal-assigned seqs only (append first, score after)",
                e.event_id, e.seq
            )));
        }
        by_target.entry(e.target_id.as_str()).or_default().push(e);
        resolutions.note(e);
    }
    Ok(
        grade_streams(by_target, &resolutions, i64::MAX, config, true)
            .map(|(target, score)| (target.to_owned(), score))
            .collect(),
    )
}

/// Each target's standing from its events (any order; each stream is walked
/// by seq, all at or before `anchor`) with the resolutions standing at
/// `anchor`: the step [`compute_gradation`] and the identity card share.
/// `contributions: false` leaves every score's `contributions` empty (a
/// reader that shows no reasons formats none).
pub(crate) fn grade_streams<'e>(
    streams: impl IntoIterator<Item = (&'e str, Vec<&'e ValenceEvent>)>,
    resolutions: &Resolutions,
    anchor: i64,
    config: &GradationConfig,
    contributions: bool,
) -> impl Iterator<Item = (&'e str, GradationScore)> {
    streams.into_iter().map(move |(target, mut stream)| {
        if !stream.is_sorted_by_key(|e| e.seq) {
            stream.sort_by_key(|e| e.seq);
        }
        let score = fold_target(&stream, resolutions, anchor, config, contributions);
        (target, score)
    })
}

/// One target's walk over its events (oldest first, all at or before
/// `anchor`), with the resolutions standing at `anchor`; the reasons of the
/// last [`MAX_CONTRIBUTIONS`] only when `contributions`.
pub(crate) fn fold_target(
    stream: &[&ValenceEvent],
    resolutions: &Resolutions,
    anchor: i64,
    config: &GradationConfig,
    contributions: bool,
) -> GradationScore {
    let clamp = config.channel_clamp;
    let latest_betrayal = stream
        .iter()
        .filter(|e| e.kind == ValenceKind::Scar && e.magnitude >= config.break_magnitude)
        .map(|e| e.seq)
        .max();
    let mut s = GradationScore::neutral();
    // The events that contribute a reason, in walk order; only the last
    // [`MAX_CONTRIBUTIONS`] are written out (a long stream formats five).
    let mut reasons: Vec<(&ValenceEvent, Option<f64>)> = Vec::new();
    for e in stream {
        match e.kind {
            ValenceKind::Scar => {
                if !resolutions.healed(&e.event_id, anchor) {
                    s.scarred = true;
                }
            }
            ValenceKind::Bond => {
                let betrayed = latest_betrayal.is_some_and(|b| b > e.seq);
                if !resolutions.broken(&e.event_id, anchor) && !betrayed {
                    s.bonded = true;
                }
            }
            ValenceKind::Revalued => {
                if let Some(f) = factor(e)
                    && (0.0..=1.0).contains(&f)
                {
                    s.positive *= f;
                    s.negative *= f;
                    if contributions {
                        reasons.push((e, Some(f)));
                    }
                }
            }
            ValenceKind::Healing | ValenceKind::Break => {}
            _ => {
                let m = e.magnitude;
                if e.sign > 0 {
                    s.positive = (s.positive + m).min(clamp);
                    s.positive_count += 1;
                } else {
                    s.negative = (s.negative + m).min(clamp);
                    s.negative_count += 1;
                }
                if contributions {
                    reasons.push((e, None));
                }
            }
        }
    }
    let mut net = (s.positive - s.negative).clamp(-clamp, clamp);
    if s.scarred {
        net = net.min(0.0);
    }
    if s.bonded {
        net = net.max(0.0);
    }
    s.net = net;
    s.contributions = reasons
        .iter()
        .rev()
        .take(MAX_CONTRIBUTIONS)
        .map(|(e, revalued)| {
            let reason = e.reason.as_deref().unwrap_or("");
            match revalued {
                Some(f) => format!("revalued x{} {reason}", fmt_g(*f)),
                None => {
                    let sign = if e.sign > 0 { '+' } else { '-' };
                    format!("{sign}{} {reason}", fmt_g(e.magnitude))
                }
            }
        })
        .collect();
    s
}

/// A revalued event's factor, when it reads as a number.
fn factor(e: &ValenceEvent) -> Option<f64> {
    match e.provenance.get("factor")? {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse().ok(),
        Value::Bool(b) => Some(f64::from(u8::from(*b))),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fmt_g_writes_python_general_format() {
        for (x, want) in [
            (1.0, "1"),
            (2.5, "2.5"),
            (10.0, "10"),
            (10.0 / 3.0, "3.33333"),
            (0.5, "0.5"),
            (0.00001, "1e-05"),
            (0.0, "0"),
            (1234567.0, "1.23457e+06"),
            (0.0001, "0.0001"),
        ] {
            assert_eq!(fmt_g(x), want, "{x}");
        }
    }
}
