import { ConfigError, createLogger } from '@tonstream/runtime';
import { createKeyStore, KeyStoreError } from '@tonstream/store';
import { Redis } from 'ioredis';
import { loadApiConfig } from './config.js';
import { parseKeysArgs, runKeysCommand, UsageError } from './limits/keys-cli.js';

/** `npm run keys -- create|list|revoke`: manages the API keys in the Redis the API limits with. */
async function main(): Promise<number> {
  let config;
  let command;
  try {
    command = parseKeysArgs(process.argv.slice(2));
    config = loadApiConfig();
  } catch (err) {
    if (err instanceof UsageError || err instanceof ConfigError) {
      console.error(err.message);
      return 2;
    }
    throw err;
  }
  const logger = createLogger({ level: 'warn', bindings: { module: 'keys' } });
  const redis = new Redis(config.redisUrl, { lazyConnect: true, connectTimeout: 3_000, maxRetriesPerRequest: 1, retryStrategy: () => null });
  redis.on('error', () => {}); // the failed command reports it
  try {
    await redis.connect();
    console.log(await runKeysCommand(createKeyStore(redis, config.redisPrefix), command));
    return 0;
  } catch (err) {
    if (err instanceof KeyStoreError) {
      console.error(err.message);
      return 1;
    }
    logger.error('keys command failed', { redis: config.redisUrl, err });
    return 1;
  } finally {
    redis.disconnect();
  }
}

main().then(
  (code) => (process.exitCode = code),
  (err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  },
);
