/** A service's environment variables as a Markdown table, rendered from its fields (its README shows it). */
import type { Field, Fields } from './config.js';

export function renderEnvTable(fields: Fields): string {
  const rows = Object.values(fields).map((f) => `| \`${f.env}\` | ${shownDefault(f)} | ${cell(f.accepts)} | ${cell(f.doc)} |`);
  return ['| variable | default | accepts | meaning |', '|---|---|---|---|', ...rows].join('\n');
}

function shownDefault(field: Field<unknown>): string {
  if (field.shownDefault !== undefined) return cell(field.shownDefault);
  const def = field.default;
  if (def === undefined) return 'required';
  if (def === null) return 'unset';
  if (def === '') return 'empty';
  return `\`${Array.isArray(def) ? def.join(',') : String(def)}\``;
}

const cell = (text: string) => text.replaceAll('|', '\\|');
