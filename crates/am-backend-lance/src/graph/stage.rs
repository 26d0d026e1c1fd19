//! One revision's staged writes (the LanceDB connector's transaction buffer) and
//! their JSON form in the log row (`stage_json`), from which a half-projected
//! revision is re-derived.
//!
//! Spec: api.md "Connectors" (the LanceDB connector: "a staged transaction
//! whose reads overlay its writes, a log-first commit, `repair_projections()`
//! re-deriving a half-projected revision from the log").

use crate::store::Prepared;
use am_graph::backend::{DerivationRow, HistoryRow, ProvenanceRow, RevisionRow};
use am_triples::{Error, JsonMap, Result, TripleAssertion};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A change to a row committed before this revision: its new `valid_until`
/// and/or its new provenance (adoption).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Update {
    /// The row.
    pub assertion_id: String,
    /// The row's new end, when the revision moved it.
    pub valid_until: Option<String>,
    /// The row's new provenance, when the revision adopted it.
    pub provenance: Option<JsonMap>,
}

/// Everything one revision writes, buffered until commit.
#[derive(Debug, Clone, Default)]
pub struct Stage {
    /// New triple rows (canonical, with ids), their canonical texts and
    /// vectors; a window or provenance change to a row of this revision is
    /// folded into the row itself.
    pub rows: Vec<TripleAssertion>,
    /// `canonical_text` of each new row.
    pub texts: Vec<String>,
    /// The vector of each new row.
    pub vectors: Vec<Option<Vec<f32>>>,
    /// The zero-vector `#FALLBACK` warning of the prepared batch.
    pub zero_warning: Option<String>,
    /// Changes to rows committed before, one per row, in first-change order.
    pub updates: Vec<Update>,
    /// History rows (their `seq` allocated).
    pub history: Vec<HistoryRow>,
    /// Provenance rows with their record positions.
    pub sources: Vec<(i64, ProvenanceRow)>,
    /// Derivation rows with their record positions.
    pub derivations: Vec<(i64, DerivationRow)>,
    /// The revision's log row (its `seq` allocated), once inserted.
    pub revision: Option<RevisionRow>,
}

#[derive(Serialize, Deserialize)]
struct RowJson {
    assertion: Value,
    text: String,
    vector: Option<Vec<f32>>,
}

#[derive(Serialize, Deserialize)]
struct HistoryJson {
    seq: i64,
    memory_id: String,
    event: String,
    at: String,
    detail: Value,
}

#[derive(Serialize, Deserialize)]
struct SourceJson {
    ord: i64,
    memory_id: String,
    ref_key: String,
    ref_kind: String,
    run_id: Option<String>,
    ref_json: Value,
    via: String,
    owner_id: String,
}

#[derive(Serialize, Deserialize)]
struct DerivationJson {
    ord: i64,
    memory_id: String,
    from_id: String,
}

#[derive(Serialize, Deserialize)]
struct StageJson {
    rows: Vec<RowJson>,
    zero_warning: Option<String>,
    updates: Vec<Update>,
    history: Vec<HistoryJson>,
    sources: Vec<SourceJson>,
    derivations: Vec<DerivationJson>,
}

