// Healing back with no traffic: while an upstream tool's breaker is not closed, the router asks
// for a probe of it (the node's `probe`, scheduled by the core: HALF_OPEN after the cooldown, at
// most every `interval_ms`), and the gateway answers with an MCP `ping` to the tool's server. A
// pong closes the breaker, so a restarted preferred server serves again within the cooldown and
// one probe interval; no pong opens it for another cooldown. One ping per server per round, for
// all of its tools. Every probe handed out is settled or released exactly once, stop() included.

/**
 * @param router a shr-wasm Router whose tool nodes have a `probe`
 * @param serverOf (toolId) => the Upstream to ping, or undefined (the probe is released)
 * @param opts.timeoutMs a ping's time limit; opts.pollMs the longest sleep between two looks
 * @param opts.onSettled (probe, health) after each settled probe
 */
export function startPingProbes(router, serverOf, { timeoutMs = 2000, pollMs = 1000, onSettled = () => {} } = {}) {
  const counts = { probes: 0, ok: 0, failed: 0 };
  const out = new Set();
  let timer = null;
  let stopped = false;

  const settle = (p, outcome) => {
    if (!out.delete(p.probe)) return;
    try {
      onSettled(p, router.settleProbe(p.probe, outcome));
    } catch {
      // A freed router: nothing left to tell.
    }
  };
  const ping = (up) => {
    const t0 = performance.now();
    let t;
    const late = new Promise((_, reject) => {
      t = setTimeout(() => reject(new Error('ping timed out')), timeoutMs);
      t.unref?.();
    });
    return Promise.race([up.ping(timeoutMs), late])
      .then(() => performance.now() - t0)
      .finally(() => clearTimeout(t));
  };

  function look() {
    timer = null;
    if (stopped) return;
    let due = [];
    try {
      due = router.dueProbes();
    } catch {
      return; // a freed router: the loop ends
    }
    const pings = new Map();
    const waits = [];
    for (const p of due) {
      out.add(p.probe);
      const up = serverOf(p.tool);
      if (!up) {
        out.delete(p.probe);
        try {
          router.releaseProbe(p.probe);
        } catch {
          // freed
        }
        continue;
      }
      counts.probes += 1;
      if (!pings.has(up)) pings.set(up, ping(up));
      waits.push(
        pings.get(up).then(
          (latencyMs) => {
            counts.ok += 1;
            settle(p, { ok: true, latencyMs });
          },
          () => {
            counts.failed += 1;
            settle(p, { ok: false });
          },
        ),
      );
    }
    if (waits.length) Promise.allSettled(waits).then(schedule);
    else schedule();
  }

  function schedule() {
    if (stopped) return;
    let next = null;
    try {
      next = router.nextProbeAt();
    } catch {
      return;
    }
    const wait = next == null ? pollMs : Math.min(pollMs, Math.max(1, next - Date.now()));
    if (timer !== null) clearTimeout(timer);
    timer = setTimeout(look, wait);
    timer.unref?.();
  }

  schedule();
  return {
    counts,
    /** Ends the loop and gives back every probe still out. */
    stop() {
      stopped = true;
      if (timer !== null) clearTimeout(timer);
      for (const n of out) {
        try {
          router.releaseProbe(n);
        } catch {
          // freed
        }
      }
      out.clear();
    },
  };
}
