import type { Cell } from '@ton/core';

/** What a standard's reader sees of an active account: its code's hash and interfaces. */
export type CodeOf = { code_hash: string; interfaces: readonly string[] };

/**
 * One contract standard: whether an active account's code has it, and what its data (c4) says.
 * `read` answers null when the data does not read as the standard's layout (no fact then).
 */
export type Standard<Fact> = {
  has: (code: CodeOf) => boolean;
  read: (data: Cell | null, code: CodeOf) => Fact | null;
};

/** A standard whose facts are its data read by layout, for the codes that have interface `name`. */
export function byInterface<Fact>(name: string, readData: (data: Cell) => Fact | null): Standard<Fact> {
  return { has: (code) => code.interfaces.includes(name), read: (data) => (data ? readData(data) : null) };
}
