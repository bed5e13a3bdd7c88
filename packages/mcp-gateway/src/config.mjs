// The gateway's config: upstream MCP servers and capabilities, each a list of alternative
// upstream tools in order of preference. It becomes an SHR tool graph: per capability, start ->
// each alternative (cost 1, 2, ...) -> done. Read strictly (zod schemas): a misspelt key is an
// error, and every problem names its place in the config.
import { z } from 'zod';
import { MAX_MESSAGE_BYTES } from './framing.mjs';

const fail = (msg) => {
  const e = new Error(`config: ${msg}`);
  e.code = 'bad_config';
  throw e;
};

/** `['capabilities', 0, 'name']` as the config writes it: `capabilities[0].name`. */
const pathText = (path) => path.reduce((s, p) => (typeof p === 'number' ? `${s}[${p}]` : s ? `${s}.${p}` : String(p)), '');

/**
 * Reads `value` with a zod schema; the first problem becomes a `bad_config` error naming its
 * place (`prefix` then the path zod found it at; `root` when that is empty). Messages starting
 * with `:` follow the place directly, others after a space.
 */
function parse(schema, value, prefix, root) {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  // A misspelt key first: the problems after it may only follow from it.
  const issue = r.error.issues.find((i) => i.code === 'unrecognized_keys') ?? r.error.issues[0];
  const where = pathText([...prefix, ...issue.path]) || root;
  return fail(issue.message.startsWith(':') ? `${where}${issue.message}` : `${where} ${issue.message}`);
}

/** An object read strictly: a misspelt key is an error naming it and the known ones. */
const strict = (shape) =>
  z.strictObject(shape, {
    error: (iss) => (iss.code === 'unrecognized_keys' ? `: unknown key \`${iss.keys[0]}\` (known: ${Object.keys(shape).join(', ')})` : 'must be an object'),
  });

/** A whole number in lo..hi, else `message`. */
const whole = (lo, hi, message) => z.number({ error: message }).int({ error: message }).min(lo, { error: message }).max(hi, { error: message });

const Server = strict({
  command: z.string({ error: 'must be a string (the command that starts the server)' }).optional(),
  args: z.array(z.string({ error: 'must be a string' }), { error: 'must be a list of strings' }).optional(),
  url: z
    .string({ error: 'must be a string' })
    .superRefine((v, ctx) => {
      let url;
      try {
        url = new URL(v);
      } catch {
        ctx.addIssue({ code: 'custom', message: `is not a URL: ${JSON.stringify(v)}` });
        return;
      }
      if (!['http:', 'https:'].includes(url.protocol)) ctx.addIssue({ code: 'custom', message: 'must be http:// or https://' });
    })
    .optional(),
  env: z.unknown().optional(),
}).refine((s) => !!s.command !== !!s.url, { error: 'needs exactly one of `command` (stdio) or `url` (streamable HTTP)' });

const Servers = z.record(z.string(), Server, { error: 'must be an object' });

const Capability = strict({
  name: z.string({ error: 'must be 1-64 letters, digits, _ or -' }).regex(/^[A-Za-z0-9_-]{1,64}$/, { error: 'must be 1-64 letters, digits, _ or -' }),
  description: z.string({ error: 'must be a string' }).optional(),
  alternatives: z
    .array(z.string({ error: (iss) => `must be "server/tool", got ${JSON.stringify(iss.input)}` }).regex(/^[^/]+\/.+$/, { error: (iss) => `must be "server/tool", got ${JSON.stringify(iss.input)}` }), {
      error: 'must be a non-empty list of "server/tool"',
    })
    .min(1, { error: 'must be a non-empty list of "server/tool"' }),
  inputSchema: z.custom((v) => typeof v === 'object' && v !== null && v.type === 'object', { error: 'must be a JSON Schema object with "type": "object"' }).optional(),
  on_is_error: z
    .enum(['answer', 'failure'], { error: 'must be "answer" (an isError result is the tool\'s answer, the default) or "failure" (it means an outage)' })
    .optional(),
  // `reason`: why `shr discover` proposed the grouping, for the person reviewing it; not used.
  reason: z.unknown().optional(),
});

const MS = 'must be a whole number of ms in 1..2147483647';
const Config = strict({
  servers: z.unknown(),
  capabilities: z.array(Capability, { error: 'must be a non-empty list' }).min(1, { error: 'must be a non-empty list' }),
  timeoutMs: whole(1, 2_147_483_647, MS).optional(),
  cooldownMs: whole(1, 2_147_483_647, MS).optional(),
  probeIntervalMs: whole(1, 2_147_483_647, MS).optional(),
  passThrough: z.boolean({ error: 'must be true (expose upstream tools no capability names, the default) or false' }).optional(),
  maxMessageBytes: whole(1024, 1024 ** 3, 'must be a whole number of bytes in 1024..1073741824').optional(),
  fleet: strict({
    redis: z.string({ error: 'must be a redis:// URL' }),
    // No default: two gateway fleets on one Redis never share health by accident.
    namespace: z.string({ error: 'is required: the fleet\'s name on the Redis (no default, so two fleets never share one by accident)' }),
    origin: z.string({ error: 'must be a string' }).optional(),
    // Member keys: the fleet's Ed25519 public keys by origin (checked by @shr/fleet at join).
    members: z.record(z.string(), z.unknown(), { error: 'must be an object of origin -> public key (JWK)' }).optional(),
  }).refine((f) => f.members === undefined || f.origin !== undefined, { error: 'needs `origin` with `members`: the name this gateway\'s key is listed under', path: ['origin'] }).optional(),
  $schema: z.unknown().optional(),
});

