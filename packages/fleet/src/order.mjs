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
    timer = setTimeout(() => {
      const e = new Error(`${what}: no answer in ${ms} ms`);
      e.code = 'timeout';
      reject(e);
    }, ms);
    timer.unref?.();
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** An error with the stable code `bad_options`. */
export function badOptions(message) {
  const e = new Error(message);
  e.code = 'bad_options';
  return e;
}

/**
 * Checks an options object: a plain object (or nothing) whose keys are all in `known`, else a
 * `bad_options` error naming the key. A misspelt option is an error, never silently ignored.
 */
export function checkOptions(where, options, known) {
  if (options === undefined) return {};
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw badOptions(`${where}: options must be an object`);
  }
  for (const key of Object.keys(options)) {
    if (!known.includes(key)) {
      throw badOptions(`${where}: unknown option \`${key}\` (known: ${known.join(', ')})`);
    }
  }
  return options;
}

/** A positive finite number of milliseconds (or a count), else `bad_options` naming it. */
export function positive(where, name, value) {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw badOptions(`${where}: \`${name}\` must be a positive number, got ${JSON.stringify(value)}`);
  }
  return value;
}

/** A function, else `bad_options` naming it. */
export function fn(where, name, value) {
  if (typeof value !== 'function') throw badOptions(`${where}: \`${name}\` must be a function`);
  return value;
}
