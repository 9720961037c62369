import { ConfigError } from '@tonstream/runtime';
import { describe, expect, it } from 'vitest';
import { loadApiConfig } from './config.js';

describe('loadApiConfig: API_DEFAULT_LIMIT', () => {
  it('is 10 (toncenter\'s documented default) unless set; takes 1..1000 and refuses the rest naming the variable', () => {
    expect(loadApiConfig({}).defaultLimit).toBe(10);
    expect(loadApiConfig({ API_DEFAULT_LIMIT: '100' }).defaultLimit).toBe(100);
    for (const bad of ['0', '1001', 'ten']) {
      expect(() => loadApiConfig({ API_DEFAULT_LIMIT: bad })).toThrow(ConfigError);
      expect(() => loadApiConfig({ API_DEFAULT_LIMIT: bad })).toThrow(/API_DEFAULT_LIMIT/);
    }
  });
});
