import { clickhouseOptions, ConfigError, hotTierOptions, loadConfig } from '@tonstream/runtime';
import { connectHotTier, createStore, rebuildHotTierOnce } from '@tonstream/store';
import { WRITER_CONFIG } from './config.js';

/**
 * `npm run hot:rebuild`: fills the hot tier from ClickHouse (the writer's environment: CLICKHOUSE_*,
 * REDIS_URL, HOT_TIER_*) and marks it complete; the API reads it again from its next watermark. Safe
 * while the pipeline runs: what the writer adds meanwhile sorts in, a write that fails meanwhile
 * leaves the tier marked broken (run it again).
 */
async function main(): Promise<number> {
  let config;
  try {
    config = loadConfig(WRITER_CONFIG);
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      return 2;
    }
    throw err;
  }
  const store = createStore(clickhouseOptions(config));
  const tier = await connectHotTier(config.redisUrl, hotTierOptions(config));
  const prefix = tier.prefix;
  try {
    const started = Date.now();
    let shown = 0;
    const meta = await rebuildHotTierOnce(store, tier, ({ accounts }) => {
      if (Date.now() - shown < 2_000) return;
      shown = Date.now();
      console.error(`hot:rebuild: ${accounts.toLocaleString('en-US')} accounts`);
    });
    if (meta === null) {
      console.error(`hot:rebuild: another process is rebuilding ${prefix} (its claim: key ${prefix}rebuilding)`);
      return 1;
    }
    const memory = /^used_memory:(\d+)/m.exec(await tier.redis.info('memory'))?.[1];
    console.log(JSON.stringify({ prefix, from_mc_seqno: meta.fromMc, seconds: (Date.now() - started) / 1000, redis_used_memory_bytes: Number(memory) }));
    return 0;
  } finally {
    tier.redis.disconnect();
    await store.close();
  }
}

main().then(
  (code) => (process.exitCode = code),
  (err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  },
);
