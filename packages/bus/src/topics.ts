/** Largest Kafka message the bus produces or accepts: mainnet blocks reach several MB. */
export const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

/**
 * The pipeline's topics. `prefix` isolates deployments and test runs sharing one cluster.
 * - blocks: raw block BoCs with the touched accounts' states (fetcher -> decoder), key = block id
 * - transactions / messages / account_states: decoded records (decoder -> writer), key = account or hash
 * - block_meta: one record per decoded block, published after its transactions and messages
 * - traces / actions: the tracer's output (tracer -> writer), key = trace id so a trace's versions stay in order
 * - traceBatches: one mark per masterchain block the tracer published (tracer -> writer): what the traces watermark counts
 * - pendingExternals: external messages as they arrive (API sendBoc, POST /message, any other source -> emulator), key = destination; `pending-external.ts`
 * - pendingTraces: the emulator's pending traces as it stores them and their invalidation (emulator -> streamer), key = the external's hash_norm
 * - checkpoints: compacted; the fetcher's last fully published masterchain seqno
 * - blocksDeadLetters: raw blocks the decoder could not decode or publish, with the reason in headers
 * - recordsDeadLetters: records the writer refused (invalid, too big), with the reason in headers
 * Record payloads and headers: packages/records/README.md.
 */
export type Topics = {
  blocks: string;
  transactions: string;
  messages: string;
  accountStates: string;
  blockMeta: string;
  traces: string;
  actions: string;
  traceBatches: string;
  pendingExternals: string;
  pendingTraces: string;
  checkpoints: string;
  blocksDeadLetters: string;
  recordsDeadLetters: string;
};

export function topicNames(prefix = ''): Topics {
  return {
    blocks: `${prefix}ton.blocks`,
    transactions: `${prefix}ton.transactions`,
    messages: `${prefix}ton.messages`,
    accountStates: `${prefix}ton.account_states`,
    blockMeta: `${prefix}ton.block_meta`,
    traces: `${prefix}ton.traces`,
    actions: `${prefix}ton.actions`,
    traceBatches: `${prefix}ton.trace_batches`,
    pendingExternals: `${prefix}ton.pending_externals`,
    pendingTraces: `${prefix}ton.pending_traces`,
    checkpoints: `${prefix}ton.checkpoints`,
    blocksDeadLetters: `${prefix}ton.blocks.dlq`,
    recordsDeadLetters: `${prefix}ton.records.dlq`,
  };
}

export type TopicSpec = { topic: string; numPartitions: number; configEntries: { name: string; value: string }[] };

/** Partition counts bound consumer parallelism; records are keyed so any count works. */
export function topicSpecs(topics: Topics, partitions = 4, maxMessageBytes = MAX_MESSAGE_BYTES): TopicSpec[] {
  const big = [{ name: 'max.message.bytes', value: String(maxMessageBytes) }];
  return [
    { topic: topics.blocks, numPartitions: partitions, configEntries: big },
    { topic: topics.transactions, numPartitions: partitions, configEntries: big },
    { topic: topics.messages, numPartitions: partitions, configEntries: big },
    { topic: topics.accountStates, numPartitions: partitions, configEntries: big },
    { topic: topics.blockMeta, numPartitions: 1, configEntries: big },
    { topic: topics.traces, numPartitions: partitions, configEntries: big },
    { topic: topics.actions, numPartitions: partitions, configEntries: big },
    { topic: topics.traceBatches, numPartitions: 1, configEntries: [] },
    { topic: topics.pendingExternals, numPartitions: partitions, configEntries: [] },
    // Short-lived by nature (a pending trace lives a minute): an hour keeps a restarted streamer's read-back.
    { topic: topics.pendingTraces, numPartitions: partitions, configEntries: [...big, { name: 'retention.ms', value: '3600000' }] },
    { topic: topics.checkpoints, numPartitions: 1, configEntries: [{ name: 'cleanup.policy', value: 'compact' }] },
    // A dead letter is as big as what it holds: a raw block or a record.
    { topic: topics.blocksDeadLetters, numPartitions: 1, configEntries: big },
    { topic: topics.recordsDeadLetters, numPartitions: 1, configEntries: big },
  ];
}
