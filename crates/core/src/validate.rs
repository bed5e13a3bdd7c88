//! Output validators: declared checks on a tool's result. A well-formed but wrong result (a
//! negative count, an empty list, an unknown status) fails a check and becomes an *implicit*
//! failure, handled like an explicit one (ToolMaze, seed 002).

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One check on a field of a tool's JSON output. `field` is a dot path (`booking.id`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Validator {
    pub field: String,
    /// The field must be present and not null.
    #[serde(default, skip_serializing_if = "is_false")]
    pub required: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max: Option<f64>,
    /// The field must equal one of these values.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub one_of: Option<Vec<Value>>,
    /// A string, list or object field must not be empty.
    #[serde(default, skip_serializing_if = "is_false")]
    pub non_empty: bool,
}

fn is_false(v: &bool) -> bool {
    !*v
}

impl Validator {
    /// Checks the declaration itself (bounds are numbers, the field is named).
    pub fn check_spec(&self) -> Result<(), String> {
        if self.field.is_empty() {
            return Err("field must be named".into());
        }
        for (name, b) in [("min", self.min), ("max", self.max)] {
            if b.is_some_and(|b| !b.is_finite()) {
                return Err(format!("{name} must be a finite number"));
            }
        }
        if let (Some(lo), Some(hi)) = (self.min, self.max) {
            if lo > hi {
                return Err(format!("min {lo} is above max {hi}"));
            }
        }
        Ok(())
    }

    /// Checks a tool's output. The error says which field failed and why.
    pub fn check(&self, output: &Value) -> Result<(), String> {
        let mut v = Some(output);
        for part in self.field.split('.') {
            v = v.and_then(|v| v.get(part));
        }
        let v = match v {
            None | Some(Value::Null) => {
                let must = self.required || self.min.is_some() || self.max.is_some() || self.non_empty;
                return if must || self.one_of.is_some() {
                    Err(format!("`{}` is missing", self.field))
                } else {
                    Ok(())
                };
            }
            Some(v) => v,
        };
        if self.min.is_some() || self.max.is_some() {
            let x = v.as_f64().ok_or_else(|| format!("`{}` is not a number", self.field))?;
            if self.min.is_some_and(|lo| x < lo) || self.max.is_some_and(|hi| x > hi) {
                return Err(format!("`{}` = {x} is out of range", self.field));
            }
        }
        if let Some(allowed) = &self.one_of {
            if !allowed.contains(v) {
                return Err(format!("`{}` = {v} is not an allowed value", self.field));
            }
        }
        if self.non_empty {
            let empty = match v {
                Value::String(s) => s.is_empty(),
                Value::Array(a) => a.is_empty(),
                Value::Object(o) => o.is_empty(),
                _ => false,
            };
            if empty {
                return Err(format!("`{}` is empty", self.field));
            }
        }
        Ok(())
    }
}

/// Runs every validator; the first failure is returned.
pub fn check_all(validators: &[Validator], output: &Value) -> Result<(), String> {
    validators.iter().try_for_each(|v| v.check(output))
}
