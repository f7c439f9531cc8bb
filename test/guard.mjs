// Loaded before the tests by test/run.mjs: an error nobody handled (an 'error' event without a listener, a
// rejected promise nobody awaited) is reported and counted as a failure instead of killing the runner, so
// every other test still runs and the summary line is still printed.
import { orphaned } from './procs.mjs';

let uncaught = 0;
function report(kind, e) {
  uncaught++;
  const msg = e instanceof Error ? e.message : String(e);
  process.stdout.write(`\n# uncaught: ${kind}: ${msg.split('\n')[0]}\n`);
  process.stderr.write(`${(e instanceof Error && e.stack) || msg}\n`);
}
// The runner gone (its end of our stdout closed): nobody reads us. Without this, the failed write was an
// uncaught error whose report wrote again, failing again, for ever (a worker spinning after its runner died).
for (const stream of [process.stdout, process.stderr]) stream.on('error', orphaned);
process.on('uncaughtException', (e) => report('exception', e));
process.on('unhandledRejection', (e) => report('rejection', e));
process.on('exit', () => {
  if (uncaught > 0) process.exitCode = 1;
});
