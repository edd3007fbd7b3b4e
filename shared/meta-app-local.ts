/**
 * Local defaults of the Meta app's secrets (shared/meta-app.ts), public in this repository
 * (events/meta-leadgen.json and events/whatsapp-click-to-chat.json are signed with this app secret): for
 * a laptop only, for `npm start` and `npm run invoke`. Set META_APP_SECRET and META_VERIFY_TOKEN to use
 * your own; the deployed functions read theirs from Secrets Manager. Every source signed by the Meta app
 * (Meta's leadgen, WhatsApp's messages) reads them.
 */
import { metaAppSecretSettings } from './meta-app.ts';

export const LOCAL_META_APP_SECRET = 'local-meta-app-secret';
export const LOCAL_META_VERIFY_TOKEN = 'local-meta-verify-token';

export const applyLocalMetaDefaults = (env: NodeJS.ProcessEnv): void => {
  env[metaAppSecretSettings.appSecret] ||= LOCAL_META_APP_SECRET;
  env[metaAppSecretSettings.verifyToken] ||= LOCAL_META_VERIFY_TOKEN;
};

/** The app's secrets into `target` (the environment a handler reads): `given`'s when set, else the local defaults. */
export const applyLocalMetaSecrets = (target: NodeJS.ProcessEnv, given: NodeJS.ProcessEnv): void => {
  for (const name of [metaAppSecretSettings.appSecret, metaAppSecretSettings.verifyToken]) if (given[name]) target[name] = given[name];
  applyLocalMetaDefaults(target);
};
