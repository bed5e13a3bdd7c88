//! The page's state: what the user chose ([`Setup`], in `model`), the view derived from it, the
//! replay position (the one clock every panel follows) and the click mode. Provided once by the
//! `App` component; every component reads it from the context. It imports no component, so
//! children import it downward.

use std::collections::BTreeSet;
use std::sync::Arc;

use gloo_timers::future::TimeoutFuture;
use leptos::prelude::*;
use shr_core::ToolGraph;
use shr_eval::cyclic::CyclicExample;
use shr_eval::perturb::{self, Complexity, Family, Mode};
use shr_eval::scenario::Scenario;

use crate::lanes::{self, Lane};
use crate::model::{Setup, Source, View};
use crate::timeline::Moment;
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
    /// Make any node the run's start, or its goal (an edit of the graph).
    Start,
    Goal,
}

/// The failed tools as set: the clicks so far, or the source's own failures before any click.
pub fn current_down(s: &Setup) -> Vec<String> {
    match &s.down {
        Some(d) => d.clone(),
        None => s.source.failures().iter().map(|f| f.tool.clone()).collect(),
    }
}

/// The page's state, shared by its components.
#[derive(Clone, Copy)]
pub struct Page {
    pub setup: RwSignal<Setup>,
    pub view: Memo<Shared>,
    pub replay: Replay,
    /// The route of the run before the last click, drawn fading while the new run replays.
    pub ghost: RwSignal<BTreeSet<usize>>,
    pub mode: RwSignal<ClickMode>,
}

impl Page {
    /// Fails / restores (or sets probing / closes) a tool, and replays the reroute.
    pub fn click_tool(&self, id: &str) {
        if let Source::Perturb { task, graph, mode, validators, family, seed, .. } =
            self.setup.with_untracked(|s| s.source.clone())
        {
            self.show(Source::Perturb {
                task,
                graph,
                target: id.to_string(),
                mode,
                validators,
                family,
                seed,
            });
            return;
        }
        if !self.setup.with_untracked(|s| s.source.takes_failures()) {
            return;
        }
        match self.mode.get_untracked() {
            ClickMode::Fail => {
                let failed = !self.setup.with_untracked(|s| current_down(s).iter().any(|t| t == id));
                // The tab's router follows (crate::fleet), and publishes its health deltas.
                self.set_failed(id, failed);
            }
            ClickMode::Start | ClickMode::Goal => {}
            ClickMode::Probe => {
                self.ghost.set(self.replay.moment.with_untracked(|m| m.route_edges.clone()));
                self.setup.update(|s| {
                    let mut down = current_down(s);
                    if let Some(i) = s.probing.iter().position(|t| t == id) {
                        s.probing.remove(i);
                    } else {
                        s.probing.push(id.to_string());
                    }
                    down.retain(|t| t != id);
                    s.down = Some(down);
                });
                self.replay.approach();
            }
        }
    }

    /// Fails or restores a tool (a click here, or another tab's through [`crate::fleet`]), and
    /// replays the reroute; the route before fades while the new run replays.
    pub fn set_failed(&self, id: &str, failed: bool) {
        if !self.setup.with_untracked(|s| s.source.takes_failures()) {
            return;
        }
        self.ghost.set(self.replay.moment.with_untracked(|m| m.route_edges.clone()));
        self.setup.update(|s| {
            let mut down = current_down(s);
            down.retain(|t| t != id);
            if failed {
                down.push(id.to_string());
            }
            s.probing.retain(|t| t != id);
            s.down = Some(down);
        });
        self.replay.approach();
    }

    /// Shows a source as given: a scenario with its own failures, a cyclic workflow, a
    /// perturbation.
    pub fn show(&self, source: Source) {
        self.ghost.set(BTreeSet::new());
        self.setup.set(Setup { source, down: None, probing: Vec::new() });
        self.replay.open();
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
    pub fn source(&self, id: &str, params: &url::Shared) -> Option<Source> {
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
            let family = params.family.as_deref().and_then(Family::from_name).unwrap_or(Family::WrongSign);
            return Some(Source::Perturb {
                task: Arc::new(task),
                graph: Arc::new(graph),
                target,
                mode,
                validators,
                family,
                seed,
            });
        }
        self.pack.iter().find(|s| s.id.eq_ignore_ascii_case(id)).cloned().map(Source::Pack)
    }
}

