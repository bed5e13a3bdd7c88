use super::{LeanBuilder, LeanRouter, NO_ROUTE, REFUSED};

/// in -> stripe | razorpay (base cost 2) -> out.
fn payments() -> Result<LeanRouter, String> {
    let mut b = LeanBuilder::new();
    b.node("in".into(), false, 1.0, -1.0);
    b.node("stripe".into(), true, 1.0, -1.0);
    b.node("razorpay".into(), true, 2.0, -1.0);
    b.node("out".into(), false, 1.0, -1.0);
    b.edge(0, 1, 1.0);
    b.edge(0, 2, 1.0);
    b.edge(1, 3, 1.0);
    b.edge(2, 3, 1.0);
    b.finish(Some("in".into()), Some("out".into()), 0)
}

fn nodes(r: &LeanRouter) -> Vec<u32> {
    r.out[2..2 + r.out[0] as usize].to_vec()
}

#[test]
fn routes_around_a_tool_marked_down_and_back() {
    let mut r = payments().expect("a valid graph");
    assert_eq!((r.start(), r.goal()), (0, 3));
    assert_eq!(r.route_ix(0, 3, 0.0), 2.0);
    assert_eq!(nodes(&r), [0, 1, 3]);
    assert_eq!(r.out[1], 2, "two edges");
    assert_eq!(&r.out[5..9], [0, 1, 1, 3]);
    assert_eq!(r.health_ix(1, 0, 0.0), f64::INFINITY);
    assert_eq!(r.route_ix(0, 3, 0.0), 3.0, "in -> razorpay (1 x base cost 2) -> out (1)");
    assert_eq!(nodes(&r), [0, 2, 3]);
    r.health_ix(2, 0, 0.0);
    assert_eq!(r.route_ix(0, 3, 0.0), NO_ROUTE);
    assert!(r.health_ix(1, 1, 0.0).is_finite());
    assert_eq!(r.route_ix(0, 3, 0.0), 2.0);
}

#[test]
fn refuses_what_the_js_half_checks_first() {
    let mut r = payments().expect("a valid graph");
    assert_eq!(r.route_ix(0, 99, 0.0), REFUSED, "an index past the graph");
    assert_eq!(r.route_ix(0, 3, f64::NAN), REFUSED, "a clock that is not a time");
    assert_eq!(r.route_ix(0, 3, -1.0), REFUSED);
    assert!(r.health_ix(0, 0, 0.0).is_nan(), "a waypoint is not a tool");
    assert!(r.health_ix(9, 0, 0.0).is_nan());
    assert!(r.health_ix(1, 7, 0.0).is_nan(), "no such operation");
    assert!(r.health_ix(1, 0, f64::INFINITY).is_nan());
}

#[test]
fn a_refused_description_lists_every_problem_with_its_kind_and_pointer() {
    let mut b = LeanBuilder::new();
    b.node("a".into(), true, -1.0, -1.0);
    b.node("a".into(), true, 1.0, -1.0);
    b.edge_named("a".into(), "nowhere".into(), 1.0);
    let Err(text) = b.finish(None, None, 0) else { panic!("an invalid graph must be refused") };
    let problems: Vec<Vec<&str>> = text.split('\u{1e}').map(|p| p.split('\u{1f}').collect()).collect();
    assert!(problems.iter().all(|p| p.len() == 4), "{text:?}");
    let kinds: Vec<&str> = problems.iter().map(|p| p[0]).collect();
    for kind in ["duplicate_id", "unknown_node", "missing_start"] {
        assert!(kinds.contains(&kind), "{kind} in {kinds:?}");
    }
    assert!(problems.iter().any(|p| p[1] == "/edges/0/to"), "{text:?}");
}
