/**
 * Portal logins (CONTRACT.md section 17, kind `portal_login`): what an account connects so that a
 * portal's enquiries are pulled into its projects. One (portal, login) is one account's. The credential
 * is sealed for its login before it is stored (the stack's KMS key, as Meta's page tokens are) and is
 * never listed, answered or logged. Connecting again replaces what is given and keeps the watermark.
 * Written once for every portal: a portal's descriptor gives its name and its feeds.
 */
import { KeyAccountNotFoundError, KeyAdminError, InvalidKeyOptionError } from '../domain/errors.ts';
import type { AccountReader } from '../domain/ports/keys-and-accounts.ts';
import type { SealScope, SecretCipher } from '../sealed-secrets.ts';
import { portalLoginId, type FailureReason } from './wire-names.ts';

/** Where one portal project's enquiries go. */
export interface MapTarget {
  readonly projectId: string;
  readonly campaignId: string;
}

/** Why a login is failing, since when: what `portals` shows and `Portal Failing` tells. */
export interface Failing {
  readonly since: string;
  readonly reason: FailureReason;
  readonly message: string;
}

/** A login as stored (its credential sealed). */
export interface PortalLogin {
  readonly portal: string;
  readonly login: string;
  readonly accountId: string;
  readonly projectId: string;
  readonly campaignId: string;
  readonly map: Readonly<Record<string, MapTarget>>;
  readonly feed?: string;
  readonly sealedCredential: string;
  readonly connectedAt: string;
  /** The watermark: every enquiry the portal received before it is stored or recorded. */
  readonly pulledThrough?: string;
  readonly lastPullAt?: string;
  /** The first failed pull since the last good one (the start of `portalFailingMinutes`). */
  readonly failingSince?: string;
  /** Set once the login turned `failing` (its `Portal Failing` sent). */
  readonly failing?: Failing;
  readonly enquiriesStored: number;
}

/** A login as `portals --json` and the admin API show it: never the credential. */
export interface PortalLoginJson {
  readonly portal: string;
  readonly login: string;
  readonly project_id: string;
  readonly campaign_id: string;
  readonly map: Readonly<Record<string, { readonly project_id: string; readonly campaign_id: string }>>;
  readonly feed?: string;
  readonly connected_at: string;
  readonly pulled_through: string | null;
  readonly last_pull_at: string | null;
  readonly state: 'ok' | 'failing';
  readonly failing: Failing | null;
  readonly enquiries_stored: number;
}

export const portalLoginJson = (login: PortalLogin): PortalLoginJson => ({
  portal: login.portal,
  login: login.login,
  project_id: login.projectId,
  campaign_id: login.campaignId,
  map: Object.fromEntries(Object.entries(login.map).map(([id, target]) => [id, { project_id: target.projectId, campaign_id: target.campaignId }])),
  ...(login.feed !== undefined && { feed: login.feed }),
  connected_at: login.connectedAt,
  pulled_through: login.pulledThrough ?? null,
  last_pull_at: login.lastPullAt ?? null,
  state: login.failing ? 'failing' : 'ok',
  failing: login.failing ?? null,
  enquiries_stored: login.enquiriesStored,
});

/** What the admin side of logins needs from storage; each write atomic. */
export interface PortalLoginRegistry {
  /** The login, whichever account has it; undefined when none or removed. */
  find(portal: string, login: string): Promise<PortalLogin | undefined>;
  /** Whether the login was removed (a seed never connects it again). */
  wasRemoved(portal: string, login: string): Promise<boolean>;
  /** Connects anew (over a removal too); false, nothing written, when it is connected already. */
  insert(login: PortalLogin): Promise<boolean>;
  /**
   * Replaces what is given of a login connected to that account, keeping its watermark, its counts and
   * its state; false when it is no longer that account's.
   */
  replace(login: PortalLogin, changes: LoginChanges): Promise<boolean>;
  /** Disconnects, leaving a tombstone; false when that account has no such login. */
  remove(accountId: string, portal: string, login: string): Promise<boolean>;
  /** The account's logins, by portal and login. */
  list(accountId: string): Promise<PortalLogin[]>;
}

export interface LoginChanges {
  readonly projectId: string;
  readonly campaignId: string;
  readonly map?: Readonly<Record<string, MapTarget>>;
  readonly feed?: string;
  readonly sealedCredential?: string;
}

/** The credential's seal: bound to its (portal, login), so one sealed for another login never opens. */
export const portalCredentialScope: SealScope = {
  context: (owner) => ({ portal_login: owner }),
  aad: (owner) => `portal-login:${owner}`,
  what: 'portal credential',
  renew: 'connect the login again with its credential (admin add-portal)',
};

export interface PortalLoginAdminDependencies {
  readonly logins: PortalLoginRegistry;
  readonly accounts: AccountReader;
  readonly cipher: SecretCipher;
  /** The portals' names and feeds (shared/portals/registry.ts). */
  readonly portals: readonly { readonly name: string; readonly feeds?: readonly string[] }[];
  readonly now?: () => Date;
}

export interface ConnectPortalInput {
  readonly accountId: string;
  readonly portal: string;
  readonly login: string;
  readonly projectId: string;
  readonly campaignId: string;
  readonly credential?: string;
  readonly map?: Readonly<Record<string, MapTarget>>;
  readonly feed?: string;
}

/** The login is another account's: exit 1, 409 in the API. */
export class PortalLoginOfAnotherAccountError extends KeyAdminError {
  constructor(login: string) {
    super(`Portal login ${login} is connected to another account`);
  }
}

