//! `shr discover`: the graph and the gateway config proposed from MCP servers' tool lists.
//! Discovery speaks MCP, whose client is the JavaScript SDK the gateway already uses, so this
//! command runs the gateway package's `--discover` with Node rather than re-implement an MCP
//! client in Rust: `node packages/mcp-gateway/src/cli.mjs --discover ARGS...`, arguments passed
//! through, its exit status returned. The script is found in `SHR_GATEWAY_CLI`, else beside the
//! binary's repository (`target/<profile>/shr` -> the repository root), else under the current
//! directory; Node is `SHR_NODE`, else `node` on the PATH.

use std::path::PathBuf;
use std::process::Command;

use crate::Failure;

const SCRIPT: &str = "packages/mcp-gateway/src/cli.mjs";

/// Where the gateway's CLI script is.
fn script() -> Result<PathBuf, String> {
    if let Some(p) = std::env::var_os("SHR_GATEWAY_CLI") {
        return Ok(PathBuf::from(p));
    }
    let beside_repo = std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent()?.parent()?.parent().map(|root| root.join(SCRIPT)));
    let candidates = beside_repo.into_iter().chain(std::iter::once(PathBuf::from(SCRIPT)));
    for c in candidates {
        if c.is_file() {
            return Ok(c);
        }
    }
    Err(format!(
        "cannot find {SCRIPT} (run shr discover from the SHR repository, or set SHR_GATEWAY_CLI to the gateway's cli.mjs)"
    ))
}

/// Runs discovery: `shr discover --config servers.json [--out DIR] [--measure N] [--refine MODULE]`.
pub fn cmd_discover(args: &[String]) -> Result<(), Failure> {
    if args.iter().any(|a| a == "--discover") {
        return Err("shr discover takes the gateway's discovery options, not --discover itself"
            .to_string()
            .into());
    }
    let script = script()?;
    let node = std::env::var_os("SHR_NODE").unwrap_or_else(|| "node".into());
    let status = Command::new(&node).arg(&script).arg("--discover").args(args).status().map_err(|e| {
        format!("cannot run {} {}: {e} (is Node.js 20+ installed?)", node.to_string_lossy(), script.display())
    })?;
    match status.code() {
        Some(0) => Ok(()),
        // The script printed its own one-line error; keep its status (1 nothing found, 2 usage).
        Some(code) => Err(Failure {
            code: u8::try_from(code).unwrap_or(1),
            message: "discovery failed (see above)".into(),
        }),
        None => Err(Failure { code: 1, message: "discovery was stopped by a signal".into() }),
    }
}
