// shr-wasm/route for browsers and bundlers: the lean entry. `await init()` (the default export;
// give it the .wasm's URL when your bundler moves the file) fetches and compiles the module
// (streaming where the server sends application/wasm); `initSync({ module })` compiles bytes.
import rawInit, * as raw from './shr_wasm_route.js';
let ready = false;
function ensureReady() {
  if (!ready) {
    throw new ShrError('not_initialized', 'Router.fromJson(): shr-wasm/route is not initialized yet: '
      + 'call `await init()` (the default export) first, or `initSync({ module })` with the .wasm file\'s bytes');
  }
}
/* ERROR_JS */
/* LEAN_JS */
async function init(input) {
  await rawInit(input === undefined ? undefined : { module_or_path: input?.module_or_path ?? input });
  ready = true;
}
export function initSync(input) {
  raw.initSync({ module: input?.module ?? input });
  ready = true;
}
export { Router, ShrError, isShrError };
Object.assign(init, { Router, ShrError, isShrError, initSync, init });
export default init;
