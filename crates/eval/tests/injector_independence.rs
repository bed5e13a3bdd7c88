//! The fault injector and the validators are written apart: no code, no constant and no
//! contract word of one appears in the other (else a validator could catch a fault only because
//! it was written knowing it). Split from fault_model.rs.

use shr_eval::perturb::contract;

/// Words of Rust code (identifiers and numbers), comments left out.
fn code_words(text: &str) -> Vec<String> {
    text.lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .flat_map(|l| l.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.')))
        .flat_map(|w| w.split('.'))
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

/// Numbers written in code or data, comments and attributes left out, as values (`60_000`,
/// `60000.0` and `6e4` are the same number).
fn numbers(text: &str) -> Vec<(String, f64)> {
    text.lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .filter(|l| !l.trim_start().starts_with("#["))
        .flat_map(|l| l.split(|c: char| !(c.is_ascii_alphanumeric() || c == '.' || c == '_')))
        .map(|t| t.trim_matches('.').replace('_', ""))
        .filter(|t| t.chars().next().is_some_and(|c| c.is_ascii_digit()))
        .map(|t| {
            let bare = ["u8", "u16", "u32", "u64", "usize", "i32", "i64", "f32", "f64"]
                .iter()
                .find_map(|s| t.strip_suffix(s))
                .unwrap_or(&t);
            let value = match bare.strip_prefix("0x") {
                Some(hex) => u64::from_str_radix(hex, 16).map_or(f64::NAN, |x| x as f64),
                None => bare.parse::<f64>().unwrap_or(f64::NAN),
            };
            (t.clone(), value)
        })
        .collect()
}

/// String literals, comments and attributes left out.
fn literals(text: &str) -> Vec<String> {
    let code: String = text
        .lines()
        .filter(|l| !l.trim_start().starts_with("//") && !l.trim_start().starts_with("#["))
        .collect::<Vec<_>>()
        .join("\n");
    code.split('"')
        .enumerate()
        .filter(|(i, p)| i % 2 == 1 && !p.is_empty())
        .map(|(_, p)| p.to_string())
        .collect()
}

/// Every field name a contract declares or refers to (`fields`), and every other string in it
/// (`values`: allowed values).
fn contract_words(json: &serde_json::Value, fields: &mut Vec<String>, values: &mut Vec<String>) {
    match json {
        serde_json::Value::Object(m) => {
            for (k, v) in m {
                match (k.as_str(), v) {
                    ("field" | "equals" | "length_equals", serde_json::Value::String(path)) => {
                        fields.extend(
                            path.split('.').filter(|p| !["context", "output"].contains(p)).map(String::from),
                        );
                    }
                    // The promise in words, and JSON's own type names (`string`, `array`): the
                    // vocabulary of JSON, not of a tool.
                    ("contract" | "type", _) => {}
                    _ => contract_words(v, fields, values),
                }
            }
        }
        serde_json::Value::Array(a) => a.iter().for_each(|v| contract_words(v, fields, values)),
        serde_json::Value::String(s) => values.push(s.clone()),
        _ => {}
    }
}

/// The injector is written without the validators: no code line of it names their modules, the
/// contracts, the task templates or the clean answers; no field a contract names is a word of
/// it; and it holds no string or number of theirs.
#[test]
fn the_injector_and_the_validators_share_no_code_or_constants() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let read = |p: &str| std::fs::read_to_string(root.join(p)).unwrap_or_else(|e| panic!("{p}: {e}"));
    let injector = read("src/perturb/corrupt.rs");
    let validators = read("../core/src/validate.rs");
    let theirs_code =
        ["src/perturb/contract.rs", "src/perturb/world.rs", "src/perturb/template.rs"].map(read);
    let contracts: Vec<(String, String)> = std::fs::read_dir(root.join("contracts"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .map(|p| (p.display().to_string(), std::fs::read_to_string(&p).unwrap()))
        .collect();
    assert_eq!(contracts.len(), contract::NAMES.len(), "a contract file the test does not read");
    let tasks = read("tasks/perturb.json");

    // 1. No code line refers to the validators, the contracts, the templates, the clean answers or
    //    the judge, by any path; the only outside code it uses is a seeded generator.
    let words = code_words(&injector);
    for name in [
        "contract",
        "contracts",
        "validate",
        "Validator",
        "validators",
        "check_all",
        "Scope",
        "world",
        "Record",
        "answer",
        "EPOCH_MS",
        "template",
        "Template",
        "judge",
        "Judge",
        "super",
        "crate",
        "perturb",
        "tasks",
        "include_str",
        "include_bytes",
        "env",
    ] {
        assert!(!words.iter().any(|w| w == name), "corrupt.rs code refers to `{name}`");
    }
    for line in injector.lines().map(|l| l.split("//").next().unwrap_or("")) {
        if let Some(path) = line.split("shr_core::").nth(1) {
            assert!(path.starts_with("rng::"), "corrupt.rs uses shr_core::{path}");
        }
    }

    // 2. No field a contract names is a word of the injector (comments included), and no value
    //    it allows is a word of its code; neither is in a string of it.
    let all_words: std::collections::BTreeSet<String> = injector
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .map(|w| w.to_ascii_lowercase())
        .collect();
    let lits = literals(&injector);
    let (mut fields, mut values) = (Vec::new(), Vec::new());
    for (path, text) in &contracts {
        let json: serde_json::Value = serde_json::from_str(text).unwrap_or_else(|e| panic!("{path}: {e}"));
        contract_words(&json, &mut fields, &mut values);
    }
    assert!(fields.iter().any(|f| f == "amount") && fields.iter().any(|f| f == "lines"), "{fields:?}");
    assert!(values.iter().any(|v| v == "EUR") && values.iter().any(|v| v == "succeeded"), "{values:?}");
    for f in &fields {
        assert!(!all_words.contains(&f.to_ascii_lowercase()), "corrupt.rs names the contract's `{f}`");
    }
    for v in &values {
        assert!(
            !words.iter().any(|w| w.eq_ignore_ascii_case(v)),
            "corrupt.rs code names the contract's `{v}`"
        );
    }
    for f in fields.iter().chain(&values) {
        assert!(!lits.iter().any(|l| l.contains(f.as_str())), "corrupt.rs holds the contract's \"{f}\"");
    }

    // 3. No string of the validators' code, the contract or template modules, the clean answers,
    //    or the data files.
    let mut their_text: Vec<&str> = contracts.iter().map(|(_, t)| t.as_str()).collect();
    their_text.push(&tasks);
    let their_lits: Vec<String> = [literals(&validators)]
        .into_iter()
        .chain(theirs_code.iter().map(|c| literals(c)))
        .flatten()
        .collect();
    for lit in &lits {
        let quoted = format!("\"{lit}\"");
        assert!(!their_text.iter().any(|t| t.contains(&quoted)), "corrupt.rs and a data file share {quoted}");
        assert!(!their_lits.contains(lit), "corrupt.rs and the validators or the world share {quoted}");
    }

    // 4. No number of the contracts, the templates, the validators' code or the contract and
    //    template modules, compared as values. (The clean answers' numbers are not theirs: a
    //    day's length in ms or cents' rounding is shared knowledge, not a check.) Only these are
    //    allowed in both, each for a reason that is arithmetic, not knowledge of a tool:
    let arithmetic = [
        0.0,  // the sign boundary (`x > 0`: a number that can turn negative) and the first index
        1.0,  // one step: a shift of at least one digit, a nudge when rounding undid the change
        2.0,  // halving a list, a fair coin
        10.0, // a digit's base
    ];
    let contract_numbers: Vec<f64> = contracts
        .iter()
        .flat_map(|(_, t)| numbers(t))
        .chain(numbers(&tasks))
        .chain(numbers(&validators))
        .chain(numbers(&theirs_code[0]))
        .chain(numbers(&theirs_code[2]))
        .map(|(_, v)| v)
        .collect();
    for (token, value) in numbers(&injector) {
        assert!(!value.is_nan(), "corrupt.rs: `{token}` is not read as a number");
        if arithmetic.contains(&value) {
            continue;
        }
        assert!(!contract_numbers.contains(&value), "corrupt.rs and the validators share the number {token}");
    }
}
