//! shr-web: the visualizer of the Self-Healing Router, where people watch it heal.
//! A Leptos CSR app built by Trunk from the top-level `index.html`; every route, run and count
//! on the page comes from shr-core running in the page, never from a re-implementation.

mod app;
mod editor;
mod figures;
mod fleet;
mod graph_view;
mod io;
mod lane_view;
mod lanes;
mod layout;
mod minimap;
mod model;
mod moment;
mod panels;
mod pickers;
mod present;
mod reasons;
mod replay;
mod share;
mod side;
mod state;
mod story;
mod timeline;
mod url;
mod viewport;
mod words;

fn main() {
    leptos::mount::mount_to_body(app::App);
    // index.html's placeholder, shown while the module loaded.
    if let Some(placeholder) =
        web_sys::window().and_then(|w| w.document()).and_then(|d| d.get_element_by_id("loading"))
    {
        placeholder.remove();
    }
}