/** That account has no such login: exit 1, 404 `Portal login not found` in the API. */
export class PortalLoginNotFoundError extends KeyAdminError {
  constructor(portal: string, login: string) {
    super(`Portal login ${login} of ${portal} is not connected`);
  }
}

/** A project or campaign that is not an active one of the account: exit 1, 404 in the API. */
export class PortalTargetNotFoundError extends KeyAdminError {
  readonly target: 'project' | 'campaign';
  constructor(target: 'project' | 'campaign', id: string, accountId: string) {
    super(
      target === 'project'
        ? `project ${JSON.stringify(id)} is not an active project of account ${JSON.stringify(accountId)}`
        : `campaign ${JSON.stringify(id)} is not an active campaign of account ${JSON.stringify(accountId)} under that project`,
    );
    this.target = target;
  }
}

const LOGIN_PATTERN = /^[\x21-\x7e]{1,200}$/;

const checkedInput = (deps: PortalLoginAdminDependencies, input: ConnectPortalInput) => {
  const portal = deps.portals.find((p) => p.name === input.portal);
  if (!portal) throw new InvalidKeyOptionError('portal', `--portal must be one of ${deps.portals.map((p) => p.name).join(', ')}, not ${JSON.stringify(input.portal)}`);
  if (!LOGIN_PATTERN.test(input.login) || input.login.includes('#')) throw new InvalidKeyOptionError('login', `--login must be 1 to 200 visible characters without #, not ${JSON.stringify(input.login)}`);
  if (input.feed !== undefined && !(portal.feeds ?? []).includes(input.feed)) {
    throw new InvalidKeyOptionError('feed', portal.feeds ? `--feed must be one of ${portal.feeds.join(', ')}` : `${portal.name} has no feeds`);
  }
  if (input.credential !== undefined && (input.credential.length === 0 || input.credential.length > 1000)) throw new InvalidKeyOptionError('credential', 'the credential must be 1 to 1,000 characters');
  return { portal, feed: input.feed ?? portal.feeds?.[0] };
};

/** The account exists, and every target (the login's, each map entry's) is an active project with the campaign under it. */
const checkTargets = async (deps: PortalLoginAdminDependencies, input: ConnectPortalInput): Promise<void> => {
  const account = await deps.accounts.loadAccount(input.accountId);
  if (!account) throw new KeyAccountNotFoundError(input.accountId);
  for (const { projectId, campaignId } of [input, ...Object.values(input.map ?? {})]) {
    if (!account.projects.has(projectId)) throw new PortalTargetNotFoundError('project', projectId, input.accountId);
    if (account.campaigns.get(campaignId)?.projectId !== projectId) throw new PortalTargetNotFoundError('campaign', campaignId, input.accountId);
  }
};

/**
 * Connects a login (201 new) or replaces what is given of one the account has (200), keeping its
 * watermark; another account's is refused. A new login needs its credential.
 */
export const connectPortalLogin = async (deps: PortalLoginAdminDependencies, input: ConnectPortalInput): Promise<{ created: boolean; login: PortalLoginJson }> => {
  const { feed } = checkedInput(deps, input);
  await checkTargets(deps, input);
  const id = portalLoginId(input.portal, input.login);
  const sealed = input.credential === undefined ? undefined : await deps.cipher.seal(id, input.credential);
  for (let attempt = 0; attempt < 3; attempt++) {
    const stored = await deps.logins.find(input.portal, input.login);
    if (stored && stored.accountId !== input.accountId) throw new PortalLoginOfAnotherAccountError(input.login);
    if (stored) {
      const changes: LoginChanges = {
        projectId: input.projectId,
        campaignId: input.campaignId,
        ...(input.map !== undefined && { map: input.map }),
        ...(input.feed !== undefined && { feed: input.feed }),
        ...(sealed !== undefined && { sealedCredential: sealed }),
      };
      if (await deps.logins.replace(stored, changes)) return { created: false, login: portalLoginJson({ ...stored, ...changes }) };
      continue;
    }
    if (sealed === undefined) throw new InvalidKeyOptionError('credential', 'a new portal login needs its credential (PORTAL_CREDENTIAL or standard input)');
    const login: PortalLogin = {
      portal: input.portal,
      login: input.login,
      accountId: input.accountId,
      projectId: input.projectId,
      campaignId: input.campaignId,
      map: input.map ?? {},
      ...(feed !== undefined && { feed }),
      sealedCredential: sealed,
      connectedAt: (deps.now ?? (() => new Date()))().toISOString(),
      enquiriesStored: 0,
    };
    if (await deps.logins.insert(login)) return { created: true, login: portalLoginJson(login) };
  }
  throw new PortalLoginOfAnotherAccountError(input.login);
};

export const listPortalLogins = async (deps: Pick<PortalLoginAdminDependencies, 'logins' | 'accounts'>, accountId: string): Promise<PortalLoginJson[]> => {
  if (!(await deps.accounts.loadAccount(accountId))) throw new KeyAccountNotFoundError(accountId);
  return (await deps.logins.list(accountId)).map(portalLoginJson);
};

/** Disconnects: later pulls stop at once (every write of a pull carries the login's guard); its leads stay. */
export const removePortalLogin = async (deps: Pick<PortalLoginAdminDependencies, 'logins'>, accountId: string, portal: string, login: string): Promise<void> => {
  if (!(await deps.logins.remove(accountId, portal, login))) throw new PortalLoginNotFoundError(portal, login);
};
