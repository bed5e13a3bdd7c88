//! The embedded packs: the domain list ([`DOMAINS`]), the paper's scenarios
//! ([`PAPER_SCENARIOS`]), the scenario files, and the paper's literal readings of some of them.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

use super::{err, field, object, Domain, Expected, FailureSpec, Scenario, ScenarioError};

/// A scenario domain: the name scenario files give as `domain`, the title the bench tables and
/// the page's picker show, the paper's table it reproduces (if any), and its file. The bench, the
/// page and [`pack`] read this one list; a test fails on a domain file left out of it.
#[derive(Clone, Copy, Debug)]
pub struct DomainFile {
    pub name: &'static str,
    pub title: &'static str,
    /// `"Table 1"`: the paper's table of this domain (`None`: a domain of our own).
    pub paper_table: Option<&'static str>,
    pub text: &'static str,
}

/// The embedded domains, in the paper's order.
pub const DOMAINS: [DomainFile; 3] = [
    DomainFile {
        name: "customer_support",
        title: "Customer support (linear pipeline)",
        paper_table: Some("Table 1"),
        text: include_str!("../../scenarios/customer_support.json"),
    },
    DomainFile {
        name: "travel_booking",
        title: "Travel booking (dependency DAG)",
        paper_table: Some("Table 2"),
        text: include_str!("../../scenarios/travel_booking.json"),
    },
    DomainFile {
        name: "content_moderation",
        title: "Content moderation (parallel fan-out)",
        paper_table: Some("Table 3"),
        text: include_str!("../../scenarios/content_moderation.json"),
    },
];

/// The embedded domain named `name`.
pub fn domain_file(name: &str) -> Option<&'static DomainFile> {
    DOMAINS.iter().find(|d| d.name == name)
}

/// The paper's scenarios (seed 000, section 3), in its order: the paper's pack. The paper's
/// comparisons (Table 4, the LLM-call reduction) run over these only; any other scenario is
/// [`Pack::Extra`], shown in its own table.
pub const PAPER_SCENARIOS: [&str; 19] = [
    "S1", "S2", "S3", "S4", "S5", "S6", "S7", "T1", "T2", "T3", "T4", "T5", "T6", "M1", "M2", "M3", "M4",
    "M5", "M6",
];

/// Which pack a scenario belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Pack {
    /// One of the paper's 19 (its id is in [`PAPER_SCENARIOS`], its domain has a paper table).
    Paper,
    /// A scenario of our own.
    Extra,
}

impl Pack {
    /// The pack of a scenario with this id and domain.
    pub fn of(id: &str, domain: &str) -> Pack {
        let paper_domain = domain_file(domain).is_some_and(|d| d.paper_table.is_some());
        if paper_domain && PAPER_SCENARIOS.contains(&id) {
            Pack::Paper
        } else {
            Pack::Extra
        }
    }
}

/// The embedded scenario files: the paper's 19 in its order, then any of our own.
pub const SCENARIO_FILES: [(&str, &str); 19] = [
    ("S1.json", include_str!("../../scenarios/S1.json")),
    ("S2.json", include_str!("../../scenarios/S2.json")),
    ("S3.json", include_str!("../../scenarios/S3.json")),
    ("S4.json", include_str!("../../scenarios/S4.json")),
    ("S5.json", include_str!("../../scenarios/S5.json")),
    ("S6.json", include_str!("../../scenarios/S6.json")),
    ("S7.json", include_str!("../../scenarios/S7.json")),
    ("T1.json", include_str!("../../scenarios/T1.json")),
    ("T2.json", include_str!("../../scenarios/T2.json")),
    ("T3.json", include_str!("../../scenarios/T3.json")),
    ("T4.json", include_str!("../../scenarios/T4.json")),
    ("T5.json", include_str!("../../scenarios/T5.json")),
    ("T6.json", include_str!("../../scenarios/T6.json")),
    ("M1.json", include_str!("../../scenarios/M1.json")),
    ("M2.json", include_str!("../../scenarios/M2.json")),
    ("M3.json", include_str!("../../scenarios/M3.json")),
    ("M4.json", include_str!("../../scenarios/M4.json")),
    ("M5.json", include_str!("../../scenarios/M5.json")),
    ("M6.json", include_str!("../../scenarios/M6.json")),
];

/// The embedded domains ([`DOMAINS`]).
pub fn domains() -> Result<Vec<Domain>, ScenarioError> {
    DOMAINS.iter().map(|d| Domain::from_json(d.name, &format!("{}.json", d.name), d.text)).collect()
}

