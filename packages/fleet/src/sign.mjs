// Authenticated deltas: every delta travels in an envelope signed over a canonical encoding of
// the namespace, the graph's fingerprint and the delta, under one of two schemes:
// - a fleet key (`shr: 1`): HMAC-SHA256 under a secret every member shares. Two keys are
//   accepted at once (the current one, which signs, and the previous one), so a key is rotated
//   without a gap: add the new key as `previousKey` everywhere, then swap, then drop.
// - member keys (`shr: 2`, members.mjs): each member signs with its own Ed25519 key, verified
//   against the key listed for the origin the delta names, so no member can speak for another.
// Node uses node:crypto; a browser (or `crypto: 'webcrypto'`) uses Web Crypto (crypto.subtle).
import { badOptions, coded } from './order.mjs';
import { readMembers, memberPrimitives } from './members.mjs';

/** The prefix of every signed text, by the envelope's version (its signing scheme). */
const TAG = { 1: 'shr-fleet/1', 2: 'shr-fleet/2' };
const SCHEME = { 1: 'a shared fleet key', 2: "members' own keys" };
/** The largest message read, in bytes of JSON text: a real one is under 400. */
export const MAX_MESSAGE = 8192;
const DELTA_KEYS = new Set(['tool', 'change', 'cooldown', 'version', 'origin']);
const ENVELOPE_KEYS = new Set(['shr', 'ns', 'graph', 'delta', 'sig', 'age']);
const MIN_KEY_BYTES = 16;

function keyBytes(where, name, key) {
  let bytes;
  if (typeof key === 'string') bytes = new TextEncoder().encode(key);
  else if (key instanceof Uint8Array) bytes = key;
  else throw badOptions(`${where}: \`${name}\` must be a string or a Uint8Array (the fleet's shared secret)`);
  if (bytes.length < MIN_KEY_BYTES) throw badOptions(`${where}: \`${name}\` must be at least ${MIN_KEY_BYTES} bytes`);
  return bytes;
}

/** JSON with object keys sorted, at every depth: the same text for the same value. */
export function canonicalJson(value) {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value).sort().filter((k) => value[k] !== undefined).map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** The signed text of a delta in a namespace, for a graph. */
function signedText(version, ns, graph, d) {
  return `${TAG[version]}\n${ns}\n${graph}\n${JSON.stringify([d.tool, d.change, d.cooldown ?? null, d.version, d.origin])}`;
}

const b64 = (bytes) => {
  let s = '';
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s);
};

