/** What a bench server process answers its parent about its CPU time (bench/peers-load.ts). */
export interface CpuMessage {
  type: 'cpu';
  /** process.cpuUsage(): user and system microseconds since the process started. */
  usage: NodeJS.CpuUsage;
}

/**
 * Answer a `{ type: 'cpu' }` message with this process's CPU time; with `collect`, after a full
 * garbage collection (the process runs with --expose-gc), so that a measured run does not pay for
 * the garbage the run before it left: another server's, in the same process.
 */
export function answerCpu(msg: { collect?: boolean }): void {
  if (msg.collect) (globalThis as { gc?: () => void }).gc?.();
  process.send?.({ type: 'cpu', usage: process.cpuUsage() } satisfies CpuMessage);
}
