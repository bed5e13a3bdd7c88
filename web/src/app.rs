//! The page: the scenario picker, the graph, the replay controls and the panels around them.
//! The state the user chooses ([`Setup`]) lives here; everything else is derived from it.

use std::sync::Arc;

use leptos::prelude::*;
use shr_core::algo::Plan;
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
        let mode = self.mode.get_untracked();
        self.ghost.set(self.view.with_untracked(|v| v.0.route.clone()));
        self.setup.update(|s| {
            let mut down = match &s.down {
                Some(d) => d.clone(),
                None => s.source.scenario().failures.iter().map(|f| f.tool.clone()).collect(),
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

/// The initial setup: the URL's scenario and failures, or S2 (a reroute is the first thing worth
/// seeing). Unknown ids in the URL are dropped rather than failing the page.
fn initial(pack: &[Arc<Scenario>], first: &Arc<Scenario>) -> Setup {
    let shared = url::read();
    let chosen = shared
        .scenario
        .as_deref()
        .and_then(|id| pack.iter().find(|s| s.id.eq_ignore_ascii_case(id)))
        .or_else(|| pack.iter().find(|s| s.id == "S2"))
        .unwrap_or(first)
        .clone();
    let known = |ids: Vec<String>| -> Vec<String> {
        ids.into_iter().filter(|t| chosen.graph.index(t).is_some_and(|v| chosen.graph.node(v).tool)).collect()
    };
    Setup { down: shared.down.map(known), probing: known(shared.probing), source: Source::Pack(chosen) }
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
    let setup = RwSignal::new(initial(&pack, &first));
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
            },
            Source::Imported(_) => url::Shared::default(),
        };
        url::write(&shared);
    });

    let pack_for_picker = StoredValue::new(pack);
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
                <ScenarioPicker pack=pack_for_picker />
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

/// The 19 scenarios by domain, the description of the chosen one, and the click mode.
#[component]
fn ScenarioPicker(pack: StoredValue<Vec<Arc<Scenario>>>) -> impl IntoView {
    let page = expect_context::<Page>();
    let domains = [
        ("customer_support", "Customer support (linear pipeline)"),
        ("travel_booking", "Travel booking (dependency DAG)"),
        ("content_moderation", "Content moderation (parallel fan-out)"),
    ];
    let selected = move || {
        page.setup.with(|s| if s.source.is_pack() { s.source.scenario().id.clone() } else { "custom".into() })
    };
    let on_change = move |ev: leptos::ev::Event| {
        let id = event_target_value(&ev);
        if let Some(sc) = pack.with_value(|p| p.iter().find(|s| s.id == id).cloned()) {
            page.pick(sc);
        }
    };
    let groups = domains
        .into_iter()
        .map(|(domain, title)| {
            let options = pack.with_value(|p| {
                p.iter()
                    .filter(|s| s.domain == domain)
                    .map(|s| {
                        let id = s.id.clone();
                        let text = format!("{}: {}", s.id, s.title);
                        view! { <option value=id.clone() selected=move || selected() == id>{text}</option> }
                    })
                    .collect_view()
            });
            view! { <optgroup label=title>{options}</optgroup> }
        })
        .collect_view();
    let description = move || {
        page.setup.with(|s| {
            let sc = s.source.scenario();
            if s.source.is_pack() {
                sc.description.clone()
            } else {
                format!("{} (imported)", sc.title)
            }
        })
    };
    let explicit = move || page.setup.with(|s| s.down.is_some() && s.source.is_pack());
    view! {
        <div class="picker">
            <label for="scenario">"Scenario "</label>
            <select id="scenario" data-testid="scenario" on:change=on_change prop:value=selected>
                {groups}
                <option value="custom" disabled=true selected=move || selected() == "custom">"Imported graph"</option>
            </select>
            <fieldset class="mode">
                <legend>"Clicking a tool"</legend>
                <label>
                    <input type="radio" name="mode" data-testid="mode-fail"
                        prop:checked=move || page.mode.get() == ClickMode::Fail
                        on:change=move |_| page.mode.set(ClickMode::Fail) />
                    " fails / restores it"
                </label>
                <label>
                    <input type="radio" name="mode" data-testid="mode-probe"
                        prop:checked=move || page.mode.get() == ClickMode::Probe
                        on:change=move |_| page.mode.set(ClickMode::Probe) />
                    " sets it half-open (probing)"
                </label>
            </fieldset>
        </div>
        <p class="description" data-testid="description">{description}</p>
        <Show when=explicit>
            <p class="note">"Your clicks set the failures: every failed tool is down from the start of the run."</p>
        </Show>
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
        </ul>
    }
}
