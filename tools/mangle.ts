// Which property names the firmware build shortens (esbuild `mangleProps`, docs/firmware.md "Size").
// Computed at every build with the TypeScript checker over the firmware's own sources, so a member,
// field or record added tomorrow is handled by the same rule: every property name is shortened except
// the names that cross a boundary, which are kept as written:
// - members declared by a library (.d.ts, lib.es2020: built-ins and engine protocols such as toJSON);
// - every word of src/hal.ts (what the host provides on globalThis.device) and of the hosts
//   (hw-sim/*host*.ts); the camera module (bundled apart, evaluated on the first frame) is read with the
//   rest and shortened with the core's names (tools/build.ts), jsQR from its source (firmware/jsqr/);
// - properties read or written on `globalThis`;
// - a string literal equal to the name (`o['x']`, `'x' in o`: esbuild leaves quoted keys alone), and a
//   TypeScript enum's members (esbuild defines them under their names as written);
// - the properties, recursively, of any type that goes through JSON (argument of JSON.stringify, type
//   given to a JSON.parse result) or whose keys are listed (Object.keys/entries/values, for…in);
// - every word of the bundle's plain JavaScript inputs (noble), and of the strings in hw-sim/, test/,
//   bench/ that mention `saphir.` (code those evaluate inside the running firmware).
import type * as ts from 'typescript';
import { typescript } from './typescript.ts';
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, JSQR_SOURCE } from './paths.ts';

const WORD = /[A-Za-z_$][\w$]*/g;

function walk(dir: string, out: string[]): void {
  if (!existsSync(dir)) return;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) {
      if (e.name !== 'node_modules' && e.name !== 'dist') walk(p, out);
    } else if (/\.(ts|mjs|js)$/.test(e.name)) out.push(p);
  }
}

function strip(e: ts.Expression): ts.Expression {
  const T = typescript();
  while (
    T.isParenthesizedExpression(e) ||
    T.isAsExpression(e) ||
    T.isNonNullExpression(e) ||
    T.isSatisfiesExpression(e)
  )
    e = e.expression;
  return e;
}

/** The property names a TypeScript text uses: accessed, declared, as keys, as strings. */
function propertyNames(text: string): Set<string> {
  const T = typescript();
  const out = new Set<string>();
  const visit = (n: ts.Node): void => {
    if (T.isStringLiteral(n) || T.isNoSubstitutionTemplateLiteral(n)) out.add(n.text);
    else if (T.isPropertyAccessExpression(n)) out.add(n.name.text);
    else if (
      (T.isPropertyAssignment(n) ||
        T.isShorthandPropertyAssignment(n) ||
        T.isPropertySignature(n) ||
        T.isMethodSignature(n) ||
        T.isPropertyDeclaration(n) ||
        T.isMethodDeclaration(n) ||
        T.isGetAccessorDeclaration(n) ||
        T.isSetAccessorDeclaration(n)) &&
      T.isIdentifier(n.name)
    )
      out.add(n.name.text);
    else if (T.isBindingElement(n) && T.isObjectBindingPattern(n.parent)) {
      const k = n.propertyName ?? n.name;
      if (T.isIdentifier(k)) out.add(k.text);
    } else if (T.isTemplateExpression(n) || T.isTemplateHead(n) || T.isTemplateMiddle(n) || T.isTemplateTail(n)) {
      // Code built as text: every word.
      for (const w of n.getText().match(WORD) ?? []) out.add(w);
    }
    T.forEachChild(n, visit);
  };
  visit(T.createSourceFile('x.ts', text, T.ScriptTarget.ES2020, true));
  return out;
}

/**
 * The names the firmware bundle must keep as written, with the first reason found for each. `entries`
 * are the bundle's TypeScript entry points; `plainWords` texts whose every word is kept (the bundle's
 * JavaScript inputs, the camera module).
 */
