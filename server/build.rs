//! Rebuild when the versioned migrations change: refinery embeds them at compile time.
fn main() {
    println!("cargo:rerun-if-changed=../migrations");
}
