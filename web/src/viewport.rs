//! Pan and zoom of the tool graph: one transform (scale `k`, then offset `tx`, `ty`, in CSS
//! pixels) applied to the whole drawing. Driven by the wheel, pinch and drag (pointer events),
//! the keyboard when the graph has focus, and the toolbar; "fit" always shows the whole graph.
//! Where that would shrink its type below [`MIN_TEXT_PX`] the drawing is "lite" ([`Viewport::lite`]):
//! costs and labels hidden (a tool's label shows on hover or focus), route and failures kept.
//!
//! Keyboard agreement with the page's own shortcuts (replay: space, arrows): while the graph
//! stage has focus it owns `+ - 0 F` and the arrows (Shift+arrows pan further), handled by a
//! native listener on the stage that stops the event, so a page-wide handler never sees them;
//! everywhere else the arrows are the replay's. `F` fits the graph from anywhere on the page
//! except a text field or menu ([`wire_fit_shortcut`]): page-wide handlers leave `F` alone.

use leptos::prelude::*;

/// The smallest type the graph uses, in graph units (style.css: every `svg.graph` text).
pub const GRAPH_TEXT_PX: f64 = 12.0;
/// The smallest on-screen type "fit" accepts.
pub const MIN_TEXT_PX: f64 = 11.0;
/// Fit never magnifies a small graph beyond this (projector mode: [`MAX_FIT_PROJECTOR`]).
const MAX_FIT: f64 = 1.6;
const MAX_FIT_PROJECTOR: f64 = 2.4;
const MIN_K: f64 = 0.08;
const MAX_K: f64 = 4.0;

/// The view onto the graph: what the transform is, and the sizes it depends on.
#[derive(Clone, Copy)]
pub struct Viewport {
    pub k: RwSignal<f64>,
    pub tx: RwSignal<f64>,
    pub ty: RwSignal<f64>,
    /// The drawing's height on the page, in CSS pixels (the width is the stage's).
    pub height: RwSignal<f64>,
    /// The stage's width, measured when the graph is fitted or the window resized.
    pub width: RwSignal<f64>,
    /// The graph's own size, in graph units.
    pub content: RwSignal<(f64, f64)>,
    /// Where a graph too big to show whole is shown from: its start node's centre.
    pub anchor: RwSignal<(f64, f64)>,
    /// Whether the view is as "fit" left it (then a resize fits again).
    pub fitted: RwSignal<bool>,
    /// The focused tool's centre, in graph units: the buttons and keys zoom about it.
    pub focus: RwSignal<Option<(f64, f64)>>,
}

impl Viewport {
    pub fn new() -> Self {
        Viewport {
            k: RwSignal::new(1.0),
            tx: RwSignal::new(0.0),
            ty: RwSignal::new(0.0),
            height: RwSignal::new(320.0),
            width: RwSignal::new(640.0),
            content: RwSignal::new((0.0, 0.0)),
            anchor: RwSignal::new((0.0, 0.0)),
            fitted: RwSignal::new(true),
            focus: RwSignal::new(None),
        }
    }

    /// The tallest the drawing may be: what the first screen leaves beside the title, the
    /// replay controls and the story step being told (more of it wrapped on a narrow screen).
    fn max_height() -> f64 {
        let window = web_sys::window();
        let size = |f: fn(&web_sys::Window) -> Result<wasm_bindgen::JsValue, wasm_bindgen::JsValue>, or| {
            window.as_ref().and_then(|w| f(w).ok()).and_then(|v| v.as_f64()).unwrap_or(or)
        };
        let (inner_w, inner_h) =
            (size(web_sys::Window::inner_width, 1280.0), size(web_sys::Window::inner_height, 800.0));
        let reserved = if projector() {
            0.25 * inner_h
        } else if inner_w < 640.0 {
            560.0
        } else {
            400.0
        };
        (inner_h - reserved).clamp(200.0, inner_h * 0.7)
    }

    /// The scale at which a graph of `size` fits a stage `width` pixels wide.
    pub fn scale_to_fit(size: (f64, f64), width: f64) -> f64 {
        let most = if projector() { MAX_FIT_PROJECTOR } else { MAX_FIT };
        (width / size.0.max(1.0)).min(Self::max_height() / size.1.max(1.0)).min(most)
    }

    /// Whether type drawn at scale `k` is too small to read: then the drawing is lite.
    pub fn lite(k: f64) -> bool {
        k * GRAPH_TEXT_PX < MIN_TEXT_PX - 1e-9
    }