impl Stage {
    /// Whether the stage holds no write at all.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
            && self.updates.is_empty()
            && self.history.is_empty()
            && self.sources.is_empty()
            && self.derivations.is_empty()
            && self.revision.is_none()
    }

    /// The staged row `id`, if this revision inserts it.
    pub fn row_mut(&mut self, id: &str) -> Option<&mut TripleAssertion> {
        self.rows
            .iter_mut()
            .find(|a| a.assertion_id.as_deref() == Some(id))
    }

    /// The staged change to a committed row `id` (created empty when absent).
    pub fn update_mut(&mut self, id: &str) -> &mut Update {
        let i = match self.updates.iter().position(|u| u.assertion_id == id) {
            Some(i) => i,
            None => {
                self.updates.push(Update {
                    assertion_id: id.to_owned(),
                    ..Update::default()
                });
                self.updates.len() - 1
            }
        };
        &mut self.updates[i]
    }

    /// A committed row as this revision sees it (its staged changes applied).
    pub fn overlay(&self, mut a: TripleAssertion) -> TripleAssertion {
        if let Some(id) = a.assertion_id.as_deref()
            && let Some(u) = self.updates.iter().find(|u| u.assertion_id == id)
        {
            if let Some(v) = &u.valid_until {
                a.valid_until = Some(v.clone());
            }
            if let Some(p) = &u.provenance {
                a.provenance.clone_from(p);
            }
        }
        a
    }

    /// The new rows as the store writes them.
    pub(crate) fn prepared(&self) -> Prepared {
        Prepared {
            rows: self.rows.clone(),
            texts: self.texts.clone(),
            vectors: self.vectors.clone(),
            dimension: self.vectors.iter().flatten().map(Vec::len).next(),
            zero_warning: self.zero_warning.clone(),
        }
    }

    /// The stage as the log row carries it (`stage_json`): every write but the
    /// revision row itself, which is the log row.
    pub fn to_json(&self) -> String {
        let j = StageJson {
            rows: self
                .rows
                .iter()
                .zip(&self.texts)
                .zip(&self.vectors)
                .map(|((a, t), v)| RowJson {
                    assertion: a.to_dict(),
                    text: t.clone(),
                    vector: v.clone(),
                })
                .collect(),
            zero_warning: self.zero_warning.clone(),
            updates: self.updates.clone(),
            history: self
                .history
                .iter()
                .map(|h| HistoryJson {
                    seq: h.seq,
                    memory_id: h.memory_id.clone(),
                    event: h.event.clone(),
                    at: h.at.clone(),
                    detail: h.detail.clone(),
                })
                .collect(),
            sources: self
                .sources
                .iter()
                .map(|(ord, s)| SourceJson {
                    ord: *ord,
                    memory_id: s.memory_id.clone(),
                    ref_key: s.ref_key.clone(),
                    ref_kind: s.ref_kind.clone(),
                    run_id: s.run_id.clone(),
                    ref_json: s.ref_json.clone(),
                    via: s.via.clone(),
                    owner_id: s.owner_id.clone(),
                })
                .collect(),
            derivations: self
                .derivations
                .iter()
                .map(|(ord, d)| DerivationJson {
                    ord: *ord,
                    memory_id: d.memory_id.clone(),
                    from_id: d.from_id.clone(),
                })
                .collect(),
        };
        serde_json::to_string(&j).unwrap_or_else(|_| "{}".to_owned())
    }

    /// The stage a log row carries, for the revision `revision`.
    ///
    /// # Errors
    /// `Storage` when `text` is not a stage this connector wrote.
    pub fn from_json(text: &str, revision: &RevisionRow) -> Result<Stage> {
        let j: StageJson = serde_json::from_str(text).map_err(|e| {
            Error::storage(format!(
                "the log row of revision {:?} carries no readable stage_json: {e}",
                revision.revision_id
            ))
            .with_source(e)
        })?;
        let rid = &revision.revision_id;
        let mut rows = Vec::with_capacity(j.rows.len());
        let mut texts = Vec::with_capacity(j.rows.len());
        let mut vectors = Vec::with_capacity(j.rows.len());
        for r in j.rows {
            rows.push(TripleAssertion::from_dict(&r.assertion).map_err(|e| {
                Error::storage(format!("a staged row of revision {rid:?}: {e}")).with_source(e)
            })?);
            texts.push(r.text);
            vectors.push(r.vector);
        }
        Ok(Stage {
            rows,
            texts,
            vectors,
            zero_warning: j.zero_warning,
            updates: j.updates,
            history: j
                .history
                .into_iter()
                .map(|h| HistoryRow {
                    seq: h.seq,
                    memory_id: h.memory_id,
                    event: h.event,
                    at: h.at,
                    revision_id: rid.clone(),
                    detail: h.detail,
                })
                .collect(),
            sources: j
                .sources
                .into_iter()
                .map(|s| {
                    (
                        s.ord,
                        ProvenanceRow {
                            memory_id: s.memory_id,
                            ref_key: s.ref_key,
                            ref_kind: s.ref_kind,
                            run_id: s.run_id,
                            revision_id: rid.clone(),
                            ref_json: s.ref_json,
                            via: s.via,
                            owner_id: s.owner_id,
                        },
                    )
                })
                .collect(),
            derivations: j
                .derivations
                .into_iter()
                .map(|d| {
                    (
                        d.ord,
                        DerivationRow {
                            memory_id: d.memory_id,
                            from_id: d.from_id,
                            revision_id: rid.clone(),
                        },
                    )
                })
                .collect(),
            revision: Some(revision.clone()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A committed-looking revision row for the log tests.
    fn revision(seq: i64, revision_id: &str, scope: &str) -> RevisionRow {
        RevisionRow {
            seq,
            revision_id: revision_id.into(),
            scope: scope.into(),
            owner_id: None,
            cause: "ingest".into(),
            occurred_at: "t".into(),
            recorded_at: "t".into(),
            ops_json: "[]".into(),
            provenance_json: "{}".into(),
            summary: None,
            journal_applied: true,
        }
    }

    #[test]
    fn a_stage_round_trips_through_its_log_json_bit_for_bit() {
        let rev = revision(3, "r3", "global");
        let mut a = TripleAssertion::new("ex:a", "ex:b", "ex:c").with_scope("global");
        a.assertion_id = Some("c1".into());
        a.confidence = Some(0.1 + 0.2);
        let stage = Stage {
            rows: vec![a],
            texts: vec!["ex:a ex:b ex:c".into()],
            vectors: vec![Some(vec![0.1_f32, -1.0e-38, 3.402_823_5e38])],
            zero_warning: None,
            updates: vec![Update {
                assertion_id: "c0".into(),
                valid_until: Some("t".into()),
                provenance: None,
            }],
            history: vec![HistoryRow {
                seq: 9,
                memory_id: "c1".into(),
                event: "asserted".into(),
                at: "t".into(),
                revision_id: "r3".into(),
                detail: json!({"k": [1, 2]}),
            }],
            sources: vec![],
            derivations: vec![(
                4,
                DerivationRow {
                    memory_id: "c1".into(),
                    from_id: "c0".into(),
                    revision_id: "r3".into(),
                },
            )],
            revision: Some(rev.clone()),
        };
        let back = Stage::from_json(&stage.to_json(), &rev).unwrap();
        assert_eq!(back.rows, stage.rows);
        assert_eq!(back.texts, stage.texts);
        let bits = |s: &Stage| -> Vec<u32> {
            s.vectors
                .iter()
                .flatten()
                .flatten()
                .map(|x| x.to_bits())
                .collect()
        };
        assert_eq!(bits(&back), bits(&stage));
        assert_eq!(back.updates, stage.updates);
        assert_eq!(back.history, stage.history);
        assert_eq!(back.derivations, stage.derivations);
    }

    #[test]
    fn a_log_row_without_a_stage_is_a_storage_error() {
        let rev = revision(1, "r1", "s");
        let err = Stage::from_json("not json", &rev).unwrap_err();
        assert_eq!(err.kind(), am_triples::ErrorKind::Storage);
    }
}
