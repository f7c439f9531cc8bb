// Shared by the build (tools/build.ts), which writes it, and the simulator's heap model
// (hw-sim/function-source.ts), which reads it: here, where both may import from. Portable.

/**
 * What starts the text of a part compiled for one call and freed after it (tools/build.ts `transient`):
 * a comment, so nothing on the device; the simulator's heap model (hw-sim/function-source.ts) counts
 * none of its function sources, as none outlives the entry that compiled it.
 */
export const ONCE_MARK = '/*once*/';
