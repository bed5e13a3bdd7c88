//! The references a description makes, resolved while it is built: the tools nodes name, the
//! start and goal, and the costs checked; each problem reported with its place.

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::{NodeIx, NodeSpec};
use crate::error::ProblemKind;

/// The tools that nodes name in `field` (`compensate`, `verify`), as (node, tool) by node: each
/// must be another tool, and only a `side_effect` node may name one.
pub(super) fn tool_refs(
    nodes: &[NodeSpec],
    ids: &BTreeMap<&str, NodeIx>,
    push: &mut impl FnMut(ProblemKind, &str, String, String),
    field: &str,
    named: impl Fn(&NodeSpec) -> Option<&str>,
) -> Vec<(NodeIx, NodeIx)> {
    let mut refs = Vec::new();
    for (v, n) in nodes.iter().enumerate() {
        let Some(by) = named(n) else { continue };
        let path = format!("/nodes/{v}/{field}");
        match ids.get(by).copied() {
            Some(c) if c != v && nodes.get(c).is_some_and(|cn| cn.tool) => refs.push((v, c)),
            Some(_) => push(
                ProblemKind::BadValue,
                &n.id,
                path.clone(),
                format!("{field} `{by}` must be another tool"),
            ),
            None => push(
                ProblemKind::UnknownNode,
                &n.id,
                path.clone(),
                format!("{field} names unknown node `{by}`"),
            ),
        }
        if !n.side_effect {
            push(ProblemKind::BadValue, &n.id, path, format!("{field} is for a node with side_effect: true"));
        }
    }
    refs
}

pub(super) fn check_cost(
    push: &mut impl FnMut(ProblemKind, &str, String, String),
    at: &str,
    path: String,
    field: &str,
    v: f64,
) {
    if !v.is_finite() {
        push(ProblemKind::NonFiniteCost, at, path, format!("{field} must be a finite number"));
    } else if v < 0.0 {
        push(ProblemKind::NegativeCost, at, path, format!("{field} is {v}, costs must not be negative"));
    }
}

pub(super) fn resolve_end(
    push: &mut impl FnMut(ProblemKind, &str, String, String),
    ids: &BTreeMap<&str, NodeIx>,
    id: Option<&str>,
    field: &str,
    missing: ProblemKind,
) -> Option<NodeIx> {
    match id {
        None | Some("") => {
            push(missing, field, format!("/{field}"), format!("the description has no {field} node"));
            None
        }
        Some(id) => {
            let ix = ids.get(id).copied();
            if ix.is_none() {
                push(
                    ProblemKind::UnknownNode,
                    field,
                    format!("/{field}"),
                    format!("{field} names unknown node `{id}`"),
                );
            }
            ix
        }
    }
}