/// The embedded scenarios, the paper's 19 first in its order: parsed once, then shared. An embedded file
/// that does not parse is an error naming it, every time it is asked for.
pub fn pack() -> Result<&'static [Scenario], ScenarioError> {
    static PACK: std::sync::OnceLock<Result<Vec<Scenario>, ScenarioError>> = std::sync::OnceLock::new();
    let parsed = PACK.get_or_init(|| {
        let domains = domains()?;
        SCENARIO_FILES.iter().map(|(file, text)| Scenario::from_json(file, text, &domains)).collect()
    });
    match parsed {
        Ok(pack) => Ok(pack),
        Err(e) => Err(e.clone()),
    }
}

/// One embedded scenario by id (`"S2"`, any case).
pub fn get(id: &str) -> Result<Scenario, ScenarioError> {
    pack()?
        .iter()
        .find(|s| s.id.eq_ignore_ascii_case(id))
        .cloned()
        .ok_or_else(|| err("", "id", format!("no embedded scenario `{id}` (S1-S7, T1-T6, M1-M6)")))
}

/// The paper's literal readings: the domain they need beside the three.
pub const LITERAL_DOMAIN_FILES: [(&str, &str); 1] =
    [("content_moderation_single", include_str!("../../scenarios/literal/content_moderation_single.json"))];

/// The paper's literal readings, as variants of the 19.
pub const LITERAL_FILE: &str = include_str!("../../scenarios/literal/readings.json");

/// A variant of one of the 19 scenarios that reads the paper as written where the project chose
/// another reading: its own failures or domain, and the outcome that reading implies.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ReadingSpec {
    id: String,
    of: String,
    title: String,
    why: String,
    #[serde(default)]
    domain: Option<String>,
    #[serde(default)]
    failures: Option<Vec<FailureSpec>>,
    expected: Expected,
}

/// A literal reading and the scenario it varies.
#[derive(Clone, Debug)]
pub struct Reading {
    /// The id of the scenario it is a reading of (`"T5"`).
    pub of: String,
    /// Why it differs, and where the paper says it.
    pub why: String,
    pub scenario: Scenario,
}

/// The embedded literal readings, in file order. Errors name the file and the field.
pub fn literal_readings() -> Result<Vec<Reading>, ScenarioError> {
    let file = "literal/readings.json";
    let obj = object(file, LITERAL_FILE)?;
    let specs: Vec<ReadingSpec> = field(file, &obj, "readings")?;
    let extra: Vec<Domain> = LITERAL_DOMAIN_FILES
        .iter()
        .map(|(name, text)| Domain::from_json(name, &format!("literal/{name}.json"), text))
        .collect::<Result<_, _>>()?;
    specs
        .into_iter()
        .enumerate()
        .map(|(i, r)| {
            let at = |f: &str| format!("readings[{i}].{f}");
            let mut s = get(&r.of).map_err(|e| err(file, &at("of"), e.message))?;
            if let Some(name) = &r.domain {
                let d = extra
                    .iter()
                    .find(|d| &d.name == name)
                    .ok_or_else(|| err(file, &at("domain"), format!("unknown domain `{name}`")))?;
                s.domain = d.name.clone();
                s.graph = d.graph.clone();
                s.workflow = d.workflow.clone();
                s.llm = d.llm.clone();
                s.react = d.react.clone();
            }
            if let Some(f) = r.failures {
                s.failures = f;
            }
            let known = |f: String, id: &str| match s.graph.index(id) {
                Some(_) => Ok(()),
                None => Err(err(file, &at(&f), format!("unknown node `{id}`"))),
            };
            for (j, f) in s.failures.iter().enumerate() {
                known(format!("failures[{j}].tool"), &f.tool)?;
            }
            known("expected.goal".into(), &r.expected.goal)?;
            for (j, p) in r.expected.path.iter().enumerate() {
                known(format!("expected.path[{j}]"), p)?;
            }
            for (j, e) in r.expected.escalations.iter().enumerate() {
                if let Some(d) = &e.demoted_to {
                    known(format!("expected.escalations[{j}].demoted_to"), d)?;
                }
            }
            s.id = r.id;
            s.title = r.title;
            s.description = r.why.clone();
            s.expected = r.expected;
            Ok(Reading { of: r.of, why: r.why, scenario: s })
        })
        .collect()
}