    /// Fits the graph into a stage `width` pixels wide: the scale that shows it whole (at most
    /// MAX_FIT), centred.
    pub fn fit(&self, width: f64) {
        let (cw, ch) = self.content.get_untracked();
        if cw <= 0.0 || ch <= 0.0 || width <= 0.0 {
            return;
        }
        let max_h = Self::max_height();
        let k = Self::scale_to_fit((cw, ch), width);
        let height = (ch * k).min(max_h).max(120.0);
        self.width.set(width);
        self.height.set(height);
        self.k.set(k);
        let (ax, ay) = self.anchor.get_untracked();
        self.tx.set(place(width, cw * k, ax * k));
        self.ty.set(place(height, ch * k, ay * k));
        self.fitted.set(true);
    }

    /// Sets the graph's size and the point shown first when it does not fit.
    pub fn set_content(&self, size: (f64, f64), anchor: (f64, f64)) {
        self.content.set(size);
        self.anchor.set(anchor);
    }

    /// Zooms by `factor` keeping the graph point under (`px`, `py`) (stage pixels) in place.
    pub fn zoom_at(&self, factor: f64, px: f64, py: f64) {
        let k = self.k.get_untracked();
        let nk = (k * factor).clamp(MIN_K, MAX_K);
        let f = nk / k;
        self.tx.update(|t| *t = px - (px - *t) * f);
        self.ty.update(|t| *t = py - (py - *t) * f);
        self.k.set(nk);
        self.fitted.set(false);
    }

    /// Zooms about the focused tool, or else the middle of the stage (the buttons, + and −),
    /// keeping the graph in view: centred on an axis where it fits, never leaving a margin where
    /// it does not (zooming out used to let it drift off the stage's edge).
    pub fn zoom(&self, factor: f64) {
        let (px, py) = self.focus.get_untracked().map_or(
            (self.width.get_untracked() / 2.0, self.height.get_untracked() / 2.0),
            |(x, y)| {
                let k = self.k.get_untracked();
                (x * k + self.tx.get_untracked(), y * k + self.ty.get_untracked())
            },
        );
        self.zoom_at(factor, px, py);
        let (cw, ch) = self.content.get_untracked();
        let k = self.k.get_untracked();
        let (w, h) = (self.width.get_untracked(), self.height.get_untracked());
        self.tx.update(|t| *t = keep_in_view(w, cw * k, *t));
        self.ty.update(|t| *t = keep_in_view(h, ch * k, *t));
    }

    /// Moves the drawing by (`dx`, `dy`) stage pixels.
    pub fn pan(&self, dx: f64, dy: f64) {
        self.tx.update(|t| *t += dx);
        self.ty.update(|t| *t += dy);
        self.fitted.set(false);
    }

    /// Centres the view on graph point (`x`, `y`).
    pub fn centre_on(&self, x: f64, y: f64) {
        let k = self.k.get_untracked();
        self.tx.set(self.width.get_untracked() / 2.0 - x * k);
        self.ty.set(self.height.get_untracked() / 2.0 - y * k);
        self.fitted.set(false);
    }

    /// The part of the graph in view, in graph units: (x, y, w, h).
    pub fn visible(&self) -> (f64, f64, f64, f64) {
        let k = self.k.get();
        (-self.tx.get() / k, -self.ty.get() / k, self.width.get() / k, self.height.get() / k)
    }

    /// [`Viewport::visible`], read without subscribing.
    pub fn visible_untracked(&self) -> (f64, f64, f64, f64) {
        let k = self.k.get_untracked();
        (
            -self.tx.get_untracked() / k,
            -self.ty.get_untracked() / k,
            self.width.get_untracked() / k,
            self.height.get_untracked() / k,
        )
    }

    pub fn transform(&self) -> String {
        format!("translate({:.2} {:.2}) scale({:.4})", self.tx.get(), self.ty.get(), self.k.get())
    }
}

/// The offset along one axis: centred when the graph fits the stage (`room`); else the
/// anchor as near the middle as the graph's ends allow, so no blank shows beyond them.
/// The offset that keeps a drawing of `size` in a `room`: centred when it fits, else moved
/// (from `t`) no further than its edges.
fn keep_in_view(room: f64, size: f64, t: f64) -> f64 {
    if size <= room {
        (room - size) / 2.0
    } else {
        t.clamp(room - size, 0.0)
    }
}

fn place(room: f64, size: f64, anchor: f64) -> f64 {
    if size <= room {
        (room - size) / 2.0
    } else {
        (room / 2.0 - anchor).clamp(room - size, 0.0)
    }
}

