//! The page: the scenario picker, the graph, the replay controls and the panels around them.
//! The state the user chooses ([`Setup`]) lives here; everything else is derived from it.

use std::sync::Arc;

use leptos::prelude::*;
use shr_core::algo::Plan;
use shr_core::cyclic::{self, CyclicExample};
use shr_core::scenario::{self, Scenario};

use crate::graph_view::GraphView;
use crate::io::ImportExport;
use crate::model::{Setup, Source, View};
use crate::panels::{Counters, Escalations, EventLog, MonitorPanel, RouteSummary};
use crate::replay::{Player, Replay};
use crate::url;

/// The derived view, compared by identity: it is recomputed only when the setup changes.
#[derive(Clone)]
pub struct Shared(pub Arc<View>);

impl PartialEq for Shared {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

/// What a click on a tool does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClickMode {
    /// Fail a healthy tool, restore a failed one.
    Fail,
    /// Put a tool's breaker half-open (probing), or close it again.
    Probe,
}

/// The page's state, shared by its components.
#[derive(Clone, Copy)]
pub struct Page {
    pub setup: RwSignal<Setup>,
    pub view: Memo<Shared>,
    pub replay: Replay,
    /// The route before the last click, drawn fading while the new search replays.
    pub ghost: RwSignal<Option<Plan>>,
    pub mode: RwSignal<ClickMode>,
    /// The event the user picked in the log; the monitor panel shows its decision.
    pub picked: RwSignal<Option<u32>>,
}

impl Page {
    /// Fails / restores (or sets probing / closes) a tool, and replays the reroute.
    pub fn click_tool(&self, id: &str) {
        if !self.setup.with_untracked(|s| s.source.takes_failures()) {
            return;
        }
        let mode = self.mode.get_untracked();
        self.ghost.set(self.view.with_untracked(|v| v.0.route.clone()));
        self.setup.update(|s| {
            let mut down = match &s.down {
                Some(d) => d.clone(),
                None => s.source.failures().iter().map(|f| f.tool.clone()).collect(),
            };
            let toggle = |list: &mut Vec<String>| {
                if let Some(i) = list.iter().position(|t| t == id) {
                    list.remove(i);
                } else {
                    list.push(id.to_string());
                }
            };
            match mode {
                ClickMode::Fail => {
                    toggle(&mut down);
                    s.probing.retain(|t| t != id);
                }
                ClickMode::Probe => {
                    toggle(&mut s.probing);
                    down.retain(|t| t != id);
                }
            }
            s.down = Some(down);
        });
        self.picked.set(None);
        self.replay.restart();
    }

    /// Shows a scenario of the pack (its own failures).
    pub fn pick(&self, scenario: Arc<Scenario>) {
        self.ghost.set(None);
        self.picked.set(None);
        self.setup.set(Setup { source: Source::Pack(scenario), down: None, probing: Vec::new() });
        self.replay.finish();
    }

    /// Shows a cyclic workflow with a redirect probability and a seed.
    pub fn pick_cyclic(&self, example: Arc<CyclicExample>, p: f64, seed: u64) {
        self.ghost.set(None);
        self.picked.set(None);
        self.setup.set(Setup {
            source: Source::Cyclic { example, p, seed },
            down: None,
            probing: Vec::new(),
        });
        self.replay.finish();
    }

    /// Shows an imported graph, every tool healthy.
    pub fn import(&self, scenario: Scenario) {
        self.ghost.set(None);
        self.picked.set(None);
        self.setup.set(Setup {
            source: Source::Imported(Arc::new(scenario)),
            down: Some(Vec::new()),
            probing: Vec::new(),
        });
        self.replay.finish();
    }
}

/// The scenarios and cyclic workflows the picker offers.
#[derive(Clone)]
pub struct Library {
    pub pack: Vec<Arc<Scenario>>,
    pub cyclic: Vec<Arc<CyclicExample>>,
}

impl Library {
    /// The source a picker or URL id names: `S2`, or `cyclic:search_verify` with `p` and `seed`.
    fn source(&self, id: &str, p: f64, seed: u64) -> Option<Source> {
        if let Some(name) = id.strip_prefix("cyclic:") {
            let example = self.cyclic.iter().find(|e| e.id == name)?.clone();
            return Some(Source::Cyclic { example, p, seed });
        }
        self.pack.iter().find(|s| s.id.eq_ignore_ascii_case(id)).cloned().map(Source::Pack)
    }
}

