import type { Client, Fanout } from '@tonstream/streaming';
import type { Outbox } from './outbox.js';

/** Bytes of replayed notifications written before waiting for them to leave the process. */
export const REPLAY_CHUNK_BYTES = 256 * 1024;

/**
 * Writes a resuming client's replay a chunk at a time: the next chunk only once the previous one was
 * handed to the kernel, so a replay of any length (up to the retained window) never piles up in the
 * process or trips the slow-client byte bound. A client that stops reading mid-replay stalls the pump
 * and is cut by the unsent-age check. Live events reach the client through the replay until it has
 * caught up (the fan-out holds them back meanwhile).
 */
export function pumpReplay(o: { fanout: Fanout; client: Client; outbox: Outbox; chunkBytes: number; isOpen: () => boolean; onLost: () => void }): void {
  const step = () => {
    if (!o.isOpen()) return;
    const progress = o.fanout.replayNext(o.client, o.chunkBytes);
    if (progress === 'more') o.outbox.whenFlushed(step);
    else if (progress === 'lost') o.onLost();
  };
  o.fanout.beginReplay(o.client);
  step();
}
