import { classifyFixtureFile, printable } from './cli-core.js';

// npm run --silent classify -- <trace.json>: prints {"actions": [...]} for one trace file.
const path = process.argv[2];
if (!path) {
  console.error('usage: npm run --silent classify -- <trace.json>');
  process.exit(2);
}
try {
  process.stdout.write(`${JSON.stringify({ actions: classifyFixtureFile(path).actions.map(printable) })}\n`);
} catch (err) {
  console.error(`classify: ${(err as Error).message}`);
  process.exit(1);
}
