import { describe, expect, it } from 'vitest';
import { contentUri, itemUri } from './token-uri.js';

describe('contentUri() / itemUri()', () => {
  it('reads the uri of off-chain and semi-chain content, none of on-chain content', () => {
    expect(contentUri('{"uri":" https://a.example/j.json "}')).toBe('https://a.example/j.json');
    expect(contentUri('{"name":"X","uri":"ipfs://Qm"}')).toBe('ipfs://Qm');
    for (const none of ['{"name":"X"}', '', undefined, 'not json', '["uri"]', '{"uri":""}']) expect(contentUri(none), String(none)).toBeNull();
  });
  it('puts an item\'s individual content after its collection\'s common content (TEP-62), unless the item has a uri of its own', () => {
    expect(itemUri('', '12.json', 'https://c.example/items/')).toBe('https://c.example/items/12.json');
    expect(itemUri('', 'https://own.example/1.json', '')).toBe('https://own.example/1.json');
    expect(itemUri('{"uri":"https://tagged.example/1"}', '', 'https://c.example/')).toBe('https://tagged.example/1');
    expect(itemUri('', '12.json', undefined)).toBeNull();
    expect(itemUri('{"name":"on chain"}', '', 'https://c.example/')).toBeNull();
  });
});
