//! Where in a JSON text a parse error is: the keys and indices leading to the place serde_json
//! stopped (its error's line and column), found by reading the text again up to there.
//!
//! Errors in a graph description, and in a JS value the wasm layer parses, name their place
//! (`/nodes/3/retry/attemps`). A deserializer that tracks its path on the way down
//! (`serde_path_to_error`) wraps every field of every type it parses: a tenth of the npm
//! module's code at `opt-level = 3` (issue 26). The place is wanted only when parsing failed,
//! so it is found then, from the text, in one pass up to the error.
//!
//! serde_json stops just past what it objected to: past a key it does not know (or has seen
//! twice), past a value of the wrong type or out of range, past the `}` of an object that lacks
//! a field. So the place is the key or index being read there, at every depth: the unknown key
//! itself, the field whose value is wrong, the object with the missing field. On text that is
//! not JSON the path is as far as the text made sense.
//!
//! Complexity: O(n) in the text up to the error, O(depth) memory.
//!
//! ```
//! use shr_core::json_path::{path_at, pointer};
//! let text = r#"{"nodes": [{"id": "a"}, {"id": "b", "cots": 1}]}"#;
//! // A node has no field `cots`: serde_json stops past its closing quote.
//! let column = text.find("cots").unwrap_or(0) + "cots\"".len();
//! assert_eq!(pointer(&path_at(text, 1, column, true)), "/nodes/1/cots");
//! ```

use alloc::string::{String, ToString};
use alloc::vec::Vec;

/// One step of a path: a key of an object or an index into an array.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Segment {
    /// An object key.
    Key(String),
    /// An array index.
    Index(usize),
}

/// The path to the place in `text` where parsing it failed with `error`; empty at the top
/// level, or when the error has no position (one serde_json did not find in a text).
pub fn path_of(text: &str, error: &serde_json::Error) -> Vec<Segment> {
    let data = error.classify() == serde_json::error::Category::Data;
    path_at(text, error.line(), error.column(), data)
}

