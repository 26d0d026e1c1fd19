//! `am eval locomo`: retrieval quality on the LoCoMo benchmark under the
//! issue's fixed protocol, so figures compare across systems. Each sample is
//! its own corpus (`life`, sample_id); every qa item with non-empty
//! normalized evidence is one question; `reconstruct(Stimulus(question),
//! [("life", sample_id)], RecallBudget(shelf_size=k, token_budget=100000,
//! stm_fraction=0), journal=false)`; recall@k, hit@k and per-question latency,
//! per k, per LoCoMo category and per configuration: the hybrid profile
//! (`ReconstructConfig::hybrid`, what `am` uses), the spec's default with
//! keyword discovery off / on, and two peers expressed in the hybrid
//! profile's terms (plain BM25; BM25 + dense cosine by reciprocal rank, k = 60).

use crate::ctx::Ctx;
use crate::error::{CliError, CliResult};
use crate::home::{self, HomeSpec, PinnedClock};
use crate::ingest;
use crate::locomo::{self, Sample};
use am_system::Reconstruct;
use am_system::{
    Fusion, HybridConfig, MemorySystem, RecallBudget, ReconstructConfig, Stimulus, SystemOptions,
};
use am_triples::{TextEmbedder, TripleQuery};
use serde_json::{Value, json};
use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

/// Retrieval quality on a benchmark.
#[derive(Debug, clap::Args)]
pub struct EvalCmd {
    #[command(subcommand)]
    bench: EvalBench,
}

/// The benchmarks `am eval` runs.
#[derive(Debug, clap::Subcommand)]
pub enum EvalBench {
    /// LoCoMo under the fixed protocol (recall@k, hit@k, latency; default and keyword discovery).
    Locomo(LocomoCmd),
}

impl EvalCmd {
    /// Run the benchmark named.
    ///
    /// # Errors
    /// As the benchmark's `run`.
    pub fn run(self, ctx: &Ctx) -> CliResult<u8> {
        match self.bench {
            EvalBench::Locomo(cmd) => cmd.run(ctx),
        }
    }
}

/// The flags of `am eval locomo`.
#[derive(Debug, clap::Args)]
pub struct LocomoCmd {
    /// The LoCoMo JSON file.
    #[arg(long)]
    data: PathBuf,
    /// Shelf sizes, comma-separated.
    #[arg(long, default_value = "5,10")]
    k: String,
    /// Which configurations of the spec's default to run.
    #[arg(long, value_enum, default_value = "both")]
    discovery: Discovery,
    /// Which profiles to run: hybrid (what `am` uses), spec, both, or all
    /// (both and the peers: plain BM25, BM25 + dense RRF k = 60).
    #[arg(long, value_enum, default_value = "all")]
    profile: Profiles,
    /// Override hybrid profile knobs, a JSON object of HybridConfig
    /// fields (e.g. '{"neighbour_weight": 0}'); for ablations.
    #[arg(long)]
    hybrid: Option<String>,
}

impl LocomoCmd {
    /// Run LoCoMo under the fixed protocol and print the report.
    ///
    /// # Errors
    /// Bad input for unreadable or invalid data, bad `--k` or `--hybrid`;
    /// the engine's failure.
    pub fn run(self, ctx: &Ctx) -> CliResult<u8> {
        let LocomoCmd {
            data,
            k,
            discovery,
            profile,
            hybrid,
        } = self;
        let spec = ctx.embedder_spec("offline")?;
        let ks = parse_ks(&k)?;
        let configs = configurations(profile, discovery, hybrid.as_deref())?;
        let text = std::fs::read_to_string(&data).map_err(|e| {
            CliError::invalid(format!(
                "cannot read --data {}: {e} (expected the LoCoMo JSON file)",
                data.display()
            ))
        })?;
        let v: Value = serde_json::from_str(&text).map_err(|e| {
            CliError::invalid(format!(
                "--data {}: expected LoCoMo JSON, got invalid JSON ({e})",
                data.display()
            ))
        })?;
        let report = run(&v, &ks, configs, ctx.build_embedder(&spec)?, ctx.json)?;
        ctx.emit(&report, &render(&report))?;
        Ok(0)
    }
}

/// The configurations to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Discovery {
    /// The spec's default `ReconstructConfig` only.
    Off,
    /// `keyword_discovery = true` only.
    On,
    /// Both, default first.
    Both,
}

/// The reconstruct profile `am recall` and `am demo` use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Profile {
    /// The hybrid retrieval profile (`ReconstructConfig::hybrid`; the best
    /// measured on LoCoMo, docs/retrieval.md).
    Hybrid,
    /// The spec's default `ReconstructConfig`.
    Spec,
}

