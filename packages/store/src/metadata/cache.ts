import type { QueryOptions, Store } from '../client.js';
import { str, strList, uint } from '../sql.js';

/** The outcome of a URI (schema.ts): `pending` and `retry` are still to be fetched. */
export type MetadataStatus = 'pending' | 'retry' | 'ok' | 'failed';
export type MetadataEntry = {
  uri: string;
  status: MetadataStatus;
  /** Why the last attempt failed (timeout, too_large, bad_json, too_many_redirects, http_404, ...); '' when ok or pending. */
  reason: string;
  /** The fetched JSON object's text when ok, else ''. */
  content: string;
  attempts: number;
  /** Unix ms; when a `retry` entry is due. */
  next_attempt_at: number;
  /** Unix ms of the outcome; 0 for `pending`. */
  updated_at: number;
};

/** URIs per IN list: keeps each request well under ClickHouse's query size limit (256 KiB by default). */
const URIS_PER_QUERY = 500;
const COLUMNS = 'uri, status, reason, content, attempts, next_attempt_at, updated_at';
type StoredEntry = Omit<MetadataEntry, 'next_attempt_at' | 'updated_at'> & { next_attempt_at: string | number; updated_at: string | number };

const fromRow = (r: StoredEntry): MetadataEntry => ({ ...r, attempts: Number(r.attempts), next_attempt_at: Number(r.next_attempt_at), updated_at: Number(r.updated_at) });
const latest = (store: Store, where: string) => `SELECT ${COLUMNS} FROM ${store.database}.token_metadata ${where} ORDER BY uri, updated_at DESC LIMIT 1 BY uri`;

/** The latest entry of each URI asked for that the cache knows. */
export async function readMetadataEntries(store: Store, uris: Iterable<string>, query?: QueryOptions): Promise<Map<string, MetadataEntry>> {
  const wanted = [...new Set(uris)];
  const out = new Map<string, MetadataEntry>();
  for (let i = 0; i < wanted.length; i += URIS_PER_QUERY) {
    const rows = await store.query<StoredEntry>(latest(store, `WHERE uri IN ${strList(wanted.slice(i, i + URIS_PER_QUERY))}`), query);
    for (const r of rows) out.set(r.uri, fromRow(r));
  }
  return out;
}

/** Entries still to fetch (pending, or retry), due first; at most `limit`. */
export async function readUnresolvedMetadata(store: Store, limit: number): Promise<MetadataEntry[]> {
  const rows = await store.query<StoredEntry>(`SELECT * FROM (${latest(store, '')}) WHERE status IN ('pending', 'retry') ORDER BY next_attempt_at, uri LIMIT ${uint(limit)}`);
  return rows.map(fromRow);
}

/** Stores outcomes (and pending entries); a later `updated_at` replaces an earlier one. */
export async function writeMetadataEntries(store: Store, entries: readonly MetadataEntry[]): Promise<void> {
  await store.insert('token_metadata', entries.map((e) => ({ ...e })));
}

/** Adds a `pending` entry for each URI the cache does not know yet; returns those. */
export async function addPendingUris(store: Store, uris: Iterable<string>): Promise<string[]> {
  const wanted = [...new Set(uris)];
  if (wanted.length === 0) return [];
  const known = await readMetadataEntries(store, wanted);
  const fresh = wanted.filter((u) => !known.has(u));
  await writeMetadataEntries(store, fresh.map((uri) => ({ uri, status: 'pending', reason: '', content: '', attempts: 0, next_attempt_at: 0, updated_at: 0 })));
  return fresh;
}

/** The discovery cursor (0 before the first scan). */
export async function readMetadataCursor(store: Store, name: string): Promise<number> {
  const rows = await store.query<{ mc_seqno: number }>(`SELECT mc_seqno FROM ${store.database}.token_metadata_progress WHERE name = ${str(name)} ORDER BY updated_at DESC LIMIT 1`);
  return rows.length === 0 ? 0 : Number(rows[0].mc_seqno);
}

export async function saveMetadataCursor(store: Store, name: string, mcSeqno: number): Promise<void> {
  await store.insert('token_metadata_progress', [{ name, mc_seqno: mcSeqno, updated_at: Date.now() }]);
}
