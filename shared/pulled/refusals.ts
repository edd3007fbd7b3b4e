/** Portal logins' refusals in the admin API's words (CONTRACT.md section 17). */
export const portalLoginNotFound = { status: 404, code: 'portal_login_not_found', message: 'Portal login not found' } as const;
export const portalLoginConflict = { status: 409, code: 'portal_login_of_another_account', message: 'Portal login is connected to another account' } as const;
export const portalPullRunning = { status: 409, code: 'portal_pull_running', message: 'A pull of this portal login is running' } as const;