/// The ToolMaze complexities the picker offers: (complexity, id suffix, description).
pub const COMPLEXITIES: [(Complexity, &str, &str); 4] = [
    (Complexity::C1, "C1", "C1: one chain of three stages"),
    (Complexity::C2, "C2", "C2: a chain ending in a single action"),
    (Complexity::C3, "C3", "C3: two branches joined"),
    (Complexity::C4, "C4", "C4: three branches joined"),
];

pub const MODES: [Mode; 5] = [Mode::P1, Mode::P2, Mode::P3, Mode::P4, Mode::NP];

/// What the URL holds for a setup: an imported or edited graph travels whole, compressed.
pub fn shared_state(s: &Setup) -> url::Shared {
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
        Source::Perturb { target, mode, validators, family, seed, .. } => url::Shared {
            scenario: Some(s.source.id()),
            seed: Some(*seed),
            mode: Some(format!("{mode:?}")),
            target: Some(target.clone()),
            validators: Some(*validators),
            family: Some(family.name().to_string()),
            ..Default::default()
        },
        Source::Imported(sc) => url::Shared {
            scenario: Some("custom".into()),
            graph: Some(crate::share::encode(
                &serde_json::to_string(&sc.graph.to_spec()).unwrap_or_default(),
            )),
            // An edited scenario's own failures travel as failed tools.
            down: s.down.clone().or_else(|| Some(current_down(s))).filter(|d| !d.is_empty()),
            probing: s.probing.clone(),
            ..Default::default()
        },
    }
}

/// Whether the page was opened without a state in its URL: a first visit, which opens on the
/// tour's first stop, at its start.
pub fn first_visit() -> bool {
    url::read() == url::Shared::default()
}

