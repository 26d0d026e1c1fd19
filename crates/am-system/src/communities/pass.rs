//! `communities_pass`: one night's topics. Read the graph, detect, attach,
//! carry keys, lay out, then author and write every new or changed topic in
//! ONE commit-guarded transaction.

use crate::communities::args::CommunitiesPass;
use crate::communities::graph::{HomeRead, detection_graph, dot, read_home};
use crate::communities::louvain::louvain;
use crate::communities::topics::{Standing, standing_of};
use crate::communities::{ALGORITHM, MAX_DETECTION_ROUNDS};
use crate::config::{
    COMMUNITY_BRIEFING_SAMPLE_TOKENS, COMMUNITY_BRIEFING_SIBLINGS, COMMUNITY_KEPT_JACCARD,
    COMMUNITY_LAYOUT_SEATS, COMMUNITY_MIN_SIZE, COMMUNITY_RESOLUTION, COMMUNITY_SPLIT_SHARE,
};
use crate::error::{Error, Result};
use crate::formation::authoring::{
    Author, AuthorField, AuthoredRecord, AuthoringReceipt, FormAuthored,
};
use crate::formation::records::MemoryRecordInput;
use crate::kinds::RecordKind;
use crate::recall::args::CloseRecord;
use crate::record::DigestRow;
use crate::tasks::{COMMUNITY_PRIORITY, Prioritize};
use am_journal::{ClosureKind, TaskFilter, TaskKind};
use am_triples::{JsonMap, TripleAssertion};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::time::Instant;

/// What `communities_pass` did (the spec's receipt, key for key).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CommunitiesReport {
    /// `communities_pass`.
    pub pass_name: String,
    /// The version this pass wrote (`None` when it wrote none).
    pub version_seq: Option<i64>,
    /// Keys of the topics born tonight.
    pub new: Vec<String>,
    /// Keys of the changed topics whose membership overlaps their previous
    /// version by at least half (Jaccard).
    pub kept: Vec<String>,
    /// Keys of the changed topics that kept their key over a smaller
    /// overlap (the topic drifted).
    pub renamed: Vec<String>,
    /// Keys of the topics no group carries any more (closed).
    pub dissolved: Vec<String>,
    /// Keys of the topics whose membership is unchanged (nothing written).
    pub unchanged: Vec<String>,
    /// The community records written (graph ids).
    pub written: Vec<String>,
    /// The live records without a vector (or of a kind not detected).
    pub unvectored: usize,
    /// The live records in no topic after the pass.
    pub unplaced: usize,
    /// The vector-less records whose every engraved relation names a closed
    /// record (no edge can place them).
    pub unplaced_closed: usize,
    /// Keys of the topics whose title and summary this pass wrote.
    pub authored: Vec<String>,
    /// Keys of the standing topics authored in place.
    pub authored_in_place: Vec<String>,
    /// Keys of every topic with a field still pending after the pass.
    pub pending: Vec<String>,
    /// In-place writes refused: `{key, reason}`.
    pub failed: Vec<Value>,
    /// The task ids moved up to `COMMUNITY_PRIORITY`.
    pub reprioritized: Vec<String>,
    /// The budget as given.
    pub budget: Option<usize>,
    /// The author calls made.
    pub budget_spent: usize,
    /// The authoring receipt.
    pub authoring: AuthoringReceipt,
    /// Whether `cancelled()` said stop (nothing was written).
    pub cancelled: bool,
    /// Why the pass was skipped, if it was.
    pub skipped: Option<String>,
    /// Per-step wall time in milliseconds.
    pub timings_ms: BTreeMap<String, f64>,
}

