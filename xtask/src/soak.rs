//! `cargo xtask soak [--trials N] [--writes N] [--seed N] [VERB...]`: the crash
//! trials of `am-cli/tests/crash_trials.rs` with more trials than CI runs (a
//! writer process SIGKILLed at random moments, the home reopened and checked).
//! Prints, per verb, the trials, how many kills landed mid-script, the
//! acknowledged writes checked, torn units and lost acknowledged writes.

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
    let mut verbs: Vec<String> = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = |name: &str| -> Result<String> {
            match it.next() {
                Some(v) if v.parse::<u64>().is_ok() => Ok(v.clone()),
                other => bail!("{name} takes a non-negative integer, got {other:?}"),
            }
        };
        match a.as_str() {
            "--trials" => trials = value("--trials")?,
            "--writes" => writes = Some(value("--writes")?),
            "--seed" => seed = value("--seed")?,
            v if !v.starts_with('-') => verbs.push(v.to_owned()),
            other => bail!(
                "unknown soak argument {other:?} (usage: soak [--trials N] [--writes N] [--seed N] [VERB...])"
            ),
        }
    }
    let mut cmd = cargo();
    cmd.args(["test", "-p", "am-cli", "--test", "crash_trials", "--"])
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
    Ok(())
}
