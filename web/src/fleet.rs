//! Two tabs of the visualizer share health, as agents of a fleet do (`packages/fleet`): failing
//! or restoring a tool in one tab is announced on a `BroadcastChannel`, and every other tab
//! showing the same graph fails or restores it too and replays its reroute, saying which tab's
//! failure caused it.

use std::cell::RefCell;

use leptos::prelude::*;
use serde::{Deserialize, Serialize};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{BroadcastChannel, MessageEvent};

use crate::state::Page;

const CHANNEL: &str = "shr-visualizer-fleet";

/// One announcement: in tab `tab`, showing `source`, `tool` was failed or restored.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Announcement {
    tab: String,
    source: String,
    tool: String,
    failed: bool,
}

/// What this tab heard: a tool another tab failed or restored.
#[derive(Clone, Debug, PartialEq)]
pub struct Heard {
    pub tool: String,
    pub tab: String,
    pub failed: bool,
}

/// This tab's name and what it heard, for the note under the graph.
#[derive(Clone, Copy)]
pub struct Fleet {
    pub tab: StoredValue<String>,
    pub heard: RwSignal<Vec<Heard>>,
}

thread_local! {
    static OPEN: RefCell<Option<(BroadcastChannel, String)>> = const { RefCell::new(None) };
}

/// Opens the channel (once per tab) and applies what other tabs announce to `page`.
pub fn join(page: Page) -> Fleet {
    let tab = format!("tab-{:04x}", (js_sys::Math::random() * 65536.0) as u32);
    let fleet = Fleet { tab: StoredValue::new(tab.clone()), heard: RwSignal::new(Vec::new()) };
    provide_context(fleet);
    // No BroadcastChannel (an old browser): the tab works alone.
    let Ok(channel) = BroadcastChannel::new(CHANNEL) else { return fleet };
    let me = tab.clone();
    let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |e: MessageEvent| {
        // Anything but a well-formed announcement from another tab is ignored: a tab is not a
        // place to report a hostile peer to.
        let Some(text) = e.data().as_string() else { return };
        let Ok(a) = serde_json::from_str::<Announcement>(&text) else { return };
        if a.tab == me || page.setup.with_untracked(|s| s.source.id()) != a.source {
            return;
        }
        page.set_failed(&a.tool, a.failed);
        fleet.heard.update(|h| {
            h.retain(|x| x.tool != a.tool);
            h.push(Heard { tool: a.tool.clone(), tab: a.tab.clone(), failed: a.failed });
        });
    });
    channel.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    // The tab lives as long as the page: so does its listener.
    on_message.forget();
    OPEN.with(|o| *o.borrow_mut() = Some((channel, tab)));
    fleet
}

/// Tells the other tabs that this one failed (or restored) `tool` while showing `source`.
pub fn announce(source: &str, tool: &str, failed: bool) {
    OPEN.with(|o| {
        if let Some((channel, tab)) = o.borrow().as_ref() {
            let a = Announcement { tab: tab.clone(), source: source.into(), tool: tool.into(), failed };
            if let Ok(text) = serde_json::to_string(&a) {
                let _ = channel.post_message(&JsValue::from_str(&text));
            }
        }
    });
}

/// Which tab's failures this tab is routing around.
#[component]
pub fn FleetNote() -> impl IntoView {
    let fleet = expect_context::<Fleet>();
    move || {
        let heard = fleet.heard.get();
        (!heard.is_empty()).then(|| {
            let lines = heard
                .iter()
                .map(|h| {
                    let what = if h.failed { "failed" } else { "was restored" };
                    let then = if h.failed {
                        "this tab rerouted around it"
                    } else {
                        "this tab routes through it again"
                    };
                    view! { <li>{format!("{} {what} in {}: {then}.", h.tool, h.tab)}</li> }
                })
                .collect_view();
            view! {
                <div class="fleet-note" data-testid="fleet-note" role="status">
                    <p>{format!("This is {}. Other tabs share health with it:", fleet.tab.get_value())}</p>
                    <ul>{lines}</ul>
                </div>
            }
        })
    }
}
