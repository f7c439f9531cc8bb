// The function sources QuickJS keeps in a bundle's bytecode: every function holds its own copy of its
// text (for Function.prototype.toString), nested ones inside their parent's as well; a class holds its
// whole text (its constructor), a method its text from its name. These QuickJS builds keep them whatever
// `strip` says; a firmware stored stripped (qjsc -s) does not. Computed from the bundle's syntax (the
// engine reports them only inside js_func_size), the outermost function left out (the bundle's IIFE
// runs once and is freed). docs/firmware.md "Device class and budgets".
import ts from 'typescript';

export function functionSourceBytes(bundle: string): { bytes: number; functions: number } {
  const sf = ts.createSourceFile('b.js', bundle, ts.ScriptTarget.ES2020, true, ts.ScriptKind.JS);
  let bytes = 0;
  let functions = 0;
  let outer = true;
  const visit = (n: ts.Node) => {
    const counted =
      ts.isClassLike(n) ||
      (ts.isFunctionLike(n) && !ts.isConstructorDeclaration(n) && !ts.isFunctionTypeNode(n) && 'body' in n && n.body);
    if (counted) {
      if (outer) outer = false;
      else {
        // (a static method's text starts at its name, as a method's)
        const start = n.getStart(sf);
        const skip = /^static\s*/.exec(bundle.slice(start, start + 12))?.[0].length ?? 0;
        bytes += n.getEnd() - start - skip + 1;
        functions++;
      }
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return { bytes, functions };
}
