// Evaluates code in a QuickJS context and returns its value dumped to the host; throws the VM's error.
import type { QuickJSContext } from 'quickjs-emscripten';

export function evaluator(vm: QuickJSContext): (code: string) => unknown {
  return (code) => {
    const r = vm.evalCode(code);
    if (r.error) {
      const e = vm.dump(r.error);
      r.error.dispose();
      throw new Error(`QuickJS: ${JSON.stringify(e)}`);
    }
    const v = vm.dump(r.value);
    r.value.dispose();
    return v;
  };
}
