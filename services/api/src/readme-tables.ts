import type { Params } from './http/params.js';
import { V2_METHODS } from './v2/index.js';
import { V3_ENDPOINTS } from './v3/index.js';

/**
 * The README's endpoint tables, rendered from the declarations (method, path, parameters, summary)
 * so that they cannot drift from the code: test/unit/api-readme-tables.test.ts fails when the README
 * differs and rewrites it with UPDATE_README=1.
 */

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ');

/** `name`, `name`[] for a repeatable one, `*` when required. */
const parameters = (params: Params) =>
  Object.entries(params).map(([name, p]) => `\`${name}\`${p.array ? '[]' : ''}${p.required ? '*' : ''}`).join(', ') || '—';

function table(header: string[], rows: string[][]): string {
  return [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.map(cell).join(' | ')} |`)].join('\n');
}

export function v3Table(): string {
  return table(
    ['method', 'path', 'parameters (`*` required, `[]` repeatable)', 'summary'],
    V3_ENDPOINTS.map((e) => [(e.methods ?? ['get']).map((m) => m.toUpperCase()).join(', '), `\`/api/v3${e.path}\``, parameters(e.params), e.summary]),
  );
}

export function v2Table(): string {
  return table(
    ['method', 'HTTP', 'parameters (`*` required, `[]` repeatable)', 'from', 'summary'],
    V2_METHODS.map((m) => [[m.name, ...(m.aliases ?? [])].map((n) => `\`${n}\``).join(' / '), (m.http ?? 'get+post') === 'post' ? 'POST' : 'GET, POST', parameters(m.params), m.source, m.summary]),
  );
}

const TABLES: Record<string, () => string> = { v3: v3Table, v2: v2Table };

/** `text` with each `<!-- endpoints:NAME -->` … `<!-- /endpoints -->` section rendered anew. */
export function renderEndpointTables(text: string): string {
  return text.replace(/(<!-- endpoints:(\w+) -->\n)[\s\S]*?(<!-- \/endpoints -->)/g, (_all, open: string, name: string, close: string) => {
    const render = TABLES[name];
    if (!render) throw new Error(`no endpoint table named ${name}`);
    return `${open}${render()}\n${close}`;
  });
}