/// Whether projector mode is on (the `projector` class on the root element).
pub fn projector() -> bool {
    web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.document_element())
        .is_some_and(|e| e.class_list().contains("projector"))
}

/// The page-wide shortcut F fits the graph wherever the focus is, except in a text field or
/// menu (where F is typing). The graph's other keys work while it has focus ([`wire`]).
pub fn wire_fit_shortcut(wrap: NodeRef<leptos::html::Div>, vp: Viewport) {
    let handle = window_event_listener(leptos::ev::keydown, move |ev| {
        if ev.ctrl_key() || ev.meta_key() || ev.alt_key() || ev.default_prevented() {
            return;
        }
        if ev.key() != "f" && ev.key() != "F" {
            return;
        }
        let typing = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.active_element())
            .is_some_and(|el| matches!(el.tag_name().as_str(), "INPUT" | "TEXTAREA" | "SELECT"));
        if let (false, Some(el)) = (typing, wrap.get_untracked()) {
            ev.prevent_default();
            vp.fit(el.client_width() as f64);
        }
    });
    on_cleanup(move || handle.remove());
}

/// What a key does to the view, if anything: `+`/`=` and `-` zoom, arrows pan (Shift: further),
/// `f` fits, `0` shows 1:1. Returns whether the key was used.
pub fn key(vp: &Viewport, key: &str, shift: bool, fit_width: f64) -> bool {
    let step = if shift { 240.0 } else { 60.0 };
    match key {
        "+" | "=" => vp.zoom(1.25),
        "-" | "_" => vp.zoom(0.8),
        "0" => vp.zoom(1.0 / vp.k.get_untracked()),
        "f" | "F" => vp.fit(fit_width),
        "ArrowLeft" => vp.pan(step, 0.0),
        "ArrowRight" => vp.pan(-step, 0.0),
        "ArrowUp" => vp.pan(0.0, step),
        "ArrowDown" => vp.pan(0.0, -step),
        _ => return false,
    }
    true
}

/// The point of a `translate(x,y)` attribute.
fn translate(t: &str) -> Option<(f64, f64)> {
    let inner = t.strip_prefix("translate(")?.strip_suffix(')')?;
    let mut parts = inner.split([',', ' ']).filter(|p| !p.is_empty());
    Some((parts.next()?.parse().ok()?, parts.next()?.parse().ok()?))
}

/// Where a pointer is, in stage pixels.
fn local(wrap: &web_sys::HtmlElement, x: i32, y: i32) -> (f64, f64) {
    let r = wrap.get_bounding_client_rect();
    (x as f64 - r.left(), y as f64 - r.top())
}

