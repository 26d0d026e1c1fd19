//! Issue 18's wall-clock side by side: the same workload with and without a
//! trivial commit guard, interleaved so that the machine's drift (load, disk
//! flushes, a growing home) falls on both alike.
//!
//! [`interleave`] runs round `r` of three variants back to back (the
//! unguarded home, an A/A control home also unguarded, the guarded home),
//! rotating which goes first, so the homes grow in lockstep and no variant
//! always follows another. Each variant's figure is the median of its
//! per-call times; the control's distance from the unguarded median is the
//! noise floor a guard's cost must be read against. [`record`] stores a workload's pair in
//! `<target>/guard_side_by_side.json`, which `cargo xtask bench` prints beside
//! the 2 % target.

use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The file under the cargo target directory the pairs are written to.
pub const FILE: &str = "guard_side_by_side.json";

/// One workload's interleaved medians.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pair {
    /// Rounds per variant.
    pub rounds: usize,
    /// The unguarded variant's median call, in nanoseconds.
    pub base_ns: f64,
    /// The A/A control's median call (a second unguarded home fed the same
    /// calls), in nanoseconds: how far two identical variants differ here.
    pub control_ns: f64,
    /// The guarded variant's median call, in nanoseconds.
    pub guarded_ns: f64,
}

impl Pair {
    /// The guarded median's change over the unguarded one, in percent.
    #[must_use]
    pub fn change_pct(&self) -> f64 {
        (self.guarded_ns / self.base_ns - 1.0) * 100.0
    }

    /// Whether the guarded median is within 2 % of the unguarded one, or no
    /// slower than 2 % above the slower of the two unguarded homes (the
    /// guard's cost is then smaller than what separates two identical homes:
    /// not measurable).
    #[must_use]
    pub fn not_measurable(&self) -> bool {
        self.change_pct() <= 2.0 || self.guarded_ns <= self.base_ns.max(self.control_ns) * 1.02
    }

    /// The control's change over the unguarded one, in percent: the
    /// machine's noise floor for this workload.
    #[must_use]
    pub fn control_pct(&self) -> f64 {
        (self.control_ns / self.base_ns - 1.0) * 100.0
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n == 0 {
        return f64::NAN;
    }
    if n % 2 == 1 {
        v[n / 2]
    } else {
        f64::midpoint(v[n / 2 - 1], v[n / 2])
    }
}

/// Run `rounds` calls of each of three variants, interleaved: round `r`
/// calls them in the order `[base, control, guarded]` rotated by `r % 3`, so
/// each runs first, second and third equally often. `base` and `control` are
/// the same unguarded workload on two homes (the A/A control), `guarded` the
/// same on a third home with the guard. Returns each variant's median call.
pub fn interleave(
    rounds: usize,
    base: impl FnMut(usize),
    control: impl FnMut(usize),
    guarded: impl FnMut(usize),
) -> Pair {
    let mut variants: [Box<dyn FnMut(usize)>; 3] =
        [Box::new(base), Box::new(control), Box::new(guarded)];
    let mut times: [Vec<f64>; 3] = std::array::from_fn(|_| Vec::with_capacity(rounds));
    for r in 0..rounds {
        for k in 0..3 {
            let v = (k + r) % 3;
            let t = Instant::now();
            variants[v](r);
            times[v].push(t.elapsed().as_secs_f64() * 1e9);
        }
    }
    let [b, c, g] = times;
    Pair {
        rounds,
        base_ns: median(b),
        control_ns: median(c),
        guarded_ns: median(g),
    }
}

/// The cargo target directory of the running bench binary
/// (`<target>/<profile>/deps/<bench>-*`), or `CARGO_TARGET_DIR`.
#[must_use]
pub fn target_dir(exe: &Path) -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR").map_or_else(
        || {
            exe.ancestors()
                .nth(3)
                .map_or_else(|| PathBuf::from("."), Path::to_path_buf)
        },
        PathBuf::from,
    )
}

/// Print `workload`'s pair and store it in `<target>/`[`FILE`] (replacing an
/// earlier pair of the same workload, keeping the others).
///
/// # Panics
/// When the file cannot be written (a bench's failure).
pub fn record(workload: &str, pair: &Pair) {
    println!(
        "guard_side_by_side/{workload}: guarded median {:.3} ms vs unguarded {:.3} ms over {} \
         interleaved rounds each: {:+.2} % (target <= +2 %); A/A control {:.3} ms: {:+.2} %; \
         not measurable: {}",
        pair.guarded_ns / 1e6,
        pair.base_ns / 1e6,
        pair.rounds,
        pair.change_pct(),
        pair.control_ns / 1e6,
        pair.control_pct(),
        pair.not_measurable()
    );
    let exe = std::env::current_exe().expect("this binary's path");
    let path = target_dir(&exe).join(FILE);
    let mut rows: Vec<Value> = std::fs::read_to_string(&path)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default();
    rows.retain(|r| r["workload"].as_str() != Some(workload));
    rows.push(json!({
        "workload": workload,
        "rounds": pair.rounds,
        "unguarded_ns": pair.base_ns,
        "guarded_ns": pair.guarded_ns,
        "control_ns": pair.control_ns,
        "change_pct": pair.change_pct(),
        "control_pct": pair.control_pct(),
        "not_measurable": pair.not_measurable(),
    }));
    std::fs::write(&path, serde_json::to_string_pretty(&rows).expect("json"))
        .unwrap_or_else(|e| panic!("writing {}: {e}", path.display()));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interleave_rotates_the_order_so_each_variant_runs_first_equally_often() {
        let order = std::cell::RefCell::new(Vec::new());
        let p = interleave(
            3,
            |r| order.borrow_mut().push(('b', r)),
            |r| order.borrow_mut().push(('c', r)),
            |r| order.borrow_mut().push(('g', r)),
        );
        assert_eq!(
            *order.borrow(),
            [
                ('b', 0),
                ('c', 0),
                ('g', 0),
                ('c', 1),
                ('g', 1),
                ('b', 1),
                ('g', 2),
                ('b', 2),
                ('c', 2)
            ]
        );
        assert_eq!(p.rounds, 3);
        assert!(p.base_ns > 0.0 && p.control_ns > 0.0 && p.guarded_ns > 0.0);
    }

    #[test]
    fn a_guard_is_not_measurable_within_2_percent_or_within_the_two_unguarded_homes() {
        let p = |b: f64, c: f64, g: f64| Pair {
            rounds: 1,
            base_ns: b,
            control_ns: c,
            guarded_ns: g,
        };
        assert!(p(100.0, 100.0, 101.9).not_measurable());
        assert!(!p(100.0, 100.0, 103.0).not_measurable());
        assert!(
            p(100.0, 130.0, 120.0).not_measurable(),
            "inside the A/A spread"
        );
        assert!(
            p(100.0, 130.0, 132.0).not_measurable(),
            "2 % above the slower home"
        );
        assert!(!p(100.0, 130.0, 134.0).not_measurable());
    }

    #[test]
    fn the_median_of_an_even_count_is_the_mean_of_the_middle_two() {
        assert!((median(vec![4.0, 1.0, 3.0, 2.0]) - 2.5).abs() < 1e-12);
        assert!((median(vec![5.0, 1.0, 3.0]) - 3.0).abs() < 1e-12);
    }
}
