import { describe, expect, it } from 'vitest';
import { formatCreateStatement } from '../support/schema-snapshot.js';

describe('formatCreateStatement', () => {
  it('puts each top-level column on a line and the placeholder for the database', () => {
    const shown =
      'CREATE TABLE tonstream_x.traces ( trace_id String,  tx_hashes Array(String),  updated_at DateTime DEFAULT now()) ENGINE = ReplacingMergeTree(end_lt) ORDER BY (trace_id, end_lt) SETTINGS index_granularity = 256';
    expect(formatCreateStatement(shown, 'tonstream_x')).toBe(
      [
        'CREATE TABLE {database}.traces (',
        '  trace_id String,',
        '  tx_hashes Array(String),',
        '  updated_at DateTime DEFAULT now()',
        ') ENGINE = ReplacingMergeTree(end_lt) ORDER BY (trace_id, end_lt) SETTINGS index_granularity = 256;',
      ].join('\n'),
    );
  });

  it('keeps a view\'s query as printed, and a longer name that starts with the database name', () => {
    const shown = 'CREATE MATERIALIZED VIEW db.m_mv TO db.m ( a Int64) AS SELECT a FROM db.messages  WHERE db_x = 1';
    expect(formatCreateStatement(shown, 'db')).toBe('CREATE MATERIALIZED VIEW {database}.m_mv TO {database}.m (\n  a Int64\n) AS SELECT a FROM {database}.messages  WHERE db_x = 1;');
  });
});
