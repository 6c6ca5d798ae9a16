'use strict';
/*
 * gaol's Codebattle harness for TypeScript (POST /run, no checker).
 *
 * Codebattle runs ts in its JavaScript image: the solution is stored as
 * check/solution.js but holds TypeScript (`export default solution;`, as
 * Codebattle's template ends), which the runner transpiles to CommonJS with
 * the typescript package (target ESNext: types erased, never checked) before
 * running it.  So does this harness, with Debian's node-typescript (see
 * check/typescript.js).  Transpiling reports syntax errors but, as in
 * Codebattle, only a solution whose JavaScript output does not compile is
 * refused: then the record says what TypeScript found.
 *
 * Loads check/solution.js (`export default solution`, `module.exports =
 * solution`, or an `exports.solution` function), calls it once for every
 * entry of check/asserts.json {"arguments": [[...], ...]} and prints the
 * Codebattle record list as one JSON array on one line:
 *
 *   [{"type": "result", "time": "0.0000123", "value": 3, "output": "hi\n"}, ...]
 *
 * - "result": the call returned (a returned Promise is awaited); "value" is
 *   the value.  "error": the call threw; "value" is String(error), e.g.
 *   "Error: boom".  A solution that does not load (syntax error, missing
 *   module, no function exported, bad asserts.json) gives exactly one "error"
 *   record.
 * - "time": the call's wall time in seconds, a string with 7 decimals.
 * - "output": what the call printed: console.* and process.stdout/stderr
 *   writes (Codebattle's JS runner gives the solution a console that collects
 *   both), cut as Codebattle's checker.js cuts it: once it passes 104
 *   characters, to its first 99 and " ...".  What the module printed while
 *   loading is a record of its own before the calls, as checker.js makes it:
 *   {"type": "output", "time": 0, "value": <it>, "output": <it>}.
 * - Values: BigInt is written as a JSON integer of any size, Map as an
 *   object, Set as an array, undefined and functions as null, NaN and
 *   ±Infinity as the strings "NaN", "Infinity", "-Infinity"; a cyclic value is
 *   an error record.
 * - Exits 0 whatever the values are; process.exit() inside a call is an error
 *   record; timers the solution leaves behind do not keep the run alive.
 *
 * `require('lodash')` and `require('ramda')` resolve to Debian's node-lodash
 * and node-ramda (NODE_PATH, see the Makefile); `require('rambda')`, which
 * Codebattle's JS template imports, falls back to ramda when rambda itself is
 * not installed.
 */

const fs = require('fs');
const path = require('path');
const Module = require('module');

const HERE = __dirname;
const SOLUTION = path.join(HERE, 'solution.js');
const ASSERTS = path.join(HERE, 'asserts.json');
// Codebattle's checker.js keeps a call's output to 100 characters plus its
// 4-character mark: past that it keeps the first 99 and the mark.
const LIMIT = 100;
const MARK = ' ...';

// ------------------------------------------------------------ capture

const realStdoutWrite = process.stdout.write.bind(process.stdout);
const realExit = process.exit;
let captured = '';

function sink(chunk, encoding, callback) {
  if (typeof encoding === 'function') { callback = encoding; encoding = undefined; }
  let text;
  if (typeof chunk === 'string') text = chunk;
  else if (chunk instanceof Uint8Array) text = Buffer.from(chunk).toString('utf8');
  else text = String(chunk);
  captured += text;
  if (captured.length > LIMIT + MARK.length) captured = captured.slice(0, LIMIT - 1) + MARK;
  if (typeof callback === 'function') process.nextTick(callback);
  return true;
}

function take() {
  const text = captured;
  captured = '';
  return text;
}

process.stdout.write = sink;
process.stderr.write = sink;
process.exit = (code) => {
  throw new Error(`process.exit(${code === undefined ? '' : code}) called`);
};

// ------------------------------------------------------------ JSON

function encode(value, seen) {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return JSON.stringify(value);
    case 'number':
      if (Number.isFinite(value)) return JSON.stringify(value);
      return JSON.stringify(Number.isNaN(value) ? 'NaN' : (value > 0 ? 'Infinity' : '-Infinity'));
    case 'bigint':
      return value.toString();
    case 'undefined':
    case 'function':
    case 'symbol':
      return 'null';
    default:
      break;
  }
  if (value === null) return 'null';
  if (seen.has(value)) throw new TypeError('Converting circular structure to JSON');
  seen.add(value);
  try {
    if (typeof value.toJSON === 'function' && !(value instanceof Map) && !(value instanceof Set)) {
      return encode(value.toJSON(), seen);
    }
    if (Array.isArray(value) || ArrayBuffer.isView(value) || value instanceof Set) {
      return '[' + Array.from(value, (v) => encode(v, seen)).join(',') + ']';
    }
    const entries = value instanceof Map ? Array.from(value.entries()) : Object.entries(value);
    return '{' + entries.map(([k, v]) => JSON.stringify(String(k)) + ':' + encode(v, seen)).join(',') + '}';
  } finally {
    seen.delete(value);
  }
}

