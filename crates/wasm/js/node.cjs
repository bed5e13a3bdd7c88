'use strict';
// shr-wasm for Node (CommonJS): the WebAssembly module is compiled when this file is required,
// so there is nothing to initialize; `init` and `initSync` exist so that code written for the
// browser build runs unchanged.
const shr = require('./shr_wasm.js');
/* ERROR_JS */
const init = async () => {};
const initSync = () => {};
const api = { ...shr, ShrError, isShrError, init, initSync };
// The default export is `init` and carries the whole API, so that both `await init()` and
// `import shr from 'shr-wasm'; new shr.Router(...)` (the CommonJS module as a default) work.
Object.assign(init, api);
module.exports = { ...api, default: init };
