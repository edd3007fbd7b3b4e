/**
 * A kind of connection's admin operations in the OpenAPI document (scripts/openapi/admin.ts), made of its
 * declaration (connection-kind.ts): its schemas and, by operation name, what each operation takes and
 * answers, in the declaration's words and with the lifecycle's messages.
 */
import { UnknownCampaignError, UnknownProjectError } from '../domain/errors.ts';
import { accountMissing, connectionTargetBody, message, ref, success, type AdminOperationDoc, type JsonObject } from './admin-openapi.ts';
import type { ConnectionKindDeclaration } from './connection-kind.ts';

export const connectionAdminDocumentation = (kind: ConnectionKindDeclaration): { readonly schemas: JsonObject; readonly operations: Record<string, AdminOperationDoc> } => {
  const { openapi } = kind;
  const { operations: names, notFound, conflict } = kind.words;
  const missing = [accountMissing, notFound.message];
  const operations: Record<string, AdminOperationDoc> = {
    [names.connect]: {
      summary: openapi.connect.summary,
      description: openapi.connect.description,
      body: openapi.bodySchema,
      answers: { ...success('201', openapi.connect.created, ref(openapi.connectedSchema)), ...success('200', openapi.connect.changed, ref(openapi.connectedSchema)) },
      notFound: [accountMissing, message(UnknownProjectError), message(UnknownCampaignError)],
      ...(conflict && { conflict: conflict.message }),
    },
    [names.list]: {
      summary: openapi.list.summary,
      description: openapi.list.description,
      answers: success('200', openapi.list.answer, { type: 'array', items: ref(openapi.listedSchema) }),
      notFound: [accountMissing],
    },
    [names.remove]: {
      summary: openapi.remove.summary,
      description: openapi.remove.description,
      answers: success('204', openapi.remove.answer),
      notFound: missing,
    },
  };
  if (kind.key && names.rotate !== undefined && openapi.rotate) {
    operations[names.rotate] = {
      summary: openapi.rotate.summary,
      description: openapi.rotate.description,
      answers: success('201', openapi.rotate.answer, ref(openapi.connectedSchema)),
      notFound: missing,
    };
  }
  return { schemas: { [openapi.bodySchema]: connectionTargetBody(), ...(openapi.schemas as JsonObject) }, operations };
};
