//! The pickers above the graph: the scenario (the paper's 19, the cyclic workflows, the ToolMaze
//! perturbations), what a click on a tool does, and the controls of cyclic and perturbed runs.

use leptos::prelude::*;

use crate::model::Source;
use crate::state::{shared_state, ClickMode, Library, Page, COMPLEXITIES, MODES};
use crate::url;
use shr_eval::perturb::Family;

/// The 19 scenarios by domain and the cyclic workflows, the description of the chosen one, and
/// the click mode (or, for a cyclic workflow, its fault probability and seed).
#[component]
pub fn ScenarioPicker(library: StoredValue<Library>) -> impl IntoView {
    let page = expect_context::<Page>();
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
    // One group a domain of shr-eval's list (a domain left out of it fails its tests).
    let groups = shr_eval::scenario::DOMAINS
        .iter()
        .map(|d| {
            let (domain, title) = (d.name, d.title);
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
                let name = e.graph.name().unwrap_or(e.id).to_string();
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
                    <legend>"Clicking a node"</legend>
                    <ModeChoice mode=ClickMode::Fail testid="mode-fail" text=" fails / restores the tool" />
                    <ModeChoice mode=ClickMode::Probe testid="mode-probe" text=" sets it half-open (probing)" />
                    <ModeChoice mode=ClickMode::Start testid="mode-start" text=" makes it the start" />
                    <ModeChoice mode=ClickMode::Goal testid="mode-goal" text=" makes it the goal" />
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
    let family = move || params().and_then(|(_, p)| p.family).unwrap_or_default();
    // Whether the validators caught the wrong result: an implicit failure of the perturbed tool
    // in the run, or the run claiming success on wrong data.
    let verdict = move || {
        page.view.with(|v| {
            let Source::Perturb { target, mode, .. } = page.setup.with(|s| s.source.clone()) else { return None };
            if !mode.implicit() {
                return None;
            }
            let caught = v.0.shr.events.iter().any(|e| {
                matches!(&e.kind, shr_core::EventKind::ToolFailed { tool, implicit: true, .. } if *tool == target)
            });
            Some(if caught {
                format!("caught: {target}'s wrong result failed a validator, and the run routed around it")
            } else {
                format!("not caught: {target}'s wrong result passed as data")
            })
        })
    };
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
                "wrong results "
                <select data-testid="perturb-family" prop:value=family
                    on:change=move |ev| { let f = event_target_value(&ev); change(&|p| p.family = Some(f.clone())) }>
                    {Family::ALL.iter().map(|f| {
                        let v = f.name().to_string();
                        let v2 = v.clone();
                        view! { <option value=v.clone() selected=move || family() == v2>{f.describe()}</option> }
                    }).collect_view()}
                </select>
            </label>
            {move || verdict().map(|text| view! { <span class="perturb-verdict" data-testid="perturb-verdict">{text}</span> })}
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
