#!/usr/bin/env node
/** Prints the indexer records of one block BoC as JSON: `npm run --silent decode -- <file.boc>`. */
import { readFileSync } from 'node:fs';
import { BocError, TlbError } from './index.js';
import { decodeBlock } from './normalize/normalize-block.js';

const USAGE = 'usage: decode <block.boc> [--mc-seqno N]';

function main(argv: string[]): number {
  const file = argv.find((a) => !a.startsWith('--'));
  if (!file) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  const mcArg = argv.indexOf('--mc-seqno');
  const mcSeqno = mcArg >= 0 ? Number(argv[mcArg + 1]) : undefined;
  if (mcSeqno !== undefined && !Number.isInteger(mcSeqno)) {
    process.stderr.write(`--mc-seqno expects an integer\n${USAGE}\n`);
    return 2;
  }
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (err) {
    process.stderr.write(`cannot read ${file}: ${(err as Error).message}\n`);
    return 1;
  }
  try {
    const records = decodeBlock(bytes, { mcSeqno });
    process.stdout.write(JSON.stringify(records, null, 2) + '\n');
    return 0;
  } catch (err) {
    if (err instanceof BocError || err instanceof TlbError) {
      process.stderr.write(`${file}: ${err.name}: ${err.message}\n`);
      return 1;
    }
    throw err;
  }
}

process.exitCode = main(process.argv.slice(2));
