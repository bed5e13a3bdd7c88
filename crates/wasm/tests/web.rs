//! shr-wasm in a real browser (headless Chromium through wasm-bindgen-test-runner): the same
//! exported API a page would call, with JS closures as tools and the browser's own event loop
//! (`setTimeout`, promises) under `Router.run`.
//!
//! `CHROMEDRIVER=/usr/bin/chromedriver cargo test -p shr-wasm --target wasm32-unknown-unknown`
#![cfg(target_arch = "wasm32")]

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::{Array, Function, Object, Promise, Reflect, JSON};
use shr_wasm::Router;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_name = setTimeout)]
    fn set_timeout(handler: &JsValue, ms: i32) -> JsValue;
}

/// start -> crm -> stripe|razorpay -> email -> done; the backup payment edge costs more.
const REFUND: &str = r#"{
  "name": "refund",
  "nodes": [
    {"id": "start", "tool": false}, {"id": "crm"}, {"id": "stripe", "stage": "payment"},
    {"id": "razorpay", "stage": "payment"}, {"id": "email"}, {"id": "done", "tool": false}
  ],
  "edges": [
    {"from": "start", "to": "crm", "cost": 1}, {"from": "crm", "to": "stripe", "cost": 1},
    {"from": "crm", "to": "razorpay", "cost": 2}, {"from": "stripe", "to": "email", "cost": 1},
    {"from": "razorpay", "to": "email", "cost": 1}, {"from": "email", "to": "done", "cost": 0}
  ],
  "start": "start",
  "goal": "done"
}"#;

fn json(text: &str) -> JsValue {
    JSON::parse(text).expect("test JSON is valid")
}

fn field(v: &JsValue, key: &str) -> JsValue {
    Reflect::get(v, &JsValue::from_str(key)).expect("an object")
}

/// `value` as JSON text, for whole-value comparisons.
fn text(v: &JsValue) -> String {
    JSON::stringify(v).expect("serializable").as_string().expect("a string")
}

fn refund_router() -> Router {
    Router::from_json(json(REFUND), JsValue::UNDEFINED).expect("the refund graph is valid")
}

fn path_of(route: &JsValue) -> String {
    text(&field(route, "path"))
}

/// An async JS tool: resolves with `output` after `ms` of the browser's own timers, or
/// rejects with `error` when given; counts its calls in `calls`.
fn tool(ms: i32, output: &'static str, error: Option<&'static str>, calls: Rc<RefCell<Vec<u32>>>) -> JsValue {
    let f = Closure::<dyn FnMut(JsValue) -> Promise>::new(move |input: JsValue| {
        let attempt = field(&input, "attempt").as_f64().unwrap_or(0.0) as u32;
        calls.borrow_mut().push(attempt);
        let mut settle = move |resolve: Function, reject: Function| {
            let (f, v) = match error {
                Some(m) => (reject, JsValue::from(js_sys::Error::new(m))),
                None => (resolve, json(output)),
            };
            let later = Closure::once_into_js(move || {
                let _ = f.call1(&JsValue::UNDEFINED, &v);
            });
            set_timeout(&later, ms);
        };
        Promise::new(&mut settle)
    });
    f.into_js_value()
}

fn tools(pairs: &[(&str, JsValue)]) -> Object {
    let o = Object::new();
    for (k, v) in pairs {
        Reflect::set(&o, &JsValue::from_str(k), v).expect("a plain object");
    }
    o
}

