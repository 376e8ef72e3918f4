//! Lists `migrations/NNNN_description.sql` for the store, so a new file there is applied
//! without touching the code: version from the number, description from the rest of the name.
//! A migration the two databases must run differently (an index built `CONCURRENTLY` on
//! PostgreSQL) is a pair, `NNNN_description.sqlite.sql` and `NNNN_description.postgres.sql`.

use std::fmt::Write;
use std::path::Path;

fn main() {
    // Read when the script runs, not when it was compiled: one build cache serves clones at
    // different paths, and a compiled-in path would point at whichever clone built it first.
    let manifest = std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let dir = Path::new(&manifest).join("migrations");
    println!("cargo:rerun-if-changed={}", dir.display());
    // (version, description, backend or "" for both, path)
    let mut found: Vec<(i64, String, String, String)> = std::fs::read_dir(&dir)
        .expect("crates/server/migrations is readable")
        .map(|entry| entry.expect("a readable directory entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "sql"))
        .map(|path| {
            let stem = path
                .file_stem()
                .and_then(|s| s.to_str())
                .unwrap_or_default();
            let (stem, backend) = match stem.rsplit_once('.') {
                Some((stem, backend @ ("sqlite" | "postgres"))) => (stem, backend),
                Some(_) => panic!("migration {stem:?}: only .sqlite.sql or .postgres.sql"),
                None => (stem, ""),
            };
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
                backend.to_owned(),
                absolute.display().to_string(),
            )
        })
        .collect();
    found.sort();
    let mut code = String::from("&[\n");
    for group in found.chunk_by(|a, b| a.0 == b.0) {
        let (version, description) = (group[0].0, &group[0].1);
        let path_for = |backend: &str| {
            group
                .iter()
                .find(|m| m.2 == backend || m.2.is_empty())
                .map(|m| m.3.clone())
                .unwrap_or_else(|| panic!("migration {version} has no file for {backend}"))
        };
        assert!(
            group.len() == 1 && group[0].2.is_empty()
                || group.len() == 2 && group.iter().all(|m| m.1 == *description && !m.2.is_empty()),
            "migration {version}: one NNNN_description.sql, or the same name as .sqlite.sql \
             and .postgres.sql"
        );
        let (sqlite, postgres) = (path_for("sqlite"), path_for("postgres"));
        writeln!(
            code,
            "    ({version}, {description:?}, include_str!({sqlite:?}), include_str!({postgres:?})),"
        )
        .expect("writing to a String");
    }
    code.push_str("]\n");
    let out =
        Path::new(&std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("migrations.rs");
    std::fs::write(out, code).expect("OUT_DIR is writable");
}
