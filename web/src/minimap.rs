//! The whole graph in small, for graphs too big to read whole: every box as a dot, the part in
//! view as a frame. A press or drag on it centres the view there.

use std::sync::Arc;

use leptos::prelude::*;

use crate::layout::Layout;
use crate::viewport::Viewport;

/// The minimap's width on the page, in CSS pixels; its height follows the graph's proportions.
const WIDTH: f64 = 180.0;

#[component]
pub fn Minimap(layout: Arc<Layout>, vp: Viewport) -> impl IntoView {
    let (w, h) = (layout.width.max(1.0), layout.height.max(1.0));
    let height = (WIDTH * h / w).clamp(40.0, 160.0);
    let boxes =
        layout.nodes.iter().map(|r| view! { <rect x=r.x y=r.y width=r.w height=r.h /> }).collect_view();
    let frame = move || vp.visible();
    let centre = move |ev: leptos::ev::PointerEvent| {
        let Some(el) =
            ev.current_target().and_then(|t| wasm_bindgen::JsCast::dyn_into::<web_sys::Element>(t).ok())
        else {
            return;
        };
        let r = el.get_bounding_client_rect();
        let x = (ev.client_x() as f64 - r.left()) / r.width().max(1.0) * w;
        let y = (ev.client_y() as f64 - r.top()) / r.height().max(1.0) * h;
        vp.centre_on(x, y);
    };
    view! {
        <svg class="minimap" data-testid="minimap" viewBox=format!("0 0 {w} {h}") preserveAspectRatio="none"
            style=format!("width:{WIDTH}px;height:{height:.0}px") aria-hidden="true"
            on:pointerdown=move |ev| { ev.stop_propagation(); centre(ev) }
            on:pointermove=move |ev| if ev.buttons() == 1 { centre(ev) }>
            <g class="dots">{boxes}</g>
            <rect class="frame" x=move || frame().0 y=move || frame().1 width=move || frame().2 height=move || frame().3 />
        </svg>
    }
}
