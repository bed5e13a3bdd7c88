// Editing a graph in the page, and sharing it (issue 23): the edited graph and the tools
// failed on it live in the URL, compressed; a new page opened on that URL shows the same graph
// and failures. Exports as JSON, Mermaid and DOT.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useBrowser, open, text, drawn, end, shot } from './harness.mjs';

const env = useBrowser();

function noErrors(page) {
  assert.deepEqual(page.errors, [], 'no console errors, page errors or failed requests');
}

/** What a reader sees of the graph: nodes with their labels and states, edges with costs. */
async function snapshot(page) {
  await drawn(page);
  await end(page);
  return page.evaluate(() => ({
    nodes: [...document.querySelectorAll('svg.graph [data-node]')].map((n) => ({
      id: n.dataset.node,
      label: [...n.querySelectorAll('.label')].map((t) => t.textContent).join(' '),
      failed: n.classList.contains('failed'),
    })).sort((a, b) => a.id.localeCompare(b.id)),
    edges: [...document.querySelectorAll('svg.graph [data-edge]')].map((e) => `${e.dataset.edge} ${e.querySelector('.cost').textContent}`).sort(),
    route: document.querySelector('[data-testid="route"]').textContent,
  }));
}

async function edit(page, fill, button) {
  for (const [testid, value] of Object.entries(fill)) {
    const el = `[data-testid="${testid}"]`;
    if ((await page.$eval(el, (e) => e.tagName)) === 'SELECT') await page.selectOption(el, value);
    else await page.fill(el, value);
  }
  const before = await page.evaluate(() => location.search);
  await page.click(`[data-testid="${button}"]`);
  await page.waitForFunction((b) => location.search !== b, before, { timeout: 15_000 });
  assert.equal(await page.$eval('[data-testid="edit-error"]', (e) => e.hidden), true, await text(page, 'edit-error'));
}

test('edit a graph, reload its URL in a new page: the same graph and failures appear', async () => {
  const page = await open(env.browser, `${env.url}?scenario=S2`);
  await edit(page, { 'edit-new-id': 'paypal', 'edit-new-label': 'PayPal refund' }, 'edit-add-tool');
  await edit(page, { 'edit-from': 'crm', 'edit-to': 'paypal', 'edit-new-cost': '1.5' }, 'edit-add-edge');
  await edit(page, { 'edit-from': 'paypal', 'edit-to': 'email', 'edit-new-cost': '1' }, 'edit-add-edge');
  await edit(page, { 'edit-edge': 'crm->razorpay', 'edit-cost': '4' }, 'edit-set-cost');
  await edit(page, { 'edit-edge': 'razorpay->sms' }, 'edit-remove-edge');
  await edit(page, { 'edit-node': 'email', 'edit-label': 'Email the customer' }, 'edit-set-label');
  await edit(page, { 'edit-node': 'support_ticket' }, 'edit-remove-tool');
  // A bad edit is refused with a reason, and changes nothing.
  await page.selectOption('[data-testid="edit-node"]', 'start');
  await page.click('[data-testid="edit-remove-tool"]');
  await page.waitForFunction(() => /start or the goal/.test(document.querySelector('[data-testid="edit-error"]').textContent));
  const url = page.url();
  const params = new URL(url).searchParams;
  assert.equal(params.get('scenario'), 'custom');
  assert.equal(params.get('down'), 'stripe', 'S2\'s failure is kept on the edited graph');
  assert.ok(/^[A-Za-z0-9_-]+$/.test(params.get('g')), 'the graph is base64url');
  const json = (await page.evaluate(() => document.querySelector('[data-testid="export-json"]').click()), await page.$eval('[data-testid="export-text"]', (e) => e.value));
  console.log(`# the edited graph: ${json.length} bytes of JSON, ${params.get('g').length} characters in the URL`);
  const before = await snapshot(page);
  assert.ok(before.nodes.some((n) => n.id === 'paypal' && n.label === 'PayPal refund'));
  assert.ok(!before.nodes.some((n) => n.id === 'support_ticket'));
  assert.ok(before.edges.includes('crm->paypal 1.5'));
  assert.ok(before.edges.includes('crm->razorpay 4'));
  assert.ok(!before.edges.some((e) => e.startsWith('razorpay->sms')));
  assert.ok(before.nodes.find((n) => n.id === 'stripe').failed);
  // PayPal (1.5) is now cheaper than Razorpay (4): the router takes it around Stripe.
  assert.match(before.route, /PayPal refund/);
  noErrors(page);

  const again = await open(env.browser, url);
  const after = await snapshot(again);
  assert.deepEqual(after, before, 'the same graph, failures and route in a new page');
  await shot(again, 'shared-edited-graph');
  noErrors(again);
});