/** HMAC-SHA256 and SHA-256 from node:crypto (sync) or Web Crypto (async). */
async function primitives(which) {
  if (which !== 'webcrypto') {
    try {
      const c = await import('node:crypto');
      return {
        kind: 'node',
        hmacKey: (bytes) => bytes,
        hmac: (key, text) => c.createHmac('sha256', key).update(text).digest('base64'),
        sha256: (text) => c.createHash('sha256').update(text).digest('hex'),
      };
    } catch (e) {
      if (which === 'node') throw coded('no_crypto', `node:crypto is not available: ${e.message}`);
    }
  }
  const subtle = globalThis.crypto?.subtle;
  if (!subtle) throw coded('no_crypto', 'neither node:crypto nor Web Crypto (crypto.subtle) is available');
  const enc = new TextEncoder();
  return {
    kind: 'webcrypto',
    hmacKey: (bytes) => subtle.importKey('raw', bytes, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']),
    hmac: async (key, text) => b64(new Uint8Array(await subtle.sign('HMAC', await key, enc.encode(text)))),
    sha256: async (text) => [...new Uint8Array(await subtle.digest('SHA-256', enc.encode(text)))].map((b) => b.toString(16).padStart(2, '0')).join(''),
  };
}

/** Compares two base64 strings in time independent of where they differ. */
function same(a, b) {
  if (typeof a !== 'string' || a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i += 1) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/** The shared-key scheme: `sign(text)` and `verify(delta, text, sig)` -> key index or -1. */
function hmacScheme(where, p, key, previousKey) {
  const keys = [keyBytes(where, 'key', key)];
  if (previousKey !== undefined && previousKey !== null) keys.push(keyBytes(where, 'previousKey', previousKey));
  const hkeys = keys.map((k) => p.hmacKey(k));
  const index = (sig, macs) => macs.findIndex((m) => same(sig, m));
  return {
    version: 1,
    sign: (text) => p.hmac(hkeys[0], text),
    verify(d, text, sig) {
      const macs = hkeys.map((k) => p.hmac(k, text));
      return p.kind === 'node' ? index(sig, macs) : Promise.all(macs).then((m) => index(sig, m));
    },
  };
}

/**
 * The member-key scheme: a delta verifies only under a key listed for its own origin. An
 * Ed25519 check costs tens of times an HMAC, so checks are budgeted (a token bucket of
 * `verifyPerSecond`, a second's worth banked): a flood of forgeries under listed origins is
 * refused unchecked (`over_budget`) past it instead of taking the host's CPU.
 */
async function memberScheme(where, p, opts) {
  const m = await memberPrimitives(p.kind, readMembers(where, opts));
  const rate = opts.verifyPerSecond ?? DEFAULT_VERIFY_PER_SECOND;
  if (typeof rate !== 'number' || !Number.isFinite(rate) || rate < 1) throw badOptions(`${where}: \`verifyPerSecond\` must be a number, 1 or more`);
  let tokens = rate;
  let last = performance.now();
  const spend = () => {
    const now = performance.now();
    tokens = Math.min(rate, tokens + ((now - last) * rate) / 1000);
    last = now;
    if (tokens < 1) return false;
    tokens -= 1;
    return true;
  };
  return {
    version: 2,
    rate,
    sign: m.sign,
    verify(d, text, sig) {
      const origin = typeof d.origin === 'string' ? d.origin : '';
      if (!m.listed(origin)) return undefined;
      return spend() ? m.verify(origin, text, sig) : null;
    },
  };
}

/** Signature checks a second under member keys, by default (about a tenth of a core in Node). */
export const DEFAULT_VERIFY_PER_SECOND = 1000;

/**
 * A sealer for one fleet: `seal(delta)` -> envelope, `open(message)` -> {delta, key} or
 * {code, message} (never throws for the message's content).
 * @param opts.key the current fleet key (signs and verifies); opts.previousKey also verifies
 * @param opts.members, opts.memberKey, opts.origin instead of a key: the members' public keys
 *   by origin, this member's private key and its origin (members.mjs); opts.verifyPerSecond
 *   the signature checks allowed a second
 * @param opts.namespace the fleet's namespace; opts.graph the graph's fingerprint
 * @param opts.crypto 'node' | 'webcrypto' | undefined (node:crypto when there is one)
 */
export async function sealer(where, { key, previousKey, members, memberKey, origin, verifyPerSecond, namespace, graph, crypto }) {
  const byMembers = members !== undefined && members !== null;
  if (byMembers && ((key !== undefined && key !== null) || (previousKey !== undefined && previousKey !== null))) {
    throw badOptions(`${where}: give \`key\` (one secret the fleet shares) or \`members\` (each member's own key), not both`);
  }
  if (!byMembers && verifyPerSecond !== undefined) throw badOptions(`${where}: \`verifyPerSecond\` budgets member-key checks; it needs \`members\``);
  if (!byMembers && memberKey !== undefined && memberKey !== null) throw badOptions(`${where}: \`memberKey\` needs \`members\`, the fleet's public keys by origin`);
  if (!byMembers && (key === undefined || key === null)) {
    throw coded('key_required', `${where}: \`key\` (or \`members\` and \`memberKey\`) is required: every delta is signed, and unsigned ones are refused`);
  }
  if (crypto !== undefined && crypto !== 'node' && crypto !== 'webcrypto') throw badOptions(`${where}: \`crypto\` must be 'node' or 'webcrypto'`);
  const p = await primitives(crypto);
  const scheme = byMembers ? await memberScheme(where, p, { members, memberKey, origin, verifyPerSecond }) : hmacScheme(where, p, key, previousKey);
  const refuse = (code, message) => ({ code, message });
  const check = (ns, g, d, sig, age) => {
    const accept = (i) => {
      if (i === null) return refuse('over_budget', `more than ${scheme.rate} signatures a second to check: refused unchecked`);
      if (i === undefined) return refuse('unknown_member', `origin ${JSON.stringify(String(d.origin).slice(0, 140))} is not one of the fleet's members`);
      if (i < 0) return refuse('bad_signature', scheme.version === 1 ? 'not signed with the fleet key (or with a key since rotated out)' : `not signed with the key of member ${JSON.stringify(d.origin)}`);
      if (age > 0 && d.change === 'opened' && typeof d.cooldown === 'number') d = { ...d, cooldown: Math.max(0, Math.round(d.cooldown - age)) };
      return { delta: d, key: i === 0 ? 'current' : 'previous' };
    };
    const i = scheme.verify(d, signedText(scheme.version, ns, g, d), sig);
    return typeof i?.then === 'function' ? i.then(accept) : accept(i);
  };
  return {
    kind: p.kind,
    sha256: p.sha256,
    seal(delta) {
      const sig = scheme.sign(signedText(scheme.version, namespace, graph, delta));
      const env = (s) => ({ shr: scheme.version, ns: namespace, graph, delta, sig: s });
      return typeof sig === 'string' ? env(sig) : sig.then(env);
    },
    /** Returns a verdict, or a promise of one with Web Crypto. */
    open(message) {
      let m = message;
      if (typeof m === 'string') {
        if (m.length > MAX_MESSAGE) return refuse('too_large', `${m.length} characters, more than ${MAX_MESSAGE}`);
        try {
          m = JSON.parse(m);
        } catch {
          return refuse('malformed', 'not JSON');
        }
      }
      if (!m || typeof m !== 'object' || Array.isArray(m)) return refuse('malformed', 'not an envelope object');
      if (m.sig === undefined && m.shr === undefined) return refuse('unsigned', 'a bare delta, not a signed envelope: refused');
      for (const k of Object.keys(m)) if (!ENVELOPE_KEYS.has(k)) return refuse('malformed', `unknown envelope field \`${k}\``);
      if (m.shr !== 1 && m.shr !== 2) return refuse('malformed', `envelope version ${JSON.stringify(m.shr)}, 1 or 2 expected`);
      if (typeof m.sig !== 'string' || m.sig === '') return refuse('unsigned', 'no signature');
      const d = m.delta;
      if (!d || typeof d !== 'object' || Array.isArray(d)) return refuse('malformed', 'no delta');
      for (const k of Object.keys(d)) if (!DELTA_KEYS.has(k)) return refuse('malformed', `unknown delta field \`${k}\``);
      const age = m.age ?? 0;
      if (typeof age !== 'number' || !Number.isFinite(age) || age < 0) return refuse('malformed', 'age must be a number of ms, 0 or more');
      // The signature covers the namespace and graph it names; these must be ours.
      if (m.ns !== namespace) return refuse('wrong_namespace', `for namespace ${JSON.stringify(String(m.ns).slice(0, 140))}, this fleet is ${JSON.stringify(namespace)}`);
      if (m.graph !== graph) return refuse('wrong_graph', `for graph ${JSON.stringify(String(m.graph).slice(0, 80))}, this router's graph is ${graph}`);
      if (m.shr !== scheme.version) return refuse('bad_signature', `signed with ${SCHEME[m.shr]}; this fleet signs with ${SCHEME[scheme.version]}`);
      return check(m.ns, m.graph, d, m.sig, age);
    },
  };
}

/** The graph's fingerprint: the first 16 hex digits of SHA-256 over its canonical JSON. */
export async function fingerprint(router, sha256) {
  const hex = await sha256(canonicalJson(router.toJson()));
  return hex.slice(0, 16);
}
