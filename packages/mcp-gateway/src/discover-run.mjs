// Discovery against live servers: start or connect to each configured MCP server, read every
// page of its `tools/list` (./upstream.mjs), optionally time a few MCP pings, stop everything it started (on
// every path), then propose the graph and the gateway config (./discover.mjs). No tool is
// called: a tool's side effects are unknown until a person has reviewed the proposal.
import { readServers } from './config.mjs';
import { propose } from './discover.mjs';
import { MAX_MESSAGE_BYTES } from './framing.mjs';
import { Upstream } from './upstream.mjs';

const MAX_MEASURE = 100;

const bad = (msg) => Object.assign(new Error(msg), { code: 'bad_config' });

const median = (xs) => {
  const s = xs.slice().sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/**
 * Discovers from a config's `servers` (other keys of a gateway config are allowed and ignored).
 * `measure`: MCP pings per server, their median recorded as the server's latency (0: none).
 * `refine`: an optional async hook `({tools, proposal}) => ({groups, reason})` (e.g. asking an
 * LLM); the default needs none. Resolves to `{graph, config, report}`; a server that cannot be
 * reached is a warning in the report, not a failure, unless none can.
 */
export async function discover(raw, { measure = 0, refine = null, timeoutMs = 10_000, log = () => {}, now = () => performance.now() } = {}) {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw bad('config: must be an object with `servers`');
  const specs = readServers(raw.servers);
  if (Object.keys(specs).length === 0) throw bad('config: servers must name at least one server');
  if (!(Number.isInteger(measure) && measure >= 0 && measure <= MAX_MEASURE)) throw bad(`measure must be a whole number of pings in 0..${MAX_MEASURE}`);
  const ups = Object.values(specs).map((spec) => new Upstream(spec, { timeoutMs, maxBytes: MAX_MESSAGE_BYTES, log }));
  const warnings = [];
  let servers;
  try {
    servers = await Promise.all(
      ups.map(async (up) => {
        const entry = { name: up.name, spec: raw.servers[up.name], tools: [] };
        if (!(await up.connect())) {
          warnings.push(`${up.name}: could not connect; its tools are missing from the proposal`);
          await up.close();
          return entry;
        }
        try {
          entry.tools = [...up.tools.values()]; // every page (./upstream.mjs)
          if (measure > 0) {
            const times = [];
            for (let i = 0; i < measure; i += 1) {
              const t0 = now();
              await up.ping(timeoutMs);
              times.push(now() - t0);
            }
            entry.latency = { ms: median(times), how: `measured (median of ${measure} MCP pings of the server)` };
          }
        } catch (e) {
          warnings.push(`${up.name}: ${e?.message ?? e}`);
        }
        return entry;
      }),
    );
  } finally {
    await Promise.all(ups.map((up) => up.close().catch(() => {})));
  }
  if (servers.every((s) => s.tools.length === 0)) throw Object.assign(new Error(`no tools discovered: ${warnings.join('; ') || 'the servers list none'}`), { code: 'no_tools' });
  let proposal = propose(servers);
  if (refine) {
    const refined = await refine({ tools: servers.flatMap((s) => s.tools.map((t) => ({ id: `${s.name}/${t.name}`, description: t.description, inputSchema: t.inputSchema, outputSchema: t.outputSchema, annotations: t.annotations }))), proposal });
    proposal = propose(servers, { refined });
  }
  proposal.report.warnings.push(...warnings);
  return proposal;
}
