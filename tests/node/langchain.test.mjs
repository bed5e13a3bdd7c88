// @shr/langchain with LangChain's own fake chat model (@langchain/core/utils/testing) binding
// the tools and a plain agent loop (model -> tool calls -> ToolMessages -> model): the model
// calls `refund`, Stripe throws, and the call is rerouted to Razorpay inside the same tool call:
// the agent gets Razorpay's result in one ToolMessage and the model makes no extra call.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tool } from '@langchain/core/tools';
import { AIMessage, HumanMessage } from '@langchain/core/messages';
import { FakeStreamingChatModel, FakeListChatModel } from '@langchain/core/utils/testing';
import { z } from 'zod';
import { shrTools } from '@shr/langchain';

function agentTools({ razorpayFails = false } = {}) {
  const calls = { stripe: 0, razorpay: 0 };
  const schema = z.object({ orderId: z.string(), amount: z.number() });
  const tools = [
    tool(async () => {
      calls.stripe += 1;
      throw new Error('stripe: 503 Service Unavailable');
    }, { name: 'refund', description: 'Refund an order through Stripe', schema }),
    tool(async ({ orderId, amount }) => {
      calls.razorpay += 1;
      if (razorpayFails) throw new Error('razorpay: 502');
      return JSON.stringify({ via: 'razorpay', orderId, amount });
    }, { name: 'refund_via_razorpay', description: 'Refund an order through Razorpay', schema }),
  ];
  return { tools, calls };
}

/**
 * An agent loop: the model (first a fake that asks for `refund`, then one that answers) and the
 * tools it binds; returns the messages and how many times a model was called.
 */
async function agent(tools) {
  const asks = new FakeStreamingChatModel({
    chunks: [new AIMessage({ content: '', tool_calls: [{ id: 'call-1', name: 'refund', args: { orderId: 'o-7', amount: 40 }, type: 'tool_call' }] })],
  }).bindTools(tools);
  const answers = new FakeListChatModel({ responses: ['Refunded.'] }).bindTools(tools);
  const byName = new Map(tools.map((t) => [t.name, t]));
  const messages = [new HumanMessage('Refund order o-7')];
  let modelCalls = 0;
  for (const model of [asks, answers]) {
    const ai = await model.invoke(messages);
    modelCalls += 1;
    messages.push(ai);
    if (!ai.tool_calls?.length) break;
    for (const call of ai.tool_calls) messages.push(await byName.get(call.name).invoke({ ...call, type: 'tool_call' }));
  }
  return { messages, modelCalls };
}

test('a failing tool is rerouted to its alternative with no extra model call', async () => {
  const { tools, calls } = agentTools();
  const shr = shrTools(tools, { alternatives: { refund: ['refund_via_razorpay'] } });
  assert.deepEqual(shr.tools.map((t) => [t.name, t.description]), tools.map((t) => [t.name, t.description]));
  const { messages, modelCalls } = await agent(shr.tools);
  const toolMessages = messages.filter((m) => m.getType() === 'tool');
  assert.equal(toolMessages.length, 1);
  assert.equal(toolMessages[0].tool_call_id, 'call-1');
  assert.equal(toolMessages[0].name, 'refund');
  assert.deepEqual(JSON.parse(toolMessages[0].content), { via: 'razorpay', orderId: 'o-7', amount: 40 });
  assert.equal(modelCalls, 2, 'one call that asked for the tool, one that answered');
  assert.equal(messages.at(-1).content, 'Refunded.');
  assert.deepEqual(calls, { stripe: 2, razorpay: 1 }, 'Stripe and its one retry, then Razorpay');
});

test('without SHR the tool error reaches the agent', async () => {
  const { tools } = agentTools();
  await assert.rejects(agent(tools), /stripe: 503/);
});

test('health is shared: later calls go to Razorpay first; no healthy tool is an escalation the agent reads', async () => {
  const { tools, calls } = agentTools();
  const shr = shrTools(tools, { alternatives: { refund: ['refund_via_razorpay'] } });
  await agent(shr.tools);
  await agent(shr.tools);
  assert.deepEqual(calls, { stripe: 2, razorpay: 2 });
  shr.router.markDown('refund_via_razorpay');
  const { messages } = await agent(shr.tools);
  const reply = JSON.parse(messages.find((m) => m.getType() === 'tool').content);
  assert.equal(reply.error, 'escalated');
  assert.deepEqual(calls.razorpay, 2, 'its breaker is open: never called');

  const failing = agentTools({ razorpayFails: true });
  const thrown = shrTools(failing.tools, { alternatives: { refund: ['refund_via_razorpay'] }, onEscalation: 'throw' });
  await assert.rejects(agent(thrown.tools), (e) => e.name === 'EscalatedError' && e.code === 'escalated' && e.failed.length === 2);
});
