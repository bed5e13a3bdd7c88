//! Core values as compact JSON text with camelCase keys, for one `JSON.parse` in JS (issue 48:
//! a run's events were a third of its CPU through serde_json's writer, which at the module's
//! opt-level "s" makes several out-of-line writes for every key and string). This writer makes
//! one push per key and per plain string, camelizes keys as it writes them (the same rule as
//! [`crate::convert::camel`]), and writes what serde_json writes otherwise: a non-finite float
//! is `null` (an infinite weight, as in the event log), a byte array an array of numbers, a unit
//! `null`, an enum variant with data `{"Variant": data}`.

use serde::ser::{self, Serialize};

use crate::error::ShrError;

mod events;
mod text;

pub use events::{events_to_json_camel, outcome_to_json_camel, strings_to_json};
use text::{float, key, string};

/// A core value as JSON text, its keys in camelCase (what [`super::to_js`] parses): the JSON
/// the core writes (an infinite weight is `null`, as in the event log).
pub fn to_json_camel<T: Serialize + ?Sized>(v: &T) -> Result<String, ShrError> {
    let mut out = String::with_capacity(256);
    v.serialize(&mut Writer { out: &mut out }).map_err(|e| ShrError::new("internal", e.0))?;
    Ok(out)
}

/// Why a value has no JSON text (a map key that is not a string or a number, or a value's own
/// `Serialize` failing).
#[derive(Debug)]
struct Error(String);

impl core::fmt::Display for Error {
    fn fmt(&self, f: &mut core::fmt::Formatter) -> core::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

impl ser::Error for Error {
    fn custom<M: core::fmt::Display>(msg: M) -> Error {
        Error(msg.to_string())
    }
}

struct Writer<'a> {
    out: &'a mut String,
}

impl<'a> Writer<'a> {
    fn int<I: itoa::Integer>(&mut self, i: I) -> Result<(), Error> {
        self.out.push_str(itoa::Buffer::new().format(i));
        Ok(())
    }
}

/// Writes `open` and returns what writes the rest, up to `close`.
fn open<'b>(out: &'b mut String, open: &str, close: &'static str) -> Compound<'b> {
    out.push_str(open);
    Compound { out, first: true, close }
}

/// An array or object being written; `close` is what ends it (`]`, `}`, or `}}` / `]}` for
/// an enum variant's data).
struct Compound<'a> {
    out: &'a mut String,
    first: bool,
    close: &'static str,
}

impl Compound<'_> {
    fn comma(&mut self) {
        if !self.first {
            self.out.push(',');
        }
        self.first = false;
    }

    fn element<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), Error> {
        self.comma();
        v.serialize(&mut Writer { out: self.out })
    }

    fn field<T: Serialize + ?Sized>(&mut self, name: &str, v: &T) -> Result<(), Error> {
        self.comma();
        key(self.out, name);
        v.serialize(&mut Writer { out: self.out })
    }

    fn end(self) -> Result<(), Error> {
        self.out.push_str(self.close);
        Ok(())
    }
}

impl<'a, 'b> ser::Serializer for &'b mut Writer<'a> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Compound<'b>;
    type SerializeTuple = Compound<'b>;
    type SerializeTupleStruct = Compound<'b>;
    type SerializeTupleVariant = Compound<'b>;
    type SerializeMap = Compound<'b>;
    type SerializeStruct = Compound<'b>;
    type SerializeStructVariant = Compound<'b>;

    fn serialize_bool(self, v: bool) -> Result<(), Error> {
        self.out.push_str(if v { "true" } else { "false" });
        Ok(())
    }
    fn serialize_i8(self, v: i8) -> Result<(), Error> {
        self.int(v)
    }
    fn serialize_i16(self, v: i16) -> Result<(), Error> {
        self.int(v)
    }
    fn serialize_i32(self, v: i32) -> Result<(), Error> {
        self.int(v)
    }
    fn serialize_i64(self, v: i64) -> Result<(), Error> {
        self.int(v)
    }
    fn serialize_u8(self, v: u8) -> Result<(), Error> {
        self.int(v)
    }
    fn serialize_u16(self, v: u16) -> Result<(), Error> {
        self.int(v)
    }
    fn serialize_u32(self, v: u32) -> Result<(), Error> {
        self.int(v)
    }
    fn serialize_u64(self, v: u64) -> Result<(), Error> {
        self.int(v)
    }
    fn serialize_f32(self, v: f32) -> Result<(), Error> {
        float(self.out, v, v.is_finite());
        Ok(())
    }
    fn serialize_f64(self, v: f64) -> Result<(), Error> {
        float(self.out, v, v.is_finite());
        Ok(())
    }
    fn serialize_char(self, v: char) -> Result<(), Error> {
        string(self.out, v.encode_utf8(&mut [0; 4]));
        Ok(())
    }
    fn serialize_str(self, v: &str) -> Result<(), Error> {
        string(self.out, v);
        Ok(())
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<(), Error> {
        let mut seq = open(self.out, "[", "]");
        for b in v {
            seq.element(b)?;
        }
        seq.end()
    }
    fn serialize_none(self) -> Result<(), Error> {
        self.out.push_str("null");
        Ok(())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, v: &T) -> Result<(), Error> {
        v.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), Error> {
        self.serialize_none()
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<(), Error> {
        self.serialize_none()
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, variant: &'static str) -> Result<(), Error> {
        string(self.out, variant);
        Ok(())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, v: &T) -> Result<(), Error> {
        v.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        v: &T,
    ) -> Result<(), Error> {
        self.out.push('{');
        key(self.out, variant);
        v.serialize(&mut *self)?;
        self.out.push('}');
        Ok(())
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Compound<'b>, Error> {
        Ok(open(self.out, "[", "]"))
    }
    fn serialize_tuple(self, len: usize) -> Result<Compound<'b>, Error> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(self, _: &'static str, len: usize) -> Result<Compound<'b>, Error> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Compound<'b>, Error> {
        self.out.push('{');
        key(self.out, variant);
        Ok(open(self.out, "[", "]}"))
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Compound<'b>, Error> {
        Ok(open(self.out, "{", "}"))
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Compound<'b>, Error> {
        self.serialize_map(None)
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Compound<'b>, Error> {
        self.out.push('{');
        key(self.out, variant);
        Ok(open(self.out, "{", "}}"))
    }
}

