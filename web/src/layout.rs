//! Where every box, edge and label of the tool graph is drawn: a layered (Sugiyama) layout by
//! the Eclipse Layout Kernel (elkjs, `layered` algorithm), run in a Web Worker so the page stays
//! responsive. ELK does the layering, the crossing minimisation, the orthogonal routing of
//! edges around the boxes and the placement of edge labels; this module only describes the graph
//! to it (box and label sizes, hand-placed hints) and reads its answer back.
//!
//! elkjs ships with the page (`index.html` copies `elk-api.js` and `elk-worker.min.js`), so
//! nothing is fetched from elsewhere. ELK is deterministic, so the built-in scenarios' drawings
//! are its answers computed at build time (`web/layouts.js`, inlined; `window.shrLayout.prebuilt`
//! finds one by the ELK graph asked for) and ELK's script is fetched only for another graph
//! (issue 48: the first graph drawn within a second on a slow network). Layouts are cached by
//! description: clicking tools changes the run, not the graph, and never lays out again.

use std::cell::RefCell;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use serde::Deserialize;
use serde_json::{json, Value};
use shr_core::ToolGraph;
use wasm_bindgen::{JsCast, JsValue};

use crate::model::num;

/// A node's box, as drawn.
pub const NODE_W: f64 = 116.0;
pub const NODE_H: f64 = 50.0;
/// The band above a tool's box that ELK keeps free for its notes ("fails after 2 calls").
pub const BAND_H: f64 = 15.0;
/// One line of an edge label.
pub const LABEL_LINE_H: f64 = 15.0;
/// Above this many nodes ELK's slower refinements are skipped, so a 500-node graph is laid out
/// in about half a second.
const LARGE: usize = 150;

/// How long ELK may take before the page falls back to the grid (2,000 nodes take a few seconds).
const TIMEOUT_MS: i32 = 30_000;

/// A rectangle, top-left corner and size, in graph units (one unit is one CSS pixel at 1:1).
#[derive(Clone, Copy, Debug, PartialEq, Deserialize)]
pub struct Rect {
    pub x: f64,
    pub y: f64,
    #[serde(rename = "width")]
    pub w: f64,
    #[serde(rename = "height")]
    pub h: f64,
}

impl Rect {
    pub fn centre(&self) -> (f64, f64) {
        (self.x + self.w / 2.0, self.y + self.h / 2.0)
    }
}

/// How one edge is drawn: a polyline from its source's box to its target's, and its label.
#[derive(Clone, Debug, PartialEq)]
pub struct Route {
    pub points: Vec<(f64, f64)>,
    pub label: Rect,
}

/// Which engine placed the drawing.
#[derive(Clone, Debug, PartialEq)]
pub enum Engine {
    Elk,
    /// ELK was not there or failed (the message says why): boxes on a grid, straight edges.
    Fallback(String),
}

/// A laid-out graph: per node its box, per edge its route, and the size of the whole.
#[derive(Clone, Debug, PartialEq)]
pub struct Layout {
    /// The graph's identity ([`key`]).
    pub key: u64,
    pub direction: Direction,
    pub nodes: Vec<Rect>,
    pub edges: Vec<Route>,
    pub width: f64,
    pub height: f64,
    pub engine: Engine,
    /// How long the layout took, in milliseconds (shown to the browser tests).
    pub millis: f64,
    /// Whether edge labels have a second line for the revisit count (a graph with a cycle).
    pub two_line_labels: bool,
}

/// Which way the layers run: left to right on a wide stage, top to bottom on a phone, where a
/// long row of layers would need panning sideways at readable sizes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Direction {
    Right,
    Down,
}

impl Direction {
    /// Below this window width (a phone held upright) the layers run downwards.
    const NARROW_PX: f64 = 640.0;

    /// The directions worth trying for a graph: both for a graph small enough to lay out twice
    /// (the page shows whichever fits its stage at the larger scale), else the one for the
    /// window's shape.
    pub fn candidates(graph: &ToolGraph) -> Vec<Direction> {
        if graph.node_count() <= LARGE {
            vec![Direction::Right, Direction::Down]
        } else {
            vec![Direction::for_window()]
        }
    }

