//! Repository tasks: `cargo xtask conformance [--backend NAME]`, `cargo xtask tidy`,
//! `cargo xtask test` (the README's test command), `cargo xtask bench [--quick] [--no-lance] [--only BENCH] [--profile NAME]`
//! `cargo xtask soak [--trials N]` (crash trials, many writers), `cargo xtask badinput` and
//! `cargo xtask fuzz [--minutes N]`.
//!
//! `conformance` runs each backend crate's single `tests/conformance.rs` and prints
//! one line per check and backend; `tidy` checks the layering and the `//!` docs
//! (it also runs as an ordinary `#[test]`); `test` makes sure the Python oracle's
//! virtual environment exists (and chromium with chromium-driver, for the
//! operator page's browser test), the MiniLM weights and moto, exports
//! `AM_ORACLE_PYTHON`, `AM_MINILM_DIR` and `AM_MOTO_PYTHON`, and runs
//! `cargo test --workspace --features` [`oracle::TEST_FEATURES`] (one build for
//! every test, the feature-gated ones included), then builds the Python package
//! once (dev profile) and runs its pytest suite.

#![allow(
    unreachable_pub,
    reason = "a binary exports nothing: its modules' `pub` is crate-wide by construction"
)]

mod badinput;
mod bench;
mod browser;
mod conformance;
mod fuzz;
mod oracle;
mod python;
mod soak;
mod tidy;
mod workspace;

use anyhow::{Result, bail};

const USAGE: &str = "\
usage: cargo xtask <task>

tasks:
  conformance [--backend NAME]   run the conformance suite of every backend (or one)
  tidy                           check layering, lints opt-in and //! module docs
  test [ARGS...]                 ensure the oracle venv (and chromium, the MiniLM weights, moto), then
                                 cargo test --workspace --features TEST_FEATURES ARGS;
                                 then the Python package's pytest suite (one dev build)
  pytest                         only the Python package: maturin develop (dev) into its venv, then pytest
  bench [--quick] [--no-lance] [--only BENCH] [--profile NAME]
                                 run the benches with targets; print ours vs target vs Python 0.3.2
  badinput                       the am exec bad-input catalogue (each refused, the home unchanged)
  fuzz [--release] [--minutes N] [TARGET...]
                                 the parser fuzz targets, N minutes each (default 1)
  soak [--release] [--trials N] [--writes N] [--seed N] [--many-writes N] [--server-each N]
       [--night-records N] [VERB...]
                                 crash trials: SIGKILLed writers, the home checked (default 1000 per verb),
                                 then 4 writer processes x N writes on one home (default 10000; VERB many_writers),
                                 then am serve: 16 clients x N formations + recalls (default 500) and a night
                                 cancelled mid-night through the jobs endpoint (VERB server)
  protoc                         print the vendored protoc for a plain cargo (empty if PATH has one)
  test-features                  print the features the tests build with (TEST_FEATURES)
";

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((task, rest)) = args.split_first() else {
        print!("{USAGE}");
        bail!("no task given");
    };
    match task.as_str() {
        "conformance" => conformance::run(rest),
        "tidy" => {
            if !rest.is_empty() {
                bail!("tidy takes no arguments, got {rest:?}");
            }
            tidy::run()
        }
        "test" => {
            // The operator page's test drives a real browser.
            browser::ensure()?;
            // The Python package's suite runs whatever the Rust suite said.
            let rust = oracle::test(rest);
            let python = python::test(&workspace::Workspace::load()?.root);
            rust.and(python)
        }
        "pytest" => {
            if !rest.is_empty() {
                bail!("pytest takes no arguments, got {rest:?}");
            }
            python::test(&workspace::Workspace::load()?.root)
        }
        "bench" => bench::run(rest),
        "soak" => soak::run(rest),
        "badinput" => badinput::run(rest),
        "fuzz" => fuzz::run(rest),
        "test-features" => {
            // The features the tests build with, for `.ci/run`'s clippy.
            println!("{}", oracle::TEST_FEATURES);
            Ok(())
        }
        "protoc" => {
            // The PROTOC a plain `cargo` needs on this machine (empty when the
            // machine has its own): `export PROTOC="$(cargo xtask protoc)"`.
            if let Some(path) = workspace::vendored_protoc() {
                println!("{}", path.display());
            }
            Ok(())
        }
        "-h" | "--help" | "help" => {
            print!("{USAGE}");
            Ok(())
        }
        other => {
            print!("{USAGE}");
            bail!("unknown task {other:?}")
        }
    }
}