/// Wires the wheel (zoom at the pointer), drag (pan) and two-finger pinch (zoom and pan) on
/// the stage. A press on a tool that does not move stays a click on the tool; one that moves
/// more than a few pixels becomes a drag, and the pointer is captured so the tool is not clicked.
pub fn wire(wrap: NodeRef<leptos::html::Div>, vp: Viewport) {
    use std::cell::RefCell;
    use std::collections::BTreeMap;
    use std::rc::Rc;
    use wasm_bindgen::closure::Closure;
    use wasm_bindgen::JsCast;

    #[derive(Default)]
    struct Gesture {
        /// Pointers down: where each was last.
        down: BTreeMap<i32, (f64, f64)>,
        dragging: bool,
        origin: (f64, f64),
    }

    Effect::new(move |done: Option<bool>| {
        if done == Some(true) {
            return true;
        }
        let Some(el) = wrap.get() else { return false };
        let el: web_sys::HtmlElement = el.into();
        let g = Rc::new(RefCell::new(Gesture::default()));
        let listen = |name: &str, f: Box<dyn FnMut(web_sys::Event)>| {
            let cb = Closure::<dyn FnMut(web_sys::Event)>::wrap(f);
            let opts = web_sys::AddEventListenerOptions::new();
            opts.set_passive(false);
            let _ = el.add_event_listener_with_callback_and_add_event_listener_options(
                name,
                cb.as_ref().unchecked_ref(),
                &opts,
            );
            // The stage lives as long as the page.
            cb.forget();
        };
        let host = el.clone();
        listen(
            "wheel",
            Box::new(move |ev| {
                let Some(ev) = ev.dyn_ref::<web_sys::WheelEvent>() else { return };
                ev.prevent_default();
                // Lines and pages (Firefox, some mice) weigh more than pixels.
                let unit = match ev.delta_mode() {
                    1 => 16.0,
                    2 => 400.0,
                    _ => 1.0,
                };
                let (x, y) = local(&host, ev.client_x(), ev.client_y());
                vp.zoom_at((-ev.delta_y() * unit * 0.0015).exp(), x, y);
            }),
        );
        let (host, gs) = (el.clone(), g.clone());
        listen(
            "pointerdown",
            Box::new(move |ev| {
                let Some(ev) = ev.dyn_ref::<web_sys::PointerEvent>() else { return };
                let on_control = ev
                    .target()
                    .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
                    .and_then(|t| t.closest("button, .minimap").ok().flatten())
                    .is_some();
                if on_control || ev.button() != 0 {
                    return;
                }
                let p = local(&host, ev.client_x(), ev.client_y());
                let mut g = gs.borrow_mut();
                g.down.insert(ev.pointer_id(), p);
                g.origin = p;
                g.dragging = g.down.len() > 1;
            }),
        );
        let (host, gs) = (el.clone(), g.clone());
        listen(
            "pointermove",
            Box::new(move |ev| {
                let Some(ev) = ev.dyn_ref::<web_sys::PointerEvent>() else { return };
                let mut g = gs.borrow_mut();
                let Some(&last) = g.down.get(&ev.pointer_id()) else { return };
                let p = local(&host, ev.client_x(), ev.client_y());
                if g.down.len() == 1 {
                    if !g.dragging && (p.0 - g.origin.0).hypot(p.1 - g.origin.1) > 4.0 {
                        g.dragging = true;
                        let _ = host.set_pointer_capture(ev.pointer_id());
                    }
                    if g.dragging {
                        vp.pan(p.0 - last.0, p.1 - last.1);
                    }
                } else if let Some((&other, &q)) = g.down.iter().find(|(&id, _)| id != ev.pointer_id()) {
                    // Pinch: the distance between the two fingers scales, their midpoint pans.
                    let _ = other;
                    let before = (last.0 - q.0).hypot(last.1 - q.1).max(1.0);
                    let after = (p.0 - q.0).hypot(p.1 - q.1).max(1.0);
                    let (m0, m1) = (
                        ((last.0 + q.0) / 2.0, (last.1 + q.1) / 2.0),
                        ((p.0 + q.0) / 2.0, (p.1 + q.1) / 2.0),
                    );
                    vp.pan(m1.0 - m0.0, m1.1 - m0.1);
                    vp.zoom_at(after / before, m1.0, m1.1);
                }
                ev.prevent_default();
                g.down.insert(ev.pointer_id(), p);
            }),
        );
        // Keys, native and on the stage itself so they are handled (and stopped) before any
        // page-wide shortcut: while the graph has focus, arrows pan it rather than step the
        // replay.
        let host = el.clone();
        listen(
            "keydown",
            Box::new(move |ev| {
                let Some(ev) = ev.dyn_ref::<web_sys::KeyboardEvent>() else { return };
                if ev.ctrl_key() || ev.meta_key() || ev.alt_key() {
                    return;
                }
                if key(&vp, &ev.key(), ev.shift_key(), host.client_width() as f64) {
                    ev.prevent_default();
                    ev.stop_propagation();
                }
            }),
        );
        // A tool reached with Tab is brought into view by the transform, never by the browser
        // scrolling the stage (which would shift the drawing out from under the transform).
        let host = el.clone();
        listen(
            "focusin",
            Box::new(move |ev| {
                host.set_scroll_left(0);
                host.set_scroll_top(0);
                let Some(node) = ev
                    .target()
                    .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
                    .and_then(|t| t.closest("[data-node]").ok().flatten())
                else {
                    return;
                };
                let Some((x, y)) = node.get_attribute("transform").as_deref().and_then(translate) else {
                    return;
                };
                vp.focus.set(Some((x, y)));
                let (vx, vy, vw, vh) = vp.visible_untracked();
                let margin = 40.0 / vp.k.get_untracked();
                if x < vx + margin || x > vx + vw - margin || y < vy + margin || y > vy + vh - margin {
                    vp.centre_on(x, y);
                }
            }),
        );
        listen("focusout", Box::new(move |_| vp.focus.set(None)));
        for name in ["pointerup", "pointercancel"] {
            let gs = g.clone();
            listen(
                name,
                Box::new(move |ev| {
                    let Some(ev) = ev.dyn_ref::<web_sys::PointerEvent>() else { return };
                    let mut g = gs.borrow_mut();
                    g.down.remove(&ev.pointer_id());
                    if g.down.is_empty() {
                        g.dragging = false;
                    }
                }),
            );
        }
        true
    });
}
