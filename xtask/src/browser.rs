//! The browser the operator page's test drives (`am-cli/tests/server/page.rs`):
//! Debian's `chromium` and `chromium-driver`, installed with apt when either
//! binary is missing (as root, or through `sudo -n`), quietly, once. `.ci/run`
//! installs them the same way; the test itself fails, never skips, without
//! them.

use anyhow::{Context, Result, bail};
use std::process::{Command, Stdio};

fn on_path(name: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(name).is_file()))
}

fn as_root(args: &[&str]) -> Command {
    // Root runs apt itself; anyone else through `sudo -n` (never a prompt).
    let root = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0");
    let mut cmd = if root {
        Command::new(args[0])
    } else {
        let mut c = Command::new("sudo");
        c.arg("-n").arg(args[0]);
        c
    };
    cmd.args(&args[1..])
        .env("DEBIAN_FRONTEND", "noninteractive")
        .stdin(Stdio::null());
    cmd
}

/// Make sure `chromium` and `chromedriver` are on PATH (`AM_CHROMIUM` and
/// `AM_CHROMEDRIVER` naming others count too).
///
/// # Errors
/// When they are missing and apt cannot install them.
pub fn ensure() -> Result<()> {
    let have = |var: &str, name: &str| std::env::var_os(var).is_some() || on_path(name);
    if have("AM_CHROMIUM", "chromium") && have("AM_CHROMEDRIVER", "chromedriver") {
        return Ok(());
    }
    println!("xtask: installing chromium and chromium-driver (the operator page's browser test)");
    for args in [
        &["apt-get", "update", "-q"][..],
        &[
            "apt-get",
            "install",
            "-y",
            "-q",
            "chromium",
            "chromium-driver",
        ][..],
    ] {
        let out = as_root(args)
            .output()
            .with_context(|| format!("running {}", args.join(" ")))?;
        if !out.status.success() {
            bail!(
                "{} failed: {}",
                args.join(" "),
                String::from_utf8_lossy(&out.stderr).trim()
            );
        }
    }
    if !on_path("chromium") || !on_path("chromedriver") {
        bail!(
            "apt installed chromium and chromium-driver, yet chromium or chromedriver is not on PATH"
        );
    }
    Ok(())
}