    pub fn for_window() -> Direction {
        let w =
            web_sys::window().and_then(|w| w.inner_width().ok()).and_then(|w| w.as_f64()).unwrap_or(1280.0);
        if w < Self::NARROW_PX {
            Direction::Down
        } else {
            Direction::Right
        }
    }

    fn elk(self) -> &'static str {
        match self {
            Direction::Right => "RIGHT",
            Direction::Down => "DOWN",
        }
    }
}

/// The identity of a graph's drawing: its whole description, hints included.
pub fn key(graph: &ToolGraph) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    graph.to_json().hash(&mut h);
    h.finish()
}

thread_local! {
    static CACHE: RefCell<HashMap<(u64, Direction), Arc<Layout>>> = RefCell::new(HashMap::new());
    static ELK: RefCell<Option<JsValue>> = const { RefCell::new(None) };
}

/// A layout already computed for this graph.
pub fn cached(key: u64, dir: Direction) -> Option<Arc<Layout>> {
    CACHE.with(|c| c.borrow().get(&(key, dir)).cloned())
}

/// Lays the graph out with ELK (or, if ELK fails, on a grid, saying why) and caches it.
pub async fn compute(graph: &ToolGraph, dir: Direction) -> Arc<Layout> {
    let key = key(graph);
    if let Some(l) = cached(key, dir) {
        return l;
    }
    let t0 = js_sys::Date::now();
    let mut layout = match elk_layout(graph, key, dir).await {
        Ok(l) => l,
        Err(why) => fallback(graph, key, dir, why),
    };
    layout.millis = js_sys::Date::now() - t0;
    let layout = Arc::new(layout);
    CACHE.with(|c| c.borrow_mut().insert((key, dir), layout.clone()));
    layout
}

/// Whether the graph has a cycle (then an edge may be taken again and shows a revisit count).
fn has_cycle(graph: &ToolGraph) -> bool {
    // Iterative three-colour depth-first search.
    let n = graph.node_count();
    let mut colour = vec![0u8; n];
    for root in 0..n {
        if colour[root] != 0 {
            continue;
        }
        let mut stack = vec![(root, 0usize)];
        colour[root] = 1;
        while let Some(&mut (v, ref mut i)) = stack.last_mut() {
            let out = graph.out_edges(v);
            if *i < out.len() {
                let w = graph.edge(out[*i] as usize).to;
                *i += 1;
                match colour[w] {
                    0 => {
                        colour[w] = 1;
                        stack.push((w, 0));
                    }
                    1 => return true,
                    _ => {}
                }
            } else {
                colour[v] = 2;
                stack.pop();
            }
        }
    }
    false
}

/// A width for a text of `chars` digits and signs at the graph's 12 px type.
fn text_w(chars: usize) -> f64 {
    6.6 * chars as f64 + 4.0
}

/// The room an edge label needs: its cost, and the live weight it may change to ("2→∞").
fn label_size(cost: f64, two_lines: bool) -> (f64, f64) {
    // Room for a weight of up to five characters: "1→4.5", "2→800" (a half-open breaker).
    let chars = num(cost).chars().count() + 1 + 5;
    (text_w(chars), if two_lines { 2.0 * LABEL_LINE_H } else { LABEL_LINE_H })
}

