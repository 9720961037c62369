import type { Store } from '../client.js';
import { str } from '../sql.js';
import { pointRead, type ReadScope } from './scope.js';

/** A row of a part: its key and its values, as text. */
export type PartRow = { part_key: string; part_values: string[] };

/**
 * A point read that can share a round trip with others (readTogether): its SQL (null: nothing to
 * read) yields rows `(part_key String, part_values Array(String))`, and `decode` makes its answer of them.
 */
export type Part<T> = { sql: string | null; decode: (rows: PartRow[]) => T | Promise<T> };

type Answers<P extends Record<string, Part<unknown>>> = { [K in keyof P]: Awaited<ReturnType<P[K]['decode']>> };

/**
 * Several point reads in one query, a UNION ALL of their SQL with each row tagged by its part. A round
 * trip to ClickHouse costs more than a small read does (bench:api, 64 connections on 2 cores: ~3 ms for
 * `SELECT 1` against 5-8 ms for a read by key), so the reads a page needs once its rows are known go
 * together. Point-read settings.
 */
export async function readTogether<P extends Record<string, Part<unknown>>>(store: Store, scope: ReadScope, parts: P): Promise<Answers<P>> {
  const names = Object.keys(parts).filter((n) => parts[n].sql !== null);
  const rows =
    names.length === 0
      ? []
      : await store.query<PartRow & { part: string }>(names.map((n) => `SELECT ${str(n)} AS part, part_key, part_values FROM (${parts[n].sql})`).join(' UNION ALL '), pointRead(scope));
  const byPart = new Map<string, PartRow[]>();
  for (const r of rows) {
    const of = byPart.get(r.part);
    if (of) of.push(r);
    else byPart.set(r.part, [r]);
  }
  const out: Record<string, unknown> = {};
  for (const [n, p] of Object.entries(parts)) out[n] = await p.decode(byPart.get(n) ?? []);
  return out as Answers<P>;
}

/** One part on its own (a read function's plain form). */
export async function readPart<T>(store: Store, scope: ReadScope, part: Part<T>): Promise<T> {
  return (await readTogether(store, scope, { part })).part;
}
