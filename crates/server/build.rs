//! Lists `migrations/NNNN_description.sql` for the store, so a new file there is applied
//! without touching the code: version from the number, description from the rest of the name.

use std::fmt::Write;
use std::path::Path;

fn main() {
    // Read when the script runs, not when it was compiled: one build cache serves clones at
    // different paths, and a compiled-in path would point at whichever clone built it first.
    let manifest = std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let dir = Path::new(&manifest).join("migrations");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut found: Vec<(i64, String, String)> = std::fs::read_dir(&dir)
        .expect("crates/server/migrations is readable")
        .map(|entry| entry.expect("a readable directory entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "sql"))
        .map(|path| {
            let stem = path
                .file_stem()
                .and_then(|s| s.to_str())
                .unwrap_or_default();
            let (number, description) = stem
                .split_once('_')
                .unwrap_or_else(|| panic!("migration {stem:?} is not named NNNN_description.sql"));
            let version = number
                .parse()
                .unwrap_or_else(|_| panic!("migration {stem:?} does not start with its number"));
            let absolute = path.canonicalize().expect("the migration's path");
            (
                version,
                description.replace('_', " "),
                absolute.display().to_string(),
            )
        })
        .collect();
    found.sort();
    for pair in found.windows(2) {
        assert!(
            pair[0].0 != pair[1].0,
            "two migrations numbered {}",
            pair[0].0
        );
    }
    let mut code = String::from("&[\n");
    for (version, description, path) in &found {
        writeln!(
            code,
            "    ({version}, {description:?}, include_str!({path:?})),"
        )
        .expect("writing to a String");
    }
    code.push_str("]\n");
    let out =
        Path::new(&std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("migrations.rs");
    std::fs::write(out, code).expect("OUT_DIR is writable");
}