#[wasm_bindgen_test]
fn route_takes_the_cheapest_healthy_path() {
    let r = refund_router();
    let route = r.route(&JsValue::UNDEFINED, &JsValue::UNDEFINED, &JsValue::from_f64(0.0)).expect("routes");
    assert_eq!(path_of(&route), r#"["start","crm","stripe","email","done"]"#);
    assert_eq!(field(&route, "cost").as_f64(), Some(3.0));
    let partial = r
        .route(&JsValue::from_str("razorpay"), &JsValue::UNDEFINED, &JsValue::from_f64(0.0))
        .expect("routes");
    assert_eq!(path_of(&partial), r#"["razorpay","email","done"]"#);
    assert!(r
        .route(&JsValue::from_str("done"), &JsValue::from_str("start"), &JsValue::from_f64(0.0))
        .expect("routes")
        .is_null());
}

/// `router.route(...)` called as a page calls it: the JS half on `Router.prototype`, which
/// looks ids up in JS and reads the plan from memory, falling back to the Rust `route` to word
/// an error.
#[wasm_bindgen_test]
fn route_called_from_js_takes_the_js_half() {
    let router = JsValue::from(refund_router());
    let call = |name: &str, args: &[JsValue]| {
        let f: Function = field(&router, name).dyn_into().expect("a method");
        f.apply(&router, &args.iter().collect::<Array>())
    };
    let route = call("route", &[JsValue::NULL, JsValue::NULL, JsValue::from(0.0)]).expect("routes");
    assert_eq!(path_of(&route), r#"["start","crm","stripe","email","done"]"#);
    // The JS half keeps its ids on the router under a symbol; the Rust `route` keeps none.
    assert_eq!(
        Object::get_own_property_symbols(router.unchecked_ref::<Object>()).length(),
        1,
        "the JS half ran"
    );
    assert_eq!(
        text(&field(&route, "edges")),
        r#"[["start","crm"],["crm","stripe"],["stripe","email"],["email","done"]]"#
    );
    call("markDown", &[JsValue::from_str("stripe"), JsValue::from(1.0)]).expect("stripe is a tool");
    let route =
        call("route", &[JsValue::from_str("crm"), JsValue::UNDEFINED, JsValue::from(1.0)]).expect("routes");
    assert_eq!(path_of(&route), r#"["crm","razorpay","email","done"]"#);
    assert_eq!(field(&route, "cost").as_f64(), Some(3.0));
    let err = call("route", &[JsValue::from_str("mars")]).expect_err("an unknown start throws");
    assert_eq!(field(&err, "code").as_string().as_deref(), Some("unknown_node"));
    let err = call("route", &[JsValue::NULL, JsValue::NULL, JsValue::from(-1.0)])
        .expect_err("a negative now throws");
    assert_eq!(field(&err, "code").as_string().as_deref(), Some("bad_clock"));
}

#[wasm_bindgen_test]
fn mark_down_reroutes_and_mark_up_restores() {
    let r = refund_router();
    let w = r.mark_down("stripe".into(), &JsValue::from_f64(0.0)).expect("stripe is a tool");
    assert_eq!(w, f64::INFINITY, "an open breaker is an infinite weight");
    let h = r.health("stripe".into(), &JsValue::from_f64(0.0)).expect("stripe is a tool");
    assert_eq!(field(&h, "state").as_string().as_deref(), Some("open"));
    assert!(field(&h, "weight").is_null(), "infinite is null in a ToolHealth");
    let route = r.route(&JsValue::UNDEFINED, &JsValue::UNDEFINED, &JsValue::from_f64(1.0)).expect("routes");
    assert_eq!(path_of(&route), r#"["start","crm","razorpay","email","done"]"#);
    assert_eq!(field(&route, "cost").as_f64(), Some(4.0));
    r.mark_down("razorpay".into(), &JsValue::from_f64(1.0)).expect("razorpay is a tool");
    assert!(
        r.route(&JsValue::UNDEFINED, &JsValue::UNDEFINED, &JsValue::from_f64(2.0)).expect("routes").is_null(),
        "no payment tool left"
    );
    r.mark_up("stripe".into(), &JsValue::from_f64(3.0)).expect("stripe is a tool");
    assert_eq!(
        path_of(&r.route(&JsValue::UNDEFINED, &JsValue::UNDEFINED, &JsValue::from_f64(3.0)).expect("routes")),
        r#"["start","crm","stripe","email","done"]"#
    );
}

#[wasm_bindgen_test]
fn errors_are_js_errors_with_a_code_and_the_offending_id() {
    let bad =
        json(r#"{"nodes": [{"id": "a"}, {"id": "a"}], "edges": [{"from": "a", "to": "b", "cost": -1}]}"#);
    let err = Router::from_json(bad, JsValue::UNDEFINED).err().expect("an invalid graph is refused");
    assert!(err.is_instance_of::<js_sys::Error>());
    assert_eq!(field(&err, "code").as_string().as_deref(), Some("invalid_graph"));
    assert_eq!(field(&err, "name").as_string().as_deref(), Some("ShrError"));
    let problems = Array::from(&field(&err, "problems"));
    let kinds: Vec<String> = problems.iter().filter_map(|p| field(&p, "kind").as_string()).collect();
    assert!(kinds.contains(&"duplicate_id".to_string()), "{kinds:?}");
    assert!(kinds.contains(&"unknown_node".to_string()), "{kinds:?}");
    let ats: Vec<String> = problems.iter().filter_map(|p| field(&p, "at").as_string()).collect();
    assert!(ats.iter().any(|a| a.contains('b')), "the unknown endpoint is named: {ats:?}");

    let r = refund_router();
    let err = r.mark_down("paypal".into(), &JsValue::from_f64(0.0)).expect_err("paypal is not in the graph");
    assert_eq!(field(&err, "code").as_string().as_deref(), Some("unknown_tool"));
    assert_eq!(field(&err, "tool").as_string().as_deref(), Some("paypal"));
    let message = field(&err, "message").as_string().unwrap_or_default();
    assert!(message.contains("paypal"), "{message}");
}

#[wasm_bindgen_test]
async fn a_run_with_js_closures_reroutes_around_a_rejecting_tool() {
    let stripe_calls = Rc::new(RefCell::new(Vec::new()));
    let razorpay_calls = Rc::new(RefCell::new(Vec::new()));
    let quiet = || Rc::new(RefCell::new(Vec::new()));
    let tools = tools(&[
        ("crm", tool(5, r#"{"customer": "c_42"}"#, None, quiet())),
        ("stripe", tool(5, "null", Some("stripe: 503 Service Unavailable"), stripe_calls.clone())),
        ("razorpay", tool(15, r#"{"refund": "rp_1"}"#, None, razorpay_calls.clone())),
        ("email", tool(1, r#"{"sent": true}"#, None, quiet())),
    ]);
    let streamed = Rc::new(RefCell::new(Vec::<String>::new()));
    let sink = streamed.clone();
    let on_event = Closure::<dyn FnMut(JsValue)>::new(move |e: JsValue| {
        sink.borrow_mut().push(field(&e, "event").as_string().unwrap_or_default());
    });
    let options = Object::new();
    Reflect::set(&options, &"tools".into(), &tools).expect("a plain object");
    Reflect::set(&options, &"onEvent".into(), on_event.as_ref()).expect("a plain object");

    let r = refund_router();
    let task = json(r#"{"context": {"request": "refund order 7", "amount": 40}}"#);
    let result = JsFuture::from(r.run(task, options.into())).await.expect("the run resolves");

    let outcome = field(&result, "outcome");
    assert_eq!(field(&outcome, "status").as_string().as_deref(), Some("completed"));
    assert_eq!(text(&field(&outcome, "path")), r#"["start","crm","razorpay","email","done"]"#);
    assert_eq!(field(&outcome, "reroutes").as_f64(), Some(1.0));
    assert_eq!(*stripe_calls.borrow(), vec![1, 2], "a rejection is transient: one retry, then a reroute");
    assert_eq!(*razorpay_calls.borrow(), vec![1]);

    let events = Array::from(&field(&result, "events"));
    let names: Vec<String> = events.iter().filter_map(|e| field(&e, "event").as_string()).collect();
    assert_eq!(*streamed.borrow(), names, "onEvent saw every event in order");
    let failed = events.iter().find(|e| field(e, "event").as_string().as_deref() == Some("ToolFailed"));
    let failed = failed.expect("stripe's failure is an event");
    assert_eq!(field(&failed, "tool").as_string().as_deref(), Some("stripe"));
    assert_eq!(field(&failed, "category").as_string().as_deref(), Some("service"));
    assert_eq!(field(&failed, "message").as_string().as_deref(), Some("stripe: 503 Service Unavailable"));
    let at = |name: &str| names.iter().position(|n| n == name);
    assert!(at("Rerouted") > at("ToolFailed"), "{names:?}");
    assert_eq!(names.last().map(String::as_str), Some("Finished"));

    let h = r.health("stripe".into(), &JsValue::UNDEFINED).expect("stripe is a tool");
    assert_eq!(
        field(&h, "state").as_string().as_deref(),
        Some("open"),
        "the router keeps what the run learned"
    );
}

#[wasm_bindgen_test]
async fn a_tool_that_never_settles_times_out_in_the_browser() {
    let hang = Closure::<dyn FnMut(JsValue) -> Promise>::new(|_input: JsValue| {
        Promise::new(&mut |_: Function, _: Function| {})
    });
    let ok = |out: &'static str| tool(1, out, None, Rc::new(RefCell::new(Vec::new())));
    let tools = tools(&[
        ("crm", ok("{}")),
        ("stripe", hang.into_js_value()),
        ("razorpay", ok(r#"{"refund": "rp_2"}"#)),
        ("email", ok("{}")),
    ]);
    let options = Object::new();
    Reflect::set(&options, &"tools".into(), &tools).expect("a plain object");
    Reflect::set(&options, &"timeoutMs".into(), &JsValue::from(20)).expect("a plain object");
    let result = JsFuture::from(refund_router().run(JsValue::NULL, options.into())).await.expect("resolves");
    let events = Array::from(&field(&result, "events"));
    let timeouts: Vec<JsValue> =
        events.iter().filter(|e| field(e, "event").as_string().as_deref() == Some("ToolFailed")).collect();
    assert_eq!(timeouts.len(), 2, "the first attempt and its retry both time out");
    for t in &timeouts {
        assert_eq!(field(t, "transient").as_bool(), Some(true));
        assert_eq!(field(t, "message").as_string().as_deref(), Some("`stripe` did not settle within 20 ms"));
    }
    assert_eq!(
        text(&field(&field(&result, "outcome"), "path")),
        r#"["start","crm","razorpay","email","done"]"#
    );
}

#[wasm_bindgen_test]
async fn a_run_with_bad_options_rejects_with_a_code() {
    let options = json(r#"{"tools": {}, "timeoutMs": -1}"#);
    let err = JsFuture::from(refund_router().run(JsValue::NULL, options)).await.expect_err("rejects");
    assert!(err.is_instance_of::<js_sys::Error>());
    assert_eq!(field(&err, "code").as_string().as_deref(), Some("bad_options"));
    let message = field(&err, "message").as_string().unwrap_or_default();
    assert!(message.contains("timeoutMs"), "{message}");
}
