//! The page: the scenario picker, the graph, the replay controls and the panels around them.
//! The state the user chooses ([`Setup`]) lives here; everything else is derived from it.

use std::sync::Arc;

use leptos::prelude::*;
use shr_core::algo::Plan;
use shr_core::ToolGraph;
use shr_eval::cyclic::{self, CyclicExample};
use shr_eval::perturb::{self, Complexity, Mode};
use shr_eval::scenario::{self, Scenario};

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
        if let Source::Perturb { task, graph, mode, validators, seed, .. } =
            self.setup.with_untracked(|s| s.source.clone())
        {
            self.show(Source::Perturb { task, graph, target: id.to_string(), mode, validators, seed });
            return;
        }
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

    /// Shows a source as given: a scenario with its own failures, a cyclic workflow, a
    /// perturbation.
    pub fn show(&self, source: Source) {
        self.ghost.set(None);
        self.picked.set(None);
        self.setup.set(Setup { source, down: None, probing: Vec::new() });
        self.replay.finish();
    }

    /// Shows an imported graph, every tool healthy.
    pub fn import(&self, scenario: Scenario) {
        self.show(Source::Imported(Arc::new(scenario)));
    }
}

/// The scenarios and cyclic workflows the picker offers.
#[derive(Clone)]
pub struct Library {
    pub pack: Vec<Arc<Scenario>>,
    pub cyclic: Vec<Arc<CyclicExample>>,
}

impl Library {
    /// The source a picker or URL id names: `S2`; `cyclic:search_verify` with `p` and `seed`;
    /// `perturb:C2` with `seed`, `mode`, `target`, `validators`. Missing parameters take defaults.
    fn source(&self, id: &str, params: &url::Shared) -> Option<Source> {
        let seed = params.seed.unwrap_or(1);
        if let Some(name) = id.strip_prefix("cyclic:") {
            let example = self.cyclic.iter().find(|e| e.id == name)?.clone();
            return Some(Source::Cyclic { example, p: params.p.unwrap_or(0.25), seed });
        }
        if let Some(c) = id.strip_prefix("perturb:") {
            let complexity = COMPLEXITIES.iter().find(|(_, name, _)| *name == c)?.0;
            let task = perturb::generate(complexity, seed);
            let validators = params.validators.unwrap_or(true);
            let mut spec = task.spec.clone();
            if !validators {
                spec.nodes.iter_mut().for_each(|n| n.validators.clear());
            }
            let graph = ToolGraph::from_spec(spec).ok()?;
            let target = params
                .target
                .clone()
                .filter(|t| graph.index(t).is_some_and(|v| graph.node(v).tool))
                .unwrap_or_else(|| task.victim.clone());
            let mode =
                MODES.iter().find(|m| Some(format!("{m:?}")) == params.mode).copied().unwrap_or(Mode::P3);
            return Some(Source::Perturb {
                task: Arc::new(task),
                graph: Arc::new(graph),
                target,
                mode,
                validators,
                seed,
            });
        }
        self.pack.iter().find(|s| s.id.eq_ignore_ascii_case(id)).cloned().map(Source::Pack)
    }
}

/// The ToolMaze complexities the picker offers: (complexity, id suffix, description).
const COMPLEXITIES: [(Complexity, &str, &str); 4] = [
    (Complexity::C1, "C1", "C1: one chain of three stages"),
    (Complexity::C2, "C2", "C2: a chain ending in a single action"),
    (Complexity::C3, "C3", "C3: two branches joined"),
    (Complexity::C4, "C4", "C4: three branches joined"),
];

const MODES: [Mode; 5] = [Mode::P1, Mode::P2, Mode::P3, Mode::P4, Mode::NP];

/// What the URL holds for a setup (an imported graph is not in the URL: it has no id).
fn shared_state(s: &Setup) -> url::Shared {
    match &s.source {
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
        Source::Perturb { target, mode, validators, seed, .. } => url::Shared {
            scenario: Some(s.source.id()),
            seed: Some(*seed),
            mode: Some(format!("{mode:?}")),
            target: Some(target.clone()),
            validators: Some(*validators),
            ..Default::default()
        },
        Source::Imported(_) => url::Shared::default(),
    }
}

