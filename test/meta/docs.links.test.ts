/**
 * The README is a front page and the rest lives in docs/: every relative link in them must lead
 * to a file of the repository, and every `#anchor` to a heading of that file (GitHub's slugs).
 */
import fs from 'node:fs';
import path from 'node:path';

const root = path.join(__dirname, '..', '..');
const pages = ['README.md', ...fs.readdirSync(path.join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

/** GitHub's heading anchor: lower case, punctuation dropped, spaces to hyphens (outside code blocks). */
function anchors(file: string): Set<string> {
  const text = fs.readFileSync(path.join(root, file), 'utf8').replace(/```[\s\S]*?```/g, '');
  const out = new Set<string>();
  for (const m of text.matchAll(/^#+ (.*)$/gm)) {
    out.add(m[1].trim().toLowerCase().replace(/[^\p{L}\p{N}\- _]/gu, '').replace(/ /g, '-'));
  }
  return out;
}

function links(file: string): string[] {
  const text = fs.readFileSync(path.join(root, file), 'utf8').replace(/```[\s\S]*?```/g, '');
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]).filter((t) => !/^[a-z]+:/i.test(t));
}

describe('documentation links', () => {
  it.each(pages)('every relative link in %s resolves', (page) => {
    const broken: string[] = [];
    for (const target of links(page)) {
      const [file, anchor] = target.split('#');
      const resolved = file === '' ? page : path.normalize(path.join(path.dirname(page), file));
      if (!fs.existsSync(path.join(root, resolved))) broken.push(`${target} (no file ${resolved})`);
      else if (anchor && resolved.endsWith('.md') && !anchors(resolved).has(anchor)) broken.push(`${target} (no heading #${anchor})`);
    }
    expect(broken).toEqual([]);
  });

  it('the README is a front page, not a manual', () => {
    const lines = fs.readFileSync(path.join(root, 'README.md'), 'utf8').split('\n').length;
    expect(lines).toBeLessThanOrEqual(250);
  });
});