/// The graph as ELK's JSON: boxes, a reserved band over each tool, sized edge labels, and the
/// hand-placed hints (when every node has one) as the order ELK keeps within each layer.
fn elk_graph(graph: &ToolGraph, two_lines: bool, dir: Direction) -> Value {
    let hinted = graph.node_count() > 0 && graph.nodes().iter().all(|n| n.x().is_some() && n.y().is_some());
    let large = graph.node_count() > LARGE;
    // The band holds a scenario's strike ("fails after 2 calls"), a perturbation or a visit
    // count: scenario and perturbation graphs are small, visits need a cycle. A big acyclic
    // (imported) graph has none, and ELK is faster without them.
    let bands = !large || two_lines;
    let children: Vec<Value> = (0..graph.node_count())
        .map(|v| {
            let node = graph.node(v);
            let mut child = json!({ "id": format!("n{v}"), "width": NODE_W, "height": NODE_H });
            if node.tool && bands {
                child["labels"] = json!([{
                    "text": "band", "width": NODE_W - 4.0, "height": BAND_H - 2.0,
                    "layoutOptions": { "elk.nodeLabels.placement": "OUTSIDE V_TOP H_CENTER" }
                }]);
            }
            if let (true, Some(x), Some(y)) = (hinted, node.x(), node.y()) {
                // Hints are drawn for layers left to right; top to bottom, their vertical order
                // becomes the order across.
                let (x, y) = match dir {
                    Direction::Right => (x, y),
                    Direction::Down => (y, x),
                };
                child["layoutOptions"] = json!({ "elk.position": format!("({x}, {y})") });
            }
            child
        })
        .collect();
    let edges: Vec<Value> = graph
        .edges()
        .iter()
        .enumerate()
        .map(|(e, edge)| {
            let mut elk_edge = json!({
                "id": format!("e{e}"),
                "sources": [format!("n{}", edge.from)],
                "targets": [format!("n{}", edge.to)],
            });
            // ELK places a label as a node of its own between the layers: on a big graph that
            // doubles what it lays out. There the label goes at the middle of the route instead
            // (see `to_layout`), the price of a big graph drawn in about a second.
            if !large {
                let (w, h) = label_size(edge.cost, two_lines);
                elk_edge["labels"] = json!([{ "text": num(edge.cost), "width": w, "height": h }]);
            }
            elk_edge
        })
        .collect();
    let mut options = json!({
        "elk.algorithm": "layered",
        "elk.direction": dir.elk(),
        "elk.edgeRouting": "ORTHOGONAL",
        "elk.padding": "[top=8,left=8,bottom=8,right=8]",
        "elk.spacing.nodeNode": "22",
        "elk.spacing.edgeNode": "12",
        "elk.spacing.edgeEdge": "8",
        "elk.spacing.edgeLabel": "3",
        "elk.spacing.labelNode": "2",
        "elk.layered.spacing.nodeNodeBetweenLayers": "16",
        "elk.layered.spacing.edgeNodeBetweenLayers": "10",
        "elk.layered.spacing.edgeEdgeBetweenLayers": "8",
        "elk.randomSeed": "1",
    });
    if !large {
        // Ties broken by the description's order: the drawing follows how the graph was written.
        options["elk.layered.considerModelOrder.strategy"] = json!("NODES_AND_EDGES");
    }
    if hinted {
        options["elk.layered.crossingMinimization.semiInteractive"] = json!("true");
    }
    if large {
        // Straight segments: routing a thousand edges orthogonally is most of ELK's time there.
        options["elk.edgeRouting"] = json!("POLYLINE");
        options["elk.layered.thoroughness"] = json!("1");
        options["elk.layered.crossingMinimization.greedySwitch.type"] = json!("OFF");
        options["elk.layered.nodePlacement.strategy"] = json!("SIMPLE");
    }
    json!({ "id": "root", "layoutOptions": options, "children": children, "edges": edges })
}

