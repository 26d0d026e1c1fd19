//! The `am` command (not yet built beyond `am version`): the main job (`am demo`),
//! ingest, recall, query, inspect, `am exec` and `am eval locomo`.

fn main() {
    println!("am {}", env!("CARGO_PKG_VERSION"));
}
