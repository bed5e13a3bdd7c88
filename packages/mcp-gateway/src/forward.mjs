// Resources and prompts, forwarded: the agent sees every upstream's resources, resource
// templates and prompts as one list (the first server to offer a prompt name has it), and a read
// or a get goes to the server that listed it (an unlisted URI, e.g. from a template, to each
// server with resources in turn until one answers). No routing and no health here: these are
// not tool calls.
import {
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  McpError,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';

const MAX_PAGES = 20;

/** What the gateway offers beyond tools: the union of what its connected upstreams offer. */
export function forwardedCapabilities(upstreams) {
  const caps = {};
  for (const u of upstreams) {
    if (u.capabilities?.resources) caps.resources = {};
    if (u.capabilities?.prompts) caps.prompts = {};
  }
  return caps;
}

const asMcpError = (e) => (e?.kind === 'refused' && typeof e.code === 'number' ? new McpError(e.code, e.message) : new McpError(ErrorCode.InternalError, e?.message ?? String(e)));

async function listAll(up, method, key, timeout, signal) {
  const items = [];
  let cursor;
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const r = await up.request(method, (c) => c[method](cursor ? { cursor } : undefined, { timeout, signal }), signal);
    items.push(...(r[key] ?? []));
    cursor = r.nextCursor;
    if (!cursor) break;
  }
  return items;
}

/** Adds the resources and prompts handlers to `server` for what `forwardedCapabilities` said. */
export function forward(server, gateway, caps) {
  const timeout = gateway.config.timeoutMs;
  const having = (cap) => [...gateway.upstreams.values()].filter((u) => u.up && u.capabilities?.[cap]);
  const owners = { resource: new Map(), prompt: new Map() };

  const gather = async (cap, method, key, owner, keyOf, signal) => {
    const all = [];
    const seen = new Set();
    for (const up of having(cap)) {
      let items;
      try {
        items = await listAll(up, method, key, timeout, signal);
      } catch (e) {
        gateway.log('forward_failed', { server: up.name, method, error: e?.message ?? String(e) });
        continue;
      }
      for (const item of items) {
        const k = keyOf(item);
        if (seen.has(k)) continue;
        seen.add(k);
        owner?.set(k, up.name);
        all.push(item);
      }
    }
    return all;
  };
  const to = async (cap, owner, k, run, signal) => {
    const first = gateway.upstreams.get(owner.get(k));
    const order = first?.up ? [first, ...having(cap).filter((u) => u !== first)] : having(cap);
    let last = new McpError(ErrorCode.InvalidParams, `no upstream offers \`${k}\``);
    for (const up of order) {
      try {
        return await up.request(cap, (c) => run(c, { timeout, signal }), signal);
      } catch (e) {
        last = asMcpError(e);
        if (first && up === first && e?.kind === 'refused') break; // its owner said no
      }
    }
    throw last;
  };

  if (caps.resources) {
    server.setRequestHandler(ListResourcesRequestSchema, async (_req, extra) => ({
      resources: await gather('resources', 'listResources', 'resources', owners.resource, (r) => r.uri, extra.signal),
    }));
    server.setRequestHandler(ListResourceTemplatesRequestSchema, async (_req, extra) => ({
      resourceTemplates: await gather('resources', 'listResourceTemplates', 'resourceTemplates', null, (t) => t.uriTemplate, extra.signal),
    }));
    server.setRequestHandler(ReadResourceRequestSchema, async (req, extra) =>
      to('resources', owners.resource, req.params.uri, (c, o) => c.readResource({ uri: req.params.uri }, o), extra.signal));
  }
  if (caps.prompts) {
    server.setRequestHandler(ListPromptsRequestSchema, async (_req, extra) => ({
      prompts: await gather('prompts', 'listPrompts', 'prompts', owners.prompt, (p) => p.name, extra.signal),
    }));
    server.setRequestHandler(GetPromptRequestSchema, async (req, extra) =>
      to('prompts', owners.prompt, req.params.name, (c, o) => c.getPrompt({ name: req.params.name, arguments: req.params.arguments }, o), extra.signal));
  }
}
