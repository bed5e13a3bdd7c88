//! Extension points that cannot be half-done: a corruption family, a monitor, a scenario domain or
//! a scenario left out of the list the tables, the page and the pack read fails here.

use std::collections::BTreeSet;

use shr_core::monitor::{MonitorKind, Monitors};
use shr_eval::exhaustive::variants;
use shr_eval::perturb::{Family, Mode};
use shr_eval::scenario::{self, Executor, Pack, DOMAINS, PAPER_SCENARIOS, SCENARIO_FILES};

/// `all` lists every variant of `T` once, in declaration order.
fn lists_every_variant<T: serde::de::DeserializeOwned + PartialEq + std::fmt::Debug>(all: &[T], what: &str) {
    let every = variants::<T>();
    assert!(!every.is_empty(), "{what}: no variant found (only unit variants can be listed)");
    assert_eq!(all, every.as_slice(), "{what} must list every variant, in declaration order");
}

#[test]
fn the_variant_finder_sees_every_variant_and_no_more() {
    assert_eq!(variants::<Executor>(), [Executor::Shr, Executor::React, Executor::Static]);
}

#[test]
fn family_all_lists_every_corruption_family() {
    lists_every_variant(&Family::ALL, "Family::ALL");
    for f in Family::ALL {
        assert_eq!(Family::from_name(f.name()), Some(f), "{f:?} has a name that reads back");
    }
}

#[test]
fn monitor_kind_all_lists_every_monitor_and_the_default_set_runs_each() {
    lists_every_variant(&MonitorKind::ALL, "MonitorKind::ALL");
    let kinds: BTreeSet<MonitorKind> = Monitors::default().kinds().into_iter().collect();
    assert_eq!(kinds, MonitorKind::ALL.into_iter().collect(), "the default monitors run every kind");
    let labels: BTreeSet<&str> = MonitorKind::ALL.iter().map(|k| k.label()).collect();
    assert_eq!(labels.len(), MonitorKind::ALL.len(), "each monitor has its own label");
}

#[test]
fn mode_and_executor_lists_are_complete() {
    let modes: BTreeSet<String> = variants::<Mode>().iter().map(|m| format!("{m:?}")).collect();
    let listed: BTreeSet<String> = Mode::ALL.iter().map(|m| format!("{m:?}")).collect();
    assert_eq!(modes, listed, "Mode::ALL");
    lists_every_variant(&Executor::ALL, "Executor::ALL");
}

fn scenario_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios")
}

/// Every JSON file in crates/eval/scenarios (not the cyclic graphs nor literal/): (stem, keys).
fn files_on_disk() -> Vec<(String, serde_json::Map<String, serde_json::Value>)> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(scenario_dir()).unwrap() {
        let path = e.unwrap().path();
        if path.extension().is_none_or(|x| x != "json") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let serde_json::Value::Object(obj) = serde_json::from_str(&text).unwrap() else { continue };
        out.push((path.file_stem().unwrap().to_string_lossy().into_owned(), obj));
    }
    out
}

#[test]
fn every_domain_file_is_in_the_domain_list() {
    let listed: BTreeSet<&str> = DOMAINS.iter().map(|d| d.name).collect();
    assert_eq!(listed.len(), DOMAINS.len(), "each domain once");
    for (stem, obj) in files_on_disk() {
        // A domain file: a graph with its static workflow (the cyclic graphs have neither key).
        if obj.contains_key("graph") && obj.contains_key("workflow") {
            assert!(listed.contains(stem.as_str()), "scenarios/{stem}.json is a domain missing from DOMAINS");
        }
    }
    let pack = scenario::pack().unwrap();
    for d in DOMAINS {
        assert!(!d.title.is_empty() && d.text.contains("\"graph\""), "{}", d.name);
        assert!(pack.iter().any(|s| s.domain == d.name), "domain {} has no scenario", d.name);
    }
}

#[test]
fn every_scenario_file_is_in_the_pack_and_the_papers_19_are_there() {
    let embedded: BTreeSet<String> =
        SCENARIO_FILES.iter().map(|(f, _)| f.trim_end_matches(".json").into()).collect();
    for (stem, obj) in files_on_disk() {
        if obj.contains_key("domain") {
            assert!(embedded.contains(&stem), "scenarios/{stem}.json is missing from SCENARIO_FILES");
        }
    }
    let pack = scenario::pack().unwrap();
    for id in PAPER_SCENARIOS {
        let s = pack.iter().find(|s| s.id == id).unwrap_or_else(|| panic!("the paper's {id} is missing"));
        assert_eq!(s.pack, Pack::Paper, "{id}");
    }
    // A scenario of our own is not counted in the paper's comparisons.
    let own = scenario::Scenario::from_json(
        "X1.json",
        &SCENARIO_FILES[0].1.replacen("\"S1\"", "\"X1\"", 1),
        &scenario::domains().unwrap(),
    )
    .unwrap();
    assert_eq!(own.pack, Pack::Extra);
}