/// The initial setup: the URL's scenario and failures, or the tour's first stop (a first visit
/// starts with the idea, on a short run). Unknown ids in the URL are dropped rather than
/// failing the page.
pub fn initial(library: &Library, first: &Arc<Scenario>, tour_start: &str) -> Setup {
    let shared = url::read();
    // A shared graph that does not read is dropped like an unknown id.
    let imported = shared
        .graph
        .as_deref()
        .and_then(|g| crate::share::decode(g).ok())
        .and_then(|json| crate::share::parse(&json).ok())
        .map(|g| Source::Imported(Arc::new(Scenario::from_graph(g))));
    let source = imported
        .or_else(|| shared.scenario.as_deref().and_then(|id| library.source(id, &shared)))
        .or_else(|| library.source(tour_start, &shared))
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

/// Above this many steps, SHR's replay plays from event to event.
pub const BY_EVENTS: usize = 300;

/// The replay of the SHR run, the page's one clock: `step` of `total()` steps taken; every
/// panel shows the [`Moment`] at it.
#[derive(Clone, Copy)]
pub struct Replay {
    pub step: RwSignal<usize>,
    pub playing: RwSignal<bool>,
    /// Steps per second.
    pub speed: RwSignal<f64>,
    /// Whose run is replayed: SHR's, or a baseline's on the same graph and failures.
    pub lane: RwSignal<Lane>,
    view: Memo<Shared>,
    pub moment: Memo<Moment>,
}

impl Replay {
    pub fn new(view: Memo<Shared>) -> Replay {
        let step = RwSignal::new(0);
        let lane = RwSignal::new(Lane::Shr);
        let moment = Memo::new(move |_| {
            let k = step.get();
            match lane.get() {
                Lane::Shr => view.with(|v| v.0.moment(k)),
                other => view.with(|v| {
                    let mut m = lanes::moment(&v.0.graph, &lanes::steps(&v.0, other), k);
                    // The SHR panels beside a baseline's replay show SHR's whole run.
                    m.events = v.0.shr.events.len();
                    m
                }),
            }
        });
        Replay { step, playing: RwSignal::new(false), speed: RwSignal::new(4.0), lane, view, moment }
    }

    pub fn total(&self) -> usize {
        let lane = self.lane.get();
        self.view.with(|v| lanes::len(&v.0, lane))
    }

    fn total_untracked(&self) -> usize {
        let lane = self.lane.get_untracked();
        self.view.with_untracked(|v| lanes::len(&v.0, lane))
    }

    /// Replays another executor's run of the same setup, from its start.
    pub fn switch(&self, lane: Lane) {
        if !self.view.with_untracked(|v| lanes::available(&v.0, lane)) {
            return;
        }
        self.playing.set(false);
        self.step.set(0);
        self.lane.set(lane);
        self.playing.set(true);
    }

    pub fn done(&self) -> bool {
        self.step.get() >= self.total()
    }

    /// Paused at a position.
    pub fn seek(&self, step: usize) {
        self.playing.set(false);
        self.step.set(step.min(self.total_untracked()));
    }

    /// Paused at the run's key decision (or its end, when nothing went wrong); a baseline's
    /// run at its start. A lane the new setup has no run for goes back to SHR's.
    pub fn open(&self) {
        let lane = self.lane.get_untracked();
        if lane != Lane::Shr {
            if self.view.with_untracked(|v| lanes::available(&v.0, lane)) {
                self.seek(0);
                return;
            }
            self.lane.set(Lane::Shr);
        }
        self.seek(self.view.with_untracked(|v| v.0.timeline.key));
    }

    /// Playing from just before the call that led to the run's key decision (or from the start).
    pub fn approach(&self) {
        if !self.view.with_untracked(|v| lanes::available(&v.0, self.lane.get_untracked())) {
            self.lane.set(Lane::Shr);
        }
        let from = match self.lane.get_untracked() {
            Lane::Shr => self.view.with_untracked(|v| v.0.timeline.approach),
            _ => 0,
        };
        self.step.set(from);
        self.playing.set(true);
    }

    /// From the first step, playing.
    pub fn restart(&self) {
        self.step.set(0);
        self.playing.set(true);
    }

    /// Straight to the end of the run, no animation.
    pub fn finish(&self) {
        self.seek(usize::MAX);
    }

    /// To the next (or previous) event of the run, over the search steps between: a big graph's
    /// replay by events. A baseline's steps are all events.
    pub fn jump_event(&self, forward: bool) {
        let k = self.step.get_untracked();
        let to = match self.lane.get_untracked() {
            Lane::Shr => self.view.with_untracked(|v| {
                let t = &v.0.timeline;
                if forward {
                    t.next_event(k)
                } else {
                    t.previous_event(k)
                }
            }),
            _ if forward => k.saturating_add(1),
            _ => k.saturating_sub(1),
        };
        self.seek(to);
    }

    pub fn forward(&self) {
        self.seek(self.step.get_untracked().saturating_add(1));
    }

    pub fn back(&self) {
        self.seek(self.step.get_untracked().saturating_sub(1));
    }

    pub fn toggle(&self) {
        if self.playing.get_untracked() {
            self.playing.set(false);
        } else {
            if self.step.get_untracked() >= self.total_untracked() {
                self.step.set(0);
            }
            self.playing.set(true);
        }
    }

    /// The ticking loop, for the life of the page.
    pub fn run(self) {
        leptos::task::spawn_local(async move {
            loop {
                let speed = self.speed.get_untracked().clamp(0.25, 64.0);
                TimeoutFuture::new((1000.0 / speed) as u32).await;
                if !self.playing.get_untracked() {
                    continue;
                }
                let total = self.total_untracked();
                let s = self.step.get_untracked();
                // A long run (a big graph's searches) plays event by event, over its search steps.
                let next = match self.lane.get_untracked() {
                    Lane::Shr if total > BY_EVENTS => {
                        self.view.with_untracked(|v| v.0.timeline.next_event(s))
                    }
                    _ => s + 1,
                };
                if s < total {
                    self.step.set(next.min(total));
                }
                if next >= total {
                    self.playing.set(false);
                }
            }
        });
    }
}
