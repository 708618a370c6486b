/**
 * Summarise a V8 CPU profile (.cpuprofile, from `node --cpu-prof` or from the bench server's
 * /__bench/profile endpoints): top functions by self time, self time by package or source file,
 * and top functions by inclusive time.
 *
 *   npx tsx bench/profile.ts path/to/file.cpuprofile [top]
 */
import fs from 'node:fs';
import path from 'node:path';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
export interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface Row {
  name: string;
  ms: number;
  /** Share of busy (non-idle) time. */
  pct: number;
}

export interface ProfileSummary {
  wallMs: number;
  busyMs: number;
  idleMs: number;
  gcMs: number;
  topSelf: Row[];
  selfByGroup: Row[];
  topInclusive: Row[];
}

const ROOT = path.resolve(__dirname, '..');
const SPECIAL = new Set(['(root)', '(program)', '(idle)', '(garbage collector)']);

/** `express`, `@apollo/server`, `src/rest/router.ts`, `node:internal/...`, `(native)`. */
export function groupOf(url: string, fn: string): string {
  if (!url) return SPECIAL.has(fn) ? fn : '(native V8 builtins)';
  const clean = url.replace(/^file:\/\//, '');
  const nm = clean.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const parts = clean.slice(nm + 'node_modules/'.length).split('/');
    return parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
  }
  if (clean.startsWith('node:')) return clean.split('/').slice(0, 2).join('/');
  return path.relative(ROOT, clean) || clean;
}

function frameName(f: CallFrame): string {
  const fn = f.functionName || '(anonymous)';
  if (!f.url) return fn;
  const group = groupOf(f.url, fn);
  if (f.url.includes('node_modules/')) return `${fn}  ${group}/${path.basename(f.url)}:${f.lineNumber + 1}`;
  if (f.url.startsWith('node:')) return `${fn}  ${group}:${f.lineNumber + 1}`;
  // Our own .ts files run through tsx, whose generated line numbers say nothing about the source.
  return `${fn}  ${group}`;
}

export function summarize(profile: CpuProfile, top = 25): ProfileSummary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

  const self = new Map<number, number>(); // node id -> µs
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));

  let idle = 0;
  let gc = 0;
  let total = 0;
  const selfByFn = new Map<string, number>();
  const selfByGroup = new Map<string, number>();
  const inclusive = new Map<string, number>();
  for (const [id, us] of self) {
    const node = byId.get(id)!;
    const f = node.callFrame;
    total += us;
    if (f.functionName === '(idle)') {
      idle += us;
      continue;
    }
    if (f.functionName === '(garbage collector)') gc += us;
    const name = frameName(f);
    selfByFn.set(name, (selfByFn.get(name) ?? 0) + us);
    const group = groupOf(f.url, f.functionName);
    selfByGroup.set(group, (selfByGroup.get(group) ?? 0) + us);
    // Inclusive: every distinct function on this node's stack gets the node's self time.
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const cf = byId.get(cur)!.callFrame;
      if (cf.functionName === '(root)') continue;
      const key = frameName(cf);
      if (seen.has(key)) continue;
      seen.add(key);
      inclusive.set(key, (inclusive.get(key) ?? 0) + us);
    }
  }
  const busy = total - idle;
  const rows = (m: Map<string, number>, n: number): Row[] =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([name, us]) => ({ name, ms: Math.round(us / 100) / 10, pct: Math.round((1000 * us) / busy) / 10 }));
  return {
    wallMs: Math.round((profile.endTime - profile.startTime) / 1000),
    busyMs: Math.round(busy / 1000),
    idleMs: Math.round(idle / 1000),
    gcMs: Math.round(gc / 1000),
    topSelf: rows(selfByFn, top),
    selfByGroup: rows(selfByGroup, top),
    topInclusive: rows(inclusive, top),
  };
}

export function formatSummary(s: ProfileSummary): string {
  const table = (title: string, rows: Row[]) =>
    [
      `  ${title}`,
      ...rows.map((r) => `    ${r.pct.toFixed(1).padStart(5)}%  ${r.ms.toFixed(0).padStart(7)} ms  ${r.name}`),
    ].join('\n');
  return [
    `  wall ${s.wallMs} ms, busy ${s.busyMs} ms (idle ${s.idleMs} ms, GC ${s.gcMs} ms); % of busy time`,
    table('top self time by function', s.topSelf),
    table('self time by package / source file', s.selfByGroup),
    table('top inclusive time by function', s.topInclusive),
  ].join('\n');
}

if (require.main === module) {
  const [file, top] = process.argv.slice(2);
  if (!file) {
    console.error('usage: tsx bench/profile.ts <file.cpuprofile> [top]');
    process.exit(2);
  }
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as CpuProfile;
  console.log(formatSummary(summarize(profile, top ? Number(top) : 25)));
}
