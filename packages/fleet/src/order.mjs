// The fleet's order on deltas of one tool, the same as the core's: greater (version, origin) wins.
export function newer(a, b) {
  if (!b) return true;
  if (a.version !== b.version) return a.version > b.version;
  return a.origin > b.origin;
}

/** Resolves with `promise`, or rejects after `ms` naming `what`: every wait has a timeout. */
export function within(ms, what, promise) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer in ${ms} ms`)), ms);
    timer.unref?.();
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
