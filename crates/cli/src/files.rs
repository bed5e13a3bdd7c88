//! Files the commands read: a description (bounded in size), a directory of domain and scenario
//! files, and text from them made safe to print.

use std::path::{Path, PathBuf};

use shr_eval::scenario::{Domain, Scenario};

/// Reads a description, never more than the core's size limit plus one byte: a FIFO or a
/// device that never ends is refused, not read until memory runs out.
pub(crate) fn read(path: &Path) -> Result<String, String> {
    use std::io::Read;
    let limit = shr_core::limits::MAX_JSON_BYTES;
    let file = std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut text = String::new();
    file.take(limit as u64 + 1).read_to_string(&mut text).map_err(|e| format!("{}: {e}", path.display()))?;
    if text.len() > limit {
        return Err(format!(
            "{}: larger than the {} MiB limit of a description",
            path.display(),
            limit >> 20
        ));
    }
    Ok(text)
}

/// Text from a description made safe for a terminal: control characters (an id may hold an
/// escape sequence) are shown escaped, never sent raw.
pub(crate) fn printable(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() && c != '\n' { c.escape_default().to_string() } else { c.to_string() })
        .collect()
}

/// Loads domain files (those with a top-level `graph`) and scenario files from a directory.
pub(crate) fn load_dir(dir: &Path) -> Result<Vec<Scenario>, String> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    let mut domains = Vec::new();
    let mut scenario_files = Vec::new();
    for p in files {
        let text = read(&p)?;
        let name = p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let is_domain =
            serde_json::from_str::<serde_json::Value>(&text).is_ok_and(|v| v.get("graph").is_some());
        if is_domain {
            let stem = p.file_stem().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            domains.push(Domain::from_json(&stem, &name, &text).map_err(|e| e.to_string())?);
        } else {
            scenario_files.push((name, text));
        }
    }
    scenario_files
        .iter()
        .map(|(name, text)| Scenario::from_json(name, text, &domains).map_err(|e| e.to_string()))
        .collect()
}
