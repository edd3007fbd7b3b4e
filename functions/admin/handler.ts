import { adminRuntimeFromEnvironment } from '../../shared/admin-runtime.ts';
import { adminHandler } from '../../shared/http/admin-handler.ts';

/** /admin/v1/*: the CRM's backend keeps accounts, projects and campaigns in step (IAM-authorised). */
export const handler = adminHandler(adminRuntimeFromEnvironment());
