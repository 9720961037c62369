import type { KeyVerifier } from './api-keys.js';

/**
 * Cuts the open connections of keys revoked since they connected: every `everyMs`, the keys with
 * open connections are looked up in one HMGET; while Redis is unreachable nothing is cut.
 */
export function createRevocationWatch(keys: KeyVerifier, everyMs: number) {
  const byHash = new Map<string, Set<() => void>>();
  let checking = false;
  const timer = setInterval(() => void sweep(), everyMs);
  timer.unref();

  async function sweep() {
    if (checking || byHash.size === 0) return;
    checking = true;
    try {
      const gone = await keys.missing([...byHash.keys()]);
      for (const hash of gone ?? []) for (const revoke of [...(byHash.get(hash) ?? [])]) revoke();
    } finally {
      checking = false;
    }
  }

  return {
    /** Calls `revoke` if the key disappears from the store; returns the function that stops watching. */
    watch(keyHash: string, revoke: () => void): () => void {
      let set = byHash.get(keyHash);
      if (!set) byHash.set(keyHash, (set = new Set()));
      set.add(revoke);
      return () => {
        set.delete(revoke);
        if (set.size === 0 && byHash.get(keyHash) === set) byHash.delete(keyHash);
      };
    },
    stop(): void {
      clearInterval(timer);
    },
  };
}

export type RevocationWatch = ReturnType<typeof createRevocationWatch>;
