//! CPU time per call for the benches that judge a bound on a shared
//! machine (reach, drives, communities): the thread's own time on a CPU beside wall time.

use std::time::Instant;

/// The calling thread's time on a CPU so far, in ns (Linux's
/// `/proc/thread-self/schedstat`), or `None` where it cannot be read: on a
/// shared machine it counts this thread's work, not the waits for a core
/// that wall time adds.
pub(crate) fn thread_cpu_ns() -> Option<u64> {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// The mean CPU time per call of `f` over `n` calls, printed under `label`.
pub(crate) fn cpu_per_call(label: &str, n: u32, mut f: impl FnMut()) {
    let Some(start) = thread_cpu_ns() else {
        return;
    };
    let wall = Instant::now();
    for _ in 0..n {
        f();
    }
    let wall = wall.elapsed().as_nanos() as f64 / f64::from(n);
    if let Some(end) = thread_cpu_ns() {
        let cpu = (end - start) as f64 / f64::from(n);
        let (unit, scale) = if cpu < 1e6 { ("µs", 1e3) } else { ("ms", 1e6) };
        println!(
            "{label}: {:.3} {unit} CPU time per call (wall {:.3} {unit}; mean of {n} calls)",
            cpu / scale,
            wall / scale
        );
    }
}