impl Profile {
    /// The profile's `ReconstructConfig`.
    pub fn config(self) -> ReconstructConfig {
        match self {
            Profile::Hybrid => ReconstructConfig::hybrid(),
            Profile::Spec => ReconstructConfig::default(),
        }
    }
}

/// Which profiles to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Profiles {
    /// The hybrid profile only.
    Hybrid,
    /// The spec's default only (with `--discovery`).
    Spec,
    /// The hybrid profile and the spec's default.
    Both,
    /// Both, and the peers (plain BM25; BM25 + dense RRF k = 60).
    All,
}

/// The configurations of a run: (name, config), in report order.
///
/// # Errors
/// Bad input for a `--hybrid` override that is not a `HybridConfig` object.
pub fn configurations(
    profiles: Profiles,
    discovery: Discovery,
    hybrid: Option<&str>,
) -> CliResult<Vec<(String, ReconstructConfig)>> {
    let mut tuned = HybridConfig::default();
    if let Some(text) = hybrid {
        let mut v = serde_json::to_value(&tuned)
            .map_err(|e| CliError::failure(format!("cannot serialize HybridConfig: {e}")))?;
        let patch: Value = serde_json::from_str(text).map_err(|e| {
            CliError::invalid(format!(
                "--hybrid expects a JSON object of HybridConfig fields (e.g. '{{\"rrf_k\": 60}}'), got {text:?} ({e})"
            ))
        })?;
        let Value::Object(patch) = patch else {
            return Err(CliError::invalid(format!(
                "--hybrid expects a JSON object of HybridConfig fields, got {text:?}"
            )));
        };
        for (k, x) in patch {
            v[k] = x;
        }
        tuned = serde_json::from_value(v)
            .map_err(|e| CliError::invalid(format!("--hybrid {text:?}: {e}")))?;
    }
    let mut out: Vec<(String, ReconstructConfig)> = Vec::new();
    if matches!(profiles, Profiles::Hybrid | Profiles::Both | Profiles::All) {
        out.push((
            "hybrid".into(),
            ReconstructConfig {
                hybrid: Some(tuned),
                ..ReconstructConfig::default()
            },
        ));
    }
    if matches!(profiles, Profiles::Spec | Profiles::Both | Profiles::All) {
        if matches!(discovery, Discovery::Off | Discovery::Both) {
            out.push(("default".into(), ReconstructConfig::default()));
        }
        if matches!(discovery, Discovery::On | Discovery::Both) {
            out.push((
                "keyword_discovery".into(),
                ReconstructConfig {
                    keyword_discovery: true,
                    ..ReconstructConfig::default()
                },
            ));
        }
    }
    if profiles == Profiles::All {
        let peer = |h: HybridConfig| ReconstructConfig {
            hybrid: Some(h),
            ..ReconstructConfig::default()
        };
        let plain = HybridConfig {
            stopwords: false,
            neighbour_weight: 0.0,
            ..HybridConfig::default()
        };
        out.push((
            "peer_bm25".into(),
            peer(HybridConfig {
                vector_weight: 0.0,
                ..plain.clone()
            }),
        ));
        out.push((
            "peer_bm25_dense_rrf60".into(),
            peer(HybridConfig {
                fusion: Fusion::Rrf,
                rrf_k: 60.0,
                keyword_weight: 1.0,
                vector_weight: 1.0,
                ..plain
            }),
        ));
    }
    Ok(out)
}

/// The report groups: categories 1-4 together, then each category.
const GROUPS: &[(&str, &str)] = &[
    ("1-4", "categories_1_4"),
    ("1", "category_1"),
    ("2", "category_2"),
    ("3", "category_3"),
    ("4", "category_4"),
    ("5", "category_5"),
];

/// Parse `--k 5,10`: positive shelf sizes, deduplicated, ascending.
///
/// # Errors
/// Bad input naming the expected form and what arrived.
pub fn parse_ks(s: &str) -> CliResult<Vec<usize>> {
    let mut ks = Vec::new();
    for part in s.split(',') {
        let k: usize = part.trim().parse().map_err(|_| {
            CliError::invalid(format!(
                "--k expects comma-separated shelf sizes >= 1 (e.g. 5,10), got {s:?}"
            ))
        })?;
        if k == 0 || k > 1000 {
            return Err(CliError::invalid(format!(
                "--k shelf sizes must be within 1..=1000, got {k} in {s:?}"
            )));
        }
        if !ks.contains(&k) {
            ks.push(k);
        }
    }
    ks.sort_unstable();
    Ok(ks)
}

