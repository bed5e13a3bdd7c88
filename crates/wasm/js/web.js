// shr-wasm for browsers and bundlers: the WebAssembly module is fetched by `await init()` (the
// default export; give it the .wasm's URL when your bundler moves the file) or compiled from
// bytes by `initSync({ module })`. Before either, `new Router(...)`, `Router.fromJson(...)` and
// `version()` throw a ShrError with code "not_initialized" saying so.
import rawInit, { initSync as rawInitSync, Router as RawRouter, Session, version as rawVersion } from './shr_wasm.js';
/* ERROR_JS */
let ready = false;

function assertReady(what) {
  if (ready) return;
  try {
    rawVersion(); // initialized through './web/shr_wasm.js' directly
    ready = true;
  } catch {
    throw new ShrError("not_initialized", `${what}: shr-wasm is not initialized yet: call \`await init()\` `
      + '(the default export of shr-wasm) first, or `initSync({ module })` with the .wasm file\'s bytes');
  }
}

/** Fetches and compiles the WebAssembly module (once); resolves when the API is usable. */
async function init(input) {
  await rawInit(input === undefined ? undefined : { module_or_path: input?.module_or_path ?? input });
  ready = true;
}

/** Compiles the WebAssembly module from its bytes (or a compiled `WebAssembly.Module`). */
export function initSync(input) {
  rawInitSync({ module: input?.module ?? input });
  ready = true;
}

export const Router = new Proxy(RawRouter, {
  construct(target, args, newTarget) {
    assertReady('new Router()');
    return Reflect.construct(target, args, newTarget);
  },
  get(target, key, receiver) {
    const value = Reflect.get(target, key, receiver);
    if (key !== 'fromJson') return value;
    return function fromJson(...args) {
      assertReady('Router.fromJson()');
      return value.apply(target, args);
    };
  },
});

export function version() {
  assertReady('version()');
  return rawVersion();
}

export { Session, ShrError, isShrError };
// The default export is `init` and carries the whole API, as in Node.
Object.assign(init, { Router, Session, version, ShrError, isShrError, initSync, init });
export default init;
