//! `cargo xtask badinput`: the bad-input catalogue of `am exec`
//! (`am-cli/tests/badinput.rs`): every case against a fresh home, each to be
//! refused with an error kind and leave the home's bytes unchanged. Prints the
//! count, the error kinds, and any case accepted, crashed or changing the home.

use crate::workspace::cargo;
use anyhow::{Result, bail};

/// Run the catalogue.
///
/// # Errors
/// An argument given, or a case that was not refused cleanly.
pub fn run(args: &[String]) -> Result<()> {
    if !args.is_empty() {
        bail!("badinput takes no arguments, got {args:?}");
    }
    let status = cargo()
        .args([
            "test",
            "-p",
            "am-cli",
            "--test",
            "badinput",
            "--",
            "--nocapture",
        ])
        .status()?;
    if !status.success() {
        bail!("the bad-input catalogue failed ({status})");
    }
    Ok(())
}
