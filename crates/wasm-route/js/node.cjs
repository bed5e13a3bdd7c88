'use strict';
// shr-wasm/route for Node (CommonJS): the lean entry. The WebAssembly module is compiled when
// this file is required; `init` and `initSync` exist so that browser code runs unchanged.
const raw = require('./shr_wasm_route.js');
const ensureReady = () => {};
/* ERROR_JS */
/* LEAN_JS */
const init = async () => {};
const initSync = () => {};
exports.Router = Router;
exports.ShrError = ShrError;
exports.isShrError = isShrError;
exports.init = init;
exports.initSync = initSync;
Object.assign(init, exports);
exports.default = init;
