import { z } from 'zod';

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
    timer = setTimeout(() => reject(coded('timeout', `${what}: no answer in ${ms} ms`)), ms);
    timer.unref?.();
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** An error with a stable code. */
export function coded(code, message) {
  const e = new Error(message);
  e.code = code;
  return e;
}

/** An error with the stable code `bad_options`. */
export function badOptions(message) {
  return coded('bad_options', message);
}

/**
 * Reads an options object with zod: a plain object (or nothing) whose keys are all in `shape`
 * and whose values pass its schemas, else a `bad_options` error naming the key (a misspelt
 * option first: it is an error, never silently ignored). Returns the options as given.
 */
export function readOptions(where, shape, options) {
  if (options === undefined) return {};
  const r = z.strictObject(shape).safeParse(options);
  if (r.success) return options;
  const issue = r.error.issues.find((i) => i.code === 'unrecognized_keys') ?? r.error.issues[0];
  if (issue.code === 'unrecognized_keys') {
    throw badOptions(`${where}: unknown option \`${issue.keys[0]}\` (known: ${Object.keys(shape).join(', ')})`);
  }
  if (issue.path.length === 0) throw badOptions(`${where}: options must be an object`);
  throw badOptions(`${where}: \`${issue.path.join('.')}\` ${issue.message}`);
}

/** The option schemas the fleet's functions share (each message follows the option's name). */
export const option = {
  /** A positive finite number of milliseconds (or a count), at most `max`. */
  positive: (max = Infinity) =>
    z
      .number({ error: (iss) => `must be a positive number, got ${JSON.stringify(iss.input)}` })
      .refine((v) => Number.isFinite(v) && v > 0, { error: (iss) => `must be a positive number, got ${JSON.stringify(iss.input)}` })
      .refine((v) => v <= max, { error: `must be at most ${max} ms` })
      .optional(),
  /** A whole number, `min` or more. */
  whole: (min, what) => z.number({ error: `must be ${what}` }).int({ error: `must be ${what}` }).min(min, { error: `must be ${what}` }).optional(),
  /** A function. */
  fn: z.custom((v) => typeof v === 'function', { error: 'must be a function' }).optional(),
  /** Anything: checked where it is used (keys, namespaces). */
  any: z.unknown().optional(),
};

/** A function, else `bad_options` naming it (a value of a map, not an option). */
export function fn(where, name, value) {
  if (typeof value !== 'function') throw badOptions(`${where}: \`${name}\` must be a function`);
  return value;
}
