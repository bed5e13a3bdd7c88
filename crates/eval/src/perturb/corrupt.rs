//! The injector: families of well-formed but wrong results (ToolMaze's implicit failures),
//! each a seeded generator over any JSON output.
//!
//! Written without looking at the validators: no generator names a field, a bound or an
//! allowed value. Each walks the output it is given and picks what to break by the value's
//! shape alone (a number, a string with digits, a list, a number the size of a time in
//! milliseconds), as a faulty service would. Whether the validators notice is measured, not
//! arranged: `tests/fault_model.rs` proves this module and the contracts share no code and no
//! constant.

use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Number, Value};

use shr_core::rng::SplitMix64;

/// A family of wrong results.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Family {
    /// A positive number turned negative.
    WrongSign,
    /// A number off by a small factor, positive and of the same kind: the kind of error a
    /// range check cannot see.
    Plausible,
    /// A field left out.
    MissingField,
    /// A value of another JSON type (a number sent as a string, a list as an object).
    WrongType,
    /// Nothing: an empty object.
    Empty,
    /// A list cut short.
    Truncated,
    /// A time in milliseconds moved days into the past: an old cached answer.
    Stale,
    /// An identifier with other digits: the record of another customer or order.
    WrongEntity,
}

impl Family {
    pub const ALL: [Family; 8] = [
        Family::WrongSign,
        Family::Plausible,
        Family::MissingField,
        Family::WrongType,
        Family::Empty,
        Family::Truncated,
        Family::Stale,
        Family::WrongEntity,
    ];

    /// The family's name in URLs and JSON (`wrong_sign`).
    pub fn name(self) -> &'static str {
        match self {
            Family::WrongSign => "wrong_sign",
            Family::Plausible => "plausible",
            Family::MissingField => "missing_field",
            Family::WrongType => "wrong_type",
            Family::Empty => "empty",
            Family::Truncated => "truncated",
            Family::Stale => "stale",
            Family::WrongEntity => "wrong_entity",
        }
    }

    pub fn from_name(name: &str) -> Option<Family> {
        Family::ALL.into_iter().find(|f| f.name() == name)
    }

    pub fn describe(self) -> &'static str {
        match self {
            Family::WrongSign => "wrong sign",
            Family::Plausible => "plausible wrong value",
            Family::MissingField => "missing field",
            Family::WrongType => "wrong type",
            Family::Empty => "empty result",
            Family::Truncated => "truncated list",
            Family::Stale => "stale data",
            Family::WrongEntity => "another entity's record",
        }
    }
}

/// Epoch milliseconds are above this (2001-09-09); smaller numbers are not taken for times.
const LOOKS_LIKE_A_TIME: f64 = 1.0e12;

/// Where a value sits in the output: keys and list positions from the root.
type Place = Vec<Step>;

#[derive(Clone, Debug)]
enum Step {
    Key(String),
    Index(usize),
}

fn places(v: &Value, here: &mut Place, out: &mut Vec<Place>) {
    out.push(here.clone());
    match v {
        Value::Object(m) => {
            for (k, child) in m {
                here.push(Step::Key(k.clone()));
                places(child, here, out);
                here.pop();
            }
        }
        Value::Array(a) => {
            for (i, child) in a.iter().enumerate() {
                here.push(Step::Index(i));
                places(child, here, out);
                here.pop();
            }
        }
        _ => {}
    }
}

fn at_mut<'v>(v: &'v mut Value, place: &[Step]) -> Option<&'v mut Value> {
    place.iter().try_fold(v, |v, step| match step {
        Step::Key(k) => v.get_mut(k.as_str()),
        Step::Index(i) => v.get_mut(*i),
    })
}

/// Picks one place, uniformly among those `fits` accepts; `None` when there is none.
fn pick(output: &Value, rng: &mut SplitMix64, fits: impl Fn(&[Step], &Value) -> bool) -> Option<Place> {
    let mut all = Vec::new();
    places(output, &mut Vec::new(), &mut all);
    let mut probe = output.clone();
    let fitting: Vec<Place> =
        all.into_iter().filter(|p| at_mut(&mut probe, p).is_some_and(|v| fits(p, v))).collect();
    if fitting.is_empty() {
        return None;
    }
    let i = rng.below(fitting.len() as u64) as usize;
    fitting.into_iter().nth(i)
}

