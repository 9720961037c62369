import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { clusterSchema, CONTROL_TABLES, leadingKey, snapshotStatements } from './schema.js';

const schemaSql = readFileSync(new URL('../../schema.sql', import.meta.url), 'utf8');
const names = (kind: RegExp) => snapshotStatements(schemaSql).flatMap((s) => kind.exec(s)?.[1] ?? []);

describe('clusterSchema', () => {
  const schema = clusterSchema(schemaSql, 'idx', 'c1');
  const all = schema.flatMap((t) => t.statements);

  it('makes every table and view of the single-node schema, once, ON CLUSTER and IF NOT EXISTS', () => {
    expect(schema.map((t) => t.name).sort()).toEqual([...names(/^CREATE TABLE \{database\}\.(\w+)/), ...names(/^CREATE MATERIALIZED VIEW \{database\}\.(\w+)/)].sort());
    for (const s of all) expect(s).toMatch(/^CREATE (TABLE|MATERIALIZED VIEW) IF NOT EXISTS idx\.\w+ ON CLUSTER c1 /);
    expect(all.join('\n')).not.toContain('{database}');
  });

  it('shards history tables by their leading key and replicates the control tables to every node', () => {
    const tx = schema.find((t) => t.name === 'transactions')!;
    expect(tx.kind).toBe('sharded');
    expect(tx.statements[0]).toContain("ReplicatedReplacingMergeTree('/clickhouse/tables/tonstream/idx/{shard}/transactions', '{replica}')");
    expect(tx.statements[1]).toBe('CREATE TABLE IF NOT EXISTS idx.transactions ON CLUSTER c1 AS idx.transactions_local ENGINE = Distributed(c1, idx, transactions_local, cityHash64(account))');
    // The version column survives: the latest state per account is still the highest lt.
    expect(schema.find((t) => t.name === 'account_states_latest')!.statements[0]).toContain("'{replica}', last_trans_lt) ORDER BY account");
    expect(schema.find((t) => t.name === 'blocks')!.statements[1]).toContain('cityHash64(workchain, shard, seqno)');
    for (const name of CONTROL_TABLES) {
      const t = schema.find((x) => x.name === name)!;
      expect(t.kind).toBe('control');
      expect(t.statements).toHaveLength(1);
      expect(t.statements[0]).toContain(`'/clickhouse/tables/tonstream/idx/all/${name}'`);
    }
  });

  it('puts every view on the local tables, after the tables it reads and fills', () => {
    const order = schema.map((t) => t.name);
    const view = schema.find((t) => t.name === 'accounts_by_balance_mv')!;
    expect(view.statements[0]).toMatch(/TO idx\.accounts_by_balance_local AS SELECT .* FROM idx\.account_states_local$/);
    for (const v of schema.filter((t) => t.kind === 'view')) {
      const [, target] = /TO idx\.(\w+)_local/.exec(v.statements[0])!;
      const source = /FROM idx\.(\w+)_local/.exec(v.statements[0])![1];
      expect(order.indexOf(v.name)).toBeGreaterThan(order.indexOf(target));
      expect(order.indexOf(v.name)).toBeGreaterThan(order.indexOf(source));
    }
  });

  it('reads the leading key of an ORDER BY', () => {
    expect(leadingKey('ORDER BY (account, lt) SETTINGS index_granularity = 256')).toBe('account');
    expect(leadingKey('PARTITION BY intDiv(mc_seqno, 1000000) ORDER BY (mc_seqno, block) SETTINGS x = 1')).toBe('mc_seqno');
    expect(leadingKey('ORDER BY hash SETTINGS index_granularity = 8192')).toBe('hash');
    expect(leadingKey('ORDER BY tuple() SETTINGS index_granularity = 8192')).toBeNull();
  });
});
