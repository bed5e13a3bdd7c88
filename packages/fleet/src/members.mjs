// Member keys: each member signs with its own Ed25519 private key, and every member holds the
// list of the fleet's public keys by origin. A delta is accepted only under the key listed for
// the origin it names, so a member (or a host taken over) can speak only for itself: quorum
// means `quorum` distinct key holders, not `quorum` origins one shared-key holder made up.
// Keys are JWKs (RFC 8037), the one format node:crypto and Web Crypto both import.
import { badOptions, coded } from './order.mjs';

/** Keys listed for one origin at most: the current one and a few being rotated. */
const MAX_KEYS_PER_MEMBER = 4;
/** Members listed at most (a fleet larger than this needs a directory, not an option). */
export const MAX_MEMBERS = 4096;
const B64URL_32 = /^[A-Za-z0-9_-]{43}$/;
const ORIGIN = /^[\x21-\x7e]{1,128}$/;

/** Checks an Ed25519 JWK; `priv` says whether the private part `d` must be there or absent. */
function jwk(where, name, k, priv) {
  if (!k || typeof k !== 'object' || Array.isArray(k)) throw badOptions(`${where}: \`${name}\` must be an Ed25519 JWK object ({kty: 'OKP', crv: 'Ed25519', x${priv ? ', d' : ''}})`);
  if (k.kty !== 'OKP' || k.crv !== 'Ed25519') throw badOptions(`${where}: \`${name}\` must be an Ed25519 key (kty 'OKP', crv 'Ed25519')`);
  if (typeof k.x !== 'string' || !B64URL_32.test(k.x)) throw badOptions(`${where}: \`${name}.x\` must be 32 bytes in base64url (43 characters)`);
  if (priv && (typeof k.d !== 'string' || !B64URL_32.test(k.d))) throw badOptions(`${where}: \`${name}.d\` must be 32 bytes in base64url: a private key`);
  if (!priv && k.d !== undefined) throw badOptions(`${where}: \`${name}\` holds a private key (\`d\`): list only public keys, each member keeps its own private key`);
  return priv ? { kty: 'OKP', crv: 'Ed25519', x: k.x, d: k.d } : { kty: 'OKP', crv: 'Ed25519', x: k.x };
}

/**
 * Reads `members` ({origin: publicJwk | publicJwk[]}) and `memberKey` (this member's private
 * JWK, whose public part must be listed under `origin`). Throws `bad_options`/`key_required`.
 */
export function readMembers(where, { members, memberKey, origin }) {
  if (!members || typeof members !== 'object' || Array.isArray(members)) throw badOptions(`${where}: \`members\` must be an object of origin -> public key (a JWK, or an array of them while rotating)`);
  const names = Object.keys(members);
  if (names.length === 0) throw badOptions(`${where}: \`members\` lists no member`);
  if (names.length > MAX_MEMBERS) throw badOptions(`${where}: \`members\` lists ${names.length} members, at most ${MAX_MEMBERS}`);
  const list = new Map();
  for (const o of names) {
    if (!ORIGIN.test(o)) throw badOptions(`${where}: \`members\` key ${JSON.stringify(o.slice(0, 140))} is not an origin (1 to 128 printable characters, no space)`);
    const keys = Array.isArray(members[o]) ? members[o] : [members[o]];
    if (keys.length === 0 || keys.length > MAX_KEYS_PER_MEMBER) throw badOptions(`${where}: \`members.${o}\` must list 1 to ${MAX_KEYS_PER_MEMBER} keys`);
    list.set(o, keys.map((k, i) => jwk(where, Array.isArray(members[o]) ? `members.${o}[${i}]` : `members.${o}`, k, false)));
  }
  if (memberKey === undefined || memberKey === null) {
    throw coded('key_required', `${where}: \`memberKey\` is required with \`members\`: this member's own Ed25519 private key, which signs what it publishes`);
  }
  const own = jwk(where, 'memberKey', memberKey, true);
  const mine = list.get(origin);
  if (!mine) throw badOptions(`${where}: this router's origin ${JSON.stringify(origin)} is not in \`members\``);
  if (!mine.some((k) => k.x === own.x)) throw badOptions(`${where}: \`memberKey\` is not a key \`members\` lists for this router's origin ${JSON.stringify(origin)}`);
  return { list, own };
}

