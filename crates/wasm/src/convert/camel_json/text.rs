//! The JSON writer's text: strings, camelCase keys and numbers.

/// `s` as a JSON string: one push when nothing in it needs escaping.
pub(super) fn string(out: &mut String, s: &str) {
    out.reserve(s.len() + 2);
    out.push('"');
    if !s.bytes().any(|b| b < 0x20 || b == b'"' || b == b'\\') {
        out.push_str(s);
    } else {
        for c in s.chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push_str("\\t"),
                c if (c as u32) < 0x20 => {
                    const HEX: &[u8; 16] = b"0123456789abcdef";
                    let b = c as usize;
                    out.push_str("\\u00");
                    out.push(HEX[b >> 4] as char);
                    out.push(HEX[b & 15] as char);
                }
                c => out.push(c),
            }
        }
    }
    out.push('"');
}

/// `key` in camelCase as an object key, with its `:`.
pub(super) fn key(out: &mut String, key: &str) {
    let bytes = key.as_bytes();
    if !bytes.iter().all(|&b| b.is_ascii() && b >= 0x20 && b != b'"' && b != b'\\') {
        return key_slow(out, key);
    }
    // The keys of the core's types: ASCII, most without `_` (one push). As `camel`: a leading
    // `_` stays, every later run of `_` is dropped and makes the next letter a capital.
    out.reserve(key.len() + 3);
    out.push('"');
    let (mut start, mut upper) = (0, false);
    for (i, &b) in bytes.iter().enumerate() {
        if b == b'_' && i > 0 {
            out.push_str(&key[start..i]);
            (start, upper) = (i + 1, true);
        } else if upper {
            out.push(b.to_ascii_uppercase() as char);
            (start, upper) = (i + 1, false);
        }
    }
    out.push_str(&key[start..]);
    out.push_str("\":");
}

/// [`key`] for a key with escapes or letters beyond ASCII: [`crate::convert::camel`]'s.
fn key_slow(out: &mut String, key: &str) {
    if key.bytes().any(|b| b < 0x20 || b == b'"' || b == b'\\') {
        string(out, key);
        out.push(':');
        return;
    }
    out.push('"');
    out.push_str(&crate::convert::camel(key));
    out.push_str("\":");
}

pub(super) fn float<F: zmij::Float>(out: &mut String, x: F, finite: bool) {
    if finite {
        out.push_str(zmij::Buffer::new().format_finite(x));
    } else {
        out.push_str("null");
    }
}
