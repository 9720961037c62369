import kafkajs, { type Kafka, type ProducerRecord } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { createIdempotentProducer, kafkaErrorType, LOST_SEQUENCE_RETRIES } from './producer.js';

/** What kafkajs's retrier throws for a broker's refusal. */
function brokerError(type: string) {
  const refusal = new kafkajs.KafkaJSProtocolError({ type, code: 0, retriable: false, message: type });
  return new kafkajs.KafkaJSNonRetriableError(refusal, { cause: refusal });
}

/**
 * A kafkajs stand-in: each producer it opens answers sends with `answer(producer number, send number)`
 * (an error to throw, or nothing), after a tick; it counts sends in flight at once.
 */
function fakeKafka(answer: (producer: number, send: number) => Error | undefined) {
  const seen = { producers: 0, connects: 0, disconnects: 0, sends: [] as string[], mostInFlight: 0 };
  let inFlight = 0;
  const kafka = {
    producer(config: { idempotent?: boolean; maxInFlightRequests?: number }) {
      expect(config).toMatchObject({ idempotent: true, maxInFlightRequests: 1 });
      const id = ++seen.producers;
      let sends = 0;
      const send = async (record: ProducerRecord) => {
        const n = ++sends;
        inFlight++;
        seen.mostInFlight = Math.max(seen.mostInFlight, inFlight);
        await new Promise((r) => setTimeout(r, 2));
        inFlight--;
        const err = answer(id, n);
        if (err) throw err;
        seen.sends.push(`${id}:${String(record.messages[0]?.value)}`);
        return [];
      };
      return {
        connect: async () => void seen.connects++,
        disconnect: async () => void seen.disconnects++,
        send,
        sendBatch: async (b: { topicMessages: ProducerRecord[] }) => send(b.topicMessages[0]!),
      };
    },
  } as unknown as Kafka;
  return { kafka, seen };
}

const record = (value: string): ProducerRecord => ({ topic: 't', messages: [{ value }] });

describe('createIdempotentProducer', () => {
  it('sends one at a time however many callers share it', async () => {
    const { kafka, seen } = fakeKafka(() => undefined);
    const p = createIdempotentProducer(kafka);
    await p.connect();
    await Promise.all(['a', 'b', 'c', 'd'].map((v) => (v === 'c' ? p.sendBatch({ topicMessages: [record(v)] }) : p.send(record(v)))));
    expect(seen.mostInFlight).toBe(1);
    expect(seen.sends).toEqual(['1:a', '1:b', '1:c', '1:d']);
  });

  it('repeats a send the broker refused for its sequence numbers from a new producer', async () => {
    const { kafka, seen } = fakeKafka((producer, send) => (producer === 1 && send === 2 ? brokerError('OUT_OF_ORDER_SEQUENCE_NUMBER') : undefined));
    const p = createIdempotentProducer(kafka);
    await p.connect();
    await Promise.all([p.send(record('a')), p.send(record('b')), p.send(record('c'))]);
    expect(seen.sends).toEqual(['1:a', '2:b', '2:c']);
    expect(seen).toMatchObject({ producers: 2, connects: 2, disconnects: 1 });
  });

  it('gives up after LOST_SEQUENCE_RETRIES repeats', async () => {
    const { kafka, seen } = fakeKafka(() => brokerError('UNKNOWN_PRODUCER_ID'));
    const p = createIdempotentProducer(kafka);
    await p.connect();
    await expect(p.send(record('a'))).rejects.toThrow('UNKNOWN_PRODUCER_ID');
    expect(seen.producers).toBe(1 + LOST_SEQUENCE_RETRIES);
  });

  it('passes any other failure on, and sends the next from a new producer (the failed one may have miscounted)', async () => {
    const { kafka, seen } = fakeKafka((producer, send) => (producer === 1 && send === 1 ? brokerError('MESSAGE_TOO_LARGE') : undefined));
    const p = createIdempotentProducer(kafka);
    await p.connect();
    const [first, second] = await Promise.allSettled([p.send(record('big')), p.send(record('b'))]);
    expect(first.status === 'rejected' && kafkaErrorType(first.reason)).toBe('MESSAGE_TOO_LARGE');
    expect(second.status).toBe('fulfilled');
    expect(seen.sends).toEqual(['2:b']);
  });
});
