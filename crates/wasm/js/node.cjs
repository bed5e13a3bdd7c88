'use strict';
// shr-wasm for Node (CommonJS): the WebAssembly module is compiled when this file is required,
// so there is nothing to initialize; `init` and `initSync` exist so that code written for the
// browser build runs unchanged.
const shr = require('./shr_wasm.js');
/* ERROR_JS */
const init = async () => {};
const initSync = () => {};
module.exports = { ...shr, ShrError, isShrError, init, initSync, default: init };
