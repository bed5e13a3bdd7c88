//! The references a description makes, resolved while it is built: the tools nodes name, the
//! start and goal, and the costs checked; each problem reported with its place.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::{Node, NodeIx};
use crate::error::ProblemKind;

/// The tools that nodes name in `field` (`compensate`, `verify`), as (node, tool) by node: each
/// must be another tool, and only a `side_effect` node may name one. `refs` holds
/// `(node, compensate, verify)` by node; `named` picks the field's id.
pub(super) fn tool_refs(
    nodes: &[Node],
    refs: &[NodeRefs],
    lookup: &impl Fn(&str) -> Option<NodeIx>,
    push: &mut impl FnMut(ProblemKind, &str, String, String),
    field: &str,
    named: impl Fn(&NodeRefs) -> Option<&str>,
) -> Vec<(NodeIx, NodeIx)> {
    let mut out = Vec::new();
    for r in refs {
        let Some(by) = named(r) else { continue };
        let v = r.0;
        let Some(n) = nodes.get(v) else { continue };
        let path = format!("/nodes/{v}/{field}");
        match lookup(by) {
            Some(c) if c != v && nodes.get(c).is_some_and(|cn| cn.tool) => out.push((v, c)),
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
    out
}

/// A node and the ids its `compensate` and `verify` name.
pub(super) type NodeRefs = (NodeIx, Option<String>, Option<String>);

pub(super) fn check_cost(
    push: &mut impl FnMut(ProblemKind, &str, String, String),
    at: &str,
    path: String,
    field: &str,
    v: f64,
    word: impl Fn(f64) -> String,
) {
    if !v.is_finite() {
        push(ProblemKind::NonFiniteCost, at, path, format!("{field} must be a finite number"));
    } else if v < 0.0 {
        push(
            ProblemKind::NegativeCost,
            at,
            path,
            format!("{field} is {}, costs must not be negative", word(v)),
        );
    }
}

pub(super) fn resolve_end(
    push: &mut impl FnMut(ProblemKind, &str, String, String),
    lookup: &impl Fn(&str) -> Option<NodeIx>,
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
            let ix = lookup(id);
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