/** Signed and checked once at join: a `d` that is not `x`'s would sign what nobody accepts. */
const SELF_CHECK = 'shr-fleet/2 member key self-check';
const publicPart = (k) => ({ kty: k.kty, crv: k.crv, x: k.x });
const mismatch = () => badOptions("joinFleet: `memberKey`'s private part `d` is not the private key of its public part `x`");

const fromB64 = (s) => Uint8Array.from(atob(s), (c) => c.charCodeAt(0));
const toB64 = (bytes) => {
  let s = '';
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s);
};

/**
 * Ed25519 over node:crypto (sync) or Web Crypto (async): `listed(origin)`, `sign(text)` ->
 * base64 and `verify(origin, text, sig)` -> the index of the listed key that verifies, -1 if none, or
 * undefined when the origin is not listed; or a promise of these with Web Crypto.
 */
export async function memberPrimitives(kind, { list, own }) {
  const enc = new TextEncoder();
  if (kind === 'node') {
    const c = await import('node:crypto');
    const priv = c.createPrivateKey({ key: own, format: 'jwk' });
    const pub = new Map([...list].map(([o, ks]) => [o, ks.map((k) => c.createPublicKey({ key: k, format: 'jwk' }))]));
    const probe = enc.encode(SELF_CHECK);
    if (!c.verify(null, probe, c.createPublicKey({ key: publicPart(own), format: 'jwk' }), c.sign(null, probe, priv))) throw mismatch();
    return {
      listed: (origin) => pub.has(origin),
      sign: (text) => c.sign(null, enc.encode(text), priv).toString('base64'),
      verify(origin, text, sig) {
        const keys = pub.get(origin);
        if (!keys) return undefined;
        const bytes = Buffer.from(sig, 'base64');
        if (bytes.length !== 64) return -1;
        return keys.findIndex((k) => c.verify(null, enc.encode(text), k, bytes));
      },
    };
  }
  const subtle = globalThis.crypto?.subtle;
  const alg = { name: 'Ed25519' };
  let priv;
  try {
    priv = await subtle.importKey('jwk', own, alg, false, ['sign']);
  } catch (e) {
    // A key Web Crypto reads and refuses (its `d` is not `x`'s) is the caller's; no Ed25519 is ours.
    if (e?.name === 'DataError') throw mismatch();
    throw coded('no_crypto', `Web Crypto cannot use Ed25519 keys here: ${e.message}`);
  }
  const pub = new Map(await Promise.all([...list].map(async ([o, ks]) => [o, await Promise.all(ks.map((k) => subtle.importKey('jwk', k, alg, false, ['verify'])))])));
  const probe = enc.encode(SELF_CHECK);
  const ownPublic = await subtle.importKey('jwk', publicPart(own), alg, false, ['verify']);
  if (!(await subtle.verify(alg, ownPublic, await subtle.sign(alg, priv, probe), probe))) throw mismatch();
  return {
    listed: (origin) => pub.has(origin),
    sign: async (text) => toB64(new Uint8Array(await subtle.sign(alg, priv, enc.encode(text)))),
    verify(origin, text, sig) {
      const keys = pub.get(origin);
      if (!keys) return undefined;
      let bytes;
      try {
        bytes = fromB64(sig);
      } catch {
        return -1;
      }
      if (bytes.length !== 64) return -1;
      return Promise.all(keys.map((k) => subtle.verify(alg, k, bytes, enc.encode(text)))).then((ok) => ok.indexOf(true));
    },
  };
}

/**
 * A new member key pair, as JWKs: keep `privateKey` on the member (its `memberKey`), list
 * `publicKey` under its origin in every member's `members`.
 */
export async function memberKeyPair() {
  try {
    const c = await import('node:crypto');
    const { publicKey, privateKey } = c.generateKeyPairSync('ed25519');
    return { privateKey: privateKey.export({ format: 'jwk' }), publicKey: publicKey.export({ format: 'jwk' }) };
  } catch {
    const subtle = globalThis.crypto?.subtle;
    if (!subtle) throw coded('no_crypto', 'neither node:crypto nor Web Crypto (crypto.subtle) is available');
    const pair = await subtle.generateKey({ name: 'Ed25519' }, true, ['sign', 'verify']);
    const [privateKey, publicKey] = await Promise.all([subtle.exportKey('jwk', pair.privateKey), subtle.exportKey('jwk', pair.publicKey)]);
    return { privateKey: jwk('memberKeyPair', 'privateKey', privateKey, true), publicKey: jwk('memberKeyPair', 'publicKey', publicKey, false) };
  }
}
