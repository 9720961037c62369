import { type ClickHouseClient, ClickHouseLogLevel, createClient } from '@clickhouse/client';
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { toStoreError } from './errors.js';
import { type HttpAnswer, withHttpStatus } from './http-status.js';
import { toTsv, type TsvValue } from './tsv.js';
import { ident } from './sql.js';

export type StoreOptions = {
  /** ClickHouse HTTP endpoint, e.g. http://127.0.0.1:8123. */
  url: string;
  /** Database holding tonstream's tables; created by `migrate`. */
  database: string;
  username?: string;
  password?: string;
  /** Per-request timeout; queries also carry max_execution_time so the server stops too. Default 30 s. */
  requestTimeoutMs?: number;
  /**
   * HTTP connections to ClickHouse at once. @default 64: an API request sends several queries, and at 64
   * concurrent requests the client's own default of 10 queued them (bench:api's dataset, 64 connections,
   * interleaved runs: accountStates 57-72 -> 84-96 requests/s, the newest transactions 21-25 -> 32-33).
   */
  maxOpenConnections?: number;
  /**
   * The ClickHouse cluster (a `remote_servers` name) the index is spread over; unset: one server. Its
   * tables are then Distributed over replicated local tables (cluster/schema.ts), inserts return once
   * the shard's replicas have the rows (`insertQuorum`), and a subquery over another Distributed table
   * is sent to every shard as GLOBAL IN.
   */
  cluster?: string;
  /**
   * Replicas of a shard that must have an insert before it is acknowledged (cluster only). The
   * watermark moves after the rows' inserts return, so with every replica of a shard in the quorum no
   * replica a read may land on lacks them. @default 2
   */
  insertQuorum?: number;
};

/** Per-query limits for interactive reads (the API). */
export type QueryOptions = {
  /** Server-side limit: max_execution_time, rounded up to whole seconds (18.16 takes seconds). */
  timeoutMs?: number;
  /**
   * Cancels the query (the caller's deadline passed, its client went away): the HTTP request is aborted
   * and the query killed on the server, which 18.16 does not do when only the connection closes.
   */
  signal?: AbortSignal;
  /** More ClickHouse settings for this query (names 18.16 knows), e.g. the read layer's POINT_READ_SETTINGS. */
  settings?: Readonly<Record<string, number>>;
};

export type Store = {
  readonly client: ClickHouseClient;
  readonly database: string;
  /** The cluster the index is spread over, null on one server. */
  readonly cluster: string | null;
  /** One statement, no result. */
  command(sql: string): Promise<void>;
  /** Rows of a SELECT as objects (JSONEachRow). */
  query<T>(sql: string, options?: QueryOptions): Promise<T[]>;
  /** Rows of flat scalars (numbers, decimal strings, text), all with the keys of the first row. */
  insert(table: string, rows: Record<string, TsvValue>[]): Promise<void>;
  ping(): Promise<boolean>;
  close(): Promise<void>;
};

const MAX_OPEN_CONNECTIONS = 64;

/** Settings of every request to a cluster (names 18.16 knows). */
function clusterSettings(insertQuorum: number, timeoutMs: number) {
  return {
    // A subquery over a Distributed table inside a query over one runs once, on the node asked, and its
    // result goes to every shard (18.16's default refuses such queries).
    distributed_product_mode: 'global' as const,
    // An insert into a Distributed table returns once the shards stored it, not when it is queued.
    insert_distributed_sync: 1 as const,
    // An ON CLUSTER statement answers (TIMEOUT_EXCEEDED) before the request times out; it stays queued.
    distributed_ddl_task_timeout: String(Math.max(1, Math.floor(timeoutMs / 1000) - 2)),
    ...(insertQuorum > 1 ? { insert_quorum: String(insertQuorum), insert_quorum_timeout: timeoutMs } : {}),
  };
}
const MAX_QUERY_BYTES = 4 * 1024 * 1024;

export function createStore(options: StoreOptions): Store {
  const database = ident(options.database);
  const cluster = options.cluster ? ident(options.cluster) : null;
  const timeout = options.requestTimeoutMs ?? 30_000;
  const client = createClient({
    url: options.url,
    username: options.username,
    password: options.password ?? '',
    request_timeout: timeout,
    max_open_connections: options.maxOpenConnections ?? MAX_OPEN_CONNECTIONS,
    // Errors are translated into StoreError and surfaced by the caller; the client's own logging would duplicate them.
    log: { level: ClickHouseLogLevel.OFF },
    // Only settings 18.16 knows; anything newer makes every request fail with "Unknown setting".
    // 64-bit integers as JSON strings: 18.16's default, no longer the default since 25.8, and the only
    // form JSON.parse reads exactly (lt, shard, balances are above 2^53).
    // max_query_size: a v3 request may name 1000 addresses, repeated in a read's subqueries (over the default 256 KiB).
    clickhouse_settings: {
      max_execution_time: Math.ceil(timeout / 1000),
      output_format_json_quote_64bit_integers: 1,
      max_query_size: String(MAX_QUERY_BYTES),
      ...(cluster ? clusterSettings(options.insertQuorum ?? 2, timeout) : {}),
    },
  });
  return {
    client,
    database,
    cluster,
    async command(sql) {
      const answer: HttpAnswer = {};
      try {
        await withHttpStatus(answer, () => client.command({ query: sql }));
      } catch (err) {
        throw toStoreError(err, 'command failed', answer.status);
      }
    },
    async query<T>(sql: string, options: QueryOptions = {}) {
      const { signal } = options;
      const queryId = signal ? randomUUID() : undefined;
      const kill = () => void client.command({ query: `KILL QUERY WHERE query_id = '${queryId}'` }).catch(() => {});
      signal?.addEventListener('abort', kill, { once: true });
      const answer: HttpAnswer = {};
      try {
        // wait_end_of_query: an error mid-stream comes back as an error, not as broken JSON.
        const settings: Record<string, number> = { ...options.settings, wait_end_of_query: 1 };
        if (options.timeoutMs !== undefined) settings.max_execution_time = Math.max(1, Math.ceil(options.timeoutMs / 1000));
        const rs = await withHttpStatus(answer, () => client.query({ query: sql, format: 'JSONEachRow', clickhouse_settings: settings, abort_signal: signal, query_id: queryId }));
        return (await rs.json()) as T[];
      } catch (err) {
        throw toStoreError(err, 'query failed', answer.status);
      } finally {
        signal?.removeEventListener('abort', kill);
      }
    },
    async insert(table, rows) {
      if (rows.length === 0) return;
      const columns = Object.keys(rows[0]);
      const answer: HttpAnswer = {};
      try {
        const text = toTsv(rows as Record<string, TsvValue>[], columns);
        await withHttpStatus(answer, () => client.insert({
          table: `${database}.${ident(table)}`,
          columns: columns.map(ident) as [string, ...string[]],
          values: Readable.from([text], { objectMode: false }),
          format: 'TabSeparated',
        }));
      } catch (err) {
        throw toStoreError(err, `insert into ${table} failed`, answer.status);
      }
    },
    async ping() {
      const r = await client.ping();
      return r.success;
    },
    close: () => client.close(),
  };
}
