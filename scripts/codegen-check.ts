/**
 * Fails when src/generated is stale: regenerates in memory from codegen.yml and the texts of
 * scripts/generated-texts.ts (the REST routes' documents, the stores' statements) and compares
 * with what is committed. `npm run codegen` rewrites them.
 */
import fs from 'node:fs';
import path from 'node:path';
import { executeCodegen, loadContext } from '@graphql-codegen/cli';
import { generatedTexts, staleTexts } from './generated-texts';

async function main() {
  const context = await loadContext('codegen.yml');
  context.updateConfig({ silent: true });
  const outputs = await executeCodegen(context);
  const stale = outputs
    .filter((o) => {
      const file = path.resolve(o.filename);
      return !fs.existsSync(file) || fs.readFileSync(file, 'utf8') !== o.content;
    })
    .map((o) => o.filename);
  stale.push(...staleTexts());
  if (stale.length) {
    console.error(`Generated code is out of date: ${stale.join(', ')}. Run: npm run codegen`);
    process.exit(1);
  }
  console.log(`codegen: ${outputs.length + generatedTexts().length} generated file(s) up to date`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
