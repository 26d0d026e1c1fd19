//! `cargo xtask fuzz [--minutes N]`: the proptest fuzz targets of every parser
//! a host feeds (`am-cli/tests/fuzz_parsers.rs`), each run for N minutes
//! (default 1) of fresh cases instead of CI's short run. Prints each target's
//! case count and time.

use crate::workspace::cargo;
use anyhow::{Result, bail};

/// Run the fuzz targets.
///
/// # Errors
/// A bad argument, or a target that found a failing case.
pub fn run(args: &[String]) -> Result<()> {
    let minutes: u64 = match args {
        [] => 1,
        [flag, n] if flag == "--minutes" => n
            .parse()
            .map_err(|_| anyhow::anyhow!("--minutes takes a whole number, got {n:?}"))?,
        other => bail!("usage: fuzz [--minutes N], got {other:?}"),
    };
    println!("fuzz: every target for {minutes} minute(s)");
    let status = cargo()
        .args([
            "test",
            "-p",
            "am-cli",
            "--test",
            "fuzz_parsers",
            "--",
            "--nocapture",
            "--test-threads",
            "1",
        ])
        .env("AM_FUZZ_SECONDS", (minutes * 60).to_string())
        .status()?;
    if !status.success() {
        bail!("a fuzz target failed ({status})");
    }
    Ok(())
}
