/**
 * Preloaded by a bench's server process (after tsx): every module of src/ is loaded from its
 * compiled form in dist/, as `npm start` runs it (tsc's output), not as tsx compiles it on the fly.
 * tsx compiles with esbuild's keepNames, which names every function made at run time with a call
 * of its own (`__name`): a closure made per request (a middleware's `next`) costs more under tsx
 * than in production, which skewed per-request comparisons with servers in node_modules; and
 * tsx's resolution of every `require`, Node's own for a built-in module.
 * The bench builds dist/ first when src/ changed (scripts/build-if-stale.mjs).
 *
 * Plain JavaScript, loaded by `node --require`.
 */
const Module = require('node:module');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const src = path.join(root, 'src') + path.sep;
const dist = path.join(root, 'dist') + path.sep;
const resolve = Module._resolveFilename;

Module._resolveFilename = function (request, parent, ...rest) {
  // A built-in module names itself, as Node's own resolution has it, without tsx's hook: Apollo
  // Server requires 'crypto' again for every request's query hash (@apollo/utils.createhash).
  if (Module.isBuiltin(request)) return request;
  const file = resolve.call(this, request, parent, ...rest);
  if (!file.startsWith(src) || !file.endsWith('.ts') || file.endsWith('.d.ts')) return file;
  const compiled = dist + file.slice(src.length, -'.ts'.length) + '.js';
  if (!fs.existsSync(compiled)) throw new Error(`${path.relative(root, compiled)} is missing: run npm run build`);
  return compiled;
};
