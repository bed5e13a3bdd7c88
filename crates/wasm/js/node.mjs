// shr-wasm for Node (ES module): the CommonJS build, whose WebAssembly module is compiled at
// import; the default export `init` resolves at once.
import shr from './index.cjs';

export const { Router, Session, version, ShrError, isShrError, initSync } = shr;
// `init`, carrying the whole API (`import shr from 'shr-wasm'; new shr.Router(...)` works too).
export default shr.default;
