//! `cargo xtask soak [--release] [--trials N] [--writes N] [--seed N] [--many-writes N]
//! [--server-each N] [--night-records N] [VERB...]`:
//! the crash trials of `am-cli/tests/crash_trials.rs` with more trials than CI
//! runs (a writer process SIGKILLed at random moments, the home reopened and
//! checked), then the many-writers run of `am-cli/tests/many_writers.rs` at
//! its full size (4 writer processes × 10,000 mixed writes on one home, 2
//! reader processes polling the change feeds).
//! Prints, per verb, the trials, how many kills landed mid-script, the
//! acknowledged writes checked, torn units and lost acknowledged writes; then
//! the many-writers figures (writes/s, p50/p99/max latency per verb, errors,
//! lost writes). Then the server's load (`am-cli/tests/server/load.rs`: 16
//! clients × `--server-each` formations + recalls on one served home, default
//! 500; 0 lost, 0 duplicated, p50/p99 printed) and its mid-night cancel
//! (`night.rs`: a night over `--night-records` records, default 5,000,
//! cancelled through the jobs endpoint, then one that completes).
//! `VERB` names crash-trial verbs, `many_writers`, or `server`; `--release`
//! builds and runs the trials optimized (the full run's figures are taken so).

use crate::workspace::cargo;
use anyhow::{Result, bail};

/// Run the soak.
///
/// # Errors
/// A bad argument, or a trial that found a torn or lost write.
pub fn run(args: &[String]) -> Result<()> {
    let mut trials = "1000".to_owned();
    let mut writes: Option<String> = None;
    let mut seed = "1".to_owned();
    let mut many_writes = "10000".to_owned();
    let mut server_each = "500".to_owned();
    let mut night_records = "5000".to_owned();
    let mut verbs: Vec<String> = Vec::new();
    let mut release = false;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = |name: &str| -> Result<String> {
            match it.next() {
                Some(v) if v.parse::<u64>().is_ok() => Ok(v.clone()),
                other => bail!("{name} takes a non-negative integer, got {other:?}"),
            }
        };
        match a.as_str() {
            "--release" => release = true,
            "--trials" => trials = value("--trials")?,
            "--writes" => writes = Some(value("--writes")?),
            "--seed" => seed = value("--seed")?,
            "--many-writes" => many_writes = value("--many-writes")?,
            "--server-each" => server_each = value("--server-each")?,
            "--night-records" => night_records = value("--night-records")?,
            v if !v.starts_with('-') => verbs.push(v.to_owned()),
            other => bail!(
                "unknown soak argument {other:?} (usage: soak [--release] [--trials N] [--writes N] [--seed N] \
                 [--many-writes N] [--server-each N] [--night-records N] [VERB...])"
            ),
        }
    }
    // No verb named: everything. Otherwise the crash-trial verbs named, and
    // the many-writers run when `many_writers` is among them.
    let all = verbs.is_empty();
    let many = all || verbs.iter().any(|v| v == "many_writers");
    let server = all || verbs.iter().any(|v| v == "server");
    verbs.retain(|v| v != "many_writers" && v != "server");
    if all || !verbs.is_empty() {
        let mut cmd = cargo();
        cmd.arg("test");
        if release {
            cmd.arg("--release");
        }
        cmd.args(["-p", "am-cli", "--test", "crash_trials", "--"])
            .args(&verbs)
            .env("AM_CRASH_TRIALS", &trials)
            .env("AM_CRASH_SEED", &seed);
        if let Some(w) = writes {
            cmd.env("AM_CRASH_WRITES", w);
        }
        println!("crash trials: {trials} per verb, seed {seed}");
        let status = cmd.status()?;
        if !status.success() {
            bail!("the crash trials failed ({status})");
        }
    }
    if many {
        println!("many writers: 4 processes x {many_writes} writes, 2 readers");
        let mut cmd = cargo();
        cmd.arg("test");
        if release {
            cmd.arg("--release");
        }
        let status = cmd
            .args(["-p", "am-cli", "--test", "many_writers"])
            .env("AM_MANY_WRITES", &many_writes)
            .status()?;
        if !status.success() {
            bail!("the many-writers run failed ({status})");
        }
    }
    if server {
        println!(
            "server: 16 clients x {server_each} formations + recalls on one home; a night over \
             {night_records} records cancelled mid-night"
        );
        let mut cmd = cargo();
        cmd.arg("test");
        if release {
            cmd.arg("--release");
        }
        let status = cmd
            .args(["-p", "am-cli", "--test", "server", "--"])
            .args([
                "sixteen_clients",
                "a_night_cancelled",
                "--nocapture",
                "--test-threads",
                "1",
            ])
            .env("AM_SERVER_LOAD_EACH", &server_each)
            .env("AM_SERVER_NIGHT_RECORDS", &night_records)
            .status()?;
        if !status.success() {
            bail!("the server soak failed ({status})");
        }
    }
    Ok(())
}
