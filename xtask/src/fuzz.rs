//! `cargo xtask fuzz [--release] [--minutes N] [TARGET...]`: the proptest fuzz targets of every parser
//! a host feeds (`am-cli/tests/fuzz_parsers.rs`), each run for N minutes
//! (default 1) of fresh cases instead of CI's short run. Prints each target's
//! case count and time. `--release` builds the targets optimized; `TARGET`
//! names targets (`fuzz_timestamps`, ...) to run, every one when none is named.

use crate::workspace::cargo;
use anyhow::{Result, bail};

/// Run the fuzz targets.
///
/// # Errors
/// A bad argument, or a target that found a failing case.
pub fn run(args: &[String]) -> Result<()> {
    let mut minutes: u64 = 1;
    let mut release = false;
    let mut targets: Vec<String> = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--release" => release = true,
            "--minutes" => {
                let n = it.next().map(String::as_str).unwrap_or_default();
                minutes = n
                    .parse()
                    .map_err(|_| anyhow::anyhow!("--minutes takes a whole number, got {n:?}"))?;
            }
            t if !t.starts_with('-') => targets.push(t.to_owned()),
            other => bail!("usage: fuzz [--release] [--minutes N] [TARGET...], got {other:?}"),
        }
    }
    println!("fuzz: every target for {minutes} minute(s)");
    let mut cmd = cargo();
    cmd.arg("test");
    if release {
        cmd.arg("--release");
    }
    let status = cmd
        .args([
            "-p",
            "am-cli",
            "--test",
            "fuzz_parsers",
            "--",
            "--nocapture",
            "--test-threads",
            "1",
        ])
        .args(&targets)
        .env("AM_FUZZ_SECONDS", (minutes * 60).to_string())
        .status()?;
    if !status.success() {
        bail!("a fuzz target failed ({status})");
    }
    Ok(())
}
