//! A graph in the URL: its JSON deflated (miniz_oxide) and written base64url, so an imported or
//! edited graph is shared by its link. Decoding is bounded: a link cannot inflate to more than
//! the page imports.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;

use shr_core::ToolGraph;

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

/// The page draws at most this many nodes; larger graphs are routed by `shr route` or the wasm
/// API. SVG with one focusable group per tool stays responsive up to about this size.
pub const PAGE_MAX_NODES: usize = 2_000;

/// The largest description the page parses: far more than 2,000 nodes take, and small enough
/// that a pasted 48 MiB file is refused before anything is built from it.
pub const PAGE_MAX_BYTES: usize = 4 << 20;

/// Parses a description for the page: its size first, the core's validation, then the page's
/// own node limit.
pub fn parse(text: &str) -> Result<ToolGraph, Vec<String>> {
    if text.len() > PAGE_MAX_BYTES {
        return Err(vec![format!(
            "the description is {:.1} MiB; the page imports at most {} MiB (route larger graphs with `shr route` or the wasm API)",
            text.len() as f64 / (1 << 20) as f64,
            PAGE_MAX_BYTES >> 20
        )]);
    }
    let graph = ToolGraph::from_json(text)
        .map_err(|e| e.problems.iter().map(|p| p.to_string()).collect::<Vec<_>>())?;
    if graph.node_count() > PAGE_MAX_NODES {
        return Err(vec![format!(
            "the graph has {} nodes; the page draws at most {PAGE_MAX_NODES} (route larger graphs with `shr route` or the wasm API)",
            graph.node_count()
        )]);
    }
    Ok(graph)
}