/// One topic of tonight's partition.
#[derive(Debug, Clone)]
struct Group {
    /// Indices into the read's nodes: `(index, via)`.
    members: Vec<(usize, &'static str)>,
    key: String,
    previous: Option<usize>,
    verdict: &'static str,
    /// The key of the previous topic this new topic is a piece of.
    split_from: Option<String>,
}

fn ms(t: Instant) -> f64 {
    (t.elapsed().as_secs_f64() * 1e6).round() / 1e3
}

fn hex_of(parts: &[&str]) -> String {
    hex::encode(Sha256::digest(parts.join("|").as_bytes()))
}

impl crate::MemorySystem {
    /// `communities_pass` — one night's topics (see the module doc and
    /// api.md "Communities (topics)"). `author` writes each new or changed
    /// topic's title and summary (at most `budget` calls, largest topic
    /// first; the rest form pending at `COMMUNITY_PRIORITY`); `cancelled` is
    /// called once, before the write.
    ///
    /// # Errors
    /// `InvalidInput` for a blank owner, no scope pair, or a home without a
    /// task queue, before anything is written; the home's failure (the
    /// transaction rolls back whole).
    pub fn communities_pass(
        &self,
        args: &CommunitiesPass,
        author: Option<&dyn Author>,
        cancelled: &dyn Fn() -> bool,
    ) -> Result<CommunitiesReport> {
        let owner = args.owner_id.trim();
        if owner.is_empty() {
            return Err(Error::invalid(
                "communities_pass needs an owner_id: the topics are the owner's",
            ));
        }
        let Some((home_scope, _)) = args.scopes.first() else {
            return Err(Error::invalid(
                "communities_pass needs at least one (scope, owner_id) pair",
            ));
        };
        if args.scopes.iter().any(|(s, _)| s.trim().is_empty()) {
            return Err(Error::invalid(
                "communities_pass: a scope pair has a blank scope",
            ));
        }
        self.require_task_queue("communities_pass")?;
        let home_scope = home_scope.trim().to_lowercase();
        let mut timings: BTreeMap<String, f64> = BTreeMap::new();
        let t = Instant::now();
        let detect: Option<BTreeSet<RecordKind>> = args
            .detect_kinds
            .as_ref()
            .map(|k| k.iter().copied().collect());
        let read = read_home(
            self.store.as_ref(),
            self.journal.as_ref(),
            &args.scopes,
            (&home_scope, owner),
            detect.as_ref(),
        )?;
        timings.insert("read".into(), ms(t));
        let standing = standing_of(&read.topics);
        let t = Instant::now();
        let groups = detect_groups(&read, &standing, args.seed_previous);
        timings.insert("detect".into(), ms(t));
        let t = Instant::now();
        let (groups, dissolved) = carry_keys(&read, &standing, groups, &home_scope, owner);
        timings.insert("carry".into(), ms(t));

        let mut report = CommunitiesReport {
            pass_name: "communities_pass".into(),
            version_seq: None,
            new: Vec::new(),
            kept: Vec::new(),
            renamed: Vec::new(),
            dissolved: dissolved.iter().map(|&i| standing[i].key.clone()).collect(),
            unchanged: Vec::new(),
            written: Vec::new(),
            unvectored: read.nodes.iter().filter(|n| n.vector.is_none()).count(),
            unplaced: 0,
            unplaced_closed: 0,
            authored: Vec::new(),
            authored_in_place: Vec::new(),
            pending: Vec::new(),
            failed: Vec::new(),
            reprioritized: Vec::new(),
            budget: args.budget,
            budget_spent: 0,
            authoring: AuthoringReceipt::default(),
            cancelled: false,
            skipped: None,
            timings_ms: BTreeMap::new(),
        };
        let placed: BTreeSet<usize> = groups
            .iter()
            .flat_map(|g| g.members.iter().map(|m| m.0))
            .collect();
        report.unplaced = read.nodes.len() - placed.len();
        report.unplaced_closed = read
            .only_closed
            .iter()
            .filter(|i| read.nodes[**i].vector.is_none() && !placed.contains(i))
            .count();
        for g in &groups {
            match g.verdict {
                "new" => report.new.push(g.key.clone()),
                "kept" => report.kept.push(g.key.clone()),
                "renamed" => report.renamed.push(g.key.clone()),
                _ => report.unchanged.push(g.key.clone()),
            }
        }
        for v in [
            &mut report.new,
            &mut report.kept,
            &mut report.renamed,
            &mut report.unchanged,
        ] {
            v.sort();
        }

        // The standing topics unchanged tonight whose fields are still
        // pending, and their tasks waiting behind COMMUNITY_PRIORITY.
        let standing_pending: Vec<&Standing> = groups
            .iter()
            .filter(|g| g.verdict == "unchanged")
            .filter_map(|g| g.previous.map(|p| &standing[p]))
            .filter(|s| !DigestRow::of(&s.row).pending().is_empty())
            .collect();
        let to_move = if standing_pending.is_empty() {
            Vec::new()
        } else {
            self.tasks()?.prioritize(&Prioritize {
                dry_run: true,
                ..prioritize_args(&standing_pending)
            })?
        };
        let changed: Vec<&Group> = groups.iter().filter(|g| g.verdict != "unchanged").collect();
        if changed.is_empty()
            && dissolved.is_empty()
            && to_move.is_empty()
            && standing_pending.is_empty()
        {
            report.pending = self.pending_keys(&standing)?;
            report.timings_ms = timings;
            return Ok(report);
        }
        let t = Instant::now();
        let layout = layout_of(&read, &groups);
        let version_seq = read.seq;
        let pin = self.store.embedding_pin()?;
        // Tonight's topics, largest first (ties by key): the author's order.
        let mut order: Vec<&Group> = changed.clone();
        order.sort_by(|a, b| {
            b.members
                .len()
                .cmp(&a.members.len())
                .then(a.key.cmp(&b.key))
        });
        let titles: Vec<String> = standing
            .iter()
            .filter_map(|s| DigestRow::of(&s.row).title().map(str::to_owned))
            .take(COMMUNITY_BRIEFING_SIBLINGS)
            .collect();
        let budget = args.budget.unwrap_or(usize::MAX);
        let mut batches = Vec::new();
        let mut prepared_all = Vec::new();
        let mut closures = Vec::new();
        let mut closed_versions: Vec<String> = Vec::new();
        for (rank, g) in order.iter().enumerate() {
            let prev = g.previous.map(|p| &standing[p]);
            let record = topic_record(
                &read,
                g,
                prev,
                &layout,
                version_seq,
                &titles,
                pin.as_ref(),
                args,
            );
            let ids: Vec<String> = g
                .members
                .iter()
                .map(|m| read.nodes[m.0].id.clone())
                .collect();
            let fingerprint = hex_of(&ids.iter().map(String::as_str).collect::<Vec<_>>());
            let key = format!(
                "community|{home_scope}|{owner}|{}|v{version_seq}|{fingerprint}",
                g.key
            );
            let by_author = rank < budget;
            let mut rec = record;
            let fields = if by_author {
                vec![AuthorField::Title, AuthorField::Summary]
            } else {
                // Left pending by the budget: no author call, no failure.
                rec.title = None;
                rec.pending = vec!["title".into(), "summary".into()];
                Vec::new()
            };
            let prepared = self.prepare_authored(
                &FormAuthored {
                    pass: "communities_pass".into(),
                    records: vec![AuthoredRecord {
                        record: rec,
                        fields,
                        source_ids: ids.iter().take(50).cloned().collect(),
                    }],
                    scope: home_scope.clone(),
                    owner_id: owner.to_owned(),
                    idempotency_key: key.clone(),
                    turn_id: None,
                },
                if by_author { author } else { None },
            )?;
            if by_author {
                report.budget_spent += usize::from(author.is_some());
            }
            let new_id = crate::ids::record_id_for(RecordKind::Community, &key, 0);
            if let Some(p) = prev {
                closures.extend(self.plan_close_record(&CloseRecord {
                    replacement_ids: vec![new_id.clone()],
                    ..CloseRecord::new(
                        &p.row.subject,
                        ClosureKind::Supersede,
                        &format!("community {} version {version_seq}", g.key),
                    )
                })?);
                closed_versions.push(p.row.subject.clone());
            }
            batches.push(prepared.batch.clone());
            prepared_all.push(prepared);
        }
        // A dissolved topic is closed into the topic that took most of its
        // members (a supersede names a replacement); one none took is
        // retracted.
        for &d in &dissolved {
            let s = &standing[d];
            let mut takers: BTreeMap<&str, usize> = BTreeMap::new();
            for g in &groups {
                let n = g
                    .members
                    .iter()
                    .filter(|m| s.members.contains(&read.nodes[m.0].id))
                    .count();
                if n > 0 {
                    *takers.entry(g.key.as_str()).or_default() += n;
                }
            }
            let heir = takers
                .iter()
                .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0)))
                .map(|(k, _)| (*k).to_owned());
            let heir_id = heir.and_then(|k| {
                order
                    .iter()
                    .zip(&batches)
                    .find(|(g, _)| g.key == k)
                    .map(|(_, b)| {
                        crate::ids::record_id_for(RecordKind::Community, &b.idempotency_key, 0)
                    })
                    .or_else(|| {
                        groups
                            .iter()
                            .find(|g| g.key == k)
                            .and_then(|g| g.previous)
                            .map(|p| standing[p].row.subject.clone())
                    })
            });
            let reason = format!("community {} dissolved at version {version_seq}", s.key);
            let close = match heir_id {
                Some(h) => CloseRecord {
                    replacement_ids: vec![h],
                    ..CloseRecord::new(&s.row.subject, ClosureKind::Supersede, &reason)
                },
                None => CloseRecord::new(&s.row.subject, ClosureKind::Retract, &reason),
            };
            closures.extend(self.plan_close_record(&close)?);
            closed_versions.push(s.row.subject.clone());
        }
        timings.insert("plan".into(), ms(t));
        if cancelled() {
            report.cancelled = true;
            report.pending = self.pending_keys(&standing)?;
            report.timings_ms = timings;
            return Ok(report);
        }
        let t = Instant::now();
        let now = (self.clock)().canonical();
        let standing_ids: Vec<String> = standing_pending
            .iter()
            .map(|s| s.row.subject.clone())
            .collect();
        let mut moved: Vec<String> = Vec::new();
        let mut hook = |tx: &mut dyn am_journal::TasksTx| -> Result<()> {
            for id in &closed_versions {
                let live: Vec<String> = tx
                    .tasks(&TaskFilter {
                        target_id: Some(id.clone()),
                        ..TaskFilter::live()
                    })?
                    .into_iter()
                    .map(|t| t.task_id)
                    .collect();
                crate::tasks::supersede_in(tx, &live, "community_revised", &now)?;
            }
            let mut rows = Vec::new();
            for id in &standing_ids {
                for t in tx.tasks(&TaskFilter {
                    target_id: Some(id.clone()),
                    ..TaskFilter::live()
                })? {
                    if matches!(t.kind, TaskKind::TitleAuthor | TaskKind::DigestAuthor)
                        && t.priority > COMMUNITY_PRIORITY
                        && crate::tasks::effective(&t, &now).is_live()
                    {
                        rows.push(t);
                    }
                }
            }
            moved = crate::tasks::prioritize_in(
                tx,
                &rows,
                COMMUNITY_PRIORITY,
                "topics are named before other pending records",
                &now,
            )?;
            Ok(())
        };
        let written = self.form_batches_then(&batches, &closures, &[], Some(&mut hook))?;
        report.reprioritized = moved;
        for (prepared, ids) in prepared_all.iter().zip(&written.value) {
            let receipt = prepared.receipt(ids);
            report.authoring.absorb(receipt);
            report.written.extend(ids.iter().cloned());
        }
        let key_of: HashMap<String, String> = order
            .iter()
            .zip(&written.value)
            .filter_map(|(g, ids)| ids.first().map(|id| (id.clone(), g.key.clone())))
            .collect();
        for a in &report.authoring.authored {
            if let Some(k) = key_of.get(&a.record_id) {
                report.authored.push(k.clone());
            }
        }
        if !batches.is_empty() {
            report.version_seq = Some(version_seq);
        }
        timings.insert("write".into(), ms(t));
        // What the budget leaves: the standing topics still pending, largest
        // first, authored IN PLACE on their current record.
        if let Some(author) = author {
            let t = Instant::now();
            let spent_on_changed = order.len().min(budget);
            let mut left = budget - spent_on_changed;
            let mut standing_order: Vec<&Standing> = standing_pending.clone();
            standing_order.sort_by(|a, b| {
                b.members
                    .len()
                    .cmp(&a.members.len())
                    .then(a.key.cmp(&b.key))
            });
            for st in standing_order {
                if left == 0 {
                    break;
                }
                left -= 1;
                report.budget_spent += 1;
                let Some(g) = groups
                    .iter()
                    .find(|g| g.previous.is_some_and(|p| standing[p].key == st.key))
                else {
                    continue;
                };
                self.author_in_place(
                    &read,
                    g,
                    st,
                    &titles,
                    author,
                    &home_scope,
                    owner,
                    &now,
                    &mut report,
                )?;
            }
            timings.insert("author_in_place".into(), ms(t));
        }
        report.authored.sort();
        report.authored.dedup();
        report.authored_in_place.sort();
        let after = read_home(
            self.store.as_ref(),
            self.journal.as_ref(),
            &args.scopes,
            (&home_scope, owner),
            Some(&BTreeSet::new()),
        )?;
        report.pending = self.pending_keys(&standing_of(&after.topics))?;
        report.timings_ms = timings;
        self.faculty_state
            .cache::<crate::communities::index::IndexCache>()
            .lock()
            .clear();
        Ok(report)
    }

    /// Author one standing pending topic in place: one author call for its
    /// fields still pending, then `rewrite_digest` (with the title when both
    /// are pending) or `retitle`, each its own guarded transaction, which
    /// completes the topic's live authoring tasks. An author failure is
    /// recorded in `authoring.failures`; a refused write in `failed`
    /// (`write_refused`).
    #[allow(clippy::too_many_arguments)]
    fn author_in_place(
        &self,
        read: &HomeRead,
        g: &Group,
        st: &Standing,
        titles: &[String],
        author: &dyn Author,
        scope: &str,
        owner: &str,
        now: &str,
        report: &mut CommunitiesReport,
    ) -> Result<()> {
        use crate::formation::authoring::{AuthorContext, AuthoringFailureReason, FailureEntry};
        let row = DigestRow::of(&st.row);
        let pending = row.pending();
        let fields: Vec<AuthorField> = [AuthorField::Title, AuthorField::Summary]
            .into_iter()
            .filter(|f| pending.iter().any(|p| p == f.as_str()))
            .collect();
        if fields.is_empty() {
            return Ok(());
        }
        let mut kinds: BTreeMap<&str, usize> = BTreeMap::new();
        for m in &g.members {
            *kinds.entry(read.nodes[m.0].kind.as_str()).or_default() += 1;
        }
        let body = briefing(read, g, &kinds, None, titles);
        let context = AuthorContext {
            pass: "communities_pass".into(),
            record_kind: RecordKind::Community.as_str().into(),
            scope: scope.to_owned(),
            owner_id: owner.to_owned(),
            fields: fields.clone(),
            title: row.served_title(),
            source_ids: g
                .members
                .iter()
                .take(50)
                .map(|m| read.nodes[m.0].id.clone())
                .collect(),
            attributes: st.row.attributes.clone(),
        };
        let fail =
            |reason: AuthoringFailureReason, class: Option<String>, message: String| FailureEntry {
                record_id: st.row.subject.clone(),
                record_kind: RecordKind::Community.as_str().into(),
                pass: "communities_pass".into(),
                fields: fields.clone(),
                reason,
                error_class: class,
                message,
                at: now.to_owned(),
            };
        let authored = match author.author(RecordKind::Community.as_str(), &body, &context) {
            Ok(a) => a,
            Err(e) => {
                report.authoring.failures.push(fail(
                    AuthoringFailureReason::AuthorRaised,
                    Some(e.error_class),
                    e.message,
                ));
                return Ok(());
            }
        };
        let wants = |f: AuthorField| fields.contains(&f);
        let text_of = |v: &Option<String>| {
            v.as_deref()
                .map(str::trim)
                .filter(|t| !t.is_empty())
                .map(str::to_owned)
        };
        let (title, summary) = (text_of(&authored.title), text_of(&authored.summary));
        let who: Option<am_journal::AuthorRef> =
            serde_json::from_value(Value::Object(authored.author.clone())).ok();
        let reader: std::result::Result<Option<am_journal::ReaderRef>, _> = authored
            .reader
            .clone()
            .map(|r| serde_json::from_value(Value::Object(r)))
            .transpose();
        let sources: std::result::Result<Vec<am_journal::SourceRef>, _> =
            serde_json::from_value(Value::Array(authored.sources.clone()));
        let (Some(who), Ok(reader), Ok(sources)) = (who, reader, sources) else {
            report.authoring.failures.push(fail(
                AuthoringFailureReason::InvalidResult,
                None,
                "the author's provenance (author, reader, sources) is not usable".into(),
            ));
            return Ok(());
        };
        if (wants(AuthorField::Title) && title.is_none())
            || (wants(AuthorField::Summary) && summary.is_none())
        {
            report.authoring.failures.push(fail(
                AuthoringFailureReason::InvalidResult,
                None,
                "the author left a wanted field missing or empty".into(),
            ));
            return Ok(());
        }
        let cause = json!("formation");
        let result = if let Some(summary) = summary.filter(|_| wants(AuthorField::Summary)) {
            let mut args = crate::understanding::args::RewriteDigest::new(
                &st.row.subject,
                &summary,
                who,
                cause,
                row.version("digest_version"),
            );
            args.title = title.filter(|_| wants(AuthorField::Title));
            args.reader = reader;
            args.sources = sources;
            self.rewrite_digest(&args)?
        } else {
            let mut args = crate::understanding::args::Retitle::new(
                &st.row.subject,
                title.as_deref().unwrap_or_default(),
                who,
                cause,
                row.version("title_version"),
            );
            args.reader = reader;
            args.sources = sources;
            self.retitle(&args)?
        };
        if result.outcome.applied() {
            report.authored.push(st.key.clone());
            report.authored_in_place.push(st.key.clone());
            report
                .authoring
                .authored
                .push(crate::formation::authoring::AuthoredEntry {
                    record_id: st.row.subject.clone(),
                    record_kind: RecordKind::Community.as_str().into(),
                    pass: "communities_pass".into(),
                    fields,
                });
        } else {
            report.failed.push(json!({
                "key": st.key,
                "id": st.row.subject,
                "reason": "write_refused",
                "detail": result.outcome.reason().and_then(|r| serde_json::to_value(r).ok()),
            }));
        }
        Ok(())
    }

    fn pending_keys(&self, standing: &[Standing]) -> Result<Vec<String>> {
        let mut v: Vec<String> = standing
            .iter()
            .filter(|s| !DigestRow::of(&s.row).pending().is_empty())
            .map(|s| s.key.clone())
            .collect();
        v.sort();
        Ok(v)
    }
}

