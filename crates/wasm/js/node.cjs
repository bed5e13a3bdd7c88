'use strict';
// shr-wasm for Node (CommonJS): the WebAssembly module is compiled when this file is required,
// so there is nothing to initialize; `init` and `initSync` exist so that code written for the
// browser build runs unchanged.
const shr = require('./shr_wasm.js');
/* ERROR_JS */
const init = async () => {};
const initSync = () => {};
// Named one by one, so that Node's ES module loader sees them (`import { Router } from` this file).
exports.Router = shr.Router;
exports.Session = shr.Session;
exports.version = shr.version;
exports.ShrError = ShrError;
exports.isShrError = isShrError;
exports.init = init;
exports.initSync = initSync;
// The default export is `init` and carries the whole API, so that both `await init()` and
// `import shr from 'shr-wasm'; new shr.Router(...)` (the CommonJS module as a default) work.
Object.assign(init, exports);
exports.default = init;
