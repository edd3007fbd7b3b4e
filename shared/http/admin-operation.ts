/**
 * What an admin operation is (shared/http/admin-handler.ts): the work of one admin route, from its path
 * parameters, body and query to its answer. The core operations are the admin handler's; a lead
 * source's own (connecting its forms or numbers) are its admin module's (`shared/<source>/admin.ts`),
 * listed one line per source in shared/admin-sources.ts.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { AdminRoute } from '../routes.ts';
import type { KeyScopeDeclaration } from '../sources/descriptor.ts';
import { jsonResponse } from './envelope.ts';
import type { LeadResponse } from './lambda.ts';

export type AdminBody = Readonly<Record<string, unknown>>;
export type AdminParameters = Readonly<Record<string, string>>;

/** What a route reads besides its path parameters and body. */
export interface AdminRequestParts {
  readonly query: AdminParameters;
  readonly requestId: string;
  /** Who asked: the signed request's IAM principal (CONTRACT.md section 18's audit); `unknown` when not given. */
  readonly principal?: string;
}

/** One route's work on what it depends on: the domain operation and the status of its answer. */
export type AdminOperationOn<Dependencies> = (dependencies: Dependencies, p: AdminParameters, body: AdminBody, request: AdminRequestParts) => Promise<LeadResponse>;

/** An operation bound to its dependencies, as the admin runtime holds a source's. */
export type BoundAdminOperation = (p: AdminParameters, body: AdminBody, request: AdminRequestParts) => Promise<LeadResponse>;

/**
 * A lead source's admin module: its routes, its key scope if it has one, its own stores on the Config table (the admin function's,
 * built once per container), how its dependencies are built from the admin function's stores (its own
 * and the core ones, shared/admin-runtime.ts `AdminStores`; the tests hand in their repository's), and
 * its operations by name, one for each of its routes.
 */
export interface SourceAdmin<Stores, Dependencies> {
  /**
   * Its descriptor's admin routes (`admin.routes`), which the admin function serves: the constant its
   * descriptor's file declares them in, so the admin function carries neither the registry nor the
   * rest of the descriptor.
   */
  readonly routes: readonly AdminRoute[];
  /**
   * Its descriptor's key scope, for a source whose key is limited to it alone: the admin API's
   * `create-key` then accepts it among a key's endpoints.
   */
  readonly keyScope?: KeyScopeDeclaration;
  readonly stores: (db: DynamoDBDocumentClient, configTable: string) => Partial<Stores>;
  readonly dependencies: (stores: Stores) => Dependencies;
  readonly operations: Readonly<Record<string, AdminOperationOn<Dependencies>>>;
}

/** Declares a source's admin module, its operations typed by what its `dependencies` builds. */
export const sourceAdmin = <Stores, Dependencies>(admin: SourceAdmin<Stores, Dependencies>): SourceAdmin<Stores, Dependencies> => admin;

/** A source's operations bound to the dependencies its module builds from the stores. */
export const boundOperations = <Stores, Dependencies>(admin: SourceAdmin<Stores, Dependencies>, stores: Stores): Record<string, BoundAdminOperation> => {
  const dependencies = admin.dependencies(stores);
  return Object.fromEntries(Object.entries(admin.operations).map(([name, operation]) => [name, (p, body, request) => operation(dependencies, p, body, request)]));
};

export const ok = (resource: unknown) => jsonResponse(200, resource);
export const created = (resource: unknown) => jsonResponse(201, resource);
export const noContent = (_: void): LeadResponse => ({ statusCode: 204, headers: {} });