/// The metrics of one (configuration, k, category group).
#[derive(Debug, Clone, Default)]
struct Tally {
    recall_sum: f64,
    hits: usize,
    n: usize,
    latencies_ms: Vec<f64>,
}

impl Tally {
    fn to_json(&self) -> Value {
        let mut lat = self.latencies_ms.clone();
        lat.sort_by(f64::total_cmp);
        let pick = |q: f64| -> f64 {
            if lat.is_empty() {
                return 0.0;
            }
            // Nearest-rank percentile.
            let rank = (q * lat.len() as f64).ceil().max(1.0) as usize;
            lat[rank.min(lat.len()) - 1]
        };
        let median = if lat.is_empty() {
            0.0
        } else if lat.len() % 2 == 1 {
            lat[lat.len() / 2]
        } else {
            (lat[lat.len() / 2 - 1] + lat[lat.len() / 2]) / 2.0
        };
        let n = self.n.max(1) as f64;
        json!({
            "questions": self.n,
            "recall": round4(self.recall_sum / n),
            "hit": round4(self.hits as f64 / n),
            "median_ms": round4(median),
            "p95_ms": round4(pick(0.95)),
        })
    }
}

fn round4(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}

/// Run the protocol over `data`; returns the JSON report.
///
/// # Errors
/// Bad input for malformed data; the engine's failure.
pub fn run(
    data: &Value,
    ks: &[usize],
    configs: Vec<(String, ReconstructConfig)>,
    embedder: Option<Arc<dyn TextEmbedder>>,
    quiet: bool,
) -> CliResult<Value> {
    let samples = locomo::parse(data)?;
    let dir = tempfile::tempdir()
        .map_err(|e| CliError::failure(format!("cannot create a temporary directory: {e}")))?;
    let clock = PinnedClock::wall();
    // One home holds every sample; each sample is its own corpus by its
    // stream (`life`, sample_id), which every reconstruct is confined to.
    // (FTS5's BM25 statistics are those of the whole home, as in 0.3.2's run.)
    let engine = home::open(
        &HomeSpec::Sqlite(dir.path().join("locomo.sqlite3")),
        embedder.clone(),
        &clock,
        ReconstructConfig::default(),
    )?;
    let turns: Vec<crate::turn::Turn> = samples.iter().flat_map(|s| s.turns.clone()).collect();
    let started = Instant::now();
    engine.bulk_mode()?;
    let bar = ingest::progress(turns.len() as u64, "ingest", quiet);
    ingest::form_turns(&engine.system, &clock, &turns, &bar)?;
    bar.finish_and_clear();
    let ingest_s = started.elapsed().as_secs_f64();
    let dia = dia_ids(&engine.system, &samples)?;
    let asked: usize = samples
        .iter()
        .flat_map(|s| &s.questions)
        .filter(|q| !q.evidence.is_empty())
        .count();
    let mut report = serde_json::Map::new();
    // (shape with numbers masked, the first warning of that shape, count)
    let mut warnings: Vec<(String, String, usize)> = Vec::new();
    let digits = regex::Regex::new(r"\d+(\.\d+)?")
        .map_err(|e| CliError::failure(format!("the warning pattern does not compile: {e}")))?;
    for (name, config) in configs {
        let system = MemorySystem::over_home_with_options(
            Arc::clone(engine.system.home()),
            SystemOptions {
                embedder: embedder.clone(),
                reconstruct_config: config,
                clock: Some(clock.as_clock()),
                ..SystemOptions::default()
            },
        )?;
        // (k, group) -> tally; group "1-4" or the category.
        let mut tallies: BTreeMap<(usize, String), Tally> = BTreeMap::new();
        let bar = ingest::progress((asked * ks.len()) as u64, &name, quiet);
        for s in &samples {
            for q in s.questions.iter().filter(|q| !q.evidence.is_empty()) {
                if !(1..=5).contains(&q.category) {
                    continue;
                }
                let category = q.category.to_string();
                for &k in ks {
                    let budget = RecallBudget {
                        shelf_size: k,
                        token_budget: 100_000,
                        stm_fraction: 0.0,
                        ..RecallBudget::default()
                    };
                    let t0 = Instant::now();
                    let r = system.reconstruct(&Reconstruct {
                        budget: budget.clone(),
                        journal: false,
                        ..Reconstruct::new(
                            Stimulus::new(&q.question),
                            &[("life", s.sample_id.as_str())],
                        )
                    })?;
                    let ms = t0.elapsed().as_secs_f64() * 1000.0;
                    for w in &r.warnings {
                        // One line per kind of warning (the numbers vary per
                        // cue), shown as its first occurrence.
                        let shape = digits.replace_all(w, "N").into_owned();
                        match warnings.iter_mut().find(|(s, _, _)| *s == shape) {
                            Some(slot) => slot.2 += 1,
                            None => warnings.push((shape, w.clone(), 1)),
                        }
                    }
                    let got: Vec<&str> = r
                        .handles
                        .iter()
                        .take(k)
                        .filter_map(|h| dia.get(&h.record_id).map(String::as_str))
                        .collect();
                    let found = q
                        .evidence
                        .iter()
                        .filter(|e| got.contains(&e.as_str()))
                        .count();
                    let mut groups = vec![category.clone()];
                    if q.category <= 4 {
                        groups.push("1-4".into());
                    }
                    for g in groups {
                        let t = tallies.entry((k, g)).or_default();
                        t.n += 1;
                        t.recall_sum += found as f64 / q.evidence.len() as f64;
                        t.hits += usize::from(found > 0);
                        t.latencies_ms.push(ms);
                    }
                    bar.inc(1);
                }
            }
        }
        bar.finish_and_clear();
        let mut per_k = serde_json::Map::new();
        for &k in ks {
            let mut groups = serde_json::Map::new();
            for (g, key) in GROUPS {
                groups.insert(
                    (*key).to_owned(),
                    tallies
                        .get(&(k, (*g).to_owned()))
                        .cloned()
                        .unwrap_or_default()
                        .to_json(),
                );
            }
            per_k.insert(k.to_string(), Value::Object(groups));
        }
        report.insert(name, Value::Object(per_k));
    }
    Ok(json!({
        "samples": samples.len(),
        "turns": turns.len(),
        "questions": asked,
        "ingest_seconds": round4(ingest_s),
        "configurations": report,
        "warnings": warnings
            .iter()
            .map(|(_, w, n)| json!({"warning": w, "reconstructions": n}))
            .collect::<Vec<_>>(),
    }))
}