fn prioritize_args(standing: &[&Standing]) -> Prioritize {
    Prioritize {
        target_ids: standing.iter().map(|s| s.row.subject.clone()).collect(),
        kinds: vec![TaskKind::TitleAuthor, TaskKind::DigestAuthor],
        priority: COMMUNITY_PRIORITY,
        reason: "topics are named before other pending records".into(),
        dry_run: false,
        now: None,
    }
}

/// Tonight's partition: Louvain over the vectored records (warm-started
/// from the standing topics), groups below the minimum dropped, then the
/// vector-less records attached to the group most of their engraved
/// neighbours are in (ties: the smaller group index).
/// The root of `x` in a union-find forest (path halving).
fn find(root: &mut [usize], mut x: usize) -> usize {
    while root[x] != x {
        root[x] = root[root[x]];
        x = root[x];
    }
    x
}

fn detect_groups(
    read: &HomeRead,
    standing: &[Standing],
    seed: bool,
) -> Vec<Vec<(usize, &'static str)>> {
    let vectored: Vec<usize> = (0..read.nodes.len())
        .filter(|&i| read.nodes[i].vector.is_some())
        .collect();
    let local: HashMap<usize, usize> = vectored.iter().enumerate().map(|(l, &i)| (i, l)).collect();
    let vecs: Vec<&[f32]> = vectored
        .iter()
        .map(|&i| read.nodes[i].vector.as_deref().unwrap_or(&[]))
        .collect();
    // Vectors of another dimension than the first never meet.
    let dim = vecs.first().map_or(0, |v| v.len());
    let engraved: Vec<(usize, usize)> = read
        .engraved
        .iter()
        .filter_map(|(a, b)| Some((*local.get(a)?, *local.get(b)?)))
        .filter(|(a, b)| vecs[*a].len() == dim && vecs[*b].len() == dim)
        .collect();
    let g = detection_graph(&vecs, &engraved);
    let mut initial: Vec<usize> = (0..vectored.len()).collect();
    if seed {
        let by_id: HashMap<&str, usize> = read
            .nodes
            .iter()
            .enumerate()
            .map(|(i, n)| (n.id.as_str(), i))
            .collect();
        for (si, s) in standing.iter().enumerate() {
            for m in &s.members {
                if let Some(l) = by_id.get(m.as_str()).and_then(|i| local.get(i)) {
                    initial[*l] = vectored.len() + si;
                }
            }
        }
    }
    let labels = louvain(&g, &initial, COMMUNITY_RESOLUTION, MAX_DETECTION_ROUNDS);
    // A group is cut into its connected parts of the detection graph: a
    // warm start keeps a previous topic together even when its members no
    // longer share an edge (the local moves never leave a group whose other
    // members are the node's only neighbours), and such a topic has split.
    // Each part is keyed by its smallest node (the groups' order stays their
    // first node's).
    let mut root: Vec<usize> = (0..labels.len()).collect();
    for &(a, b, w) in &g.edges {
        if w > 0.0 && labels[a] == labels[b] {
            let (ra, rb) = (find(&mut root, a), find(&mut root, b));
            root[ra.max(rb)] = ra.min(rb);
        }
    }
    let mut by_label: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for (l, &node) in vectored.iter().enumerate() {
        let part = find(&mut root, l);
        by_label.entry(part).or_default().push(node);
    }
    let mut groups: Vec<Vec<(usize, &'static str)>> = by_label
        .into_values()
        .filter(|m| m.len() >= COMMUNITY_MIN_SIZE)
        .map(|m| m.into_iter().map(|i| (i, "detected")).collect())
        .collect();
    let mut group_of: HashMap<usize, usize> = HashMap::new();
    for (gi, g) in groups.iter().enumerate() {
        for m in g {
            group_of.insert(m.0, gi);
        }
    }
    let mut neighbours: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for &(a, b) in &read.engraved {
        neighbours.entry(a).or_default().push(b);
        neighbours.entry(b).or_default().push(a);
    }
    let mut attach: Vec<(usize, usize)> = Vec::new();
    for (i, n) in read.nodes.iter().enumerate() {
        if n.vector.is_some() && group_of.contains_key(&i) {
            continue;
        }
        if n.vector.is_some() {
            continue;
        }
        let mut votes: BTreeMap<usize, usize> = BTreeMap::new();
        for j in neighbours.get(&i).into_iter().flatten() {
            if let Some(gi) = group_of.get(j) {
                *votes.entry(*gi).or_default() += 1;
            }
        }
        if let Some((gi, _)) = votes.iter().max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0))) {
            attach.push((*gi, i));
        }
    }
    for (gi, i) in attach {
        groups[gi].push((i, "attached"));
    }
    for g in &mut groups {
        g.sort_by_key(|m| m.0);
    }
    groups
}

