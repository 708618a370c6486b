/**
 * A static check of a Dockerfile for the common hadolint rules (https://github.com/hadolint/hadolint),
 * for environments without hadolint or Docker. It reads the file only; it does not build anything
 * or run hadolint's ShellCheck pass. `# hadolint ignore=DLxxxx` on the line above an instruction
 * silences that rule for it, as in hadolint.
 */

export interface Instruction {
  line: number;
  keyword: string;
  args: string;
  ignored: Set<string>;
}

export interface Finding {
  rule: string;
  line: number;
  message: string;
}

/** Instructions with continuation lines joined; comments dropped except hadolint ignores. */
export function parseDockerfile(text: string): Instruction[] {
  const out: Instruction[] = [];
  let ignored = new Set<string>();
  let current: Instruction | undefined;
  text.split('\n').forEach((raw, i) => {
    const line = raw.trimEnd();
    if (!current) {
      const trimmed = line.trim();
      if (trimmed === '') return;
      if (trimmed.startsWith('#')) {
        const ignore = /^#\s*hadolint\s+ignore=([A-Z0-9,\s]+)/i.exec(trimmed);
        if (ignore) ignored = new Set(ignore[1].split(',').map((r) => r.trim()));
        return;
      }
      const m = /^(\w+)\s*(.*)$/.exec(trimmed)!;
      current = { line: i + 1, keyword: m[1].toUpperCase(), args: m[2], ignored };
      ignored = new Set();
    } else if (line.trim().startsWith('#')) {
      return; // a comment inside a continued instruction
    } else {
      current.args += ' ' + line.trim();
    }
    if (current.args.endsWith('\\')) {
      current.args = current.args.slice(0, -1).trimEnd();
      return;
    }
    out.push(current);
    current = undefined;
  });
  if (current) out.push(current);
  return out;
}

const isJsonArray = (args: string) => {
  try {
    return Array.isArray(JSON.parse(args));
  } catch {
    return false;
  }
};

/** RUN's command without its --mount/--network flags. */
const runCommand = (args: string) => args.replace(/^(--\S+\s+)+/, '');

export function lintDockerfile(text: string): Finding[] {
  const instructions = parseDockerfile(text);
  const findings: Finding[] = [];
  const report = (ins: Instruction, rule: string, message: string) => {
    if (!ins.ignored.has(rule)) findings.push({ rule, line: ins.line, message });
  };
  const argDefaults = new Map<string, string>();
  const stages: string[] = [];
  let workdirSet = false;
  let cmdCount = 0;
  let lastUser: Instruction | undefined;
  let pipefailShell = false;
  let healthcheck = false;

  for (const ins of instructions) {
    const { keyword, args } = ins;
    if (keyword === 'ARG') {
      const [name, value] = args.split('=');
      if (value !== undefined) argDefaults.set(name.trim(), value.trim());
    }
    if (keyword === 'FROM') {
      const m = /^(?:--platform=\S+\s+)?(\S+)(?:\s+AS\s+(\S+))?$/i.exec(args);
      if (/--platform/.test(args)) report(ins, 'DL3029', 'do not use --platform with FROM');
      const image = (m?.[1] ?? '').replace(/\$\{(\w+)\}|\$(\w+)/g, (_, a, b) => argDefaults.get(a ?? b) ?? '');
      const alias = m?.[2];
      if (!stages.includes(image.split(':')[0]) && !stages.includes(image)) {
        if (!image.includes(':') && !image.includes('@') && image !== 'scratch') report(ins, 'DL3006', `tag the image version explicitly: ${image}`);
        if (/:latest$/.test(image)) report(ins, 'DL3007', 'do not use the latest tag');
      }
      if (alias) {
        if (stages.includes(alias)) report(ins, 'DL3024', `stage name ${alias} is used twice`);
        stages.push(alias);
      }
      workdirSet = false;
      cmdCount = 0;
      lastUser = undefined;
    }
    if (keyword === 'MAINTAINER') report(ins, 'DL4000', 'MAINTAINER is deprecated');
    if (keyword === 'WORKDIR') {
      if (!args.startsWith('/') && !args.startsWith('$')) report(ins, 'DL3000', 'use an absolute WORKDIR');
      workdirSet = true;
    }
    if (keyword === 'USER') lastUser = ins;
    if (keyword === 'ADD' && !/https?:\/\/|\.tar(\.\w+)?\b/.test(args)) report(ins, 'DL3020', 'use COPY instead of ADD for files and folders');
    if (keyword === 'COPY') {
      const from = /--from=(\S+)/.exec(args)?.[1];
      if (from && !/^\d+$/.test(from) && !stages.includes(from) && !from.includes(':')) {
        report(ins, 'DL3022', `COPY --from names no earlier stage: ${from}`);
      }
      const parts = args.split(/\s+/).filter((p) => !p.startsWith('--'));
      const dest = parts[parts.length - 1];
      if (!workdirSet && !dest.startsWith('/') && !dest.startsWith('$')) report(ins, 'DL3045', 'COPY to a relative path without WORKDIR');
    }
    if (keyword === 'CMD' || keyword === 'ENTRYPOINT') {
      if (!isJsonArray(args)) report(ins, 'DL3025', `use the JSON form for ${keyword}`);
      if (keyword === 'CMD' && ++cmdCount > 1) report(ins, 'DL4003', 'more than one CMD');
    }
    if (keyword === 'SHELL' && /pipefail/.test(args)) pipefailShell = true;
    if (keyword === 'HEALTHCHECK') healthcheck = true;
    if (keyword === 'RUN') {
      const cmd = runCommand(args);
      if (/(^|[;&|]\s*)cd\s/.test(cmd)) report(ins, 'DL3003', 'use WORKDIR to switch directory');
      if (/\bsudo\b/.test(cmd)) report(ins, 'DL3004', 'do not use sudo');
      if (/(^|[;&|]\s*)apt\s/.test(cmd)) report(ins, 'DL3027', 'use apt-get, not apt');
      if (/apt-get\s+update/.test(cmd) && !/rm -rf \/var\/lib\/apt\/lists/.test(cmd)) {
        report(ins, 'DL3009', 'delete the apt-get lists after installing');
      }
      for (const install of cmd.matchAll(/apt-get\s+install\s+([^;&|]*)/g)) {
        const words = install[1].trim().split(/\s+/);
        if (!words.some((w) => w === '-y' || w === '--yes' || w === '-qy' || w === '--assume-yes')) report(ins, 'DL3014', 'use apt-get install -y');
        if (!words.includes('--no-install-recommends')) report(ins, 'DL3015', 'use --no-install-recommends');
        const packages = words.filter((w) => !w.startsWith('-'));
        if (packages.some((p) => !p.includes('='))) report(ins, 'DL3008', 'pin versions in apt-get install');
      }
      if (/[^|]\|[^|]/.test(cmd) && !pipefailShell && !/set -[a-z]*o pipefail|set -o pipefail/.test(cmd)) {
        report(ins, 'DL4006', 'set -o pipefail before a RUN with a pipe');
      }
      if (/\bcurl\b/.test(cmd) && /\bwget\b/.test(cmd)) report(ins, 'DL4001', 'use either wget or curl, not both');
    }
  }
  const last = instructions[instructions.length - 1];
  if (!lastUser || /^(root|0)(:|$)/.test(lastUser.args)) {
    if (last) report(lastUser ?? last, 'DL3002', 'the final stage must switch to a non-root USER');
  }
  if (!healthcheck && last) report(last, 'DL3057', 'no HEALTHCHECK');
  return findings;
}
