//! The description's JSON read straight into an [`Assembly`]: a serde visitor of the top-level
//! object that hands each node and edge over as it is read, so no `Vec` of every
//! [`NodeSpec`] and [`EdgeSpec`] (with each edge's two ids as owned strings) is ever held.
//! It reads exactly what `GraphSpec`'s derived `Deserialize` reads, with the same errors
//! (unknown, duplicate and missing fields, types), so a malformed description is reported as
//! before, at the same place.

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;

use super::{Assembly, EdgeSpec, GraphSpec, NodeSpec};

/// The top-level fields, as `GraphSpec` names them.
const FIELDS: &[&str] =
    &["$schema", "version", "name", "nodes", "edges", "start", "goal", "stages", "risk_rules", "intents"];

/// Reads a description into an assembly; its value is the description without its nodes and
/// edges.
pub(super) struct Description<'a>(pub &'a mut Assembly);

impl<'de> DeserializeSeed<'de> for Description<'_> {
    type Value = GraphSpec;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<GraphSpec, D::Error> {
        d.deserialize_struct("GraphSpec", FIELDS, self)
    }
}

/// A top-level key: its place in [`FIELDS`].
struct Key(usize);

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Key, D::Error> {
        struct KeyVisitor;
        impl Visitor<'_> for KeyVisitor {
            type Value = Key;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("field identifier")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Key, E> {
                FIELDS.iter().position(|&f| f == v).map(Key).ok_or_else(|| E::unknown_field(v, FIELDS))
            }
        }
        d.deserialize_identifier(KeyVisitor)
    }
}

impl<'de> Visitor<'de> for Description<'_> {
    type Value = GraphSpec;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("struct GraphSpec")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<GraphSpec, A::Error> {
        let mut spec = GraphSpec::default();
        let mut seen = [false; FIELDS.len()];
        // Edges written ahead of the nodes wait here (the assembly resolves an edge's ends as
        // it reads it): descriptions written by SHR, and most by hand, put the nodes first.
        let mut ahead = Vec::new();
        while let Some(Key(k)) = map.next_key()? {
            if core::mem::replace(&mut seen[k], true) {
                return Err(de::Error::duplicate_field(FIELDS[k]));
            }
            match k {
                1 => spec.version = map.next_value()?,
                3 => map.next_value_seed(Items::<NodeSpec> { to: self.0, held: None })?,
                4 => {
                    let held = (!seen[3]).then_some(&mut ahead);
                    map.next_value_seed(Items::<EdgeSpec> { to: self.0, held })?
                }
                7 => spec.stages = map.next_value()?,
                8 => spec.risk_rules = map.next_value()?,
                9 => spec.intents = map.next_value()?,
                // The optional strings, read by one call (the module's size: each call site of
                // a value's reader is its own copy once inlined).
                _ => {
                    let text: Option<String> = map.next_value()?;
                    *match k {
                        0 => &mut spec.schema,
                        2 => &mut spec.name,
                        5 => &mut spec.start,
                        _ => &mut spec.goal,
                    } = text;
                }
            }
        }
        if !seen[3] {
            return Err(de::Error::missing_field("nodes"));
        }
        for e in ahead {
            self.0.edge(e);
        }
        Ok(spec)
    }
}

/// The `nodes` or `edges` array, each item handed to the assembly as it is read (or `held`).
struct Items<'a, T> {
    to: &'a mut Assembly,
    held: Option<&'a mut Vec<T>>,
}

/// What an assembly does with one item.
trait Item: for<'de> Deserialize<'de> {
    fn add(self, to: &mut Assembly);
}

impl Item for NodeSpec {
    fn add(self, to: &mut Assembly) {
        to.node(self)
    }
}

impl Item for EdgeSpec {
    fn add(self, to: &mut Assembly) {
        to.edge(self)
    }
}

impl<'de, T: Item> DeserializeSeed<'de> for Items<'_, T> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de, T: Item> Visitor<'de> for Items<'_, T> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a sequence")
    }

    fn visit_seq<S: SeqAccess<'de>>(mut self, mut seq: S) -> Result<(), S::Error> {
        while let Some(item) = seq.next_element::<T>()? {
            match &mut self.held {
                Some(held) => held.push(item),
                None => item.add(self.to),
            }
        }
        Ok(())
    }
}
