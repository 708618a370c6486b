/**
 * Where src/graphql/compiled.ts's size estimate comes from: the heap one compiled operation keeps,
 * per field of the operation (fragments expanded), for operations of one to seventy fields.
 *
 *   node --expose-gc --no-compilation-cache -r tsx/cjs bench/compiled-size.ts
 *
 * V8's cache of evaluated sources is off so that only what the live compiled function holds
 * counts (with it on, identical generated sources are shared and the figures mislead).
 */
import { parse } from 'graphql';
import { compileQuery } from 'graphql-jit';
import { operationFields } from '../src/graphql/compiled';
import { buildSchema } from '../src/graphql/schema';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc --no-compilation-cache -r tsx/cjs bench/compiled-size.ts');

const schema = buildSchema();
const SHAPES: Array<[string, (i: number) => string]> = [
  ['one record', (i) => `{ song(id: ${i}) { id name artists } }`],
  ['nested', (i) => `{ services(limit: ${i}) { id date serviceType songs { id name artists } } }`],
  ['three levels', (i) => `{ songs(limit: ${i}) { id name artists services { id date serviceType songs { id name artists services { id date } } } } }`],
  ['ten aliases', (i) => `query Q${i} { ${Array.from({ length: 10 }, (_, k) => `a${k}: songs(limit: ${k + 1}) { id name artists services { id date } }`).join(' ')} }`],
  ['fragments', (i) => `query Q${i} { a: songs(limit: ${i}) { ...S } b: services { id songs { ...S } } } fragment S on Song { id name artists services { id date serviceType songs { id name } } }`],
];

const N = 300;
for (const [name, make] of SHAPES) {
  const kept: unknown[] = [];
  gc();
  gc();
  const before = process.memoryUsage().heapUsed;
  let fields = 0;
  for (let i = 1; i <= N; i++) {
    const document = parse(make(i));
    fields = operationFields(document, undefined);
    kept.push(compileQuery(schema, document));
  }
  gc();
  gc();
  const perOperation = (process.memoryUsage().heapUsed - before) / kept.length;
  console.log(`${name.padEnd(14)} ${String(fields).padStart(3)} fields  ${Math.round(perOperation / 1024)} KiB per operation  ${(perOperation / fields / 1024).toFixed(1)} KiB per field`);
}
