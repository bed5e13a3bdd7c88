//! Presenting: keyboard shortcuts for the replay (space plays / pauses, arrows step; F, which
//! fits the graph, is the viewport's) and a projector mode (large type, high contrast).

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::state::Page;

/// Space and the arrows drive the replay, unless focus is where they already mean something:
/// a form field, a button (space presses it), the graph (arrows pan it).
pub fn wire_keys(page: Page) {
    let handle = window_event_listener(leptos::ev::keydown, move |ev| {
        if ev.ctrl_key() || ev.meta_key() || ev.alt_key() || ev.default_prevented() {
            return;
        }
        let key = ev.key();
        let focus = web_sys::window().and_then(|w| w.document()).and_then(|d| d.active_element());
        let tag = focus.as_ref().map(|el| el.tag_name()).unwrap_or_default();
        if matches!(tag.as_str(), "INPUT" | "TEXTAREA" | "SELECT") {
            return;
        }
        let in_graph =
            focus.as_ref().and_then(|el| el.closest("[data-testid=graph-wrap]").ok().flatten()).is_some();
        let r = page.replay;
        match key.as_str() {
            " " if tag != "BUTTON" && !in_graph => r.toggle(),
            "ArrowRight" if !in_graph => r.forward(),
            "ArrowLeft" if !in_graph => r.back(),
            _ => return,
        }
        ev.prevent_default();
    });
    on_cleanup(move || handle.remove());
}

/// The projector mode switch: large type and high contrast for a room.
#[component]
pub fn ProjectorToggle() -> impl IntoView {
    let on = RwSignal::new(false);
    Effect::new(move |_| {
        let root = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.document_element())
            .and_then(|e| e.dyn_into::<web_sys::Element>().ok());
        if let Some(root) = root {
            // The page works without the mode if the class cannot be set.
            let _ = root.class_list().toggle_with_force("projector", on.get());
        }
        // The graph fits itself again to the mode's wider stage and larger scale.
        if let (Some(w), Ok(ev)) = (web_sys::window(), web_sys::Event::new("resize")) {
            let _ = w.dispatch_event(&ev);
        }
    });
    view! {
        <button class="projector-toggle" data-testid="projector" aria-pressed=move || on.get().to_string()
            title="Large type and high contrast, for a projector"
            on:click=move |_| on.update(|v| *v = !*v)>
            {move || if on.get() { "Projector mode: on" } else { "Projector mode" }}
        </button>
        <span class="keys-hint">"Keys: space play/pause · ← → step · F fit"</span>
    }
}
