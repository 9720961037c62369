import { ConfigError } from '@tonstream/runtime';
import { describe, expect, it } from 'vitest';
import { loadLocalnetConfig } from './config.js';

describe('loadLocalnetConfig()', () => {
  it('uses the documented defaults, the global config inside the state dir', () => {
    expect(loadLocalnetConfig({}, [])).toEqual({
      host: '127.0.0.1',
      port: 46732,
      roundMs: 1000,
      shards: 2,
      keepRounds: 256,
      keepStateRounds: 32,
      seed: 'tonstream',
      trafficRate: 20,
      trafficWallets: 0,
      stateDir: '.local/localnet',
      globalConfigPath: '.local/localnet/global.config.json',
      advertisedHost: '',
      ledgerPath: '',
      ledgerAccounts: false,
      stopAtSeqno: 0,
      metricsHost: '127.0.0.1',
      metricsPort: 9104,
      logLevel: 'info',
      reset: false,
    });
  });

  it('reads variables and --reset', () => {
    const c = loadLocalnetConfig(
      { LOCALNET_PORT: '0', LOCALNET_SHARDS: '4', LOCALNET_TRAFFIC_RATE: '0', LOCALNET_STATE_DIR: '/tmp/x', LOCALNET_GLOBAL_CONFIG: '/etc/ton.json', LOCALNET_STOP_AT_SEQNO: '50', LOCALNET_ADVERTISED_HOST: '10.0.0.2', LOCALNET_KEEP_ROUNDS: '1000', LOCALNET_KEEP_STATE_ROUNDS: '1000' },
      ['--reset'],
    );
    expect([c.port, c.shards, c.trafficRate, c.stateDir, c.globalConfigPath, c.reset, c.stopAtSeqno, c.advertisedHost, c.keepRounds, c.keepStateRounds]).toEqual([0, 4, 0, '/tmp/x', '/etc/ton.json', true, 50, '10.0.0.2', 1000, 1000]);
  });

  it('reports every bad variable and unknown argument together, naming value and what is accepted', () => {
    let err: unknown;
    try {
      loadLocalnetConfig({ LOCALNET_SHARDS: '3', LOCALNET_HOST: 'localhost', LOCALNET_ROUND_MS: 'fast' }, ['--rest']);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    const problems = (err as ConfigError).problems.join('\n');
    expect(problems).toMatch(/LOCALNET_SHARDS="3" is invalid: not a power of two; expected a power of two from 1 to 256/);
    expect(problems).toMatch(/LOCALNET_HOST="localhost" is invalid: .*IPv4/);
    expect(problems).toMatch(/LOCALNET_ROUND_MS="fast"/);
    expect(problems).toMatch(/unknown argument --rest; accepted: --reset/);
  });
});
