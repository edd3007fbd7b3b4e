/**
 * Section 1: DynamoDB requests per lead request, counted by an SDK middleware on the client the
 * handlers use. Each case runs on its own account so its duplicate setting is the one under test.
 */
import type { DuplicateSetting } from '../shared/domain/lead.ts';
import { benchService, invoke, leadBody, nextMobile, type BenchService } from './service.ts';

export interface RoundTripCase {
  readonly case: string;
  readonly roundTrips: number;
  readonly commands: readonly string[];
  readonly status: number;
  /** Expected status of the answer. */
  readonly expectedStatus: number;
  readonly target: number;
  /** `max`: at most the target; `exact`: the target. */
  readonly targetKind: 'exact' | 'max';
  readonly met: boolean;
}

const PROJECT = 'PRJ-RT';
const CAMPAIGN = 'CMP-RT';

export const measureRoundTrips = async (endpointOrService: string | BenchService): Promise<RoundTripCase[]> => {
  const service = typeof endpointOrService === 'string' ? await benchService(endpointOrService) : endpointOrService;
  const keys = {} as Record<DuplicateSetting, string>;
  for (const setting of ['ignore', 'create', 'merge'] as const) {
    keys[setting] = await service.seedAccount({ id: `acc-rt-${setting}`, duplicateSetting: setting, projects: { [PROJECT]: [CAMPAIGN] } });
  }
  // One container for all warm cases: its cache is filled by a first request per account.
  const runtime = service.newRuntime();
  const website = service.handler('website', runtime);
  const post = (setting: DuplicateSetting, mobile = nextMobile(), headers: Record<string, string> = {}) =>
    invoke(website, 'website', keys[setting], leadBody('website', PROJECT, CAMPAIGN, mobile), headers);

  const cases: RoundTripCase[] = [];
  const measure = async (
    name: string,
    target: number,
    targetKind: 'exact' | 'max',
    expectedStatus: number,
    request: () => Promise<{ status: number }>,
    setup?: () => Promise<void>,
  ) => {
    await setup?.();
    service.roundTrips.reset();
    const { status } = await request();
    const commands = service.roundTrips.commands();
    const met = status === expectedStatus && (targetKind === 'exact' ? commands.length === target : commands.length <= target);
    cases.push({ case: name, roundTrips: commands.length, commands, status, expectedStatus, target, targetKind, met });
  };

  // A new container (fresh runtime, empty cache): its first request reads the key and the account.
  const cold = service.handler('website', service.newRuntime());
  await measure('first request of a cold container', 3, 'max', 200, () =>
    invoke(cold, 'website', keys.ignore, leadBody('website', PROJECT, CAMPAIGN)),
  );

  for (const setting of ['ignore', 'create', 'merge'] as const) await post(setting); // warm the cache per account
  await measure('new lead (warm)', 1, 'exact', 200, () => post('ignore'));

  // The original is stored first (not counted); the measured request repeats its mobile number.
  const repeated = (name: string, setting: DuplicateSetting, target: number, expectedStatus: number, headers: Record<string, string> = {}) => {
    const mobile = nextMobile();
    return measure(name, target, 'exact', expectedStatus, () => post(setting, mobile, headers), async () => {
      const original = await post(setting, mobile);
      if (original.status !== 200) throw new Error(`the original lead under ${setting} answered ${original.status}`);
    });
  };
  // 1 for the cancelled claim, 1 for the repeat, 1 for the read of the claim after it (an erasure in between makes it an original).
  await repeated('repeated lead under create', 'create', 3, 200);
  await repeated('repeated lead under merge', 'merge', 3, 200);
  // Under an Idempotency-Key the repeat is a transaction: the claim is checked inside it, no read after it.
  await repeated('repeated lead under merge with an Idempotency-Key', 'merge', 2, 200, { 'idempotency-key': `bench-rt-${nextMobile()}` });
  // 1 for the cancelled transaction (the duplicate check) + 1 for the rejected-submissions log entry.
  await repeated('rejected duplicate under ignore', 'ignore', 2, 422);
  return cases;
};