/// The initial setup: the URL's scenario and failures, or S2 (a reroute is the first thing worth
/// seeing). Unknown ids in the URL are dropped rather than failing the page.
fn initial(library: &Library, first: &Arc<Scenario>) -> Setup {
    let shared = url::read();
    let source = shared
        .scenario
        .as_deref()
        .and_then(|id| library.source(id, &shared))
        .or_else(|| library.source("S2", &shared))
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
    let pack: Vec<Arc<Scenario>> = match scenario::pack() {
        Ok(p) => p.iter().cloned().map(Arc::new).collect(),
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
        url::write(&shared_state(&s));
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
        if let Some(source) = library.with_value(|l| l.source(&id, &url::Shared::default())) {
            page.show(source);
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
    let kind = move || {
        page.setup.with(|s| match s.source {
            Source::Cyclic { .. } => 1,
            Source::Perturb { .. } => 2,
            _ => 0,
        })
    };
    view! {
        <div class="picker">
            <label for="scenario">"Scenario "</label>
            <select id="scenario" data-testid="scenario" on:change=on_change prop:value=selected>
                {groups}
                <optgroup label="Cyclic workflows (seed 004)">{cyclic_options}</optgroup>
                <optgroup label="ToolMaze perturbations (seed 002)">
                    {COMPLEXITIES.iter().map(|(_, c, text)| option(format!("perturb:{c}"), text.to_string())).collect_view()}
                </optgroup>
                <option value="custom" disabled=true selected=move || selected() == "custom">"Imported graph"</option>
            </select>
            <Show when=move || kind() == 1><CyclicControls /></Show>
            <Show when=move || kind() == 2><PerturbControls library=library /></Show>
            <Show when=move || kind() == 0>
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
            page.show(Source::Cyclic { example, p: p.unwrap_or(p0), seed: seed.unwrap_or(seed0) });
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

/// A perturbation's mode, validators switch and task seed. A click on a tool chooses the target.
#[component]
fn PerturbControls(library: StoredValue<Library>) -> impl IntoView {
    let page = expect_context::<Page>();
    let params = move || {
        page.setup
            .with(|s| matches!(s.source, Source::Perturb { .. }).then(|| (s.source.id(), shared_state(s))))
    };
    let change = move |f: &dyn Fn(&mut url::Shared)| {
        if let Some((id, mut shared)) = params() {
            f(&mut shared);
            if let Some(source) = library.with_value(|l| l.source(&id, &shared)) {
                page.show(source);
            }
        }
    };
    let mode = move || params().and_then(|(_, p)| p.mode).unwrap_or_default();
    let validators = move || params().and_then(|(_, p)| p.validators).unwrap_or(true);
    let seed = move || params().and_then(|(_, p)| p.seed).unwrap_or(0);
    view! {
        <div class="mode cyclic-controls">
            <label>
                "mode "
                <select data-testid="perturb-mode" prop:value=mode
                    on:change=move |ev| { let m = event_target_value(&ev); change(&|p| p.mode = Some(m.clone())) }>
                    {MODES.iter().map(|m| {
                        let v = format!("{m:?}");
                        let v2 = v.clone();
                        view! { <option value=v.clone() selected=move || mode() == v2>{format!("{v}: {}", m.describe())}</option> }
                    }).collect_view()}
                </select>
            </label>
            <label>
                <input type="checkbox" data-testid="perturb-validators" prop:checked=validators
                    on:change=move |_| { let on = !validators(); change(&|p| p.validators = Some(on)) } />
                " validators"
            </label>
            <button data-testid="perturb-next" on:click=move |_| { let s = seed().wrapping_add(1); change(&|p| { p.seed = Some(s); p.target = None; }) }>
                {move || format!("Next task (seed {})", seed())}
            </button>
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
            <li><span class="swatch perturbed">"⚡"</span>"perturbed (ToolMaze P1-P4)"</li>
        </ul>
    }
}
