//! The LoCoMo dev turns the embedder benches read: from `$AM_LOCOMO`, else from
//! `/work/shared/fixtures/locomo/locomo-dev.json` (never copied into the repo).

use serde_json::Value;

const DEFAULT_LOCOMO: &str = "/work/shared/fixtures/locomo/locomo-dev.json";

/// Every turn's text, in file order (samples, then sessions by number, then turns).
pub(crate) fn locomo_turns() -> Vec<String> {
    let path = std::env::var("AM_LOCOMO").unwrap_or_else(|_| DEFAULT_LOCOMO.to_owned());
    let raw = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read the LoCoMo dev file {path}: {e} (set AM_LOCOMO)"));
    let samples: Value = serde_json::from_str(&raw).expect("LoCoMo dev file is JSON");
    let mut out = Vec::new();
    for sample in samples.as_array().expect("a list of samples") {
        let conv = sample["conversation"]
            .as_object()
            .expect("conversation object");
        let mut sessions: Vec<(u32, &Vec<Value>)> = conv
            .iter()
            .filter_map(|(k, v)| {
                let n = k.strip_prefix("session_")?.parse().ok()?;
                Some((n, v.as_array()?))
            })
            .collect();
        sessions.sort_by_key(|(n, _)| *n);
        for (_, turns) in sessions {
            out.extend(
                turns
                    .iter()
                    .filter_map(|t| t["text"].as_str().map(str::to_owned)),
            );
        }
    }
    out
}
