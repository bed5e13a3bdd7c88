// The browser app both bundlers build: shr-wasm used before `init` (a coded error), then
// initialized by the bundler's way of loading the .wasm, routing a graph around a failed tool.
import { Router, ShrError, isShrError } from 'shr-wasm';

export async function routeAGraph(initialize) {
  let before = null;
  try {
    new Router({ nodes: [{ id: 'a' }] });
  } catch (e) {
    before = { code: e.code, name: e.name, isShrError: isShrError(e), instance: e instanceof ShrError };
  }
  await initialize();
  const router = Router.fromJson({
    start: 'start', goal: 'done',
    nodes: [{ id: 'start', tool: false }, { id: 'stripe' }, { id: 'razorpay' }, { id: 'done', tool: false }],
    edges: [{ from: 'start', to: 'stripe', cost: 1 }, { from: 'start', to: 'razorpay', cost: 2 },
      { from: 'stripe', to: 'done', cost: 0 }, { from: 'razorpay', to: 'done', cost: 0 }],
  });
  const healthy = router.route()?.path;
  const weight = router.markDown('stripe');
  const { outcome } = await router.run({}, { tools: { razorpay: async () => ({ id: 'rp_1' }) } });
  return { before, healthy, weight: String(weight), rerouted: router.route()?.path, outcome: outcome.status };
}

export function report(promise) {
  promise.then(
    (result) => { window.__shr = { result }; },
    (e) => { window.__shr = { error: `${e?.name}: ${e?.message}` }; },
  );
}
