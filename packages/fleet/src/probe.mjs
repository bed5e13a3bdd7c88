// Probes a tool whose breaker is HALF_OPEN, so that recovery needs no traffic and no host code:
// every `intervalMs`, for each tool given, if this member may probe it (HALF_OPEN and not held by
// the member of the fleet that owns the probe), call it once, with a timeout, and record the
// outcome. A success closes the breaker and the fleet hears it; a failure reopens it.
import { within } from './order.mjs';

export function startProbes(router, probes, { intervalMs = 100, timeoutMs = 2000, now } = {}) {
  const counts = { probes: 0, ok: 0, failed: 0 };
  const busy = new Set();
  const at = (outcome) => (now ? { ...outcome, at: now() } : outcome);
  const tick = () => {
    for (const [tool, call] of Object.entries(probes)) {
      if (busy.has(tool)) continue;
      const h = router.health(tool, now?.());
      // A null weight is infinite: another member owns the probe.
      if (h.state !== 'half_open' || h.weight === null) continue;
      busy.add(tool);
      counts.probes += 1;
      const t0 = performance.now();
      within(timeoutMs, `probe of ${tool}`, Promise.resolve().then(call))
        .then(
          () => {
            counts.ok += 1;
            router.record(tool, at({ ok: true, latencyMs: performance.now() - t0 }));
          },
          () => {
            counts.failed += 1;
            router.record(tool, at({ ok: false, hard: true }));
          },
        )
        .catch(() => {})
        .finally(() => busy.delete(tool));
    }
  };
  const timer = setInterval(tick, intervalMs);
  timer.unref?.();
  return { counts, stop: () => clearInterval(timer) };
}
