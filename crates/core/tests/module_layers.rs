//! The core's modules form layers, not cycles: each top-level module of `src/` uses only modules
//! below it. Checked from the source text (every `crate::<module>` and `super::<module>` path
//! outside comments), so a new upward `use` fails here with the cycle it makes.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Top-level module of a file under `src/` (`session/step.rs` -> `session`).
fn module_of(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).unwrap_or(file);
    let first =
        rel.components().next().map(|c| c.as_os_str().to_string_lossy().into_owned()).unwrap_or_default();
    first.trim_end_matches(".rs").to_string()
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let p = entry.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// Module -> the other top-level modules its code names.
fn dependencies() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let modules: BTreeSet<String> = files.iter().map(|f| module_of(&src, f)).filter(|m| m != "lib").collect();
    // A name re-exported at the root (`crate::Router`) stands for the module it comes from.
    let lib = std::fs::read_to_string(src.join("lib.rs")).unwrap();
    let mut reexports: BTreeMap<String, String> = BTreeMap::new();
    let flat = lib.replace('\n', " ");
    for stmt in flat.split(';') {
        let Some(path) = stmt.trim().strip_prefix("pub use ") else { continue };
        let module: String = path.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
        let names = path.rsplit(['{', ':']).next().unwrap_or("");
        for name in names.split([',', '}']) {
            let name = name.trim();
            if !name.is_empty() {
                reexports.insert(name.to_string(), module.clone());
            }
        }
    }
    let mut deps: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for f in &files {
        let m = module_of(&src, f);
        if m == "lib" {
            continue;
        }
        let text = std::fs::read_to_string(f).unwrap();
        let entry = deps.entry(m.clone()).or_default();
        for line in text.lines() {
            let code = line.trim_start();
            if code.starts_with("//") {
                continue;
            }
            // `use crate::{a, b::C}` names several modules at once.
            for (i, _) in code.match_indices("crate::") {
                let rest = &code[i + "crate::".len()..];
                let names: Vec<&str> = if let Some(group) = rest.strip_prefix('{') {
                    group.split(['}']).next().unwrap_or("").split(',').collect()
                } else {
                    vec![rest]
                };
                for name in names {
                    let head: String =
                        name.trim().chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                    let target = reexports.get(&head).cloned().unwrap_or(head);
                    if modules.contains(&target) && target != m {
                        entry.insert(target);
                    }
                }
            }
        }
    }
    deps
}

#[test]
fn core_modules_have_no_cycle() {
    let deps = dependencies();
    // Kahn's algorithm: peel off modules that use nothing left; what remains is a cycle.
    let mut left = deps.clone();
    let mut order = Vec::new();
    while !left.is_empty() {
        let ready: Vec<String> = left
            .iter()
            .filter(|(_, d)| d.iter().all(|x| !left.contains_key(x)))
            .map(|(m, _)| m.clone())
            .collect();
        assert!(!ready.is_empty(), "module cycle among: {left:#?}");
        for m in ready {
            left.remove(&m);
            order.push(m);
        }
    }
    println!("layers, lowest first: {}", order.join(" < "));
}

#[test]
fn the_router_alone_knows_no_lab() {
    let deps = dependencies();
    for lab in ["scenario", "perturb", "cyclic"] {
        assert!(!deps.contains_key(lab), "`{lab}` belongs to shr-eval, not the core");
    }
    assert!(deps["session"].iter().all(|d| d != "router"), "runs are driven by the router, not the reverse");
}