/// The initial setup: the URL's scenario and failures, or S2 (a reroute is the first thing worth
/// seeing). Unknown ids in the URL are dropped rather than failing the page.
fn initial(library: &Library, first: &Arc<Scenario>) -> Setup {
    let shared = url::read();
    let source = shared
        .scenario
        .as_deref()
        .and_then(|id| library.source(id, shared.p.unwrap_or(0.25), shared.seed.unwrap_or(1)))
        .or_else(|| library.source("S2", 0.0, 0))
        .unwrap_or_else(|| Source::Pack(first.clone()));
    let graph = source.graph().clone();
    let known = |ids: Vec<String>| -> Vec<String> {
        ids.into_iter().filter(|t| graph.index(t).is_some_and(|v| graph.node(v).tool)).collect()
    };
    let takes = source.takes_failures();
    Setup {
        down: shared.down.filter(|_| takes).map(known),
        probing: if takes { known(shared.probing) } else { Vec::new() },
        source,
    }
}

#[component]
pub fn App() -> impl IntoView {
    let pack: Vec<Arc<Scenario>> = match scenario::try_pack() {
        Ok(p) => p.into_iter().map(Arc::new).collect(),
        Err(e) => return view! { <p class="error" role="alert">{format!("The scenario pack did not load: {e}")}</p> }.into_any(),
    };
    let Some(first) = pack.first().cloned() else {
        return view! { <p class="error" role="alert">"The scenario pack is empty."</p> }.into_any();
    };
    let library = Library { pack, cyclic: cyclic::examples().into_iter().map(Arc::new).collect() };
    let setup = RwSignal::new(initial(&library, &first));
    let view = Memo::new(move |_| Shared(Arc::new(View::new(&setup.get()))));
    let replay = Replay::new(view);
    let page = Page {
        setup,
        view,
        replay,
        ghost: RwSignal::new(None),
        mode: RwSignal::new(ClickMode::Fail),
        picked: RwSignal::new(None),
    };
    provide_context(page);
    replay.finish();
    replay.run();

    // Keep the URL in step with what is shown, so the address bar is always a shareable link.
    Effect::new(move |_| {
        let s = setup.get();
        let shared = match &s.source {
            Source::Pack(sc) => url::Shared {
                scenario: Some(sc.id.clone()),
                down: s.down.clone(),
                probing: s.probing.clone(),
                ..Default::default()
            },
            Source::Cyclic { p, seed, .. } => url::Shared {
                scenario: Some(s.source.id()),
                p: Some(*p),
                seed: Some(*seed),
                ..Default::default()
            },
            Source::Imported(_) => url::Shared::default(),
        };
        url::write(&shared);
    });

    let library = StoredValue::new(library);
    view! {
        <header class="top">
            <h1>"SHR " <span class="sub">"the Self-Healing Router"</span></h1>
            <p class="tagline">
                "Recovery as routing, not reasoning: a failed tool's edges become infinitely expensive and "
                "Dijkstra finds the cheapest healthy path from where execution stands. The LLM is asked only "
                "when no path exists."
            </p>
        </header>
        <main class="layout">
            <section class="stage" aria-label="Tool graph">
                <ScenarioPicker library=library />
                <GraphView />
                <Player />
                <Legend />
            </section>
            <aside class="panels">
                <RouteSummary />
                <Counters />
                <Escalations />
                <MonitorPanel />
                <EventLog />
                <ImportExport />
            </aside>
        </main>
    }
    .into_any()
}