impl ser::SerializeSeq for Compound<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), Error> {
        self.element(v)
    }
    fn end(self) -> Result<(), Error> {
        Compound::end(self)
    }
}

impl ser::SerializeTuple for Compound<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), Error> {
        self.element(v)
    }
    fn end(self) -> Result<(), Error> {
        Compound::end(self)
    }
}

impl ser::SerializeTupleStruct for Compound<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), Error> {
        self.element(v)
    }
    fn end(self) -> Result<(), Error> {
        Compound::end(self)
    }
}

impl ser::SerializeTupleVariant for Compound<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), Error> {
        self.element(v)
    }
    fn end(self) -> Result<(), Error> {
        Compound::end(self)
    }
}

impl ser::SerializeMap for Compound<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, k: &T) -> Result<(), Error> {
        self.comma();
        k.serialize(KeyWriter { out: self.out })
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), Error> {
        v.serialize(&mut Writer { out: self.out })
    }
    fn end(self) -> Result<(), Error> {
        Compound::end(self)
    }
}

impl ser::SerializeStruct for Compound<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, name: &'static str, v: &T) -> Result<(), Error> {
        self.field(name, v)
    }
    fn end(self) -> Result<(), Error> {
        Compound::end(self)
    }
}

impl ser::SerializeStructVariant for Compound<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, name: &'static str, v: &T) -> Result<(), Error> {
        self.field(name, v)
    }
    fn end(self) -> Result<(), Error> {
        Compound::end(self)
    }
}

/// A map key: a string (camelCased) or a number (quoted, as serde_json writes it).
struct KeyWriter<'a> {
    out: &'a mut String,
}

impl KeyWriter<'_> {
    fn int<I: itoa::Integer>(self, i: I) -> Result<(), Error> {
        self.out.push('"');
        self.out.push_str(itoa::Buffer::new().format(i));
        self.out.push_str("\":");
        Ok(())
    }
}

fn not_a_key() -> Error {
    Error("a map key must be a string or a number".into())
}

impl ser::Serializer for KeyWriter<'_> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = ser::Impossible<(), Error>;
    type SerializeTuple = ser::Impossible<(), Error>;
    type SerializeTupleStruct = ser::Impossible<(), Error>;
    type SerializeTupleVariant = ser::Impossible<(), Error>;
    type SerializeMap = ser::Impossible<(), Error>;
    type SerializeStruct = ser::Impossible<(), Error>;
    type SerializeStructVariant = ser::Impossible<(), Error>;

    fn serialize_str(self, v: &str) -> Result<(), Error> {
        key(self.out, v);
        Ok(())
    }
    fn serialize_char(self, v: char) -> Result<(), Error> {
        key(self.out, v.encode_utf8(&mut [0; 4]));
        Ok(())
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, variant: &'static str) -> Result<(), Error> {
        key(self.out, variant);
        Ok(())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, v: &T) -> Result<(), Error> {
        v.serialize(self)
    }
    fn serialize_bool(self, _: bool) -> Result<(), Error> {
        Err(not_a_key())
    }
    fn serialize_i8(self, v: i8) -> Result<(), Error> {
        self.int(v)
    }
    fn serialize_i16(self, v: i16) -> Result<(), Error> {
        self.int(v)
    }
    fn serialize_i32(self, v: i32) -> Result<(), Error> {
        self.int(v)
    }
    fn serialize_i64(self, v: i64) -> Result<(), Error> {
        self.int(v)
    }
    fn serialize_u8(self, v: u8) -> Result<(), Error> {
        self.int(v)
    }
    fn serialize_u16(self, v: u16) -> Result<(), Error> {
        self.int(v)
    }
    fn serialize_u32(self, v: u32) -> Result<(), Error> {
        self.int(v)
    }
    fn serialize_u64(self, v: u64) -> Result<(), Error> {
        self.int(v)
    }
    fn serialize_f32(self, _: f32) -> Result<(), Error> {
        Err(not_a_key())
    }
    fn serialize_f64(self, _: f64) -> Result<(), Error> {
        Err(not_a_key())
    }
    fn serialize_bytes(self, _: &[u8]) -> Result<(), Error> {
        Err(not_a_key())
    }
    fn serialize_none(self) -> Result<(), Error> {
        Err(not_a_key())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, _: &T) -> Result<(), Error> {
        Err(not_a_key())
    }
    fn serialize_unit(self) -> Result<(), Error> {
        Err(not_a_key())
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<(), Error> {
        Err(not_a_key())
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<(), Error> {
        Err(not_a_key())
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, Error> {
        Err(not_a_key())
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, Error> {
        Err(not_a_key())
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeTupleStruct, Error> {
        Err(not_a_key())
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, Error> {
        Err(not_a_key())
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, Error> {
        Err(not_a_key())
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeStruct, Error> {
        Err(not_a_key())
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, Error> {
        Err(not_a_key())
    }
}
