// The npm module's size, held to its budget (tests/size-budget.mjs says why).
import { test } from 'node:test';
import { join } from 'node:path';
import { PKG } from './helpers.mjs';
import { BUDGET, assertWithinBudget } from '../size-budget.mjs';

for (const flavour of ['node', 'web']) {
  test(`the ${flavour} module stays within its size budget`, () => {
    assertWithinBudget(join(PKG, flavour, 'shr_wasm_bg.wasm'), BUDGET.npm);
  });
}