export function reservedNames(entries: string[], plainWords: { what: string; text: string }[]): Map<string, string> {
  const T = typescript();
  const cfg = T.getParsedCommandLineOfConfigFile(
    join(ROOT, 'tsconfig.core.json'),
    {},
    {
      ...T.sys,
      onUnRecoverableConfigFileDiagnostic: () => undefined,
    },
  );
  const program = T.createProgram({
    rootNames: entries,
    options: {
      ...(cfg?.options ?? {}),
      noEmit: true,
      incremental: false,
      tsBuildInfoFile: undefined,
      // jsQR as the build bundles it (tools/build.ts `slim`): its source, not the npm package's .d.ts,
      // which would count its every name as a library's; resolved as esbuild does (jsQR's own imports
      // have no extension).
      paths: { ...(cfg?.options.paths ?? {}), jsqr: [JSQR_SOURCE] },
      module: T.ModuleKind.ESNext,
      moduleResolution: T.ModuleResolutionKind.Bundler,
    },
  });
  const checker = program.getTypeChecker();
  const kept = new Map<string, string>();
  const keep = (name: string, why: string) => {
    if (!kept.has(name)) kept.set(name, why);
  };
  const seenTypes = new Set<ts.Type>();
  const keepType = (t: ts.Type, why: string): void => {
    if (seenTypes.has(t)) return;
    seenTypes.add(t);
    if (t.isUnionOrIntersection()) for (const u of t.types) keepType(u, why);
    for (const a of checker.getTypeArguments(t as ts.TypeReference) ?? []) keepType(a, why);
    const idx = t.getNumberIndexType() ?? t.getStringIndexType();
    if (idx) keepType(idx, why);
    if (t.flags & T.TypeFlags.Object && !(t.symbol?.flags & T.SymbolFlags.Function))
      for (const p of checker.getPropertiesOfType(t)) {
        keep(p.name, why);
        const decl = p.valueDeclaration ?? p.declarations?.[0];
        if (decl) keepType(checker.getTypeOfSymbolAtLocation(p, decl), why);
      }
  };

  for (const sf of program.getSourceFiles()) {
    const rel = sf.fileName.startsWith(ROOT) ? sf.fileName.slice(ROOT.length + 1) : sf.fileName;
    if (sf.isDeclarationFile) {
      const visitLib = (n: ts.Node): void => {
        if (
          (T.isPropertySignature(n) ||
            T.isMethodSignature(n) ||
            T.isPropertyDeclaration(n) ||
            T.isMethodDeclaration(n) ||
            T.isGetAccessorDeclaration(n) ||
            T.isSetAccessorDeclaration(n)) &&
          n.name &&
          T.isIdentifier(n.name)
        )
          keep(n.name.text, `declared by ${rel.split('/').slice(-2).join('/')}`);
        T.forEachChild(n, visitLib);
      };
      visitLib(sf);
      continue;
    }
    if (rel === 'src/hal.ts')
      for (const st of sf.statements) {
        const sym =
          'name' in st && st.name && T.isIdentifier(st.name as ts.Node)
            ? checker.getSymbolAtLocation(st.name as ts.Identifier)
            : undefined;
        if (!sym) continue;
        if (T.isInterfaceDeclaration(st) || T.isTypeAliasDeclaration(st) || T.isClassDeclaration(st))
          keepType(checker.getDeclaredTypeOfSymbol(sym), 'the HAL (src/hal.ts)');
        keepType(checker.getTypeOfSymbolAtLocation(sym, st), 'the HAL (src/hal.ts)');
      }
    const at = (n: ts.Node) => `${rel}:${sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1}`;
    const visit = (n: ts.Node): void => {
      if (T.isStringLiteral(n) || T.isNoSubstitutionTemplateLiteral(n)) keep(n.text, `string at ${at(n)}`);
      // esbuild defines a TypeScript enum's members under their names as written, whatever mangleProps says.
      else if (T.isEnumMember(n) && T.isIdentifier(n.name)) keep(n.name.text, `enum member at ${at(n)}`);
      else if (T.isPropertyAccessExpression(n)) {
        const target = strip(n.expression);
        if (T.isIdentifier(target) && target.text === 'globalThis') keep(n.name.text, `globalThis at ${at(n)}`);
      } else if (T.isCallExpression(n)) {
        const callee = n.expression;
        if (T.isPropertyAccessExpression(callee) && T.isIdentifier(callee.expression)) {
          const obj = callee.expression.text;
          const fn = callee.name.text;
          if ((obj === 'JSON' && fn === 'stringify') || (obj === 'Object' && /^(keys|entries|values)$/.test(fn))) {
            if (n.arguments[0]) keepType(checker.getTypeAtLocation(n.arguments[0]), `${obj}.${fn} at ${at(n)}`);
          } else if (obj === 'JSON' && fn === 'parse') {
            // The type the result is given: `JSON.parse(x) as T`, or the variable's declared type.
            let p: ts.Node = n.parent;
            while (T.isParenthesizedExpression(p)) p = p.parent;
            if (T.isAsExpression(p)) keepType(checker.getTypeAtLocation(p), `JSON.parse at ${at(n)}`);
            else if (T.isVariableDeclaration(p) || T.isBinaryExpression(p))
              keepType(
                checker.getTypeAtLocation(T.isVariableDeclaration(p) ? p.name : p.left),
                `JSON.parse at ${at(n)}`,
              );
          }
        }
      } else if (T.isForInStatement(n)) keepType(checker.getTypeAtLocation(n.expression), `for…in at ${at(n)}`);
      T.forEachChild(n, visit);
    };
    visit(sf);
  }

  for (const { what, text } of plainWords) for (const w of text.match(WORD) ?? []) keep(w, `word of ${what}`);
  const rig: string[] = [];
  for (const d of ['hw-sim', 'test', 'bench']) walk(join(ROOT, d), rig);
  for (const p of rig) {
    const text = readFileSync(p, 'utf8');
    const rel = p.slice(ROOT.length + 1);
    if (/^hw-sim\/[^/]*host[^/]*\.ts$/.test(rel)) for (const w of propertyNames(text)) keep(w, `used by ${rel}`);
    else if (text.includes('saphir.'))
      for (const m of text.matchAll(/`(?:[^`\\]|\\.)*`|'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"/g))
        if (m[0].includes('saphir.')) for (const w of m[0].match(WORD) ?? []) keep(w, `evaluated by ${rel}`);
  }
  return kept;
}

/** esbuild's `reserveProps` for these names. */
export function reservePattern(names: Iterable<string>): RegExp {
  const list = [...names].filter((n) => /^[A-Za-z_$][\w$]*$/.test(n)).map((n) => n.replace(/\$/g, '\\$'));
  return new RegExp(`^(?:${list.sort().join('|')})$`);
}

/** Every property name is a candidate; `reserveProps` keeps the boundary ones. */
export const MANGLE_ALL = /^[A-Za-z_$]/;
