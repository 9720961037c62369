/** A map that forgets its least recently used entries beyond `max`. */
export type Lru<K, V> = { get(key: K, make: () => V): V; readonly size: number };

export function createLru<K, V>(max: number): Lru<K, V> {
  const map = new Map<K, V>();
  return {
    get(key, make) {
      if (map.has(key)) {
        const v = map.get(key)!;
        map.delete(key);
        map.set(key, v);
        return v;
      }
      const v = make();
      map.set(key, v);
      if (map.size > max) map.delete(map.keys().next().value!);
      return v;
    },
    get size() {
      return map.size;
    },
  };
}
