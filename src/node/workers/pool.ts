// The CLI's workers run on the worker-thread pool below host and simulator (tools/worker-pool.ts).
export * from '../../../tools/worker-pool.ts';