test('an imported graph\'s URL, opened in a new page, shows the same graph and failures', async () => {
  const page = await open(env.browser, `${env.url}?scenario=S1`);
  // A graph no scenario has: two ways to book a courier, one of them failed after import.
  const graph = {
    nodes: [
      { id: 'order', tool: false, label: 'Parcel order' },
      { id: 'address_check', label: 'Address check' },
      { id: 'courier_a', label: 'Courier A booking' },
      { id: 'courier_b', label: 'Courier B booking' },
      { id: 'label_print', label: 'Label printer' },
      { id: 'shipped', tool: false, label: 'Parcel shipped' },
    ],
    edges: [
      { from: 'order', to: 'address_check', cost: 1 },
      { from: 'address_check', to: 'courier_a', cost: 1 },
      { from: 'address_check', to: 'courier_b', cost: 2.5 },
      { from: 'courier_a', to: 'label_print', cost: 1 },
      { from: 'courier_b', to: 'label_print', cost: 1.5 },
      { from: 'label_print', to: 'shipped', cost: 0 },
    ],
    start: 'order',
    goal: 'shipped',
  };
  await page.fill('[data-testid="graph-json"]', JSON.stringify(graph));
  await page.click('[data-testid="import"]');
  await page.waitForFunction(() => new URL(location.href).searchParams.get('scenario') === 'custom', null, { timeout: 15_000 });
  await drawn(page);
  const imported = await snapshot(page);
  assert.deepEqual(imported.nodes.map((n) => n.id), graph.nodes.map((n) => n.id).sort());
  assert.match(imported.route, /Courier A booking/, 'the cheaper courier first');
  // Fail the cheaper courier: the failure travels in the URL with the graph.
  const before = await page.evaluate(() => location.search);
  await page.click('[data-node="courier_a"]');
  await page.waitForFunction((b) => location.search !== b, before, { timeout: 15_000 });
  const url = page.url();
  const params = new URL(url).searchParams;
  assert.equal(params.get('scenario'), 'custom');
  assert.equal(params.get('down'), 'courier_a');
  assert.ok(/^[A-Za-z0-9_-]+$/.test(params.get('g') ?? ''), 'the imported graph is in the URL, base64url');
  const shared = await snapshot(page);
  assert.ok(shared.nodes.find((n) => n.id === 'courier_a').failed);
  assert.match(shared.route, /Courier B booking/, 'rerouted around the failed courier');
  assert.ok(shared.edges.includes('address_check->courier_b 2.5'));
  noErrors(page);

  const again = await open(env.browser, url);
  assert.equal(new URL(again.url()).searchParams.get('g'), params.get('g'), 'the link is kept as opened');
  assert.deepEqual(await snapshot(again), shared, 'the same imported graph, failure and route in a new page');
  noErrors(again);
});

test('a graph exports as JSON, Mermaid and DOT', async () => {
  const page = await open(env.browser, `${env.url}?scenario=S2`);
  const exported = async (kind) => {
    await page.click(`[data-testid="export-${kind}"]`);
    return page.$eval('[data-testid="export-text"]', (e) => e.value);
  };
  const json = JSON.parse(await exported('json'));
  assert.equal(json.nodes.length, 12);
  const mermaid = await exported('mermaid');
  assert.match(mermaid, /^flowchart LR\n/);
  assert.match(mermaid, /\["Stripe refund"\]/);
  assert.equal((mermaid.match(/-->\|/g) ?? []).length, json.edges.length);
  const dot = await exported('dot');
  assert.match(dot, /^digraph shr \{/);
  assert.match(dot, /"crm" -> "stripe" \[label="1"\];/);
  assert.equal((dot.match(/ -> /g) ?? []).length, json.edges.length);
  noErrors(page);
});

test('a damaged graph in the URL is reported, and the page opens on a scenario', async () => {
  const page = await open(env.browser, `${env.url}?scenario=custom&g=not-a-graph`);
  // The default scenario: the tour's first stop.
  assert.equal(new URL(page.url()).searchParams.get('scenario'), 'S1');
  assert.match(await text(page, 'url-error'), /could not be read \(not base64url/);
  noErrors(page);
  // Valid base64url, but not a deflated graph.
  const other = await open(env.browser, `${env.url}?scenario=custom&g=aGVsbG8`);
  assert.match(await text(other, 'url-error'), /could not be read \(not a deflated graph/);
  noErrors(other);
});
