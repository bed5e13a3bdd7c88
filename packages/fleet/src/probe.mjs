// Performs the probes the router asks for, so that a down tool recovers with no traffic and no
// host code. The core decides (shr-core's health::probe): which tools are due (a `probe` on
// their node, the breaker HALF_OPEN with a probe free, no other member of the fleet owning the
// probe, `probe.interval_ms` since the last one) and when to ask again. This loop only calls
// the tool with the node's `probe.input`, with a timeout, and settles the probe: a success
// closes the breaker (the fleet hears it), a failure opens it for another cooldown.
import { within, readOptions, badOptions, option, fn } from './order.mjs';

// setTimeout's limit: a longer wait would fire at once.
const OPTIONS = { timeoutMs: option.positive(2_147_483_647), pollMs: option.positive(2_147_483_647), now: option.fn };

/**
 * @param router a shr-wasm Router whose graph gives the probed tools a `probe`
 * @param tools {toolId: async (input) => result}: a result `{success: false}` or a throw fails
 * @param opts.timeoutMs a probe call's time limit (default 2000)
 * @param opts.pollMs the longest sleep between two looks (default 1000): a breaker that opens
 *   meanwhile makes a probe due sooner than the router said last time
 * @param opts.now the clock, when the router's is not `Date.now()`
 */
export function startProbes(router, tools, opts) {
  const where = 'startProbes';
  readOptions(where, OPTIONS, opts);
  const { timeoutMs = 2000, pollMs = 1000, now } = opts ?? {};
  const probed = new Set(router.toJson().nodes.filter((n) => n.probe).map((n) => n.id));
  for (const t of Object.keys(tools)) {
    fn(where, `tools.${t}`, tools[t]);
    if (!probed.has(t)) throw badOptions(`${where}: \`${t}\` has no \`probe\` in the graph: give its node "probe": {"interval_ms": ...}`);
  }
  const missing = [...probed].filter((t) => !Object.hasOwn(tools, t));
  if (missing.length) throw badOptions(`${where}: no probe function for ${missing.map((t) => `\`${t}\``).join(', ')}`);

  const counts = { probes: 0, ok: 0, failed: 0 };
  let timer = null;
  let stopped = false;
  const at = (outcome) => (now ? { ...outcome, at: now() } : outcome);
  const settle = (p, outcome) => {
    try {
      router.settleProbe(p.probe, at(outcome));
    } catch {
      // A freed router: nothing left to tell.
    }
  };
  const look = () => {
    timer = null;
    if (stopped) return;
    let due = [];
    try {
      due = router.dueProbes(now?.());
    } catch {
      return; // a freed router: the loop ends
    }
    for (const p of due) {
      counts.probes += 1;
      const t0 = performance.now();
      within(timeoutMs, `probe of ${p.tool}`, Promise.resolve().then(() => tools[p.tool](p.input)))
        .then((r) => {
          if (r && r.success === false) throw new Error(String(r.error ?? 'failed'));
          counts.ok += 1;
          settle(p, { ok: true, latencyMs: performance.now() - t0 });
        })
        .catch(() => {
          counts.failed += 1;
          settle(p, { ok: false });
        })
        .finally(schedule);
    }
    schedule();
  };
  function schedule() {
    if (stopped) return;
    let next = null;
    try {
      next = router.nextProbeAt(now?.());
    } catch {
      return;
    }
    const t = now ? now() : Date.now();
    const wait = next == null ? pollMs : Math.min(pollMs, Math.max(1, next - t));
    if (timer !== null) clearTimeout(timer);
    timer = setTimeout(look, wait);
    timer.unref?.();
  }
  schedule();
  return {
    counts,
    stop() {
      stopped = true;
      if (timer !== null) clearTimeout(timer);
    },
  };
}
