// Shared by the MCP gateway's Node tests: a gateway joined to an SDK client in process, and a
// scratch folder whose closers run (last first) when the test file ends.
import { after } from 'node:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Gateway } from '../../packages/mcp-gateway/src/gateway.mjs';

/** Things to close when the file's tests end (children, clients, gateways), and a temp folder. */
export function scratch(prefix) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const closers = [];
  after(async () => {
    for (const c of closers.reverse()) await c().catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  });
  return { dir, closers };
}

/** A started gateway with an SDK client connected in memory; both closed by `closers`. */
export async function inProcess(cfg, closers) {
  const gateway = await new Gateway(cfg).start();
  const [a, b] = InMemoryTransport.createLinkedPair();
  await gateway.mcpServer().connect(a);
  const client = new Client({ name: 'test-agent', version: '1.0.0' });
  await client.connect(b);
  closers.push(() => client.close(), () => gateway.close());
  return { gateway, client };
}
