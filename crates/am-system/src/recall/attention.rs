//! The activation fold: the decayed, burst-ranked trail over one (scope, owner)
//! event stream read through the bounded window `AttentionConfig::window_limit`.
//! Pure functions over journal events, plus the bounded window read.
//!
//! Spec: memory-system.md "The two access counts"; algorithms.md §5 (window,
//! burst rank axis, contribution, per-step clamp, reasons, trail fold, merge
//! across scope pairs by max).

use crate::config::AttentionConfig;
use crate::error::{Error, Result};
use am_journal::{
    ATTENTION_KINDS, DECAY_MARKER_KINDS, EventFilter, EventKind, MemoryEvent, MemoryJournal,
};
use std::collections::HashMap;

/// At most this many reason strings per record, newest first.
pub const MAX_CONTRIBUTION_REASONS: usize = 6;

/// The kinds the scoring window reads: attention kinds plus the refocus marker.
/// Audit kinds are excluded before truncation, so reads never displace use.
pub fn scoring_kinds() -> Vec<String> {
    let mut k: Vec<String> = ATTENTION_KINDS
        .iter()
        .chain(DECAY_MARKER_KINDS.iter())
        .map(|s| (*s).to_owned())
        .collect();
    k.sort();
    k
}

/// One stream's scoring window: newest first, `seq <= until_seq`, scoring kinds
/// only, at most `config.window_limit` events. A bounded index read.
///
/// # Errors
/// The journal's error (an invalid anchor, a blank scope), its kind kept.
pub fn scoring_window(
    journal: &dyn MemoryJournal,
    scope: &str,
    owner_id: &str,
    until_seq: i64,
    config: &AttentionConfig,
) -> Result<Vec<MemoryEvent>> {
    let mut filter = EventFilter::new(scope, owner_id);
    filter.kinds = scoring_kinds();
    filter.until_seq = Some(until_seq);
    filter.limit = config.window_limit.max(1);
    journal.events(&filter)
}

/// Derived (never stored) activation of one record.
#[derive(Debug, Clone, PartialEq)]
pub struct ActivationScore {
    /// Clamped to `[0, max_activation]`.
    pub base_level: f64,
    /// `"{kind} {contribution:+.1f}"` strings, newest first, at most six.
    pub contributions: Vec<String>,
}

/// The window rule: scoring kinds with `seq <= at_seq`, newest first, truncated
/// to `window_limit`; plus the seq of the latest in-window refocus.
fn attention_window<'a>(
    events: &'a [MemoryEvent],
    config: &AttentionConfig,
    at_seq: Option<i64>,
) -> Result<(Vec<&'a MemoryEvent>, Option<i64>)> {
    let mut considered: Vec<&MemoryEvent> = events
        .iter()
        .filter(|e| {
            (e.kind.feeds_attention() || e.kind.is_decay_marker())
                && at_seq.is_none_or(|s| e.seq <= s)
        })
        .collect();
    if let Some(e) = considered.iter().find(|e| e.seq < 0) {
        return Err(Error::invalid(format!(
            "the activation fold received an event with a journal-unassigned seq ({:?}, seq={}); \
             append events to a journal before scoring them",
            e.kind.as_str(),
            e.seq
        )));
    }
    considered.sort_by_key(|e| std::cmp::Reverse(e.seq));
    considered.truncate(config.window_limit);
    let latest_refocus = considered
        .iter()
        .find(|e| e.kind.is_decay_marker())
        .map(|e| e.seq);
    Ok((considered, latest_refocus))
}

/// The burst rank axis: consecutive events of one trace share a rank; an event
/// without a trace always advances it.
pub fn burst_ranks(window: &[&MemoryEvent]) -> Vec<usize> {
    let mut ranks = Vec::with_capacity(window.len());
    let mut rank: Option<usize> = None;
    let mut prev: Option<&str> = None;
    for e in window {
        let trace = e.trace_id.as_deref().filter(|t| !t.is_empty());
        let advance = match (trace, prev) {
            (None, _) => true,
            (Some(t), Some(p)) => t != p,
            (Some(_), None) => true,
        };
        if advance {
            rank = Some(rank.map_or(0, |r| r + 1));
        }
        prev = trace;
        ranks.push(rank.unwrap_or(0));
    }
    ranks
}

