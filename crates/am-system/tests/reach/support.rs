//! The garden home the reach tests share: records of four kinds with
//! keywords, participants and edges, in `life` and `notes`.

use crate::common::Stack;
use am_system::reach::{Probe, ProbeResult};
use am_system::{MemoryRecordInput as R, RecordKind, RememberMany, Stimulus, ids};

pub(crate) const OWNER: &str = "entity:castor";
pub(crate) const LIFE: &[(&str, &str)] = &[("life", OWNER)];
pub(crate) const BOTH: &[(&str, &str)] = &[("life", OWNER), ("notes", OWNER)];

/// The digest row ids of the garden, by name.
pub(crate) struct Garden {
    pub compost: String,
    pub heap: String,
    pub rent: String,
    pub beds: String,
    pub fork: String,
    pub machine: String,
}

/// Form the garden (keys `g1` in life, `g2` in notes).
pub(crate) fn garden(s: &Stack) -> Garden {
    let life = vec![
        R::new(
            RecordKind::Episode,
            "Compost turning",
            "Ada turned the compost heap on plot 14 with a garden fork.",
        )
        .with_participants(&["person:ada"])
        .with_keywords(&["compost", "allotment"]),
        R::new(
            RecordKind::Lesson,
            "Heap temperature",
            "A compost heap needs turning when it cools below fifty degrees.",
        )
        .with_keywords(&["compost", "thermophilic"])
        .with_edge("derived_from", "local:0"),
        R::new(
            RecordKind::Episode,
            "Seed library",
            "Bo catalogued thermophilic bacteria notes in the seed library.",
        )
        .with_participants(&["person:bo"])
        .with_keywords(&["thermophilic"]),
        R::new(
            RecordKind::Claim,
            "Plot rent",
            "Plot rent is due every March at the allotment office.",
        )
        .with_keywords(&["allotment"])
        .with_edge("mentions", "local:0"),
        R::new(
            RecordKind::Episode,
            "Raised beds",
            "Bo built raised beds from reclaimed wood for plot 14.",
        )
        .with_participants(&["person:bo"])
        .with_keywords(&["allotment"]),
        R::new(
            RecordKind::Decision,
            "Share the fork",
            "We agreed to share the garden fork with Bo on weekends.",
        )
        .with_participants(&["person:bo", "person:ada"])
        .with_edge("informed_by", "local:0"),
        R::new(
            RecordKind::Memory,
            "Fork maintenance",
            "maintenance candidate: oil the garden fork handle",
        )
        .with_attribute("maintenance_candidate", true),
    ];
    s.system
        .remember_many(&RememberMany::new(life, "life", OWNER, "g1"))
        .unwrap();
    let notes = vec![
        R::new(
            RecordKind::Lesson,
            "Thermophilic phase",
            "The thermophilic phase of compost kills weed seeds.",
        )
        .with_keywords(&["thermophilic", "compost"]),
    ];
    s.system
        .remember_many(&RememberMany::new(notes, "notes", OWNER, "g2"))
        .unwrap();
    let id = |k: &str, i: usize| ids::digest_assertion_id(k, i);
    Garden {
        compost: id("g1", 0),
        heap: id("g1", 1),
        rent: id("g1", 3),
        beds: id("g1", 4),
        fork: id("g1", 5),
        machine: id("g1", 6),
    }
}

/// A probe of `cue` over `scopes` that writes nothing.
pub(crate) fn look(s: &Stack, cue: &str, scopes: &[(&str, &str)]) -> ProbeResult {
    s.system
        .probe(&Probe {
            write_journal: false,
            ..Probe::new(Stimulus::new(cue), scopes, "a test looks")
        })
        .unwrap()
}

/// The hits' row ids.
pub(crate) fn hit_ids(r: &ProbeResult) -> Vec<&str> {
    r.hits.iter().map(|h| h.record_id.as_str()).collect()
}
