// Types of @shr/fleet. A bus carries signed envelopes; joinFleet signs what the router publishes
// and verifies what it hears before the router sees it.
import type { Router, HealthDelta, DeltaVerdict } from 'shr-wasm';

/** A fleet key: a shared secret of 16 bytes or more. */
export type FleetKey = string | Uint8Array;

/** An Ed25519 public key as a JWK (RFC 8037), as `memberKeyPair` returns it. */
export interface MemberPublicKey {
  kty: 'OKP';
  crv: 'Ed25519';
  /** 32 bytes, base64url. */
  x: string;
}

/** An Ed25519 private key as a JWK: a member's own `memberKey`, never listed in `members`. */
export interface MemberPrivateKey extends MemberPublicKey {
  /** 32 bytes, base64url. */
  d: string;
}

/** A new member key pair: keep `privateKey` on the member, list `publicKey` in every `members`. */
export function memberKeyPair(): Promise<{ privateKey: MemberPrivateKey; publicKey: MemberPublicKey }>;

/**
 * What travels on a bus: a delta signed with HMAC-SHA256 under the fleet key (`shr: 1`), or
 * with Ed25519 under the key of the member it names (`shr: 2`).
 */
export interface Envelope {
  shr: 1 | 2;
  /** The fleet's namespace (signed). */
  ns: string;
  /** The graph's fingerprint: 16 hex digits of SHA-256 over its canonical JSON (signed). */
  graph: string;
  delta: HealthDelta;
  /** base64 HMAC-SHA256 (`shr: 1`) or Ed25519 (`shr: 2`) over `shr-fleet/<shr>\n<ns>\n<graph>\n[tool,change,cooldown,version,origin]`. */
  sig: string;
  /** Set by a store on reading: ms since it was stored (not signed; it can only shorten a cooldown). */
  age?: number;
}

/** Why joinFleet refused a message before the router saw it (the router's own codes follow). */
export type EnvelopeRefusal = 'unsigned' | 'bad_signature' | 'unknown_member' | 'over_budget' | 'wrong_namespace' | 'wrong_graph' | 'malformed' | 'too_large';

export interface Bus {
  kind: string;
  /** The fleet's namespace; joinFleet signs it into every envelope. */
  namespace?: string;
  publish(message: Envelope): Promise<void>;
  subscribe(handler: (message: Envelope | string | unknown) => void): () => void;
  snapshot(): Promise<Array<Envelope | string>>;
  provide?(fn: () => Promise<Envelope[]> | Envelope[]): void;
  close(): Promise<void>;
}

/** How a fleet signs: one shared key, or each member's own key (then quorum means key holders). */
export type JoinOptions = JoinCommon & (
  | {
      /** The fleet key: signs and verifies. */
      key: FleetKey;
      /** A second key, verified but never used to sign: for rotation. */
      previousKey?: FleetKey;
      members?: undefined;
      memberKey?: undefined;
      verifyPerSecond?: undefined;
    }
  | {
      /** Every member's public key by origin (an array of up to 4 while one is rotated). */
      members: Record<string, MemberPublicKey | MemberPublicKey[]>;
      /** This member's private key; its public part is listed under the router's origin. */
      memberKey: MemberPrivateKey;
      /** Signature checks a second (default 1000); past it a message is refused unchecked (`over_budget`). */
      verifyPerSecond?: number;
      key?: undefined;
      previousKey?: undefined;
    }
);

export interface JoinCommon {
  /** The namespace, when the bus has none (a Redis or BroadcastChannel bus has its own). */
  namespace?: string;
  /** Distinct members whose evidence takes a tool in use out of use here (default 2). */
  quorum?: number;
  /** How long one member's evidence counts, once, ms (default 0: the breaker's cooldown). */
  windowMs?: number;
  /** How far ahead of this router's clock a version may run, ms (default 60000). */
  maxSkewMs?: number;
  /** How often changes made outside `fleet.options` runs are published, ms (default 5). */
  flushMs?: number;
  onDelta?: (message: unknown, verdict: DeltaVerdict | { applied: false; code: EnvelopeRefusal; message: string }) => void;
  onPublish?: (deltas: HealthDelta[]) => void;
  /** The router's clock, when it is not its own. */
  now?: () => number;
  /** 'node' (node:crypto) or 'webcrypto' (crypto.subtle, as in a browser); default: node:crypto if present. */
  crypto?: 'node' | 'webcrypto';
}

export interface FleetJoinStats {
  published: number;
  applied: number;
  rejected: number;
  /** Refused messages by reason: an EnvelopeRefusal or a DeltaRefusal code. */
  rejectedBy: Record<string, number>;
  /** Messages accepted under `previousKey` (or a member's second listed key): rotation is done when this stops growing. */
  previousKey: number;
}

export interface Fleet {
  stats: FleetJoinStats;
  namespace: string;
  graph: string;
  /** The last refused messages (at most 100), each with its code. */
  rejections: Array<{ applied: false; code: string; message?: string }>;
  flush(): Promise<void>;
  /** The run options with `onEvent` wrapped to publish each breaker change at once. */
  options<T extends object>(runOptions: T): T;
  close(): Promise<void>;
}

export function joinFleet(router: Router, bus: Bus, opts: JoinOptions): Promise<Fleet>;

export interface RedisBusOptions {
  /** redis:// or rediss:// (TLS). */
  url?: string;
  /** Required: 1 to 128 of A-Z a-z 0-9 _ . : - */
  namespace: string;
  username?: string;
  password?: string;
  /** node:tls options for rediss:// (ca, cert, key, servername, rejectUnauthorized...). */
  tls?: Record<string, unknown>;
  ttlMs?: number;
  bufferLimit?: number;
  timeoutMs?: number;
  onError?: (e: Error & { code?: string }) => void;
}

export interface RedisBus extends Bus {
  kind: 'redis';
  namespace: string;
  readonly connected: boolean;
  readonly pending: number;
  stats: {
    published: number; buffered: number; dropped: number; timeouts: number; reconnects: number;
    resubscribes: number; errors: number; recovered: number;
  };
}

/** Rejects with code `namespace_required`, `bad_options`, or `redis_refused` (bad credentials, ACL). */
export function redisBus(opts: RedisBusOptions): Promise<RedisBus>;
/** `name` is the namespace (required). */
export function broadcastBus(name: string, opts?: { snapshotMs?: number }): Bus;
export function memoryHub(opts?: { delayMs?: number; namespace?: string }): {
  bus(): Bus;
  inject(message: unknown): void;
  store(tool: string, origin: string, message: unknown): void;
};

export interface ProbeLoop {
  counts: { probes: number; ok: number; failed: number };
  stop(): void;
}
export function startProbes(
  router: Router,
  tools: Record<string, (input: unknown) => Promise<unknown>>,
  opts?: { timeoutMs?: number; pollMs?: number; now?: () => number },
): ProbeLoop;