/// One event's signed contribution at burst rank `rank`:
/// `sign · weight / (1 + d / decay_window)`, `d = rank` (× `refocus_multiplier`
/// once for events older than the latest refocus); a pin or silence past its
/// `ttl_activity` (raw rank) contributes 0; `silenced` is negative.
pub fn contribution(
    event: &MemoryEvent,
    rank: usize,
    latest_refocus: Option<i64>,
    config: &AttentionConfig,
) -> f64 {
    if matches!(event.kind, EventKind::Pinned | EventKind::Silenced)
        && let Some(ttl) = event.ttl_activity
        && rank as i64 > ttl
    {
        return 0.0;
    }
    let mut distance = rank as f64;
    if let Some(r) = latest_refocus
        && event.seq < r
    {
        distance *= config.refocus_multiplier;
    }
    let sign = if event.kind == EventKind::Silenced {
        -1.0
    } else {
        1.0
    };
    sign * event.weight / (1.0 + distance / config.decay_window)
}

/// Python's `f"{x:+.1f}"`: sign always shown, one decimal, half-even on the
/// binary value (Rust's `{:+.1}` rounds the same exact binary value).
fn signed_one_decimal(x: f64) -> String {
    format!("{x:+.1}")
}

/// Per-record base-level activation over one stream (per-step clamp to
/// `[0, max_activation]`, newest to oldest; `co_selected` credits no record;
/// refocus holds a rank slot). Records in first-touched order.
///
/// # Errors
/// `InvalidInput` for an event without a journal-assigned seq.
pub fn compute_activation(
    events: &[MemoryEvent],
    config: &AttentionConfig,
    at_seq: Option<i64>,
) -> Result<Vec<(String, ActivationScore)>> {
    let (window, latest_refocus) = attention_window(events, config, at_seq)?;
    let ranks = burst_ranks(&window);
    let mut order: Vec<String> = Vec::new();
    let mut scores: HashMap<String, ActivationScore> = HashMap::new();
    for (e, rank) in window.iter().zip(ranks) {
        if !e.kind.feeds_attention() {
            continue;
        }
        let Some(rid) = e.record_id.as_deref() else {
            continue;
        };
        let c = contribution(e, rank, latest_refocus, config);
        let entry = scores.entry(rid.to_owned()).or_insert_with(|| {
            order.push(rid.to_owned());
            ActivationScore {
                base_level: 0.0,
                contributions: Vec::new(),
            }
        });
        entry.base_level = (entry.base_level + c).max(0.0).min(config.max_activation);
        if c != 0.0
            && c.abs() >= config.reason_threshold
            && entry.contributions.len() < MAX_CONTRIBUTION_REASONS
        {
            entry
                .contributions
                .push(format!("{} {}", e.kind, signed_one_decimal(c)));
        }
    }
    Ok(order
        .into_iter()
        .map(|rid| {
            let s = scores.remove(&rid).unwrap_or(ActivationScore {
                base_level: 0.0,
                contributions: Vec::new(),
            });
            (rid, s)
        })
        .collect())
}

/// Pair-trail activation over `co_selected` events: same window, rank axis and
/// clamp, keyed by the sorted pair.
///
/// # Errors
/// `InvalidInput` for an event without a journal-assigned seq.
pub fn compute_trail_activation(
    events: &[MemoryEvent],
    config: &AttentionConfig,
    at_seq: Option<i64>,
) -> Result<Vec<((String, String), f64)>> {
    let (window, latest_refocus) = attention_window(events, config, at_seq)?;
    let ranks = burst_ranks(&window);
    let mut order: Vec<(String, String)> = Vec::new();
    let mut totals: HashMap<(String, String), f64> = HashMap::new();
    for (e, rank) in window.iter().zip(ranks) {
        if e.kind != EventKind::CoSelected {
            continue;
        }
        let Some(pair) = e.pair_ids.clone() else {
            continue;
        };
        let c = contribution(e, rank, latest_refocus, config);
        let t = totals.entry(pair.clone()).or_insert_with(|| {
            order.push(pair);
            0.0
        });
        *t = (*t + c).max(0.0).min(config.max_activation);
    }
    Ok(order
        .into_iter()
        .map(|p| {
            let v = totals[&p];
            (p, v)
        })
        .collect())
}

