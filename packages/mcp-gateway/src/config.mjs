// The gateway's config: upstream MCP servers and capabilities, each a list of alternative
// upstream tools in order of preference. It becomes an SHR tool graph: per capability, start ->
// each alternative (cost 1, 2, ...) -> done. Read strictly: a misspelt key is an error.
import { MAX_MESSAGE_BYTES } from './framing.mjs';

const fail = (msg) => {
  const e = new Error(`config: ${msg}`);
  e.code = 'bad_config';
  throw e;
};

function only(obj, keys, where) {
  if (!obj || typeof obj !== 'object' || Array.isArray(obj)) fail(`${where} must be an object`);
  for (const k of Object.keys(obj)) if (!keys.includes(k)) fail(`${where}: unknown key \`${k}\` (known: ${keys.join(', ')})`);
}

/** The `servers` section: `{name: {command, args?, env?} | {url}}`, read strictly. */
export function readServers(raw) {
  only(raw, Object.keys(raw ?? {}), 'servers');
  const servers = {};
  for (const [name, s] of Object.entries(raw)) {
    only(s, ['command', 'args', 'url', 'env'], `servers.${name}`);
    if (!!s.command === !!s.url) fail(`servers.${name} needs exactly one of \`command\` (stdio) or \`url\` (streamable HTTP)`);
    if (s.args !== undefined && !(Array.isArray(s.args) && s.args.every((a) => typeof a === 'string'))) fail(`servers.${name}.args must be a list of strings`);
    if (s.url !== undefined) {
      let url;
      try {
        url = new URL(s.url);
      } catch {
        fail(`servers.${name}.url is not a URL: ${JSON.stringify(s.url)}`);
      }
      if (!['http:', 'https:'].includes(url.protocol)) fail(`servers.${name}.url must be http:// or https://`);
    }
    servers[name] = { name, command: s.command, args: s.args ?? [], url: s.url, env: s.env };
  }
  return servers;
}

export function readConfig(raw) {
  only(raw, ['servers', 'capabilities', 'timeoutMs', 'cooldownMs', 'probeIntervalMs', 'passThrough', 'maxMessageBytes', 'fleet', '$schema'], 'the config');
  const servers = readServers(raw.servers);
  if (!Array.isArray(raw.capabilities) || raw.capabilities.length === 0) fail('capabilities must be a non-empty list');
  // Node ids are made from "server/tool"; two spellings must not become one node.
  const nodeOf = new Map();
  const names = new Set();
  const capabilities = raw.capabilities.map((c, i) => {
    // `reason`: why `shr discover` proposed the grouping, for the person reviewing it; not used.
    only(c, ['name', 'description', 'alternatives', 'inputSchema', 'on_is_error', 'reason'], `capabilities[${i}]`);
    if (c.on_is_error !== undefined && !['answer', 'failure'].includes(c.on_is_error)) {
      fail(`capabilities[${i}].on_is_error must be "answer" (an isError result is the tool's answer, the default) or "failure" (it means an outage)`);
    }
    if (typeof c.name !== 'string' || !/^[A-Za-z0-9_-]{1,64}$/.test(c.name)) fail(`capabilities[${i}].name must be 1-64 letters, digits, _ or -`);
    if (names.has(c.name)) fail(`capabilities[${i}].name \`${c.name}\` is used twice`);
    names.add(c.name);
    if (!Array.isArray(c.alternatives) || c.alternatives.length === 0) fail(`capabilities[${i}].alternatives must be a non-empty list of "server/tool"`);
    if (c.inputSchema !== undefined && (typeof c.inputSchema !== 'object' || c.inputSchema === null || c.inputSchema.type !== 'object')) {
      fail(`capabilities[${i}].inputSchema must be a JSON Schema object with "type": "object"`);
    }
    const alternatives = c.alternatives.map((a, j) => {
      const m = typeof a === 'string' && a.match(/^([^/]+)\/(.+)$/);
      if (!m) fail(`capabilities[${i}].alternatives[${j}] must be "server/tool", got ${JSON.stringify(a)}`);
      if (!servers[m[1]]) fail(`capabilities[${i}].alternatives[${j}] names an unknown server \`${m[1]}\``);
      if (c.alternatives.indexOf(a) !== j) fail(`capabilities[${i}].alternatives names \`${a}\` twice`);
      const node = nodeId(m[1], m[2]);
      const other = nodeOf.get(node);
      if (other !== undefined && other !== a) fail(`capabilities[${i}].alternatives[${j}]: \`${a}\` and \`${other}\` would be the same tool \`${node}\`; rename one`);
      nodeOf.set(node, a);
      return { server: m[1], tool: m[2], node };
    });
    return {
      name: c.name,
      description: c.description ?? `${c.name}, routed around failures by SHR`,
      alternatives,
      inputSchema: c.inputSchema,
      onIsError: c.on_is_error ?? 'answer',
    };
  });
  const timeoutMs = raw.timeoutMs ?? 10_000;
  const cooldownMs = raw.cooldownMs ?? 30_000;
  const probeIntervalMs = raw.probeIntervalMs ?? Math.min(cooldownMs, 5000);
  for (const [k, v] of [['timeoutMs', timeoutMs], ['cooldownMs', cooldownMs], ['probeIntervalMs', probeIntervalMs]]) {
    if (!(Number.isInteger(v) && v > 0 && v <= 2_147_483_647)) fail(`${k} must be a whole number of ms in 1..2147483647`);
  }
  const passThrough = raw.passThrough ?? true;
  if (typeof passThrough !== 'boolean') fail('passThrough must be true (expose upstream tools no capability names, the default) or false');
  const maxMessageBytes = raw.maxMessageBytes ?? MAX_MESSAGE_BYTES;
  if (!(Number.isInteger(maxMessageBytes) && maxMessageBytes >= 1024 && maxMessageBytes <= 1024 ** 3)) fail('maxMessageBytes must be a whole number of bytes in 1024..1073741824');
  let fleet = null;
  if (raw.fleet !== undefined) {
    only(raw.fleet, ['redis', 'namespace', 'origin'], 'fleet');
    if (typeof raw.fleet.redis !== 'string') fail('fleet.redis must be a redis:// URL');
    fleet = { redis: raw.fleet.redis, namespace: raw.fleet.namespace ?? 'shr-mcp-gateway', origin: raw.fleet.origin };
  }
  return { servers, capabilities, timeoutMs, cooldownMs, probeIntervalMs, passThrough, maxMessageBytes, fleet };
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
