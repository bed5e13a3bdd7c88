// @shr/ai-sdk with the AI SDK's own loop (generateText) and mock model (ai/test): the model calls
// `refund`, Stripe throws, and the call is rerouted to Razorpay inside the same tool execution:
// the model gets Razorpay's result and makes no extra call. No network.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateText, tool, stepCountIs } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { z } from 'zod';
import { shrTools } from '@shr/ai-sdk';

const usage = { inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 5, text: 5, reasoning: 0 } };
const callRefund = (id) => ({
  content: [{ type: 'tool-call', toolCallId: id, toolName: 'refund', input: JSON.stringify({ orderId: 'o-7', amount: 40 }) }],
  finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage, warnings: [],
});
const answer = { content: [{ type: 'text', text: 'Refunded.' }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] };

/** The agent's own tools: `refund` (Stripe) and `refundViaRazorpay`, each counting its calls. */
function agentTools({ stripeFails = true, razorpayFails = false } = {}) {
  const calls = { stripe: 0, razorpay: 0 };
  const schema = z.object({ orderId: z.string(), amount: z.number() });
  const tools = {
    refund: tool({
      description: 'Refund an order through Stripe',
      inputSchema: schema,
      execute: async ({ orderId, amount }) => {
        calls.stripe += 1;
        if (stripeFails) throw new Error('stripe: 503 Service Unavailable');
        return { via: 'stripe', orderId, amount };
      },
    }),
    refundViaRazorpay: tool({
      description: 'Refund an order through Razorpay',
      inputSchema: schema,
      execute: async ({ orderId, amount }) => {
        calls.razorpay += 1;
        if (razorpayFails) throw new Error('razorpay: 502');
        return { via: 'razorpay', orderId, amount };
      },
    }),
  };
  return { tools, calls };
}

/** One agent turn: the mock model calls `refund`, then answers. */
async function turn(tools, id) {
  const model = new MockLanguageModelV4({ doGenerate: [callRefund(id), answer] });
  const result = await generateText({ model, tools, prompt: 'Refund order o-7', stopWhen: stepCountIs(5) });
  return { result, modelCalls: model.doGenerateCalls.length };
}

test('a failing tool is rerouted to its alternative with no extra model call', async () => {
  const { tools, calls } = agentTools();
  const shr = shrTools(tools, { alternatives: { refund: ['refundViaRazorpay'] } });
  const { result, modelCalls } = await turn(shr.tools, 'call-1');
  assert.equal(modelCalls, 2, 'one call that asked for the tool, one that answered: none to recover');
  const toolResults = result.steps.flatMap((s) => s.toolResults);
  assert.equal(toolResults.length, 1);
  assert.equal(toolResults[0].toolName, 'refund');
  assert.deepEqual(toolResults[0].output, { via: 'razorpay', orderId: 'o-7', amount: 40 });
  assert.equal(calls.stripe, 2, 'the first call and its one retry');
  assert.equal(calls.razorpay, 1);
  assert.equal(result.text, 'Refunded.');
  // The same descriptions and schemas reach the model.
  assert.equal(shr.tools.refund.description, tools.refund.description);
  assert.equal(shr.tools.refund.inputSchema, tools.refund.inputSchema);
});

test('without SHR the same failure costs the model a turn', async () => {
  const { tools } = agentTools();
  const model = new MockLanguageModelV4({ doGenerate: [callRefund('call-1'), answer] });
  const result = await generateText({ model, tools, prompt: 'Refund order o-7', stopWhen: stepCountIs(5) });
  const errors = result.steps.flatMap((s) => s.content).filter((p) => p.type === 'tool-error');
  assert.equal(errors.length, 1, 'the model sees the error and must decide what to do');
});

test('health is shared by every call: a failing Stripe is not called again', async () => {
  const { tools, calls } = agentTools();
  const shr = shrTools(tools, { alternatives: { refund: ['refundViaRazorpay'] } });
  await turn(shr.tools, 'call-1');
  assert.equal(calls.stripe, 2);
  for (const id of ['call-2', 'call-3']) {
    const { result, modelCalls } = await turn(shr.tools, id);
    assert.equal(modelCalls, 2);
    assert.equal(result.steps[0].toolResults[0].output.via, 'razorpay');
  }
  assert.equal(calls.stripe, 2, 'its failures weigh on it: every later call goes to Razorpay first');
  assert.equal(calls.razorpay, 3);
  // A tool marked down (a fleet member saw it fail, a probe) opens the breaker for every call.
  assert.equal(shr.router.markDown('refundViaRazorpay'), Infinity);
  shr.router.markUp('refund');
  const { result } = await turn(shr.tools, 'call-4');
  assert.equal(calls.razorpay, 3, 'an open breaker is never called');
  assert.equal(calls.stripe, 4, 'Stripe again, and its retry');
  assert.equal(result.steps[0].toolResults[0].output.error, 'escalated');
});

test('with no healthy alternative the model is told the call escalated (or sees a tool error)', async () => {
  const { tools } = agentTools({ razorpayFails: true });
  const shr = shrTools(tools, { alternatives: { refund: ['refundViaRazorpay'] } });
  const { result } = await turn(shr.tools, 'call-1');
  const [output] = result.steps[0].toolResults.map((r) => r.output);
  assert.equal(output.error, 'escalated');
  assert.equal(output.tool, 'refund');
  assert.deepEqual(output.failed.sort(), ['refund', 'refundViaRazorpay']);

  const thrown = shrTools(agentTools({ razorpayFails: true }).tools, { alternatives: { refund: ['refundViaRazorpay'] }, onEscalation: 'throw' });
  const second = await turn(thrown.tools, 'call-2');
  const errors = second.result.steps[0].content.filter((p) => p.type === 'tool-error');
  assert.equal(errors.length, 1);
  assert.equal(errors[0].error.name, 'EscalatedError');
  assert.equal(errors[0].error.code, 'escalated');
});

test('bad options are refused with a code', () => {
  const { tools } = agentTools();
  assert.throws(() => shrTools(tools, { alternatives: { refund: ['paypal'] } }), (e) => e.code === 'bad_options' && /paypal/.test(e.message));
  assert.throws(() => shrTools(tools, { onEscalation: 'ignore' }), (e) => e.code === 'bad_options');
});