/// The 19 scenarios by domain and the cyclic workflows, the description of the chosen one, and
/// the click mode (or, for a cyclic workflow, its fault probability and seed).
#[component]
fn ScenarioPicker(library: StoredValue<Library>) -> impl IntoView {
    let page = expect_context::<Page>();
    let domains = [
        ("customer_support", "Customer support (linear pipeline)"),
        ("travel_booking", "Travel booking (dependency DAG)"),
        ("content_moderation", "Content moderation (parallel fan-out)"),
    ];
    let selected = move || page.setup.with(|s| s.source.id());
    let on_change = move |ev: leptos::ev::Event| {
        let id = event_target_value(&ev);
        match library.with_value(|l| l.source(&id, 0.25, 1)) {
            Some(Source::Pack(sc)) => page.pick(sc),
            Some(Source::Cyclic { example, p, seed }) => page.pick_cyclic(example, p, seed),
            _ => {}
        }
    };
    let option = move |id: String, text: String| {
        let id2 = id.clone();
        view! { <option value=id selected=move || selected() == id2>{text}</option> }
    };
    let groups = domains
        .into_iter()
        .map(|(domain, title)| {
            let options = library.with_value(|l| {
                l.pack
                    .iter()
                    .filter(|s| s.domain == domain)
                    .map(|s| option(s.id.clone(), format!("{}: {}", s.id, s.title)))
                    .collect_view()
            });
            view! { <optgroup label=title>{options}</optgroup> }
        })
        .collect_view();
    let cyclic_options = library.with_value(|l| {
        l.cyclic
            .iter()
            .map(|e| {
                let name = e.graph.spec().name.clone().unwrap_or_else(|| e.id.to_string());
                option(format!("cyclic:{}", e.id), name)
            })
            .collect_view()
    });
    let description = move || page.setup.with(|s| s.source.description());
    let explicit = move || page.setup.with(|s| s.down.is_some() && s.source.is_pack());
    let cyclic = move || page.setup.with(|s| matches!(s.source, Source::Cyclic { .. }));
    view! {
        <div class="picker">
            <label for="scenario">"Scenario "</label>
            <select id="scenario" data-testid="scenario" on:change=on_change prop:value=selected>
                {groups}
                <optgroup label="Cyclic workflows (seed 004)">{cyclic_options}</optgroup>
                <option value="custom" disabled=true selected=move || selected() == "custom">"Imported graph"</option>
            </select>
            <Show when=move || !cyclic() fallback=move || view! { <CyclicControls /> }>
                <fieldset class="mode">
                    <legend>"Clicking a tool"</legend>
                    <ModeChoice mode=ClickMode::Fail testid="mode-fail" text=" fails / restores it" />
                    <ModeChoice mode=ClickMode::Probe testid="mode-probe" text=" sets it half-open (probing)" />
                </fieldset>
            </Show>
        </div>
        <p class="description" data-testid="description">{description}</p>
        <Show when=explicit>
            <p class="note">"Your clicks set the failures: every failed tool is down from the start of the run."</p>
        </Show>
    }
}

/// One choice of what a click on a tool does.
#[component]
fn ModeChoice(mode: ClickMode, testid: &'static str, text: &'static str) -> impl IntoView {
    let page = expect_context::<Page>();
    view! {
        <label>
            <input type="radio" name="mode" data-testid=testid
                prop:checked=move || page.mode.get() == mode
                on:change=move |_| page.mode.set(mode) />
            {text}
        </label>
    }
}

/// The redirect probability and seed of a cyclic workflow's control-flow faults.
#[component]
fn CyclicControls() -> impl IntoView {
    let page = expect_context::<Page>();
    let current = move || {
        page.setup.with(|s| match &s.source {
            Source::Cyclic { example, p, seed } => Some((example.clone(), *p, *seed)),
            _ => None,
        })
    };
    let set = move |p: Option<f64>, seed: Option<u64>| {
        if let Some((example, p0, seed0)) = current() {
            page.pick_cyclic(example, p.unwrap_or(p0), seed.unwrap_or(seed0));
        }
    };
    let p_text = move || current().map(|(_, p, _)| p.to_string()).unwrap_or_default();
    let seed = move || current().map_or(0, |(_, _, s)| s);
    view! {
        <div class="mode cyclic-controls">
            <label>
                "redirect probability "
                <select data-testid="cyclic-p" prop:value=p_text
                    on:change=move |ev| set(event_target_value(&ev).parse().ok(), None)>
                    {[0.0, 0.1, 0.25, 0.5].into_iter().map(|p| {
                        let v = p.to_string();
                        let v2 = v.clone();
                        view! { <option value=v selected=move || p_text() == v2>{format!("p = {p}")}</option> }
                    }).collect_view()}
                </select>
            </label>
            <span data-testid="cyclic-seed">{move || format!("seed {}", seed())}</span>
            <button data-testid="cyclic-next-seed" on:click=move |_| set(None, Some(seed().wrapping_add(1)))>"Next seed"</button>
        </div>
    }
}

/// What the shapes, colours and icons mean (icons and dashes too, not colour alone).
#[component]
fn Legend() -> impl IntoView {
    view! {
        <ul class="legend" aria-label="Legend">
            <li><span class="swatch healthy"></span>"healthy tool"</li>
            <li><span class="swatch failed">"✕"</span>"failed (breaker open, weight ∞)"</li>
            <li><span class="swatch probing">"◐"</span>"half-open (probing, high weight)"</li>
            <li><span class="swatch route"></span>"cheapest healthy route now"</li>
            <li><span class="swatch ran">"✓"</span>"completed by the SHR run"</li>
            <li><span class="swatch settled"></span>"settled by the search"</li>
            <li><span class="swatch frontier"></span>"on the frontier"</li>
            <li><span class="swatch revisit">"↺×n"</span>"edge taken back to a visited tool"</li>
        </ul>
    }
}
