'use strict';
/*
 * TypeScript for gaol's ts language: loads Debian's compiler
 * (/usr/share/nodejs/typescript) and turns a solution into CommonJS the way
 * Codebattle's runner does (ts.transpile with target ESNext, module
 * CommonJS: types are erased, never checked).
 *
 * typescript.js is 10 MB of JavaScript; compiling it takes most of a ts run.
 * `make prepare` stores V8's code cache for it in cache/typescript.cache
 * (saveCache below), which cuts that by two thirds.  A cache that V8 rejects
 * (another node) or that is missing only makes the load slower.
 */

const fs = require('fs');
const path = require('path');
const vm = require('vm');
const Module = require('module');

const TS_FILE = '/usr/share/nodejs/typescript/lib/typescript.js';
const CACHE = path.join(__dirname, '..', 'cache', 'typescript.cache');

let script;

function load() {
  const source = fs.readFileSync(TS_FILE, 'utf8');
  let cachedData;
  try {
    cachedData = fs.readFileSync(CACHE);
  } catch (e) {
    cachedData = undefined;
  }
  script = new vm.Script(Module.wrap(source), { filename: TS_FILE, cachedData });
  const m = new Module(TS_FILE, module);
  m.filename = TS_FILE;
  m.paths = Module._nodeModulePaths(path.dirname(TS_FILE));
  script.runInThisContext().call(m.exports, m.exports, require, m, TS_FILE, path.dirname(TS_FILE));
  return m.exports;
}

const ts = load();

// Codebattle's options; the file name makes the parser read TypeScript even
// though the solution is stored as solution.js.
const OPTIONS = {
  compilerOptions: {
    target: ts.ScriptTarget.ESNext,
    module: ts.ModuleKind.CommonJS,
  },
  fileName: 'solution.ts',
  reportDiagnostics: true,
};

/* Returns {code, diagnostics}: diagnostics are "solution.js(3,5): error
 * TS1005: ';' expected." lines (syntax only: transpiling checks no types). */
function transpile(source, name) {
  const out = ts.transpileModule(source, OPTIONS);
  const diagnostics = (out.diagnostics || []).map((d) => {
    const text = ts.flattenDiagnosticMessageText(d.messageText, '\n');
    if (d.file && d.start !== undefined) {
      const { line, character } = d.file.getLineAndCharacterOfPosition(d.start);
      return `${name}(${line + 1},${character + 1}): error TS${d.code}: ${text}`;
    }
    return `${name}: error TS${d.code}: ${text}`;
  });
  return { code: out.outputText, diagnostics };
}

function saveCache() {
  // after a transpile, so the functions it compiled lazily are in the cache
  transpile('export default function f(a: number): number { return a; }\n', 'warm.ts');
  fs.mkdirSync(path.dirname(CACHE), { recursive: true });
  fs.writeFileSync(CACHE, script.createCachedData());
}

module.exports = { ts, transpile, saveCache };

if (require.main === module && process.argv[2] === '--save-cache') {
  saveCache();
} else if (require.main === module && process.argv[2] === '--build' && process.argv.length === 5) {
  // POST /evaluate's build step: typescript.js --build IN OUT.  A syntax
  // error is a compile error: TypeScript's parser recovers from most of them
  // (`(1 + 2;` becomes `(1 + 2);`) and its output would run, so any
  // diagnostic refuses the program, as does output that does not compile.
  const [input, output] = process.argv.slice(3);
  const { code, diagnostics } = transpile(fs.readFileSync(input, 'utf8'), path.basename(input));
  try {
    new vm.Script(Module.wrap(code), { filename: input });  // a syntax check of the output
  } catch (e) {
    process.stderr.write((diagnostics.length ? diagnostics : [String(e)]).join('\n') + '\n');
    process.exit(1);
  }
  if (diagnostics.length) {
    process.stderr.write(diagnostics.join('\n') + '\n');
    process.exit(1);
  }
  fs.mkdirSync(path.dirname(output), { recursive: true });
  fs.writeFileSync(output, code);
}
