//! `am topics`: an entity's topics, the `community` records its sleeps
//! formed (api.md "Communities (topics)"): each with its size, its title
//! (or "pending" while it is being written), its hub (the member used
//! most) and what changed since the last sleep, largest first. Text, or
//! the `communities` payload with `--json`. A pure read.

use crate::ctx::{Ctx, open_for_observing};
use crate::error::{CliError, CliResult};
use crate::text::escape;
use am_system::communities::{Communities, CommunitiesPayload};
use std::fmt::Write as _;
use std::path::PathBuf;

/// The topics of an entity's memory, largest first: size, title or
/// "pending", hub, changes since the last sleep. Read-only.
#[derive(Debug, clap::Args)]
pub struct TopicsCmd {
    /// The SQLite home (must exist).
    home: PathBuf,
    /// The entity whose topics these are.
    #[arg(long)]
    owner: String,
    /// The topics' scope.
    #[arg(long, default_value = "life")]
    scope: String,
}

impl TopicsCmd {
    /// Read the topics and print them.
    ///
    /// # Errors
    /// Bad input for an unusable home or a blank owner; the engine's
    /// failure.
    pub fn run(self, ctx: &Ctx) -> CliResult<u8> {
        ctx.embedder_spec("none")?;
        let owner = self.owner.trim();
        if owner.is_empty() {
            return Err(CliError::invalid("--owner must name the entity"));
        }
        let engine = open_for_observing(&self.home)?;
        let scope = self.scope.trim().to_lowercase();
        let p = engine
            .system
            .communities(&Communities::new(&[(scope.as_str(), owner)], owner))?;
        let v = serde_json::to_value(&p).map_err(|e| CliError::failure(e.to_string()))?;
        ctx.emit(&v, &render(&p, &scope, owner))?;
        Ok(0)
    }
}

fn render(p: &CommunitiesPayload, scope: &str, owner: &str) -> String {
    let mut t = String::new();
    if p.first_sleep_pending {
        let _ = writeln!(
            t,
            "No topics yet for {}:{}: they form at the first sleep (am sleep).",
            escape(scope),
            escape(owner)
        );
        return t;
    }
    let _ = writeln!(
        t,
        "{} topic(s) of {}:{} (version {}):",
        p.communities.len(),
        escape(scope),
        escape(owner),
        p.version_seq.map_or("?".to_owned(), |v| v.to_string())
    );
    for c in &p.communities {
        let title = match &c.title {
            Some(x) => escape(x),
            None => "pending".to_owned(),
        };
        let ch = &c.facts.changed_since_last_sleep;
        let _ = writeln!(
            t,
            "- {} [{}] {} member(s), hub {}; since the last sleep +{} -{}{}{}",
            title,
            c.key,
            c.size,
            c.facts.hub.as_deref().map_or("none".to_owned(), escape),
            ch.added,
            ch.moved,
            ch.split_from
                .as_deref()
                .map_or(String::new(), |k| format!(", split from {}", escape(k))),
            if c.provisional_ids.is_empty() {
                String::new()
            } else {
                format!(", {} placed since", c.provisional_ids.len())
            }
        );
    }
    t
}

#[cfg(test)]
mod tests {
    use super::render;
    use am_system::communities::CommunitiesPayload;

    fn payload(split_from: Option<&str>) -> CommunitiesPayload {
        serde_json::from_value(serde_json::json!({
            "version": 2, "version_seq": 40, "first_sleep_pending": false,
            "algorithm": "louvain", "links": [],
            "communities": [{
                "id": "ex:c1", "key": "topic-b", "title": null, "summary": null,
                "pending": ["title", "summary"], "verdict": "new", "size": 3,
                "kinds": {"episode": 3}, "members": [], "provisional_ids": [],
                "cohesion": 0.5, "layout": {}, "centroid_stale": false,
                "facts": {
                    "span": {"first": null, "last": null}, "activity": 0,
                    "hub": null, "bridges": [], "paths": [],
                    "changed_since_last_sleep": {"added": 3, "moved": 0, "split_from": split_from}
                }
            }]
        }))
        .unwrap()
    }

    #[test]
    fn a_topic_split_tonight_names_the_topic_it_split_from_in_the_text_line() {
        let text = render(&payload(Some("topic-a")), "life", "e1");
        assert!(
            text.contains("- pending [topic-b] 3 member(s), hub none; since the last sleep +3 -0, split from topic-a\n"),
            "{text}"
        );
        let plain = render(&payload(None), "life", "e1");
        assert!(!plain.contains("split from"), "{plain}");
    }
}
