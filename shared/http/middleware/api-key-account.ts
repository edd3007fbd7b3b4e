import type { MiddlewareObj } from '@middy/core';
import type { AccountDirectory } from '../../domain/account-directory.ts';
import { ApiKeyMissingError } from '../../domain/errors.ts';
import { header, type LeadContext, type LeadEvent, type LeadResponse } from '../lambda.ts';

/** The first check of every request: the `x-api-key` header names the account (401 / 404). */
export const apiKeyAccount = (directory: AccountDirectory): MiddlewareObj<LeadEvent, LeadResponse, Error, LeadContext> => ({
  before: async (request) => {
    const apiKey = header(request.event, 'x-api-key')?.trim();
    if (!apiKey) throw new ApiKeyMissingError();
    request.context.account = await directory.authenticate(apiKey);
  },
});
