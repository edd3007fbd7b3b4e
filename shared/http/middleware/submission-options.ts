import { createHash } from 'node:crypto';
import type { MiddlewareObj } from '@middy/core';
import { InvalidIdempotencyKeyError } from '../../domain/errors.ts';
import { header, type LeadContext, type LeadEvent, type LeadResponse } from '../lambda.ts';

const IDEMPOTENCY_KEY = /^[\x20-\x7e]{1,255}$/;

/** `x-dry-run: true`, any case, surrounding spaces ignored. */
export const dryRunRequested = (event: LeadEvent): boolean => /^true$/i.test(header(event, 'x-dry-run')?.trim() ?? '');

/**
 * The sender's options beyond the contract: `Idempotency-Key` (retry safety) and `x-dry-run: true`
 * (check without storing). Neither changes an answer the contract fixes when absent.
 */
export const submissionOptions = (endpoint: string): MiddlewareObj<LeadEvent, LeadResponse, Error, LeadContext> => ({
  before: (request) => {
    const { event, context } = request;
    context.dryRun = dryRunRequested(event);
    const key = header(event, 'idempotency-key');
    if (key === undefined || key === '') return;
    if (!IDEMPOTENCY_KEY.test(key)) throw new InvalidIdempotencyKeyError();
    // The endpoint and the exact body: a retry sends the same bytes; anything else is another lead.
    const body = Buffer.from(event.body ?? '', event.isBase64Encoded ? 'base64' : 'utf8');
    context.idempotency = { key, requestHash: createHash('sha256').update(`${endpoint}\n`).update(body).digest('hex') };
  },
});
