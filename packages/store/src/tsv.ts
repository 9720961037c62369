/** A row value the store writes: numbers, decimal strings for UInt64, text. */
export type TsvValue = string | number;

const NEEDS_ESCAPE = /[\\\t\n\r\0]/;

/** One field in ClickHouse's TabSeparated escaping: backslash, tab, newline, carriage return, NUL. */
export function tsvField(v: TsvValue): string {
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new Error(`not a finite number: ${v}`);
    return String(v);
  }
  if (!NEEDS_ESCAPE.test(v)) return v;
  return v.replace(/[\\\t\n\r\0]/g, (c) => (c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\n' ? '\\n' : c === '\r' ? '\\r' : '\\0'));
}

/** An Array value in ClickHouse's literal form (the TSV field escaping is applied after). */
export function tsvArray(values: readonly TsvValue[]): string {
  return `[${values.map((v) => (typeof v === 'number' ? String(v) : `'${v.replace(/[\\']/g, (c) => `\\${c}`)}'`)).join(',')}]`;
}

/**
 * Rows as TabSeparated text, columns in the order of `columns`. Our rows are flat scalars, so this
 * is a join; the client's JSONEachRow path JSON-encodes every row and was the writer's largest cost.
 */
export function toTsv(rows: Record<string, TsvValue>[], columns: string[]): string {
  const lines = new Array<string>(rows.length);
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i];
    let line = '';
    for (let c = 0; c < columns.length; c++) {
      const v = row[columns[c]];
      if (v === undefined) throw new Error(`row ${i} lacks column ${columns[c]}`);
      line += (c === 0 ? '' : '\t') + tsvField(v);
    }
    lines[i] = line;
  }
  return lines.join('\n') + '\n';
}
