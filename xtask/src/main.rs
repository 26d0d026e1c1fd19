//! Repository tasks: `cargo xtask conformance [--backend NAME]`, `bench`, `tidy`.

fn main() {
    println!("xtask: no task yet");
}
