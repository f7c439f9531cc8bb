// The function sources QuickJS keeps in a bundle's bytecode: every function holds its own copy of its
// text (for Function.prototype.toString), nested ones inside their parent's as well; a class holds its
// whole text (its constructor), a method its text from its name. These QuickJS builds keep them whatever
// `strip` says; a firmware stored stripped (qjsc -s) does not. Computed from the bundle's syntax (the
// engine reports them only inside js_func_size), the functions run once at the top left out (the
// bundle's IIFE and those called at once inside it: freed once run); test/firmware/function-source.test.ts checks the model against the engine.
// docs/firmware.md "Device class and budgets".
// Importing this module installs the count as the simulator's `functionSources` (hw-sim/host.ts), which
// QjsDevice.heapDevice() takes out: Node only (TypeScript parses), so the CLI bundle never loads it.
import type * as ts from 'typescript';
import { typescript } from '../tools/typescript.ts';
import { useSimHost } from './host.ts';
import { ONCE_MARK } from '../src/once-mark.ts';

interface Fn {
  start: number;
  end: number;
  /** Where its body starts (inside the brace), none for a class. */
  body?: number;
}

/**
 * `n` called where it is written, `(function () {…})()`, or the whole text of a module compiled apart,
 * `(function (SAPHIR_KIT) {…})` (tools/build.ts `moduleApart`: its loader calls it once and drops it): run once.
 */
function calledAtOnce(n: ts.Node): boolean {
  const T = typescript();
  let p = n.parent;
  let c: ts.Node = n;
  while (T.isParenthesizedExpression(p)) [c, p] = [p, p.parent];
  if (T.isExpressionStatement(p) && T.isSourceFile(p.parent) && p.parent.statements.length === 1) return true;
  return T.isCallExpression(p) && p.expression === c;
}

function functionsOf(bundle: string): Fn[] {
  const T = typescript();
  const sf = T.createSourceFile('b.js', bundle, T.ScriptTarget.ES2020, true, T.ScriptKind.JS);
  const out: Fn[] = [];
  // `once`: the code here runs once, in a function freed after it ran (the script, then the run-once
  // functions called at once inside it: the bundle's IIFE, a module's `var C = (() => {…})()`).
  const visit = (n: ts.Node, once: boolean): void => {
    const body =
      T.isFunctionLike(n) && !T.isConstructorDeclaration(n) && 'body' in n
        ? (n.body as ts.Node | undefined)
        : undefined;
    if (T.isClassLike(n) || body) {
      if (once && body && calledAtOnce(n)) {
        T.forEachChild(n, (c) => visit(c, true));
        return;
      }
      // (a static method's text starts at its name, as a method's)
      let start = n.getStart(sf);
      start += /^static\s*/.exec(bundle.slice(start, start + 12))?.[0].length ?? 0;
      out.push({
        start,
        end: n.getEnd(),
        body: body && (T.isBlock(body) ? body.getStart(sf) + 1 : body.getStart(sf)),
      });
      T.forEachChild(n, (c) => visit(c, false));
      return;
    }
    T.forEachChild(n, (c) => visit(c, once));
  };
  visit(sf, true);
  return out;
}

export function functionSourceBytes(bundle: string): { bytes: number; functions: number } {
  const fns = functionsOf(bundle);
  return { bytes: fns.reduce((n, f) => n + f.end - f.start + 1, 0), functions: fns.length };
}

const counted = new Map<string, number>();

/**
 * `functionSourceBytes(text).bytes`, once per text (a parse of the bundle costs ~100 ms); none for a part
 * compiled for one call (`ONCE_MARK`): its functions are freed before the heap is sampled.
 */
export function functionSources(text: string): number {
  if (text.startsWith(ONCE_MARK)) return 0;
  let n = counted.get(text);
  if (n === undefined) {
    n = functionSourceBytes(text).bytes;
    if (counted.size > 16) counted.clear();
    counted.set(text, n);
  }
  return n;
}

useSimHost({ functionSources });

/**
 * The bundle with `k` spaces at the start of every function body, and by how much that lengthens the
 * sources held if the model is right: each function's by `k` for every body inside its text.
 */
export function paddedBundle(bundle: string, k: number): { text: string; predicted: number } {
  const fns = functionsOf(bundle);
  const pads = fns.flatMap((f) => (f.body === undefined ? [] : [f.body])).sort((a, b) => b - a);
  let predicted = 0;
  for (const f of fns) for (const p of pads) if (p > f.start && p < f.end) predicted += k;
  let text = bundle;
  for (const p of pads) text = text.slice(0, p) + ' '.repeat(k) + text.slice(p);
  return { text, predicted };
}
