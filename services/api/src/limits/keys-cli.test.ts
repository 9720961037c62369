import { describe, expect, it } from 'vitest';
import { DEFAULT_KEY_RPS, parseKeysArgs, UsageError } from './keys-cli.js';

describe('parseKeysArgs()', () => {
  it('reads create, list and revoke with their options', () => {
    expect(parseKeysArgs(['create'])).toEqual({ command: 'create', rps: DEFAULT_KEY_RPS, label: '', json: false });
    expect(parseKeysArgs(['create', '--rps', '25', '--label', 'wallet backend', '--json'])).toEqual({ command: 'create', rps: 25, label: 'wallet backend', json: true });
    expect(parseKeysArgs(['list', '--json'])).toEqual({ command: 'list', json: true });
    expect(parseKeysArgs(['revoke', 'abcdef012345'])).toEqual({ command: 'revoke', target: 'abcdef012345', json: false });
  });

  it('refuses what it does not know, naming it', () => {
    const cases: [string[], RegExp][] = [
      [[], /a command is required/],
      [['drop'], /unknown command "drop"/],
      [['create', '--rps'], /--rps needs a value/],
      [['create', '--rps', '1.5'], /--rps must be a positive integer, got "1.5"/],
      [['create', '--force'], /unknown option --force/],
      [['list', '--rps', '3'], /list takes no --rps/],
      [['revoke'], /revoke takes 1 argument\(s\), got 0/],
      [['create', 'extra'], /create takes 0 argument\(s\), got 1/],
    ];
    for (const [args, message] of cases) {
      expect(() => parseKeysArgs(args), args.join(' ')).toThrow(UsageError);
      expect(() => parseKeysArgs(args), args.join(' ')).toThrow(message);
    }
  });
});
