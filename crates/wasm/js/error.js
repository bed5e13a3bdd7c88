// ShrError and isShrError, shared by the package's entry points (the build script inlines this
// text into each: the Node entry is CommonJS, the browser one an ES module). Every error shr-wasm
// throws or rejects with is an `Error` named "ShrError" with a string `code`: `instanceof
// ShrError` and `isShrError` recognize it whichever build made it.
const isShrError = (value) =>
  value instanceof Error && value.name === 'ShrError' && typeof value.code === 'string';

class ShrError extends Error {
  constructor(code, message, details) {
    super(message);
    this.name = 'ShrError';
    this.code = code;
    if (details) Object.assign(this, details);
  }

  static [Symbol.hasInstance](value) {
    return isShrError(value);
  }
}