/** The `servers` section: `{name: {command, args?, env?} | {url}}`, read strictly. */
export function readServers(raw) {
  const servers = {};
  for (const [name, s] of Object.entries(parse(Servers, raw, ['servers'], 'servers'))) {
    servers[name] = { name, command: s.command, args: s.args ?? [], url: s.url, env: s.env };
  }
  return servers;
}

export function readConfig(raw) {
  const c = parse(Config, raw, [], 'the config');
  const servers = readServers(c.servers);
  // Node ids are made from "server/tool"; two spellings must not become one node.
  const nodeOf = new Map();
  const names = new Set();
  const capabilities = c.capabilities.map((cap, i) => {
    if (names.has(cap.name)) fail(`capabilities[${i}].name \`${cap.name}\` is used twice`);
    names.add(cap.name);
    const alternatives = cap.alternatives.map((a, j) => {
      const [, server, tool] = a.match(/^([^/]+)\/(.+)$/);
      if (!servers[server]) fail(`capabilities[${i}].alternatives[${j}] names an unknown server \`${server}\``);
      if (cap.alternatives.indexOf(a) !== j) fail(`capabilities[${i}].alternatives names \`${a}\` twice`);
      const node = nodeId(server, tool);
      const other = nodeOf.get(node);
      if (other !== undefined && other !== a) fail(`capabilities[${i}].alternatives[${j}]: \`${a}\` and \`${other}\` would be the same tool \`${node}\`; rename one`);
      nodeOf.set(node, a);
      return { server, tool, node };
    });
    return {
      name: cap.name,
      description: cap.description ?? `${cap.name}, routed around failures by SHR`,
      alternatives,
      inputSchema: cap.inputSchema,
      onIsError: cap.on_is_error ?? 'answer',
    };
  });
  const timeoutMs = c.timeoutMs ?? 10_000;
  const cooldownMs = c.cooldownMs ?? 30_000;
  const probeIntervalMs = c.probeIntervalMs ?? Math.min(cooldownMs, 5000);
  const fleet = c.fleet ? { redis: c.fleet.redis, namespace: c.fleet.namespace, origin: c.fleet.origin, members: c.fleet.members } : null;
  return { servers, capabilities, timeoutMs, cooldownMs, probeIntervalMs, passThrough: c.passThrough ?? true, maxMessageBytes: c.maxMessageBytes ?? MAX_MESSAGE_BYTES, fleet };
}

/** The graph node of an upstream tool: "server/tool" made an id. */
export const nodeId = (server, tool) => `${server}__${tool}`.replace(/[^A-Za-z0-9_-]/g, '_');

/**
 * One SHR graph for every route the agent sees: each capability, then each passed-through tool
 * (`routes`, from the connected servers), a task from `start_<name>` to `done_<name>` through
 * its alternatives. Each upstream tool is probed (an MCP ping of its server) while it is down.
 * Sets each route's `start` and `goal`.
 */
export function toGraph(config, routes = config.capabilities) {
  const nodes = [];
  const edges = [];
  const ids = new Set();
  const tools = new Set(routes.flatMap((r) => r.alternatives.map((a) => a.node)));
  const waypoint = (base) => {
    let id = base;
    for (let k = 2; ids.has(id) || tools.has(id); k += 1) id = `${base}_${k}`;
    ids.add(id);
    return id;
  };
  for (const r of routes) {
    const name = r.name.replace(/[^A-Za-z0-9_-]/g, '_');
    r.start = waypoint(`start_${name}`);
    r.goal = waypoint(`done_${name}`);
    nodes.push({ id: r.start, tool: false, label: r.name });
    nodes.push({ id: r.goal, tool: false, label: `${r.name} done` });
    r.alternatives.forEach((a, k) => {
      if (!ids.has(a.node)) {
        ids.add(a.node);
        // One attempt: a timeout or an error reroutes at once; the breaker remembers it.
        nodes.push({ id: a.node, label: `${a.server}/${a.tool}`, stage: r.name, retry: { attempts: 0 }, probe: { interval_ms: config.probeIntervalMs } });
      }
      edges.push({ from: r.start, to: a.node, cost: k + 1 });
      edges.push({ from: a.node, to: r.goal, cost: 0 });
    });
  }
  return { name: 'shr-mcp-gateway', nodes, edges, start: routes[0].start, goal: routes[0].goal };
}