/// Assertion id → dia_id of every ingested turn.
fn dia_ids(system: &MemorySystem, samples: &[Sample]) -> CliResult<HashMap<String, String>> {
    let mut out = HashMap::new();
    for s in samples {
        let rows = system.query(&TripleQuery {
            scope: Some("life".into()),
            owner_id: Some(s.sample_id.clone()),
            predicate: Some("dcterms:abstract".into()),
            limit: 0,
            ..TripleQuery::default()
        })?;
        for r in rows {
            if let (Some(id), Some(Value::String(d))) = (r.assertion_id, r.attributes.get("dia_id"))
            {
                out.insert(id, d.clone());
            }
        }
    }
    Ok(out)
}

/// The report as a human-readable table.
pub fn render(report: &Value) -> String {
    let mut out = format!(
        "LoCoMo: {} samples, {} turns, {} questions with evidence; ingest {:.2} s\n",
        report["samples"],
        report["turns"],
        report["questions"],
        report["ingest_seconds"].as_f64().unwrap_or(0.0)
    );
    out.push_str(
        "configuration          k   group  questions  recall@k  hit@k   median ms  p95 ms\n",
    );
    if let Some(configs) = report["configurations"].as_object() {
        for (name, per_k) in configs {
            for (k, groups) in per_k.as_object().into_iter().flatten() {
                for (label, key) in GROUPS {
                    let t = &groups[*key];
                    out.push_str(&format!(
                        "{name:<22} {k:>3}  {label:<5}  {:>9}  {:>8.3}  {:>6.3}  {:>9.3}  {:>6.3}\n",
                        t["questions"],
                        t["recall"].as_f64().unwrap_or(0.0),
                        t["hit"].as_f64().unwrap_or(0.0),
                        t["median_ms"].as_f64().unwrap_or(0.0),
                        t["p95_ms"].as_f64().unwrap_or(0.0),
                    ));
                }
            }
        }
    }
    if let Some(w) = report["warnings"].as_array()
        && !w.is_empty()
    {
        out.push_str("warnings:\n");
        for x in w {
            out.push_str(&format!(
                "  {} (in {} reconstructions; the first shown)\n",
                x["warning"].as_str().unwrap_or_default(),
                x["reconstructions"]
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ks_are_positive_deduplicated_and_sorted() {
        assert_eq!(parse_ks("10,5,10").unwrap(), [5, 10]);
        for bad in ["", "0", "5,x", "-1", "5,,10", "100000"] {
            assert_eq!(parse_ks(bad).unwrap_err().code, 2, "{bad}");
        }
    }
}
