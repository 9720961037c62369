import { partitionForKey } from './partition.js';

/**
 * Values on the decoded-record topics are bundles: one or more JSON records, one per line
 * (JSON text never holds a raw newline, so a single record is a bundle of one). The decoder
 * bundles the records of one block that go to the same partition, so a block with 300
 * transactions costs a handful of Kafka messages instead of hundreds; per-message work in the
 * client and the broker was the largest cost of the pipeline. Every record in a bundle has a key
 * that maps to the bundle's partition, so partitioning by account or hash holds per record.
 */
export type KeyedRecord = { key: string; json: string };

export type Bundle = { partition: number; value: string };

/** Groups records by the partition Kafka's default partitioner picks for their keys, keeping their order. */
export function bundleByPartition(records: readonly KeyedRecord[], partitions: number): Bundle[] {
  const lines: string[][] = Array.from({ length: partitions }, () => []);
  for (const r of records) lines[partitionForKey(r.key, partitions)].push(r.json);
  const out: Bundle[] = [];
  lines.forEach((l, partition) => {
    if (l.length > 0) out.push({ partition, value: l.join('\n') });
  });
  return out;
}

/** The JSON texts of a bundle's records (blank lines, e.g. a trailing newline, are ignored). */
export function bundleLines(value: Buffer | string): string[] {
  const text = typeof value === 'string' ? value : value.toString('utf8');
  return text.split('\n').filter((line) => line.length > 0);
}