/// The path to the place at `line` (from 1) and `column` (bytes after the line's start, as
/// serde_json counts them) of `text`. `data`: the text is JSON and a value there is refused
/// (past it, or at its first byte); else the text stopped making sense there, at the byte before
/// (which serde_json has looked at).
pub fn path_at(text: &str, line: usize, column: usize, data: bool) -> Vec<Segment> {
    if line == 0 {
        return Vec::new();
    }
    let mut end = offset(text, line, column);
    if !data {
        end = end.saturating_sub(1);
    }
    let bytes = text.as_bytes();
    let mut open: Vec<Open> = Vec::new();
    let mut i = 0;
    while i < end {
        let b = bytes[i];
        if !matches!(b, b' ' | b'\t' | b'\n' | b'\r' | b',' | b']' | b'}') {
            if let Some(top) = open.last_mut() {
                top.value_begins();
            }
        }
        match b {
            b'{' => open.push(Open { at: Segment::Key(String::new()), entered: false, expecting: false }),
            b'[' => open.push(Open { at: Segment::Index(0), entered: false, expecting: true }),
            b'}' | b']' => {
                open.pop();
                if !data {
                    // Between values nothing is refused: the text is wrong after the element.
                    if let Some(top @ Open { at: Segment::Index(_), .. }) = open.last_mut() {
                        top.entered = false;
                    }
                }
            }
            b',' => {
                if let Some(top) = open.last_mut() {
                    if let Segment::Index(k) = &mut top.at {
                        *k += 1;
                        top.expecting = true;
                    }
                    top.entered = false;
                }
            }
            b'"' => {
                let start = i;
                i += 1;
                while i < end && bytes[i] != b'"' {
                    // An escape's next byte is never the closing quote.
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                if i >= end {
                    break; // the error is inside this string
                }
                if let Some(Open { at: Segment::Key(key), entered: entered @ false, .. }) = open.last_mut() {
                    *key = unescape(&text[start..=i]);
                    *entered = true;
                }
            }
            _ => {}
        }
        i += 1;
    }
    // serde_json objects to a value at its first byte, unread: an array waiting for an element
    // has entered it when one begins there.
    let next = bytes.get(end..).and_then(|rest| rest.iter().find(|b| !b.is_ascii_whitespace()));
    if let (true, Some(top), Some(&b)) = (data, open.last_mut(), next) {
        if b != b']' && b != b',' {
            top.value_begins();
        }
    }
    open.into_iter().filter(|o| o.entered).map(|o| o.at).collect()
}

/// A container open at the place: its key or index, and whether the place is at it (an
/// object once a key is read, until the next `,`; an array once an element begins).
struct Open {
    at: Segment,
    entered: bool,
    /// An array, after its `[` or a `,`: the next value is its element.
    expecting: bool,
}

impl Open {
    fn value_begins(&mut self) {
        if self.expecting {
            self.expecting = false;
            self.entered = true;
        }
    }
}

/// `path` as a JSON pointer (RFC 6901): `/nodes/3/retry`.
pub fn pointer(path: &[Segment]) -> String {
    let mut out = String::new();
    for segment in path {
        out.push('/');
        match segment {
            Segment::Index(i) => out.push_str(&i.to_string()),
            Segment::Key(k) => out.push_str(&k.replace('~', "~0").replace('/', "~1")),
        }
    }
    out
}

/// The byte offset of `line` and `column` in `text`, at most its length.
fn offset(text: &str, line: usize, column: usize) -> usize {
    let mut start = 0;
    for _ in 1..line {
        match text.as_bytes()[start..].iter().position(|&b| b == b'\n') {
            Some(k) => start += k + 1,
            None => return text.len(),
        }
    }
    start.saturating_add(column).min(text.len())
}

/// A JSON string literal (with its quotes) as the text it stands for; as written when it is
/// not a valid literal.
fn unescape(literal: &str) -> String {
    serde_json::from_str(literal).unwrap_or_else(|_| literal.trim_matches('"').to_string())
}

#[cfg(test)]
mod tests {
    use super::{path_at, pointer};

    fn at(text: &str, marker: &str) -> alloc::string::String {
        let column = text.find(marker).map_or(0, |i| i + marker.len());
        pointer(&path_at(text, 1, column, true))
    }

    #[test]
    fn names_the_key_value_or_object_at_the_error() {
        let text = r#"{"nodes": [{"id": "a"}, {"id": "b", "retry": {"attemps": 2}}], "edges": []}"#;
        assert_eq!(at(text, r#""attemps""#), "/nodes/1/retry/attemps");
        assert_eq!(at(text, r#""attemps": 2"#), "/nodes/1/retry/attemps");
        assert_eq!(at(text, r#"2}"#), "/nodes/1/retry");
        assert_eq!(at(text, r#"{"id": "a"}"#), "/nodes/0");
        // At a value's first byte, unread: in that value.
        assert_eq!(at(text, r#"{"id": "a"},"#), "/nodes/1");
        assert_eq!(at(text, r#"{"id": "a"}, {"#), "/nodes/1");
        assert_eq!(pointer(&path_at("[1, ]", 1, 3, true)), "");
        assert_eq!(at(text, r#""edges": []"#), "/edges");
        assert_eq!(at(text, r#"[]}"#), "");
    }

    #[test]
    fn reads_escaped_keys_and_quotes_in_strings() {
        let text = r#"{"a\"b": {"x/y": "}]\"", "k~\u00e9": 1}}"#;
        assert_eq!(at(text, r#""x/y": "}]\"""#), "/a\"b/x~1y");
        assert_eq!(at(text, r#"\u00e9": 1"#), "/a\"b/k~0\u{e9}");
    }

    #[test]
    fn counts_lines_and_stops_at_the_text_end() {
        let text = "{\n  \"nodes\": [\n    {\"id\": 1}\n  ]\n}";
        assert_eq!(pointer(&path_at(text, 3, "    {\"id\": 1".len(), true)), "/nodes/0/id");
        assert_eq!(pointer(&path_at(text, 9, 0, true)), "");
        assert_eq!(pointer(&path_at(text, 0, 5, true)), "");
        assert_eq!(pointer(&path_at("{\"a\": [\"unterminated", 1, 99, false)), "/a/0");
    }
}
