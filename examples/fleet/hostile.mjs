// Hostile fleet messages, as a broken or malicious peer would publish them: every one is invalid
// whatever the receiver knows (none relies on being stale), so a receiver must refuse them all
// and apply none. Deterministic for a seed. Used by the tests over memory and over Redis.
//
// Each message is a valid delta with one defect: an unknown tool, a bad origin (empty, too
// long, the receiver's own), a bad version (0 for a breaker change, negative, fractional,
// beyond 2^53 - 1, a string), a change that does not match `cooldown`, an unknown change, an
// extra or missing field, a bad cooldown; or not a delta at all: truncated JSON, JSON of another
// shape, random text, a message over the size limit. Over a fleet they travel bare (refused
// unsigned) or, in tests of what a key holder could send, signed.

/** `n` hostile messages for a receiver named `victim` of a graph with `tools`. */
export function hostileMessages({ n = 500, seed = 7, victim, tools = ['stripe'], asText = false }) {
  let s = seed >>> 0;
  const rand = () => {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    return s / 2 ** 32;
  };
  const pick = (xs) => xs[Math.floor(rand() * xs.length)];
  const word = (len) => Array.from({ length: len }, () => String.fromCharCode(97 + Math.floor(rand() * 26))).join('');
  const base = () => {
    const change = pick(['opened', 'closed', 'failed']);
    const d = { tool: pick(tools), change, version: 1 + Math.floor(rand() * 5), origin: `peer-${word(3)}` };
    if (change === 'opened') d.cooldown = 1 + Math.floor(rand() * 1e5);
    return d;
  };
  const defects = [
    (d) => ({ ...d, tool: `x-${word(1 + Math.floor(rand() * 8))}` }),
    (d) => ({ ...d, tool: '' }),
    (d) => ({ ...d, origin: pick(['', victim, 'o'.repeat(129)]) }),
    (d) => ({ ...d, change: pick(['opened', 'closed']), version: 0 }),
    (d) => ({ ...d, version: pick([-1, 1.5, 2 ** 53, '3', null, true]) }),
    (d) => {
      // `opened` without `cooldown`, or `closed`/`failed` with one.
      const { cooldown, ...rest } = d;
      return d.change === 'opened' ? rest : { ...rest, cooldown: 1 + Math.floor(rand() * 1e6) };
    },
    (d) => ({ ...d, change: pick(['up', 'down', 'OPENED', '', 'half_open']) }),
    (d) => ({ ...d, [pick(['extra', 'state', 'Tool', '__proto__x'])]: 1 }),
    (d) => {
      const copy = { ...d };
      delete copy[pick(['tool', 'change', 'version', 'origin'])];
      return copy;
    },
    (d) => ({ ...d, version: pick([2 ** 53 - 1, 2 ** 52 + 3]), change: 'closed', cooldown: undefined }),
    (d) => (d.change === 'opened' ? { ...d, cooldown: pick([-5, 'soon', 2.5]) } : { ...d, tool: `x-${word(4)}` }),
    (d) => JSON.stringify(d).slice(0, Math.floor(rand() * JSON.stringify(d).length)),
    () => pick([null, 42, true, [], 'not json', '', '{}', '[1,2]', '"stripe"']),
    () => word(1 + Math.floor(rand() * 60)),
    (d) => ({ ...d, origin: `${d.origin}${'x'.repeat(5000)}` }),
  ];
  const out = [];
  for (let i = 0; i < n; i += 1) {
    const d = base();
    let m = defects[Math.floor(rand() * defects.length)](d);
    // The version-0 defect keeps `until` consistent with the change it sets: one defect only.
    if (m && typeof m === 'object' && !Array.isArray(m) && m.version === 0) {
      m = { ...m };
      if (m.change === 'opened') m.cooldown = 1;
      else delete m.cooldown;
    }
    out.push(asText && typeof m !== 'string' ? JSON.stringify(m) ?? 'undefined' : m);
  }
  return out;
}
