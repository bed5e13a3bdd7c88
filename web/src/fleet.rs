//! Two tabs of the visualizer share health, as agents of a fleet do (`packages/fleet`): each tab
//! keeps a core [`Router`] of the graph it shows, named by a unique origin, whose breakers follow
//! the tools the page has failed. A fail or restore in the page is a breaker change of that
//! router; the [`HealthDelta`]s it drains are posted on a `BroadcastChannel`. Every other tab
//! showing the same graph applies them with [`Router::apply_health_delta`], the core's fleet
//! merge (versions, origins, cooldowns): a breaker it opens there fails the tool in that page,
//! which replays its reroute and says which tab's failure caused it.
//!
//! Anything received that is not a delta for this graph the core accepts is refused and
//! counted, by reason, under the graph: a tab never drops a message without saying so.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::sync::Arc;

use leptos::prelude::*;
use serde::{Deserialize, Serialize};
use shr_core::health::fleet::HealthDelta;
use shr_core::{BreakerState, Millis, Router};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{BroadcastChannel, MessageEvent};

use crate::model::{Setup, Source};
use crate::state::{current_down, Page};

const CHANNEL: &str = "shr-visualizer-fleet";
/// The longest message read, in bytes: a delta is about 150.
const MAX_MESSAGE: usize = 4096;

/// What travels on the channel: a delta of the router of the graph `graph` (the picker's id).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Message {
    graph: String,
    delta: HealthDelta,
}

/// What this tab heard: a tool another tab's failure (or recovery) moved here.
#[derive(Clone, Debug, PartialEq)]
pub struct Heard {
    pub tool: String,
    /// The origin of the delta: the tab whose change it was.
    pub tab: String,
    pub failed: bool,
}

/// This tab's name and its traffic, for the note under the graph.
#[derive(Clone, Copy)]
pub struct Fleet {
    pub tab: StoredValue<String>,
    pub heard: RwSignal<Vec<Heard>>,
    /// Messages refused, by reason (`malformed`, `oversized`, `not_text`, or the core's
    /// rejection code).
    pub refused: RwSignal<BTreeMap<String, u32>>,
    /// Well-formed deltas for a graph this tab is not showing.
    pub elsewhere: RwSignal<u32>,
}

/// The router of the graph shown, and which graph it is.
struct Live {
    key: (String, usize),
    router: Router,
}

thread_local! {
    static CHANNEL_OPEN: RefCell<Option<BroadcastChannel>> = const { RefCell::new(None) };
    static LIVE: RefCell<Option<Live>> = const { RefCell::new(None) };
}

fn now() -> Millis {
    js_sys::Date::now().max(0.0) as Millis
}

/// The graph a setup shows, when tools can be failed on it: the picker's id, and the identity
/// of the scenario (an edited graph keeps the id `custom` but is a new scenario).
fn key(s: &Setup) -> Option<(String, usize)> {
    match &s.source {
        Source::Pack(sc) | Source::Imported(sc) => Some((s.source.id(), Arc::as_ptr(sc) as usize)),
        Source::Cyclic { .. } | Source::Perturb { .. } => None,
    }
}

/// Brings this tab's router in line with the page: a new router for a new graph, its
/// breakers open on the tools the page starts with failed (the scenario's own failures, which
/// every tab opening it has: not published); then every tool failed or restored since is marked
/// down or up, and the deltas the core writes for it are returned, to publish.
fn sync(setup: &Setup, tab: &str) -> Vec<HealthDelta> {
    let Some(k) = key(setup) else {
        LIVE.with(|l| *l.borrow_mut() = None);
        return Vec::new();
    };
    let t = now();
    let want = current_down(setup);
    LIVE.with(|l| {
        let mut l = l.borrow_mut();
        if l.as_ref().is_none_or(|live| live.key != k) {
            let mut router = Router::new(setup.source.graph().clone());
            router.set_origin(tab);
            let down: Vec<usize> = want.iter().filter_map(|id| router.graph().index(id)).collect();
            for v in down {
                router.mark_down(v, t);
            }
            router.drain_health_deltas();
            *l = Some(Live { key: k, router });
            return Vec::new();
        }
        let Some(live) = l.as_mut() else { return Vec::new() };
        let r = &mut live.router;
        let tools: Vec<usize> = (0..r.graph().node_count()).filter(|&v| r.graph().node(v).tool).collect();
        for v in tools {
            let failed = want.iter().any(|id| id == r.graph().id(v));
            let open = r.health().state(v) != BreakerState::Closed;
            if failed && !open {
                r.mark_down(v, t);
            } else if !failed && open {
                r.mark_up(v, t);
            }
        }
        r.drain_health_deltas()
    })
}

fn publish(graph: &str, deltas: Vec<HealthDelta>) {
    CHANNEL_OPEN.with(|c| {
        let Some(channel) = c.borrow().clone() else { return };
        for delta in deltas {
            let message = Message { graph: graph.to_string(), delta };
            if let Ok(text) = serde_json::to_string(&message) {
                let _ = channel.post_message(&JsValue::from_str(&text));
            }
        }
    });
}

