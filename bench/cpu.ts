/**
 * CPU time of the processes in a measurement (Linux /proc), to tell a CPU-bound result from a slow
 * design: on a 2-core machine the load generator, the server and DynamoDB Local share two cores.
 */
import { readFileSync } from 'node:fs';

/** Linux reports CPU time in clock ticks of 10 ms (USER_HZ 100). */
const TICK_MS = 10;

const processCpuMs = (pid: number): number => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS; // utime, stime (fields 14 and 15)
  } catch {
    return Number.NaN;
  }
};

/** Busy and total CPU time of the whole machine, every tenant included. */
const machineCpuMs = (): { busy: number; total: number } => {
  try {
    const [, ...values] = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/);
    const ticks = values.map(Number);
    const idle = (ticks[3] ?? 0) + (ticks[4] ?? 0);
    const total = ticks.slice(0, 8).reduce((sum, t) => sum + t, 0);
    return { busy: (total - idle) * TICK_MS, total: total * TICK_MS };
  } catch {
    return { busy: Number.NaN, total: Number.NaN };
  }
};

export interface CpuSpent {
  /** CPU ms spent by each named process during the measurement. */
  readonly byProcess: Record<string, number>;
  /** Share of the machine's CPU that was busy (all processes, all tenants), 0..1. */
  readonly machineBusy: number;
}

export const cpuMeter = (pids: Record<string, number | undefined>) => {
  const read = () => ({
    self: process.cpuUsage(),
    others: Object.fromEntries(Object.entries(pids).flatMap(([name, pid]) => (pid ? [[name, processCpuMs(pid)]] : []))),
    machine: machineCpuMs(),
  });
  const start = read();
  return (): CpuSpent => {
    const end = read();
    const self = (end.self.user - start.self.user + end.self.system - start.self.system) / 1000;
    const byProcess: Record<string, number> = { bench: Math.round(self) };
    for (const [name, ms] of Object.entries(end.others)) byProcess[name] = Math.round(ms - start.others[name]!);
    const total = end.machine.total - start.machine.total;
    return { byProcess, machineBusy: Number(((end.machine.busy - start.machine.busy) / total).toFixed(2)) };
  };
};