/// Match tonight's groups to the standing topics by membership overlap
/// (the largest overlaps first; ties by the group's first member, then the
/// key), carry the keys, name the new ones, and return the dissolved
/// topics' indices.
fn carry_keys(
    read: &HomeRead,
    standing: &[Standing],
    groups: Vec<Vec<(usize, &'static str)>>,
    scope: &str,
    owner: &str,
) -> (Vec<Group>, Vec<usize>) {
    let ids = |g: &Vec<(usize, &'static str)>| -> BTreeSet<String> {
        g.iter().map(|m| read.nodes[m.0].id.clone()).collect()
    };
    let sets: Vec<BTreeSet<String>> = groups.iter().map(ids).collect();
    let mut pairs: Vec<(usize, usize, usize)> = Vec::new();
    for (gi, set) in sets.iter().enumerate() {
        for (si, s) in standing.iter().enumerate() {
            let n = set.intersection(&s.members).count();
            if n > 0 {
                pairs.push((n, gi, si));
            }
        }
    }
    pairs.sort_by(|a, b| {
        b.0.cmp(&a.0)
            .then(sets[a.1].first().cmp(&sets[b.1].first()))
            .then(standing[a.2].key.cmp(&standing[b.2].key))
    });
    let mut taken_g = vec![None; groups.len()];
    let mut taken_s = vec![false; standing.len()];
    for (_, gi, si) in pairs {
        if taken_g[gi].is_none() && !taken_s[si] {
            taken_g[gi] = Some(si);
            taken_s[si] = true;
        }
    }
    let mut out = Vec::new();
    for (gi, members) in groups.into_iter().enumerate() {
        let set = &sets[gi];
        let (key, verdict) = match taken_g[gi] {
            Some(si) => {
                let s = &standing[si];
                let inter = set.intersection(&s.members).count();
                let union = set.union(&s.members).count();
                #[allow(clippy::cast_precision_loss)]
                let jac = inter as f64 / union.max(1) as f64;
                let same_via = members_vias_same(&members, read, &s.row);
                let v = if set == &s.members && same_via {
                    "unchanged"
                } else if jac >= COMMUNITY_KEPT_JACCARD {
                    "kept"
                } else {
                    "renamed"
                };
                (s.key.clone(), v)
            }
            None => {
                let first: Vec<&str> = set.iter().map(String::as_str).collect();
                let h = hex_of(&[&[scope, owner][..], &first[..]].concat());
                (format!("topic-{}", &h[..16]), "new")
            }
        };
        out.push(Group {
            members,
            key,
            previous: taken_g[gi],
            verdict,
            split_from: None,
        });
    }
    mark_splits(&sets, standing, &mut out);
    let dissolved = (0..standing.len()).filter(|&i| !taken_s[i]).collect();
    (out, dissolved)
}

/// The splits: a previous topic is split when two or more of tonight's
/// groups each took at least `COMMUNITY_SPLIT_SHARE` of its members and
/// together more than half of them. Each such group born tonight (`new`)
/// names it in `split_from`; a group that is a piece of several names the
/// one it took most members from (ties: the smaller key). The piece that
/// carried the previous topic's key is its continuation, not a split.
fn mark_splits(sets: &[BTreeSet<String>], standing: &[Standing], out: &mut [Group]) {
    let mut best: Vec<Option<(usize, &str)>> = vec![None; out.len()];
    for s in standing {
        let total = s.members.len();
        if total == 0 {
            continue;
        }
        #[allow(clippy::cast_precision_loss)]
        let pieces: Vec<(usize, usize)> = sets
            .iter()
            .enumerate()
            .map(|(gi, set)| (gi, set.intersection(&s.members).count()))
            .filter(|&(_, n)| n > 0 && n as f64 >= COMMUNITY_SPLIT_SHARE * total as f64)
            .collect();
        let taken: usize = pieces.iter().map(|p| p.1).sum();
        if pieces.len() < 2 || taken * 2 <= total {
            continue;
        }
        for (gi, n) in pieces {
            if out[gi].verdict != "new" {
                continue;
            }
            let better = match best[gi] {
                None => true,
                Some((m, k)) => n > m || (n == m && s.key.as_str() < k),
            };
            if better {
                best[gi] = Some((n, s.key.as_str()));
            }
        }
    }
    for (g, b) in out.iter_mut().zip(best) {
        g.split_from = b.map(|(_, k)| k.to_owned());
    }
}

fn members_vias_same(
    members: &[(usize, &'static str)],
    read: &HomeRead,
    row: &TripleAssertion,
) -> bool {
    let stored: BTreeMap<String, String> = match DigestRow::of(row).get("members") {
        Some(Value::Array(a)) => a
            .iter()
            .filter_map(|m| {
                Some((
                    m.get("id")?.as_str()?.to_owned(),
                    m.get("via")?.as_str()?.to_owned(),
                ))
            })
            .collect(),
        _ => BTreeMap::new(),
    };
    members
        .iter()
        .all(|(i, via)| stored.get(&read.nodes[*i].id).is_some_and(|v| v == via))
}

/// One topic's layout: `{xy, radius, seats}`.
#[derive(Debug, Clone)]
struct Place {
    xy: [f64; 2],
    radius: f64,
    seats: usize,
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// The layout: topics largest first (ties by key) on a golden-angle spiral,
/// each a disc of radius `sqrt(size)`, the spiral's step twice the largest
/// radius so no two discs overlap far from the centre.
fn layout_of(_read: &HomeRead, groups: &[Group]) -> HashMap<String, Place> {
    let mut order: Vec<&Group> = groups.iter().collect();
    order.sort_by(|a, b| {
        b.members
            .len()
            .cmp(&a.members.len())
            .then(a.key.cmp(&b.key))
    });
    #[allow(clippy::cast_precision_loss)]
    let rmax = order
        .first()
        .map_or(1.0, |g| (g.members.len() as f64).sqrt());
    let golden = std::f64::consts::PI * (3.0 - 5f64.sqrt());
    order
        .iter()
        .enumerate()
        .map(|(i, g)| {
            #[allow(clippy::cast_precision_loss)]
            let (fi, size) = (i as f64, g.members.len() as f64);
            let dist = 2.0 * rmax * fi.sqrt();
            let angle = golden * fi;
            (
                g.key.clone(),
                Place {
                    xy: [round3(dist * angle.cos()), round3(dist * angle.sin())],
                    radius: round3(size.sqrt()),
                    seats: g.members.len().min(COMMUNITY_LAYOUT_SEATS),
                },
            )
        })
        .collect()
}

/// A topic's record: its briefing as the provisional body, and the
/// attributes the reads serve.
#[allow(clippy::too_many_arguments)]
fn topic_record(
    read: &HomeRead,
    g: &Group,
    prev: Option<&Standing>,
    layout: &HashMap<String, Place>,
    version_seq: i64,
    sibling_titles: &[String],
    pin: Option<&am_triples::EmbeddingPin>,
    args: &CommunitiesPass,
) -> MemoryRecordInput {
    let mut kinds: BTreeMap<&str, usize> = BTreeMap::new();
    for m in &g.members {
        *kinds.entry(read.nodes[m.0].kind.as_str()).or_default() += 1;
    }
    let members: Vec<Value> = g
        .members
        .iter()
        .map(|(i, via)| json!({"id": read.nodes[*i].id, "via": via}))
        .collect();
    // The centroid of the detected members' vectors (unit length).
    let vecs: Vec<&[f32]> = g
        .members
        .iter()
        .filter_map(|m| read.nodes[m.0].vector.as_deref())
        .collect();
    let centroid: Option<Vec<f32>> = vecs.first().and_then(|f| {
        let mut c = vec![0.0f32; f.len()];
        for v in &vecs {
            for (x, y) in c.iter_mut().zip(*v) {
                *x += y;
            }
        }
        crate::communities::graph::unit(c)
    });
    // Cohesion: the mean cosine of the detected members to their centroid.
    #[allow(clippy::cast_precision_loss)]
    let cohesion = centroid.as_ref().map_or(0.0, |c| {
        round3(vecs.iter().map(|v| dot(v, c)).sum::<f64>() / vecs.len() as f64)
    });
    let place = layout.get(&g.key);
    let mut attributes = JsonMap::new();
    attributes.insert("community_key".into(), json!(g.key));
    attributes.insert(
        "basis".into(),
        json!({
            "version_seq": version_seq,
            "algorithm": ALGORITHM,
            "seed_previous": args.seed_previous,
            "detect_kinds": args.detect_kinds,
        }),
    );
    attributes.insert("verdict".into(), json!(g.verdict));
    attributes.insert("size".into(), json!(g.members.len()));
    attributes.insert("kinds".into(), json!(kinds));
    attributes.insert("members".into(), Value::Array(members));
    attributes.insert("cohesion".into(), json!(cohesion));
    attributes.insert(
        "layout".into(),
        json!({
            "xy": place.map_or([0.0, 0.0], |p| p.xy),
            "radius": place.map_or(0.0, |p| p.radius),
            "seats": place.map_or(0, |p| p.seats),
        }),
    );
    attributes.insert(
        "centroid".into(),
        centroid.map_or(Value::Null, |c| {
            Value::Array(c.iter().map(|x| json!(f64::from(*x))).collect())
        }),
    );
    attributes.insert(
        "embedding_space".into(),
        json!({
            "model_id": pin.and_then(|p| p.model_id.clone()),
            "dimension": vecs.first().map(|v| v.len()),
        }),
    );
    if let Some(p) = prev {
        attributes.insert("previous_id".into(), json!(p.row.subject));
    }
    if let Some(k) = &g.split_from {
        attributes.insert("split_from".into(), json!(k));
    }
    let prev_title = prev.and_then(|p| DigestRow::of(&p.row).title().map(str::to_owned));
    let body = briefing(read, g, &kinds, prev_title.as_deref(), sibling_titles);
    let mut record = MemoryRecordInput::new(RecordKind::Community, "", &body);
    record.title = None;
    record.attributes = attributes;
    if let Some(p) = prev {
        record.edges.push(("refines".into(), p.row.subject.clone()));
    }
    record
}

/// The author's briefing: size, kinds, previous title, sibling titles (at
/// most 40), and a stable kind-mixed sample of whole member lines within
/// the sample's token budget (a line that does not fit is left out).
fn briefing(
    read: &HomeRead,
    g: &Group,
    kinds: &BTreeMap<&str, usize>,
    prev_title: Option<&str>,
    siblings: &[String],
) -> String {
    let mut out = format!("A topic of {} memories.\nKinds: ", g.members.len());
    out.push_str(
        &kinds
            .iter()
            .map(|(k, n)| format!("{n} {k}"))
            .collect::<Vec<_>>()
            .join(", "),
    );
    out.push('\n');
    if let Some(t) = prev_title {
        out.push_str(&format!("Previous title: {t}\n"));
    }
    let others: Vec<&str> = siblings
        .iter()
        .map(String::as_str)
        .filter(|t| Some(*t) != prev_title)
        .collect();
    if !others.is_empty() {
        out.push_str(&format!(
            "Other topics (differ from them): {}\n",
            others.join("; ")
        ));
    }
    out.push_str("Members:\n");
    // Round-robin over the kinds (each kind's members by graph id).
    let mut by_kind: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for m in &g.members {
        by_kind
            .entry(read.nodes[m.0].kind.as_str())
            .or_default()
            .push(m.0);
    }
    let mut used = 0usize;
    let mut round = 0usize;
    loop {
        let mut any = false;
        for list in by_kind.values() {
            let Some(&i) = list.get(round) else { continue };
            any = true;
            let n = &read.nodes[i];
            let line = format!(
                "- [{}] {}: {}\n",
                n.kind,
                n.title.as_deref().unwrap_or("(untitled)"),
                n.digest.lines().next().unwrap_or("")
            );
            let cost = am_triples::text::token_estimate(&line);
            if used + cost <= COMMUNITY_BRIEFING_SAMPLE_TOKENS {
                used += cost;
                out.push_str(&line);
            }
        }
        if !any {
            break;
        }
        round += 1;
    }
    out
}
