//! A graph in the URL: its JSON deflated (miniz_oxide) and written base64url, so an imported or
//! edited graph is shared by its link. Decoding is bounded: a link cannot inflate to more than
//! the page imports.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;

use crate::io::PAGE_MAX_BYTES;

/// The URL form of a graph description.
pub fn encode(json: &str) -> String {
    URL_SAFE_NO_PAD.encode(miniz_oxide::deflate::compress_to_vec(json.as_bytes(), 9))
}

/// The description a URL holds, or why it cannot be read.
pub fn decode(blob: &str) -> Result<String, String> {
    let packed =
        URL_SAFE_NO_PAD.decode(blob.trim_end_matches('=')).map_err(|e| format!("not base64url: {e}"))?;
    let bytes = miniz_oxide::inflate::decompress_to_vec_with_limit(&packed, PAGE_MAX_BYTES)
        .map_err(|e| format!("not a deflated graph: {:?}", e.status))?;
    String::from_utf8(bytes).map_err(|_| "not UTF-8 text".to_string())
}