/// Activation inputs over a scope ladder: every (scope, owner) stream folded
/// independently, merged by max (a later pair wins only when strictly greater,
/// so ties keep the narrower pair). Returns base levels with their reasons, and
/// pair trails.
///
/// # Errors
/// The journal's error for an invalid anchor or scope.
#[allow(clippy::type_complexity)] // Two plain maps; a named struct would add nothing.
pub fn activation_inputs(
    journal: &dyn MemoryJournal,
    scope_pairs: &[(String, String)],
    as_of: i64,
    config: &AttentionConfig,
) -> Result<(
    HashMap<String, ActivationScore>,
    HashMap<(String, String), f64>,
)> {
    let mut base: HashMap<String, ActivationScore> = HashMap::new();
    let mut trails: HashMap<(String, String), f64> = HashMap::new();
    for (scope, owner) in scope_pairs {
        let events = scoring_window(journal, scope, owner, as_of, config)?;
        if events.is_empty() {
            continue;
        }
        for (rid, score) in compute_activation(&events, config, Some(as_of))? {
            if base
                .get(&rid)
                .is_none_or(|cur| score.base_level > cur.base_level)
            {
                base.insert(rid, score);
            }
        }
        for (pair, v) in compute_trail_activation(&events, config, Some(as_of))? {
            if trails.get(&pair).is_none_or(|cur| v > *cur) {
                trails.insert(pair, v);
            }
        }
    }
    Ok((base, trails))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(kind: EventKind, rid: &str, seq: i64, trace: Option<&str>) -> MemoryEvent {
        MemoryEvent {
            kind,
            scope: "s".into(),
            record_id: Some(rid.into()),
            weight: 8.0,
            trace_id: trace.map(str::to_owned),
            seq,
            reason: Some("r".into()),
            ..MemoryEvent::default()
        }
    }

    #[test]
    fn three_selected_events_at_consecutive_ranks_give_the_pinned_numbers() {
        let events = vec![
            ev(EventKind::Selected, "a", 3, None),
            ev(EventKind::Selected, "a", 2, None),
            ev(EventKind::Selected, "a", 1, None),
        ];
        let c = AttentionConfig::default();
        let got = compute_activation(&events, &c, None).unwrap();
        let expected: f64 = 8.0 + 8.0 * 20.0 / 21.0 + 8.0 * 20.0 / 22.0;
        assert!((got[0].1.base_level - expected.min(25.0)).abs() < 1e-12);
        assert_eq!(
            got[0].1.contributions,
            ["selected +8.0", "selected +7.6", "selected +7.3"]
        );
    }

    #[test]
    fn one_trace_is_one_burst_and_untraced_events_never_share_a_rank() {
        let events = [
            ev(EventKind::Selected, "a", 4, Some("t2")),
            ev(EventKind::Selected, "b", 3, Some("t2")),
            ev(EventKind::Selected, "c", 2, None),
            ev(EventKind::Selected, "d", 1, None),
        ];
        let refs: Vec<&MemoryEvent> = events.iter().collect();
        assert_eq!(burst_ranks(&refs), [0, 0, 1, 2]);
    }

    #[test]
    fn silence_on_a_record_at_zero_has_no_effect_and_refocus_stretches_older_events() {
        let c = AttentionConfig::default();
        let events = vec![
            ev(EventKind::Selected, "a", 2, None),
            ev(EventKind::Silenced, "a", 1, None),
        ];
        // Newest first: +8 then -8·20/21 -> clamp keeps it positive.
        let got = compute_activation(&events, &c, None).unwrap();
        assert!((got[0].1.base_level - (8.0 - 8.0 * 20.0 / 21.0)).abs() < 1e-12);
        let events = vec![
            ev(EventKind::Silenced, "a", 2, None),
            ev(EventKind::Selected, "a", 1, None),
        ];
        let got = compute_activation(&events, &c, None).unwrap();
        assert!((got[0].1.base_level - 8.0 * 20.0 / 21.0).abs() < 1e-12);
        let mut refocus = ev(EventKind::Refocus, "x", 2, None);
        refocus.record_id = None;
        let events = vec![refocus, ev(EventKind::Selected, "a", 1, None)];
        let got = compute_activation(&events, &c, None).unwrap();
        assert!((got[0].1.base_level - 8.0 / (1.0 + 6.0 / 20.0)).abs() < 1e-12);
    }

    #[test]
    fn the_window_holds_window_limit_scoring_events() {
        let c = AttentionConfig {
            window_limit: 2,
            ..AttentionConfig::default()
        };
        let events = vec![
            ev(EventKind::Selected, "a", 3, None),
            ev(EventKind::Selected, "b", 2, None),
            ev(EventKind::Selected, "c", 1, None),
        ];
        let got = compute_activation(&events, &c, None).unwrap();
        assert_eq!(
            got.iter().map(|(r, _)| r.as_str()).collect::<Vec<_>>(),
            ["a", "b"]
        );
        let unassigned = vec![ev(EventKind::Selected, "a", -1, None)];
        assert!(compute_activation(&unassigned, &c, None).is_err());
    }

    #[test]
    fn ttl_compares_the_raw_burst_rank() {
        let c = AttentionConfig::default();
        let mut pin = ev(EventKind::Pinned, "a", 1, None);
        pin.ttl_activity = Some(1);
        let events = vec![
            ev(EventKind::Selected, "b", 3, None),
            ev(EventKind::Selected, "b", 2, None),
            pin,
        ];
        let got = compute_activation(&events, &c, None).unwrap();
        assert!(got.iter().find(|(r, _)| r == "a").unwrap().1.base_level == 0.0);
    }
}
