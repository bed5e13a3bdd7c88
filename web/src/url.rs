//! The page's state in its URL (`?scenario=S2&down=stripe,email&probe=sms`), so a state can be
//! shared by link. Ids are percent-encoded, so any id survives the trip.

/// The state a URL holds. `down: None` means "the scenario's own failures".
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Shared {
    pub scenario: Option<String>,
    pub down: Option<Vec<String>>,
    pub probing: Vec<String>,
    /// Redirect probability and seed of a cyclic workflow (the seed also picks a ToolMaze task).
    pub p: Option<f64>,
    pub seed: Option<u64>,
    /// A perturbation's mode (`P1`..`P4`, `NP`), target tool, and whether validators are on.
    pub mode: Option<String>,
    pub target: Option<String>,
    pub validators: Option<bool>,
    /// A perturbation's family of wrong results (`plausible`, `stale`, ...).
    pub family: Option<String>,
    /// An imported or edited graph, deflated and base64url (`share`).
    pub graph: Option<String>,
    /// The replay's position (a step), and whose run it replays (`react`, `static`).
    pub at: Option<usize>,
    pub lane: Option<String>,
}

fn decode(s: &str) -> String {
    js_sys::decode_uri_component(s).ok().and_then(|v| v.as_string()).unwrap_or_else(|| s.to_string())
}

fn encode(s: &str) -> String {
    String::from(js_sys::encode_uri_component(s))
}

fn list(v: &str) -> Vec<String> {
    v.split(',').filter(|t| !t.is_empty()).map(decode).collect()
}

/// Parses a query string (with or without the leading `?`). Unknown keys are ignored.
pub fn parse(query: &str) -> Shared {
    let mut out = Shared::default();
    for pair in query.trim_start_matches('?').split('&').filter(|p| !p.is_empty()) {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        match k {
            "scenario" => out.scenario = Some(decode(v)),
            "down" => out.down = Some(list(v)),
            "probe" => out.probing = list(v),
            "p" => out.p = v.parse().ok().filter(|p: &f64| (0.0..=1.0).contains(p)),
            "seed" => out.seed = v.parse().ok(),
            "mode" => out.mode = Some(decode(v)),
            "target" => out.target = Some(decode(v)),
            "validators" => out.validators = Some(v != "0"),
            "family" => out.family = Some(decode(v)),
            "g" => out.graph = Some(v.to_string()),
            "at" => out.at = v.parse().ok(),
            "lane" => out.lane = Some(decode(v)),
            _ => {}
        }
    }
    out
}

/// The query string for a state.
pub fn query(state: &Shared) -> String {
    let mut parts = Vec::new();
    if let Some(s) = &state.scenario {
        parts.push(format!("scenario={}", encode(s)));
    }
    let join = |ids: &[String]| ids.iter().map(|t| encode(t)).collect::<Vec<_>>().join(",");
    if let Some(d) = &state.down {
        parts.push(format!("down={}", join(d)));
    }
    if !state.probing.is_empty() {
        parts.push(format!("probe={}", join(&state.probing)));
    }
    if let Some(p) = state.p {
        parts.push(format!("p={p}"));
    }
    if let Some(seed) = state.seed {
        parts.push(format!("seed={seed}"));
    }
    if let Some(mode) = &state.mode {
        parts.push(format!("mode={}", encode(mode)));
    }
    if let Some(target) = &state.target {
        parts.push(format!("target={}", encode(target)));
    }
    if let Some(v) = state.validators {
        parts.push(format!("validators={}", u8::from(v)));
    }
    if let Some(f) = &state.family {
        parts.push(format!("family={}", encode(f)));
    }
    if let Some(lane) = &state.lane {
        parts.push(format!("lane={}", encode(lane)));
    }
    if let Some(at) = state.at {
        parts.push(format!("at={at}"));
    }
    if let Some(g) = &state.graph {
        // base64url needs no escaping.
        parts.push(format!("g={g}"));
    }
    if parts.is_empty() {
        String::new()
    } else {
        format!("?{}", parts.join("&"))
    }
}

/// The current page's query string.
pub fn read() -> Shared {
    let search = web_sys::window().and_then(|w| w.location().search().ok()).unwrap_or_default();
    parse(&search)
}

thread_local! {
    /// The state the address bar is to show, when a write is already scheduled.
    static PENDING: std::cell::RefCell<Option<Shared>> = const { std::cell::RefCell::new(None) };
}

/// [`write`], a moment later, once: a big imported graph makes a long address (a 500-node graph
/// took 0.23 s of `replaceState`), and the drawing should not wait for the address bar. Several
/// changes in a row write only the last.
pub fn write_soon(state: Shared) {
    let scheduled = PENDING.with(|p| p.borrow_mut().replace(state).is_some());
    if !scheduled {
        gloo_timers::callback::Timeout::new(0, || {
            if let Some(s) = PENDING.with(|p| p.borrow_mut().take()) {
                write(&s);
            }
        })
        .forget();
    }
}

/// Replaces the page's URL (no new history entry per click).
pub fn write(state: &Shared) {
    let Some(window) = web_sys::window() else { return };
    let path = window.location().pathname().unwrap_or_else(|_| "/".into());
    let url = format!("{path}{}", query(state));
    if let Ok(history) = window.history() {
        // Failing to update the address bar only loses shareability, never the page.
        let _ = history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url));
    }
}
