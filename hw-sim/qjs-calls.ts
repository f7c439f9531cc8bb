// A faster path for the VM's calls into host functions (`vm.newFunction`): quickjs-emscripten runs each
// one through a generator, a Promise check and a Scope, made for its asyncify builds. The simulator's
// VMs are synchronous and call the host a lot (every flash read, clock reading, display line): that
// machinery cost 6–11 µs a call against 0.4 µs here (6 Dec, a loop of 100 000 calls), ~1 100 calls a
// boot on the real ledger partition. This replaces `QuickJSContext.cToHostCallbacks.callFunction`, an
// internal of quickjs-emscripten 0.32, with the same steps done directly; a version whose internals
// differ keeps its own path (test/firmware/qjs-calls.test.ts fails then, so the loss is seen).
import { Lifetime, WeakLifetime, type QuickJSContext, type QuickJSHandle } from 'quickjs-emscripten';

/** The internals of QuickJSContext this path uses (quickjs-emscripten 0.32). */
interface ContextInternals {
  cToHostCallbacks?: { callFunction?: unknown };
  getFunction?: (id: number) => (this: QuickJSHandle, ...args: QuickJSHandle[]) => unknown;
  errorToHandle?: (e: unknown) => QuickJSHandle;
  runtime?: unknown;
  ctx?: { value: number };
  memory?: { copyJSValue?: unknown; freeJSValue?: unknown };
  ffi?: {
    QTS_ArgvGetJSValueConstPointer?: (argv: number, i: number) => number;
    QTS_DupValuePointer?: (ctx: number, ptr: number) => number;
    QTS_Throw?: (ctx: number, ptr: number) => number;
  };
}

/**
 * Installs the direct path on `vm` (a synchronous build's context: its host functions return a handle
 * or nothing, never a Promise). Returns false, changing nothing, when `vm` lacks an internal it needs.
 */
export function directHostCalls(vm: QuickJSContext): boolean {
  const c = vm as unknown as ContextInternals;
  const ffi = c.ffi;
  const mem = c.memory;
  const getFunction = c.getFunction;
  const errorToHandle = c.errorToHandle;
  if (
    !c.cToHostCallbacks ||
    typeof c.cToHostCallbacks.callFunction !== 'function' ||
    typeof getFunction !== 'function' ||
    typeof errorToHandle !== 'function' ||
    typeof c.ctx?.value !== 'number' ||
    typeof mem?.copyJSValue !== 'function' ||
    typeof mem.freeJSValue !== 'function' ||
    typeof ffi?.QTS_ArgvGetJSValueConstPointer !== 'function' ||
    typeof ffi.QTS_DupValuePointer !== 'function' ||
    typeof ffi.QTS_Throw !== 'function'
  )
    return false;
  const { QTS_ArgvGetJSValueConstPointer: argAt, QTS_DupValuePointer: dup, QTS_Throw: raise } = ffi;
  const ctx = c.ctx.value;
  const copy = mem.copyJSValue as (p: number) => number;
  const free = mem.freeJSValue as (p: number) => void;
  const owner = c.runtime as never;
  // What the stock path does, in order: weak handles on `this` and the arguments (the VM owns them), the
  // call, a duplicate of the result for the VM while the host's handle is disposed; a throw becomes
  // the VM's exception.
  c.cToHostCallbacks.callFunction = (callCtx: number, thisPtr: number, argc: number, argv: number, fnId: number) => {
    if (callCtx !== ctx) throw new Error('QuickJSContext received a C → JS call for another context');
    const fn = getFunction.call(vm, fnId);
    const self = new WeakLifetime(thisPtr, copy, free, owner) as unknown as QuickJSHandle;
    const args: QuickJSHandle[] = new Array(argc);
    for (let i = 0; i < argc; i++)
      args[i] = new WeakLifetime(argAt(argv, i), copy, free, owner) as unknown as QuickJSHandle;
    try {
      const result = fn.apply(self, args) as
        QuickJSHandle | { value?: QuickJSHandle; error?: QuickJSHandle } | undefined;
      if (!result) return 0;
      if (!(result instanceof Lifetime) && 'error' in result && result.error) throw result.error;
      const handle = result instanceof Lifetime ? result : result.value;
      if (!handle) return 0;
      try {
        return dup(ctx, handle.value);
      } finally {
        if (handle.alive) handle.dispose();
      }
    } catch (e) {
      const h = errorToHandle.call(vm, e);
      try {
        return raise(ctx, h.value);
      } finally {
        if (h.alive) h.dispose();
      }
    }
  };
  return true;
}