#[derive(Deserialize)]
struct ElkPoint {
    x: f64,
    y: f64,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ElkSection {
    start_point: ElkPoint,
    end_point: ElkPoint,
    #[serde(default)]
    bend_points: Vec<ElkPoint>,
}

#[derive(Deserialize)]
struct ElkEdge {
    id: String,
    #[serde(default)]
    sections: Vec<ElkSection>,
    #[serde(default)]
    labels: Vec<Rect>,
}

#[derive(Deserialize)]
struct ElkNode {
    id: String,
    x: f64,
    y: f64,
    width: f64,
    height: f64,
}

#[derive(Deserialize)]
struct ElkRoot {
    width: f64,
    height: f64,
    #[serde(default)]
    children: Vec<ElkNode>,
    #[serde(default)]
    edges: Vec<ElkEdge>,
}

/// `promise`, or a rejection after [`TIMEOUT_MS`]: a script or worker that never answers (a
/// stalled download, a crash) must not leave the page waiting.
fn with_deadline(promise: &js_sys::Promise) -> js_sys::Promise {
    let deadline = js_sys::Promise::new(&mut |_, reject| {
        let why = JsValue::from_str(&format!("no answer within {} s", TIMEOUT_MS / 1000));
        if let Some(w) = web_sys::window() {
            let _ = w.set_timeout_with_callback_and_timeout_and_arguments_1(&reject, TIMEOUT_MS, &why);
        }
    });
    js_sys::Promise::race(&js_sys::Array::of2(promise, &deadline))
}

/// `window.shrLayout` (index.html): the prebuilt layouts and the loader of ELK.
fn loader() -> Result<JsValue, String> {
    js_sys::Reflect::get(&js_sys::global(), &JsValue::from_str("shrLayout"))
        .ok()
        .filter(|l| l.is_object())
        .ok_or_else(|| "the layout loader (index.html) is missing".to_string())
}

/// ELK's answer for the ELK graph `text` when it was computed at build time.
fn prebuilt(text: &str) -> Option<JsValue> {
    let loader = loader().ok()?;
    let find = js_sys::Reflect::get(&loader, &"prebuilt".into()).ok()?.dyn_into::<js_sys::Function>().ok()?;
    find.call1(&loader, &JsValue::from_str(text)).ok().filter(|v| v.is_object())
}

/// The one ELK instance of the page: its script fetched and its worker started on first use.
async fn elk() -> Result<JsValue, String> {
    if let Some(e) = ELK.with(|e| e.borrow().clone()) {
        return Ok(e);
    }
    let loader = loader()?;
    let load = js_sys::Reflect::get(&loader, &"elk".into())
        .map_err(js_text)?
        .dyn_into::<js_sys::Function>()
        .map_err(|_| "the layout loader has no elk()".to_string())?;
    let promise = load.call0(&loader).map_err(js_text)?.dyn_into::<js_sys::Promise>().map_err(js_text)?;
    let elk = wasm_bindgen_futures::JsFuture::from(with_deadline(&promise)).await.map_err(|e| {
        let msg = js_sys::Reflect::get(&e, &"message".into()).ok().and_then(|m| m.as_string());
        msg.unwrap_or_else(|| js_text(e))
    })?;
    ELK.with(|e| *e.borrow_mut() = Some(elk.clone()));
    Ok(elk)
}

fn js_text(v: JsValue) -> String {
    v.as_string()
        .or_else(|| js_sys::JSON::stringify(&v).ok().and_then(|s| s.as_string()))
        .or_else(|| v.dyn_ref::<js_sys::Error>().map(|e| String::from(e.message())))
        .unwrap_or_else(|| "unknown error".into())
}

async fn elk_layout(graph: &ToolGraph, key: u64, dir: Direction) -> Result<Layout, String> {
    let two_lines = has_cycle(graph);
    let text = elk_graph(graph, two_lines, dir).to_string();
    let out = match prebuilt(&text) {
        Some(out) => out,
        None => run_elk(&text).await?,
    };
    let text =
        js_sys::JSON::stringify(&out).map_err(js_text)?.as_string().ok_or("ELK's answer is not JSON")?;
    let root: ElkRoot = serde_json::from_str(&text).map_err(|e| format!("ELK's answer: {e}"))?;
    read_back(graph, key, dir, root, two_lines)
}

/// ELK's layout of the ELK graph `text`, computed now in its worker.
async fn run_elk(text: &str) -> Result<JsValue, String> {
    let elk = elk().await?;
    let input = js_sys::JSON::parse(text).map_err(js_text)?;
    let run = js_sys::Reflect::get(&elk, &"layout".into())
        .map_err(js_text)?
        .dyn_into::<js_sys::Function>()
        .map_err(|_| "ELK has no layout()".to_string())?;
    let promise = run.call1(&elk, &input).map_err(js_text)?.dyn_into::<js_sys::Promise>().map_err(js_text)?;
    wasm_bindgen_futures::JsFuture::from(with_deadline(&promise)).await.map_err(|e| {
        let msg = js_sys::Reflect::get(&e, &"message".into()).ok().and_then(|m| m.as_string());
        format!("ELK failed: {}", msg.unwrap_or_else(|| js_text(e)))
    })
}

/// ELK's answer as a [`Layout`]: every node and edge must be there, each edge with one section.
fn read_back(
    graph: &ToolGraph,
    key: u64,
    direction: Direction,
    root: ElkRoot,
    two_lines: bool,
) -> Result<Layout, String> {
    let index = |id: &str, prefix: char, n: usize| -> Result<usize, String> {
        id.strip_prefix(prefix)
            .and_then(|s| s.parse::<usize>().ok())
            .filter(|&i| i < n)
            .ok_or_else(|| format!("ELK answered an unknown element {id}"))
    };
    let mut nodes = vec![None; graph.node_count()];
    for c in &root.children {
        nodes[index(&c.id, 'n', graph.node_count())?] =
            Some(Rect { x: c.x, y: c.y, w: c.width, h: c.height });
    }
    let mut edges = vec![None; graph.edge_count()];
    for e in root.edges {
        let i = index(&e.id, 'e', graph.edge_count())?;
        let s = e.sections.first().ok_or_else(|| format!("ELK routed no section for {}", e.id))?;
        let mut points = vec![(s.start_point.x, s.start_point.y)];
        points.extend(s.bend_points.iter().map(|p| (p.x, p.y)));
        points.push((s.end_point.x, s.end_point.y));
        let label = e.labels.first().copied().unwrap_or_else(|| {
            // Not placed by ELK (a big graph): centred on the route's middle segment.
            let (w, h) = label_size(graph.edge(i).cost, two_lines);
            let m = points.len() / 2;
            let ((x0, y0), (x1, y1)) = (points[m.saturating_sub(1)], points[m]);
            Rect { x: (x0 + x1) / 2.0 - w / 2.0, y: (y0 + y1) / 2.0 - h / 2.0, w, h }
        });
        edges[i] = Some(Route { points, label });
    }
    Ok(Layout {
        key,
        direction,
        nodes: nodes.into_iter().collect::<Option<Vec<_>>>().ok_or("ELK left a node out")?,
        edges: edges.into_iter().collect::<Option<Vec<_>>>().ok_or("ELK left an edge out")?,
        width: root.width,
        height: root.height,
        engine: Engine::Elk,
        millis: 0.0,
        two_line_labels: two_lines,
    })
}

/// Boxes on a breadth-first grid and straight edges: shown only when ELK is unavailable, with
/// the reason on the page.
fn fallback(graph: &ToolGraph, key: u64, direction: Direction, why: String) -> Layout {
    let centres = crate::model::layout(graph);
    let (mut x0, mut y0) = (f64::MAX, f64::MAX);
    for &(x, y) in &centres {
        x0 = x0.min(x);
        y0 = y0.min(y);
    }
    let nodes: Vec<Rect> = centres
        .iter()
        .map(|&(x, y)| Rect { x: x - x0 + 12.0, y: y - y0 + 12.0 + BAND_H, w: NODE_W, h: NODE_H })
        .collect();
    let two_lines = has_cycle(graph);
    let edges = graph
        .edges()
        .iter()
        .map(|e| {
            let (a, b) = (nodes[e.from].centre(), nodes[e.to].centre());
            let (w, h) = label_size(e.cost, two_lines);
            Route { points: vec![a, b], label: Rect { x: (a.0 + b.0 - w) / 2.0, y: (a.1 + b.1) / 2.0, w, h } }
        })
        .collect();
    let width = nodes.iter().map(|r| r.x + r.w).fold(0.0, f64::max) + 12.0;
    let height = nodes.iter().map(|r| r.y + r.h).fold(0.0, f64::max) + 12.0;
    Layout {
        key,
        direction,
        nodes,
        edges,
        width,
        height,
        engine: Engine::Fallback(why),
        millis: 0.0,
        two_line_labels: two_lines,
    }
}
