// qrcode's symbol builder alone: the package's entry also loads every renderer and a pngjs of its own
// (~40 ms at each start of a process that only draws codes into frames).
declare module 'qrcode/lib/core/qrcode.js' {
  export { create } from 'qrcode';
}
