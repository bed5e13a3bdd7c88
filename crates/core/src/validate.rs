//! Output validators: declared checks on a tool's result. A well-formed but wrong result (a
//! negative count, an empty list, an unknown status, another customer's record, yesterday's
//! price) fails a check and becomes an *implicit* failure, handled like an explicit one
//! (ToolMaze, seed 002).
//!
//! A validator is a tool's output contract for one field: presence, JSON type, numeric range,
//! allowed values, list size, freshness, and cross-field rules against the task's context or
//! another output field (`"equals": "context.amount"`: a refund is for the amount asked).

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use alloc::collections::BTreeMap;

/// Milliseconds on the router's clock (the crate's `Millis`; named here so that validators
/// stay below the modules that define it).
type Millis = u64;

/// The task's context, as the monitors read it.
type Context = BTreeMap<String, Value>;

/// One check on a field of a tool's JSON output. `field` is a dot path (`booking.id`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Validator {
    /// Dot path into the output (`refund.id`).
    pub field: String,
    /// The field must be present and not null.
    #[serde(default, skip_serializing_if = "is_false")]
    pub required: bool,
    /// The field's JSON type.
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub kind: Option<JsonType>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// The value must be a number at least this.
    pub min: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// The value must be a number at most this.
    pub max: Option<f64>,
    /// The field must equal one of these values.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub one_of: Option<Vec<Value>>,
    /// A string, list or object field must not be empty.
    #[serde(default, skip_serializing_if = "is_false")]
    pub non_empty: bool,
    /// A list field holds at least this many items.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_items: Option<u64>,
    /// The field equals another value: `context.<path>` (the task's context) or
    /// `output.<path>` (another field of the same output).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub equals: Option<String>,
    /// A list field's length equals the number at `context.<path>` or `output.<path>`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub length_equals: Option<String>,
    /// The field is a time in milliseconds on the router's clock, at most this old when the
    /// result arrives.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_age_ms: Option<Millis>,
}

/// A JSON type a field must have. `integer` is a number without a fractional part.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum JsonType {
    /// A JSON string.
    String,
    /// Any JSON number.
    Number,
    /// A number with no fractional part.
    Integer,
    /// `true` or `false`.
    Boolean,
    /// A JSON array.
    Array,
    /// A JSON object.
    Object,
}

impl JsonType {
    fn holds(self, v: &Value) -> bool {
        match self {
            JsonType::String => v.is_string(),
            JsonType::Number => v.is_number(),
            JsonType::Integer => {
                v.is_i64() || v.is_u64() || v.as_f64().is_some_and(|x| x.is_finite() && x == x as i64 as f64)
            }
            JsonType::Boolean => v.is_boolean(),
            JsonType::Array => v.is_array(),
            JsonType::Object => v.is_object(),
        }
    }

    fn name(self) -> &'static str {
        match self {
            JsonType::String => "a string",
            JsonType::Number => "a number",
            JsonType::Integer => "an integer",
            JsonType::Boolean => "a boolean",
            JsonType::Array => "a list",
            JsonType::Object => "an object",
        }
    }
}

/// What a check may read besides the output: the task's context and the time the result
/// arrived.
#[derive(Clone, Copy, Debug)]
pub struct Scope<'a> {
    /// The task's context (`equals: "context.<path>"` reads it).
    pub context: &'a Context,
    /// The clock value the result arrived at (`max_age_ms` compares with it).
    pub now: Millis,
}

fn is_false(v: &bool) -> bool {
    !*v
}

/// A reference's root (`context` or `output`) and its dot path.
fn split_reference(reference: &str) -> Option<(&str, &str)> {
    let (root, path) = reference.split_once('.')?;
    (matches!(root, "context" | "output") && !path.is_empty()).then_some((root, path))
}

fn at_path<'v>(root: &'v Value, path: &str) -> Option<&'v Value> {
    path.split('.').try_fold(root, |v, part| v.get(part)).filter(|v| !v.is_null())
}

impl Validator {
    /// A validator on `field` with no check yet, for building one in code.
    pub fn on(field: &str) -> Validator {
        Validator { field: field.into(), ..Validator::default() }
    }