/// Reads one message from another tab and applies its delta: `Ok(Some(..))` when it moved a
/// breaker here (the tool, whether it is now failed, the origin), `Ok(None)` when the core
/// applied it without a change of state, or why it was refused (`Err(None)`: it is for another
/// graph).
fn receive(data: &JsValue, showing: Option<(String, usize)>) -> Result<Option<Heard>, Option<String>> {
    let Some(text) = data.as_string() else { return Err(Some("not_text".into())) };
    if text.len() > MAX_MESSAGE {
        return Err(Some("oversized".into()));
    }
    let m: Message = serde_json::from_str(&text).map_err(|_| Some("malformed".to_string()))?;
    if showing.is_none_or(|(g, _)| g != m.graph) {
        return Err(None);
    }
    LIVE.with(|l| {
        let mut l = l.borrow_mut();
        let Some(live) = l.as_mut() else { return Err(None) };
        let applied = live.router.apply_health_delta(&m.delta, now());
        let transition = applied.map_err(|why| Some(why.code().to_string()))?;
        // A breaker the fleet's failures opened here is this tab's change: published as such.
        let own = live.router.drain_health_deltas();
        publish(&m.graph, own);
        Ok(transition
            .and_then(|t| match t.to {
                BreakerState::Open => Some(true),
                BreakerState::Closed => Some(false),
                BreakerState::HalfOpen => None,
            })
            .map(|failed| Heard { tool: m.delta.tool.clone(), tab: m.delta.origin.clone(), failed }))
    })
}

/// Opens the channel (once per tab), keeps the tab's router in line with the page and
/// publishes its deltas, and applies the deltas other tabs publish.
pub fn join(page: Page) -> Fleet {
    let a = (js_sys::Math::random() * 65536.0) as u32;
    let b = (js_sys::Math::random() * 65536.0) as u32;
    let tab = format!("tab-{a:04x}{b:04x}");
    let fleet = Fleet {
        tab: StoredValue::new(tab.clone()),
        heard: RwSignal::new(Vec::new()),
        refused: RwSignal::new(BTreeMap::new()),
        elsewhere: RwSignal::new(0),
    };
    provide_context(fleet);
    // No BroadcastChannel (an old browser): the tab works alone.
    let Ok(channel) = BroadcastChannel::new(CHANNEL) else { return fleet };
    let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |e: MessageEvent| {
        // The router must be that of the graph shown before a delta is merged into it.
        let (deltas, graph) = page.setup.with_untracked(|s| (sync(s, &fleet.tab.get_value()), s.source.id()));
        publish(&graph, deltas);
        let showing = page.setup.with_untracked(key);
        match receive(&e.data(), showing) {
            Ok(None) => {}
            Ok(Some(h)) => {
                page.set_failed(&h.tool, h.failed);
                fleet.heard.update(|heard| {
                    heard.retain(|x| x.tool != h.tool);
                    heard.push(h);
                });
            }
            Err(None) => fleet.elsewhere.update(|n| *n += 1),
            Err(Some(why)) => fleet.refused.update(|r| *r.entry(why).or_default() += 1),
        }
    });
    channel.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    // The tab lives as long as the page: so does its listener.
    on_message.forget();
    CHANNEL_OPEN.with(|c| *c.borrow_mut() = Some(channel));
    // Every change of the page's failed tools (a click, another tab's delta, a new graph) goes
    // through the router; what it writes is published.
    Effect::new(move |_| {
        let (deltas, graph) = page.setup.with(|s| (sync(s, &tab), s.source.id()));
        publish(&graph, deltas);
    });
    fleet
}

/// Which tab's failures this tab is routing around, and what it refused.
#[component]
pub fn FleetNote() -> impl IntoView {
    let fleet = expect_context::<Fleet>();
    move || {
        let heard = fleet.heard.get();
        let refused = fleet.refused.get();
        let elsewhere = fleet.elsewhere.get();
        if heard.is_empty() && refused.is_empty() && elsewhere == 0 {
            return None;
        }
        let lines = heard
            .iter()
            .map(|h| {
                let what = if h.failed { "failed" } else { "was restored" };
                let then = if h.failed { "this tab rerouted around it" } else { "this tab routes through it again" };
                view! { <li data-testid="fleet-heard">{format!("{} {what} in {}: {then}.", h.tool, h.tab)}</li> }
            })
            .collect_view();
        let total: u32 = refused.values().sum();
        let refused = (total > 0).then(|| {
            let why = refused.iter().map(|(k, n)| format!("{k} {n}")).collect::<Vec<_>>().join(", ");
            view! {
                <p class="fleet-refused" data-testid="fleet-refused" data-count=total.to_string()>
                    {format!("Refused {total} message{} from other tabs ({why}).", if total == 1 { "" } else { "s" })}
                </p>
            }
        });
        let elsewhere = (elsewhere > 0).then(|| {
            view! {
                <p data-testid="fleet-elsewhere">{format!("{elsewhere} for another graph than this one: not applied.")}</p>
            }
        });
        Some(view! {
            <div class="fleet-note" data-testid="fleet-note" role="status">
                <p>{format!("This is {}. Other tabs share health with it:", fleet.tab.get_value())}</p>
                <ul>{lines}</ul>
                {refused}
                {elsewhere}
            </div>
        })
    }
}
