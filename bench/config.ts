/** The bench's size, from environment variables; `--quick` shrinks every default for a smoke run. */

export const SECTIONS = ['roundtrips', 'latency', 'throughput', 'scale', 'coldstart', 'handlercpu', 'pull', 'watchwrites'] as const;
export type Section = (typeof SECTIONS)[number];

export interface BenchConfig {
  readonly sections: readonly Section[];
  /** Section 2: measured requests per subject (floor, handler, HTTP), after the warm-up. */
  readonly samples: number;
  readonly warmup: number;
  /** Section 3: connection counts, and the seconds of each of the four legs per level. */
  readonly concurrency: readonly number[];
  readonly legSeconds: number;
  /** Section 4: leads preloaded into the hot project, and as many again spread over `projects`. */
  readonly preload: number;
  readonly projects: number;
  readonly scaleSamples: number;
  /** Section 5: fresh processes per subject. */
  readonly coldRuns: number;
  /**
   * Section 5: other website bundles to time beside this code's, interleaved in the same run (a build of
   * main, an experiment), each as `label=path/to/index.mjs`. A change is judged against main this way,
   * not against a figure from another run.
   */
  readonly coldCompare: readonly { readonly label: string; readonly bundle: string }[];
  /** Section 6: rounds of the handler and the bare sends, alternating, and leads (or sends) per block. */
  readonly cpuRounds: number;
  readonly cpuLeads: number;
  /** Section 7: enquiries in the pulled window, and the CPU comparison's alternating rounds. */
  readonly pullEnquiries: number;
  readonly pullRounds: number;
  /** Section 8: leads handed to the quiet-source watch at each batch size. */
  readonly watchLeads: number;
  readonly output: string;
}

const number = (env: NodeJS.ProcessEnv, name: string, fallback: number): number => {
  const value = env[name];
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed < 0) throw new Error(`${name} must be a non-negative number, not ${JSON.stringify(value)}`);
  return parsed;
};

export const benchConfig = (env: NodeJS.ProcessEnv = process.env, argv: readonly string[] = process.argv.slice(2)): BenchConfig => {
  const quick = argv.includes('--quick');
  const sections = (env.BENCH_SECTIONS ?? SECTIONS.join(','))
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const section of sections) if (!(SECTIONS as readonly string[]).includes(section)) throw new Error(`BENCH_SECTIONS: unknown section ${section} (${SECTIONS.join(', ')})`);
  return {
    sections: sections as Section[],
    samples: number(env, 'BENCH_SAMPLES', quick ? 50 : 600),
    warmup: number(env, 'BENCH_WARMUP', quick ? 10 : 60),
    concurrency: (env.BENCH_CONCURRENCY ?? '1,8,32').split(',').map((c) => Number(c.trim())).filter((c) => Number.isInteger(c) && c > 0),
    legSeconds: number(env, 'BENCH_LEG_SECONDS', quick ? 1 : 4),
    preload: number(env, 'BENCH_PRELOAD', quick ? 2_000 : 25_000),
    projects: number(env, 'BENCH_PROJECTS', quick ? 50 : 1_000),
    scaleSamples: number(env, 'BENCH_SCALE_SAMPLES', quick ? 30 : 200),
    pullEnquiries: number(env, 'BENCH_PULL_ENQUIRIES', quick ? 200 : 1_000),
    pullRounds: number(env, 'BENCH_PULL_ROUNDS', quick ? 2 : 6),
    coldRuns: number(env, 'BENCH_COLD_RUNS', quick ? 2 : 7),
    coldCompare: (env.BENCH_COLD_COMPARE ?? '')
      .split(',')
      .filter((spec) => spec.trim() !== '')
      .map((spec) => {
        const [label, bundle, ...rest] = spec.split('=');
        if (!label?.trim() || !bundle?.trim() || rest.length > 0) throw new Error(`BENCH_COLD_COMPARE: ${JSON.stringify(spec)} is not label=path/to/index.mjs`);
        return { label: label.trim(), bundle: bundle.trim() };
      }),
    cpuRounds: number(env, 'BENCH_CPU_ROUNDS', quick ? 20 : 150),
    cpuLeads: number(env, 'BENCH_CPU_LEADS', quick ? 30 : 60),
    watchLeads: number(env, 'BENCH_WATCH_LEADS', quick ? 100 : 500),
    output: env.BENCH_OUTPUT ?? 'bench/results.json',
  };
};
