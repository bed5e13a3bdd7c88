
/** Node compiles the WebAssembly module at import: this resolves at once (for code shared with the browser build). */
declare function init(input?: unknown): Promise<void>;
export default init;
export { init };
/** Node compiles the WebAssembly module at import: this does nothing. */
export declare function initSync(input?: unknown): void;
