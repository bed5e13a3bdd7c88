// `shr-mcp-gateway --config servers.json --discover [--out DIR] [--measure N] [--refine MODULE]`
// (and `shr discover`, which runs this): the proposal from the servers' tool lists.
// `--refine MODULE`: a JS module whose default export is the refine hook (e.g. one that asks an
// LLM); it gets `{tools, proposal}` and returns `{groups: [["server/tool", ...], ...], reason}`.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { discover } from './discover-run.mjs';
import { summary } from './discover.mjs';

/** Runs discovery for the CLI; resolves to the exit code (0 done, 1 nothing found, 2 bad usage). */
export async function runDiscover(path, args, { die, log }) {
  let raw;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    die(2, `${path}: ${e.message}`);
  }
  let measure = 0;
  if (args.measure !== undefined) {
    if (!/^\d{1,3}$/.test(args.measure)) die(2, `--measure takes a number of pings, got \`${args.measure}\``);
    measure = Number(args.measure);
  }
  let refine = null;
  if (args.refine !== undefined) {
    try {
      refine = (await import(pathToFileURL(resolve(args.refine)).href)).default;
    } catch (e) {
      die(2, `--refine ${args.refine}: ${e?.message ?? e}`);
    }
    if (typeof refine !== 'function') die(2, `--refine ${args.refine}: the module's default export must be a function`);
  }
  let proposal;
  try {
    proposal = await discover(raw, { measure, refine, log });
  } catch (e) {
    die(e?.code === 'bad_config' || e?.code === 'bad_refine' ? 2 : 1, `${path}: ${e?.message ?? e}`);
  }
  if (args.out === undefined) {
    process.stdout.write(`${JSON.stringify(proposal, null, 2)}\n`);
    return 0;
  }
  try {
    mkdirSync(args.out, { recursive: true });
    writeFileSync(join(args.out, 'graph.json'), `${JSON.stringify(proposal.graph, null, 2)}\n`);
    writeFileSync(join(args.out, 'gateway.json'), `${JSON.stringify(proposal.config, null, 2)}\n`);
    writeFileSync(join(args.out, 'report.json'), `${JSON.stringify(proposal.report, null, 2)}\n`);
  } catch (e) {
    die(1, `--out ${args.out}: ${e?.message ?? e}`);
  }
  process.stdout.write(`${summary(proposal)}\nwrote ${join(args.out, 'graph.json')}, gateway.json, report.json: review them, then serve with --config ${join(args.out, 'gateway.json')}\n`);
  return 0;
}
