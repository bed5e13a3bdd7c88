// shr-wasm/route for Node (ES module): the CommonJS build, compiled at import.
import lean from './index.cjs';

export const { Router, ShrError, isShrError, initSync } = lean;
export default lean.default;
