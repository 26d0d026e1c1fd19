//! `situate_prompt_block`: one situated moment as a fenced prompt block.
//!
//! Spec: api.md `situate_prompt_block(situation) -> str`. The block's shape
//! (one opening label carrying the anchor, dated record lines, one closing
//! label, a footer saying that reading is not re-living) is 0.3.2's; the
//! words are ours.

use super::read::{HistoricalHandle, Situation};
use serde::{Deserialize, Serialize};

/// The opening label's head.
pub const BLOCK_OPEN: &str = "[HISTORICAL CONTEXT: a reconstruction of my past, not the present";
/// The closing label.
pub const BLOCK_CLOSE: &str = "[END HISTORICAL CONTEXT]";

fn line(h: &HistoricalHandle) -> String {
    let date: String = h.observed_at.chars().take(10).collect();
    let date = if date.is_empty() {
        "undated".to_owned()
    } else {
        date
    };
    let head = format!("[{} {date}]", h.kind);
    let title = h.title.as_deref().map(str::trim).unwrap_or("");
    let body = if title.is_empty() {
        h.digest.clone()
    } else {
        format!("{title}: {}", h.digest)
    };
    format!("  {head} {body}").trim_end().to_owned()
}

/// Render one [`Situation`] as a labelled prompt block: nothing historical
/// renders outside its fence, every record line carries its date, and empty
/// sections are left out. Where the block lands in a prompt is the caller's.
pub fn situate_prompt_block(s: &Situation) -> String {
    let mut bits = vec![format!("as of journal seq {}", s.anchor_seq)];
    match (s.anchor_kind.as_str(), s.anchor.as_str()) {
        ("time", Some(at)) if !at.is_empty() => bits.push(format!("moment {at}")),
        _ => {
            if let Some(iso) = s.moment.observed_at.as_deref().filter(|t| !t.is_empty()) {
                bits.push(format!("around {iso}"));
            }
        }
    }
    if s.anchor_kind == "participant" {
        bits.push(format!(
            "{} encounter with {}",
            s.occurrence.as_deref().unwrap_or("first"),
            s.anchor.as_str().unwrap_or("")
        ));
    }
    let mut out = vec![format!("{BLOCK_OPEN}; {}]", bits.join(", "))];
    if let Some(cue) = s.moment.cue.as_deref().filter(|c| !c.is_empty()) {
        out.push(format!("What I was attending to then: {cue}"));
    }
    let mut section = |head: &str, items: &[HistoricalHandle]| {
        if !items.is_empty() {
            out.push(head.to_owned());
            out.extend(items.iter().map(line));
        }
    };
    section("What existed around that moment:", &s.period);
    section("What I chose to keep in my diary around then:", &s.elected);
    section(
        "Who I was then (my identity as it stood):",
        &s.then_identity,
    );
    if !s.identity_evolution.is_empty() {
        out.push("How I have changed since (my present self, for contrast):".to_owned());
        for e in &s.identity_evolution {
            out.push(format!("{} ({})", line(&e.handle), e.change));
        }
    }
    if !s.tensions_then.is_empty() {
        out.push("What was still open at that moment:".to_owned());
        out.extend(s.tensions_then.iter().map(line));
    }
    out.push(
        "I am reading my past with who I am now. Seeing these here does not bring them back \
         into my working memory; re-living one of them is a choice I make on purpose."
            .to_owned(),
    );
    out.push(BLOCK_CLOSE.to_owned());
    out.join("\n")
}

/// The argument of `situate_prompt_block(situation)`: one `situate` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SituatePromptBlock {
    /// The situated moment to render.
    pub situation: Situation,
}
