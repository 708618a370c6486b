import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * `npm start`'s build step (scripts/build-if-stale.mjs) on a small project of its own: it compiles
 * when src/ changed since the last build, and only then.
 */

const SCRIPT = path.resolve(__dirname, '..', '..', 'scripts', 'build-if-stale.mjs');
let root: string;

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'build-if-stale-'));
  fs.mkdirSync(path.join(root, 'src'));
  fs.writeFileSync(path.join(root, 'tsconfig.json'), JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'commonjs', strict: true } }));
  fs.writeFileSync(
    path.join(root, 'tsconfig.build.json'),
    JSON.stringify({ extends: './tsconfig.json', compilerOptions: { rootDir: 'src', outDir: 'dist' }, include: ['src/**/*.ts'] }),
  );
  fs.writeFileSync(path.join(root, 'src', 'main.ts'), 'export const answer: number = 42;\n');
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

const build = () => {
  const r = spawnSync(process.execPath, [SCRIPT, root], { encoding: 'utf8' });
  return { code: r.status, said: r.stderr.trim().split('\n')[0] };
};
/** Mark a file as changed a second from now, as an editor saving it would. */
const touch = (file: string) => {
  const later = new Date(Date.now() + 1000);
  fs.utimesSync(file, later, later);
};

test('compiles on the first start, not on the next, and again after a source changes, is added or is removed', () => {
  expect(build()).toEqual({ code: 0, said: 'build: src/ changed since the last build; compiling into dist/' });
  const output = path.join(root, 'dist', 'main.js');
  expect(fs.readFileSync(output, 'utf8')).toContain('exports.answer = 42');
  const builtAt = fs.statSync(output).mtimeMs;

  expect(build()).toEqual({ code: 0, said: expect.stringMatching(/^build: dist\/ is up to date with src\//) });
  expect(fs.statSync(output).mtimeMs).toBe(builtAt);

  fs.writeFileSync(path.join(root, 'src', 'main.ts'), 'export const answer: number = 43;\n');
  touch(path.join(root, 'src', 'main.ts'));
  expect(build().said).toMatch(/compiling/);
  expect(fs.readFileSync(output, 'utf8')).toContain('exports.answer = 43');

  fs.writeFileSync(path.join(root, 'src', 'extra.ts'), 'export const more = 1;\n');
  touch(path.join(root, 'src'));
  expect(build().said).toMatch(/compiling/);
  expect(fs.existsSync(path.join(root, 'dist', 'extra.js'))).toBe(true);
  expect(build().said).toMatch(/up to date/);

  fs.rmSync(path.join(root, 'src', 'extra.ts'));
  touch(path.join(root, 'src'));
  expect(build().said).toMatch(/compiling/);
});

test('a failed compile leaves the next start to compile again', () => {
  fs.writeFileSync(path.join(root, 'src', 'main.ts'), 'export const answer: number = "not a number";\n');
  expect(build().code).not.toBe(0);
  expect(build()).toMatchObject({ said: expect.stringMatching(/compiling/) });
});
