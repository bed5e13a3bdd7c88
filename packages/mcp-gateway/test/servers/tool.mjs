// An upstream MCP server for the gateway's tests, over stdio, made with the SDK:
//   node tool.mjs healthy|crashy|hang|iserror NAME
// healthy answers; crashy answers once, then its process dies mid-call; hang never answers;
// iserror answers with isError: plain for `refund`, for `notify` with seed 003's structured
// failure (category, agent_action) in structuredContent. Tools:
// `refund` and `notify` behave as above; `calls` says how many calls this process took;
// `big` answers {bytes} bytes of text; `cancels` says how many calls the client cancelled.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const [kind, name = kind] = process.argv.slice(2);
let calls = 0;
let cancels = 0;
const schema = { type: 'object', properties: { order: { type: 'string' }, amount: { type: 'number' } }, required: ['order'] };
const server = new Server({ name, version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: ['refund', 'notify', 'calls', 'big', 'cancels'].map((t) => ({ name: t, description: `${name} ${t}`, inputSchema: schema })),
}));
server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
  if (req.params.name === 'calls') return { content: [{ type: 'text', text: String(calls) }] };
  if (req.params.name === 'cancels') return { content: [{ type: 'text', text: String(cancels) }] };
  if (req.params.name === 'big') return { content: [{ type: 'text', text: 'x'.repeat(Number(req.params.arguments?.bytes) || 0) }] };
  calls += 1;
  extra.signal.addEventListener('abort', () => {
    cancels += 1;
  });
  if (kind === 'crashy' && calls >= 2) process.exit(1);
  if (kind === 'hang') return new Promise(() => {});
  if (kind === 'iserror' && req.params.name === 'refund') {
    return { content: [{ type: 'text', text: `${name}: 502 from the payment network` }], isError: true };
  }
  if (kind === 'iserror') {
    return {
      content: [{ type: 'text', text: `${name}: account suspended` }],
      structuredContent: { category: 'policy', transient: false, agent_action: 'Ask the user for another payment method.' },
      isError: true,
    };
  }
  return { content: [{ type: 'text', text: `${name} ${req.params.name} ok for ${req.params.arguments?.order}` }] };
});
await server.connect(new StdioServerTransport());
