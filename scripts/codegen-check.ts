/**
 * Fails when src/generated is stale: regenerates in memory from codegen.yml and compares with
 * what is committed. `npm run codegen` rewrites it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { executeCodegen, loadContext } from '@graphql-codegen/cli';

async function main() {
  const context = await loadContext('codegen.yml');
  context.updateConfig({ silent: true });
  const outputs = await executeCodegen(context);
  const stale = outputs.filter((o) => {
    const file = path.resolve(o.filename);
    return !fs.existsSync(file) || fs.readFileSync(file, 'utf8') !== o.content;
  });
  if (stale.length) {
    console.error(`Generated code is out of date: ${stale.map((o) => o.filename).join(', ')}. Run: npm run codegen`);
    process.exit(1);
  }
  console.log(`codegen: ${outputs.length} generated file(s) up to date`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
