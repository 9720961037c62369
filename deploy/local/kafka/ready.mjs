// Readiness probe used by deploy/local/lib/kafka.sh: exits 0 once a client gets cluster metadata
// and a group coordinator from the broker listener given as argv[2] (host:port), 1 otherwise.
import kafkajs from 'kafkajs';

const broker = process.argv[2] ?? '127.0.0.1:9092';
const kafka = new kafkajs.Kafka({
  clientId: 'tonstream-ready',
  brokers: [broker],
  connectionTimeout: 2000,
  requestTimeout: 5000,
  retry: { retries: 0 },
  logLevel: kafkajs.logLevel.NOTHING,
});
const admin = kafka.admin();
try {
  await admin.connect();
  const cluster = await admin.describeCluster();
  if (cluster.brokers.length === 0) throw new Error('no brokers in metadata');
  await admin.listTopics();
  // Finding a group coordinator creates __consumer_offsets on a fresh broker, so consumer groups
  // work as soon as `up` returns (this fails, and the probe is retried, until it exists).
  await admin.describeGroups(['tonstream-ready-probe']);
  await admin.disconnect();
  process.exit(0);
} catch (err) {
  console.error(`kafka ready probe (${broker}): ${err instanceof Error ? err.message : String(err)}`);
  await admin.disconnect().catch(() => {});
  process.exit(1);
}