    /// Checks the declaration itself (bounds are numbers, the field is named, references name
    /// `context.` or `output.`).
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
        for (name, r) in [("equals", &self.equals), ("length_equals", &self.length_equals)] {
            if let Some(r) = r {
                if split_reference(r).is_none() {
                    return Err(format!("{name} must be `context.<path>` or `output.<path>`, got `{r}`"));
                }
            }
        }
        Ok(())
    }

    /// Reads a `context.` or `output.` reference; the error says what is missing.
    fn reference<'v>(
        &self,
        reference: &str,
        output: &'v Value,
        scope: &Scope<'v>,
    ) -> Result<&'v Value, String> {
        let missing = || format!("`{}` cannot be checked: `{reference}` is missing", self.field);
        let (root, path) = split_reference(reference).ok_or_else(missing)?;
        let found = if root == "output" {
            at_path(output, path)
        } else {
            let (key, rest) = path.split_once('.').map_or((path, None), |(k, r)| (k, Some(r)));
            scope.context.get(key).and_then(|v| match rest {
                None => Some(v).filter(|v| !v.is_null()),
                Some(rest) => at_path(v, rest),
            })
        };
        found.ok_or_else(missing)
    }

    /// Checks a tool's output. The error says which field failed and why.
    pub fn check(&self, output: &Value, scope: &Scope<'_>) -> Result<(), String> {
        let Some(v) = at_path(output, &self.field) else {
            let must = self.required
                || self.kind.is_some()
                || self.min.is_some()
                || self.max.is_some()
                || self.non_empty
                || self.min_items.is_some()
                || self.equals.is_some()
                || self.length_equals.is_some()
                || self.max_age_ms.is_some();
            return if must || self.one_of.is_some() {
                Err(format!("`{}` is missing", self.field))
            } else {
                Ok(())
            };
        };
        if let Some(kind) = self.kind {
            if !kind.holds(v) {
                return Err(format!("`{}` is not {}", self.field, kind.name()));
            }
        }
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
        if self.min_items.is_some() || self.length_equals.is_some() {
            let items = v.as_array().ok_or_else(|| format!("`{}` is not a list", self.field))?.len() as u64;
            if let Some(least) = self.min_items.filter(|&least| items < least) {
                return Err(format!("`{}` has {items} items, fewer than {least}", self.field));
            }
            if let Some(r) = &self.length_equals {
                let want = self.reference(r, output, scope)?;
                if want.as_u64() != Some(items) {
                    return Err(format!("`{}` has {items} items, `{r}` says {want}", self.field));
                }
            }
        }
        if let Some(r) = &self.equals {
            let want = self.reference(r, output, scope)?;
            if !same_value(v, want) {
                return Err(format!("`{}` = {v} differs from `{r}` = {want}", self.field));
            }
        }
        if let Some(max_age) = self.max_age_ms {
            let at = v.as_f64().ok_or_else(|| format!("`{}` is not a time", self.field))?;
            let age = scope.now as f64 - at;
            if age > max_age as f64 {
                return Err(format!("`{}` is {age} ms old, more than {max_age}", self.field));
            }
        }
        Ok(())
    }
}

/// Equality that does not tell `150` from `150.0` (one service's integer is another's float).
fn same_value(a: &Value, b: &Value) -> bool {
    match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) => x == y,
        _ => a == b,
    }
}

/// Runs every validator; the first failure is returned.
pub fn check_all(validators: &[Validator], output: &Value, scope: &Scope<'_>) -> Result<(), String> {
    validators.iter().try_for_each(|v| v.check(output, scope))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn check(v: &Validator, output: Value, context: Value, now: Millis) -> Result<(), String> {
        let context: Context = serde_json::from_value(context).unwrap_or_default();
        v.check(&output, &Scope { context: &context, now })
    }

    #[test]
    fn cross_field_rules_read_the_task_and_the_output() {
        let amount = Validator { equals: Some("context.amount".into()), ..Validator::on("refund.amount") };
        assert!(check(&amount, json!({"refund": {"amount": 150}}), json!({"amount": 150.0}), 0).is_ok());
        let e = check(&amount, json!({"refund": {"amount": 15}}), json!({"amount": 150}), 0).unwrap_err();
        assert!(e.contains("differs from `context.amount`"), "{e}");
        let e = check(&amount, json!({"refund": {"amount": 15}}), json!({}), 0).unwrap_err();
        assert!(e.contains("`context.amount` is missing"), "{e}");
        let items = Validator { length_equals: Some("output.count".into()), ..Validator::on("items") };
        assert!(check(&items, json!({"items": [1, 2], "count": 2}), json!({}), 0).is_ok());
        assert!(check(&items, json!({"items": [1], "count": 2}), json!({}), 0).is_err());
    }

    #[test]
    fn types_sizes_and_freshness() {
        let int = Validator { kind: Some(JsonType::Integer), ..Validator::on("n") };
        assert!(check(&int, json!({"n": 3.0}), json!({}), 0).is_ok());
        assert!(check(&int, json!({"n": "3"}), json!({}), 0).is_err());
        let list = Validator { min_items: Some(2), ..Validator::on("xs") };
        assert!(check(&list, json!({"xs": [1]}), json!({}), 0).is_err());
        let fresh = Validator { max_age_ms: Some(1_000), ..Validator::on("as_of") };
        assert!(check(&fresh, json!({"as_of": 9_500}), json!({}), 10_000).is_ok());
        assert!(check(&fresh, json!({"as_of": 8_000}), json!({}), 10_000).is_err());
        assert!(check(&fresh, json!({}), json!({}), 10_000).is_err());
    }

    #[test]
    fn references_are_checked_when_declared() {
        let bad = Validator { equals: Some("task.amount".into()), ..Validator::on("a") };
        assert!(bad.check_spec().is_err());
        let bad = Validator { length_equals: Some("output.".into()), ..Validator::on("a") };
        assert!(bad.check_spec().is_err());
    }
}