fn number(x: f64, like: &Value) -> Value {
    if like.is_i64() || like.is_u64() {
        Value::from(x.round() as i64)
    } else {
        Number::from_f64((x * 100.0).round() / 100.0).map_or(Value::Null, Value::Number)
    }
}

fn positive(v: &Value) -> bool {
    v.as_f64().is_some_and(|x| x > 0.0)
}

/// Applies `family` to a clean output. Returns the wrong result and whether the family found
/// something to break (an output with no list cannot be truncated: it is returned unchanged
/// and the run counts as unperturbed).
pub fn corrupt(clean: &Value, family: Family, seed: u64) -> (Value, bool) {
    let mut rng = SplitMix64::new(seed);
    let mut out = clean.clone();
    let place = match family {
        Family::Empty => return (Value::Object(Map::new()), true),
        Family::WrongSign | Family::Plausible => pick(clean, &mut rng, |_, v| positive(v)),
        Family::MissingField => pick(clean, &mut rng, |p, _| matches!(p.last(), Some(Step::Key(_)))),
        Family::WrongType => pick(clean, &mut rng, |p, v| !p.is_empty() && !v.is_null()),
        Family::Truncated => pick(clean, &mut rng, |_, v| v.as_array().is_some_and(|a| a.len() >= 2)),
        Family::Stale => pick(clean, &mut rng, |_, v| v.as_f64().is_some_and(|x| x >= LOOKS_LIKE_A_TIME)),
        Family::WrongEntity => {
            // Another record altogether: every identifier in it differs, consistently.
            let shift = 1 + rng.below(9) as u32;
            let changed = another_entity(&mut out, shift);
            return (out, changed);
        }
    };
    let Some(place) = place else { return (out, false) };
    if family == Family::MissingField {
        let (Some(Step::Key(key)), parent) = (place.last(), &place[..place.len() - 1]) else {
            return (out, false);
        };
        if let Some(Value::Object(m)) = at_mut(&mut out, parent) {
            m.remove(key.as_str());
        }
        return (out, true);
    }
    let Some(v) = at_mut(&mut out, &place) else { return (out, false) };
    let was = v.clone();
    *v = match family {
        Family::WrongSign => number(-was.as_f64().unwrap_or(0.0), &was),
        Family::Plausible => {
            // 10% to 60% off, up or down, never to zero or below.
            let factor = 1.1 + 0.5 * rng.unit();
            let x = was.as_f64().unwrap_or(0.0);
            let wrong = if rng.below(2) == 0 { x * factor } else { x / factor };
            let mut w = number(wrong, &was);
            if w == was {
                w = number(x + 1.0, &was);
            }
            w
        }
        Family::WrongType => match &was {
            Value::Number(n) => Value::String(alloc::format!("{n}")),
            Value::String(s) => {
                s.parse::<f64>().ok().and_then(Number::from_f64).map_or(Value::Bool(true), Value::Number)
            }
            Value::Bool(b) => Value::String(alloc::format!("{b}")),
            Value::Array(a) => {
                Value::Object(a.iter().enumerate().map(|(i, x)| (alloc::format!("{i}"), x.clone())).collect())
            }
            Value::Object(_) => Value::Array(Vec::new()),
            Value::Null => Value::Null,
        },
        Family::Truncated => {
            let mut a = was.as_array().cloned().unwrap_or_default();
            a.truncate(a.len() / 2);
            Value::Array(a)
        }
        Family::Stale => {
            // One to thirty days old.
            let days = 1 + rng.below(30);
            number(was.as_f64().unwrap_or(0.0) - (days * 86_400_000) as f64, &was)
        }
        Family::Empty | Family::MissingField | Family::WrongEntity => was,
    };
    (out, true)
}

/// Shifts every digit of every string that has one by `shift` (mod 10): the same fields, for
/// another order or customer. Returns whether anything changed.
fn another_entity(v: &mut Value, shift: u32) -> bool {
    match v {
        Value::String(s) if s.chars().any(|c| c.is_ascii_digit()) => {
            *s = s
                .chars()
                .map(|c| c.to_digit(10).and_then(|d| char::from_digit((d + shift) % 10, 10)).unwrap_or(c))
                .collect();
            true
        }
        Value::Array(a) => a.iter_mut().fold(false, |any, x| another_entity(x, shift) | any),
        Value::Object(m) => m.values_mut().fold(false, |any, x| another_entity(x, shift) | any),
        _ => false,
    }
}