// Plain ASCII on the wire: non-ASCII characters and lone surrogates escaped.
function ascii(text) {
  return text.replace(/[\u007f-\uffff]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'));
}

function message(error) {
  try {
    if (error instanceof SyntaxError && typeof error.stack === 'string') {
      // node puts "<file>:<line>" on the stack's first line for parse errors
      const m = /^(?:.*\/)?(solution\.js):(\d+)/.exec(error.stack);
      if (m) return `${String(error)} (${m[1]}:${m[2]})`;
    }
    if (error && error.code === 'MODULE_NOT_FOUND') {
      return String(error).split('\n')[0];   // not the require stack's paths
    }
    return String(error);
  } catch (e) {
    return 'unprintable error';
  }
}

const seconds = (start) => (Number(process.hrtime.bigint() - start) / 1e9).toFixed(7);

function record(type, value, start, output) {
  let valueJson;
  try {
    valueJson = encode(value, new Set());
  } catch (e) {
    type = 'error';
    valueJson = JSON.stringify('result not serialisable: ' + message(e));
  }
  return `{"type":${JSON.stringify(type)},"time":"${seconds(start)}","value":${valueJson},` +
         `"output":${JSON.stringify(output)}}`;
}

function finish(records) {
  process.exitCode = 0;
  realStdoutWrite(ascii('[' + records.join(', ') + ']') + '\n', () => realExit.call(process, 0));
}

// ------------------------------------------------------------ loading

// Codebattle's template says require("rambda"); Debian ships ramda.
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  try {
    return resolve.call(this, request, ...rest);
  } catch (e) {
    if (request === 'rambda') return resolve.call(this, 'ramda', ...rest);
    throw e;
  }
};

function load() {
  let argsList = [];
  if (fs.existsSync(ASSERTS)) {
    const doc = JSON.parse(fs.readFileSync(ASSERTS, 'utf8'));
    if (doc === null || typeof doc !== 'object' || !Array.isArray(doc.arguments)) {
      throw new Error('asserts.json: expected {"arguments": [[...], ...]}');
    }
    argsList = doc.arguments;
  }
  const { transpile } = require('./typescript.js');
  const { code, diagnostics } = transpile(fs.readFileSync(SOLUTION, 'utf8'), 'solution.js');
  const m = new Module(SOLUTION, module);
  m.filename = SOLUTION;
  m.paths = Module._nodeModulePaths(HERE);
  try {
    m._compile(code, SOLUTION);
  } catch (e) {
    if (e instanceof SyntaxError && diagnostics.length) throw new SyntaxError(diagnostics[0]);
    throw e;
  }
  require.cache[SOLUTION] = m;
  m.loaded = true;
  const exported = m.exports;
  let fn = exported;
  if (typeof fn !== 'function' && fn !== null && typeof fn === 'object') {
    fn = typeof fn.default === 'function' ? fn.default : fn.solution;
  }
  if (typeof fn !== 'function') {
    throw new Error('solution.js exports no function (use export default solution)');
  }
  return [fn, argsList];
}

async function main() {
  const records = [];
  let start = process.hrtime.bigint();
  let fn;
  let argsList;
  try {
    [fn, argsList] = load();
  } catch (e) {
    finish([record('error', message(e), start, take())]);
    return;
  }
  const loading = take();
  if (loading) {
    records.push(`{"type":"output","time":0,"value":${JSON.stringify(loading)},` +
                 `"output":${JSON.stringify(loading)}}`);
  }
  for (let args of argsList) {
    if (!Array.isArray(args)) args = [args];
    start = process.hrtime.bigint();
    let type = 'result';
    let value;
    try {
      value = fn(...args);
      if (value !== null && typeof value === 'object' && typeof value.then === 'function') {
        value = await value;
      }
    } catch (e) {
      type = 'error';
      value = message(e);
    }
    records.push(record(type, value, start, take()));
  }
  finish(records);
}

process.on('uncaughtException', (e) => sink(`Uncaught ${message(e)}\n`));
process.on('unhandledRejection', (e) => sink(`Unhandled rejection: ${message(e)}\n`));

main();
