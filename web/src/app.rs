//! The page: the pickers, the graph, the replay controls and the panels around them, laid out.
//! Its state lives in `state`; everything shown is derived from the setup the user chose, at the
//! replay's position.

use std::sync::Arc;

use leptos::prelude::*;
use shr_eval::cyclic;
use shr_eval::scenario::{self, Scenario};

use crate::editor::Editor;
use crate::graph_view::GraphView;
use crate::io::ImportExport;
use crate::lane_view::{LaneSwitch, LaneTrace};
use crate::lanes::Lane;
use crate::model::View;
use crate::panels::{Counters, Escalations, EventLog, MonitorPanel, RouteSummary};
use crate::pickers::ScenarioPicker;
use crate::present::{wire_keys, ProjectorToggle};
use crate::replay::Player;
use crate::state::{initial, shared_state, ClickMode, Library, Page, Replay, Shared};
use crate::story::{Highlight, Narration, Tour};
use crate::url;

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
    // A shared graph that does not read opens the default scenario, and says why.
    let url_problem = url::read().graph.and_then(|g| {
        crate::share::decode(&g)
            .and_then(|json| crate::io::parse(&json).map(drop).map_err(|p| p.join("; ")))
            .err()
    });
    let setup = RwSignal::new(initial(&library, &first, crate::story::TOUR[0]));
    let view = Memo::new(move |_| Shared(Arc::new(View::new(&setup.get()))));
    let replay = Replay::new(view);
    let page = Page {
        setup,
        view,
        replay,
        ghost: RwSignal::new(Default::default()),
        mode: RwSignal::new(ClickMode::Fail),
    };
    provide_context(page);
    crate::fleet::join(page);
    Highlight::provide(page);
    wire_keys(page);
    // A first visit starts at the start of the tour's first stop; a shared link where it was.
    let first_visit = crate::state::first_visit();
    let shared = url::read();
    if first_visit {
        replay.seek(0);
    } else {
        replay.open();
        if let Some(lane) = Lane::ALL.into_iter().find(|l| shared.lane.as_deref() == Some(l.key())) {
            replay.switch(lane);
            replay.seek(0);
        }
        if let Some(at) = shared.at {
            replay.seek(at);
        }
    }
    replay.run();

    // Keep the URL in step with what is shown, so the address bar is always a shareable link
    // (written just after, off the path from a click to the drawing); paused, it holds the
    // replay's position too (not rewritten at every tick of a replay playing).
    Effect::new(move |_| {
        let s = setup.get();
        let mut shared = shared_state(&s);
        if !replay.playing.get() {
            shared.at = Some(replay.step.get());
            let lane = replay.lane.get();
            shared.lane = (lane != Lane::Shr).then(|| lane.key().to_string());
        }
        url::write_soon(shared);
    });

    let library = StoredValue::new(library);
    view! {
        <header class="top">
            <h1>"SHR " <span class="sub">"the Self-Healing Router"</span></h1>
            <p class="tagline" data-testid="idea">
                "Recovery as routing, not reasoning: when a tool fails its edges cost ∞, Dijkstra finds the "
                "cheapest healthy path from where the agent stands, and the LLM is asked only when none is left."
            </p>
            <div class="present">
                <Tour library=library first_visit=first_visit />
                <ProjectorToggle />
            </div>
        </header>
        {url_problem.map(|p| view! {
            <p class="error url-error" role="alert" data-testid="url-error">{format!("The graph in this link could not be read ({p}); showing a scenario instead.")}</p>
        })}
        <main class="layout">
            <section class="stage" aria-label="Tool graph">
                <ScenarioPicker library=library />
                <LaneSwitch />
                <GraphView />
                <Player />
                <Narration />
                <crate::reasons::Reasons />
                <crate::fleet::FleetNote />
                <LaneTrace />
                <crate::side::SideBySide />
                <Legend />
            </section>
            <aside class="panels">
                <RouteSummary />
                <Counters />
                <Escalations />
                <MonitorPanel />
                <EventLog />
                <ImportExport />
                <Editor />
            </aside>
        </main>
    }
    .into_any()
}

/// What the shapes, colours and icons mean (icons and dashes too, not colour alone). Static
/// markup, set whole: as elements built one by one it took a kilobyte more of the module.
const LEGEND: &str = "<li><span class=\"swatch healthy\"></span>healthy tool</li><li><span class=\"swatch unseen\">?</span>will fail: down in this run, but the router does not know yet, so it may plan through it</li><li><span class=\"swatch failed\">✕</span>failed: a call failed, so the router knows; its edges weigh ∞</li><li><span class=\"swatch probing\">◐</span>half-open (on trial: the next run tries it)</li><li><span class=\"swatch route\"></span>the route the run took</li><li><span class=\"swatch planned\"></span>its plan from where it stands</li><li><span class=\"swatch ran\">✓</span>completed by the run so far</li><li><span class=\"swatch settled\"></span>settled by the search the run made to plan</li><li><span class=\"swatch frontier\"></span>on the search's frontier</li><li><span class=\"swatch revisit\">↺×n</span>edge taken back to a visited tool</li><li><span class=\"swatch perturbed\">⚡</span>perturbed (ToolMaze P1-P4)</li><li><span class=\"swatch story\"></span>named by the story step being told</li><li><span class=\"swatch fallback\"></span>static workflow: a coded fallback edge it took</li><li><span class=\"swatch marked\">⚠</span>static workflow: a step skipped, a success claimed without it</li>";

#[component]
fn Legend() -> impl IntoView {
    view! { <ul class="legend" aria-label="Legend" inner_html=LEGEND></ul> }
}
