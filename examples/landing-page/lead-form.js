/**
 * Lead form for the website endpoint (POST {api-base}/api/website-lead-create).
 *
 * Enhances every <form data-lead-form> on the page. Configuration is on the form:
 *   data-api-base    the service's base URL, e.g. https://api.example.com (no trailing /api); a page
 *                    served from this machine may override it with ?api_base=http://127.0.0.1:PORT
 *   data-api-key     a browser key for this site (admin create-key --origins ...): visible to every
 *                    visitor, and good only for the website endpoint from the site's own origins
 *   data-project     projectID
 *   data-campaign    campaignID
 *   data-sub-source  a Website sub source of the account, e.g. "Skyline landing page"
 *   data-message-*   optional: replaces a message below (data-message-success, -duplicate, ...)
 *
 * A hidden `company_website` field (the honeypot) is left empty by people and filled by many bots; the
 * service answers a filled one as if the lead were stored, and stores nothing.
 *
 * A challenge (a key created with `admin create-key --captcha ...`): the Turnstile, reCAPTCHA v2 or
 * hCaptcha widget in the form puts its token in a hidden field of its own (cf-turnstile-response,
 * g-recaptcha-response, h-captcha-response); this script sends it as `captcha_token` instead. For
 * reCAPTCHA v3, give the form data-recaptcha-v3-site-key: a token is asked for at each submission.
 * Tokens are single-use: the widget is reset after every answer the service gave (but a 503 or 429,
 * which the same submission is resent after).
 *
 * A consent checkbox (`<input type="checkbox" name="consent" data-consent-notice="..."
 * data-consent-purposes="a,b">`): ticked, the lead carries `consent`, the notice the visitor saw, the
 * time they ticked the box (ISO 8601 with the visitor's offset) and the purposes; not ticked, no consent.
 * With `required` on it, the form is not sent until it is ticked.
 *
 * UTM parameters and gclid/fbclid of the page URL are kept for the visit (sessionStorage) and sent
 * with the lead. Field errors of the service (422 `errors`) are shown under their fields.
 *
 * Each submission carries an Idempotency-Key: the same one while the form's values are unchanged, so
 * sending again after a network error, a timeout or a 503 gets the first answer (the lead stored once)
 * rather than "Lead already exists"; a new one once the values change or after a success. A new
 * challenge token is not a new value: after a refused challenge the same submission keeps its key.
 */

const ENDPOINT = '/api/website-lead-create';
const TRACKING_PARAMETERS = ['utm_id', 'utm_campaign', 'utm_source', 'utm_medium', 'utm_term', 'gclid', 'fbclid'];
const TRACKING_STORAGE_KEY = 'lead-form:tracking';
const TRACKING_MAX_LENGTH = 500; // the service's limit for each of them
const TIMEOUT_MS = 20_000;
const CONSENT_FIELD = 'consent';

/** What a visitor reads. Each can be replaced with a data-message-<name> attribute on the form. */
const MESSAGES = {
  sending: 'Sending…',
  success: 'Thank you! We have received your details and will call you soon.',
  invalid: 'Please correct the highlighted fields.',
  invalidOne: 'Please correct the highlighted field.',
  challenge: 'Please complete the check below and send again.',
  unticked: 'Please tick this box to send your details.', // a required checkbox (consent) left unticked
  duplicate: 'You have already registered with this mobile number. Our team will call you soon.',
  tooLarge: 'Your message is too long. Please shorten it and send again.',
  busy: 'We are very busy right now. Please try again in a minute.',
  busyFor: 'We are very busy right now. Please try again in {wait}.', // {wait}: "20 seconds", from Retry-After
  network: 'We could not reach our server. Please check your internet connection and try again.',
  // The server was reachable but its answer could not be read: this page's address is not allowed to use
  // the form's key, or the answer came from in front of the service (too many requests at once).
  unreadable: 'Sorry, this form could not send your details from this page just now. Please try again in a minute or contact us directly.',
  timeout: 'Our server is taking too long to answer. Please try again in a minute.',
  setup: 'Sorry, this form is not working right now. Please try again later or contact us directly.',
  unexpected: 'Sorry, something went wrong on our side. Please try again in a few minutes.',
};

/** Answers that mean the form itself is set up wrongly: the visitor can do nothing about them. */
const SETUP_MESSAGES = new Set([
  'API Key missing',
  'Invalid API credentials',
  'Client not found',
  'Sub source not found',
  'Project not found',
  'Campaign not found',
  'Content-Type must be application/json',
  'Malformed JSON body',
  'Request body must be a JSON object',
  'API key not allowed on this endpoint',
  'Origin not allowed',
  'Dry runs are not allowed with this API key',
]);

/** The hidden fields the challenge widgets fill with their token: sent as captcha_token. */
const CHALLENGE_FIELDS = new Set(['cf-turnstile-response', 'g-recaptcha-response', 'h-captcha-response']);

/** reCAPTCHA v3 has no widget: a token per submission, for the form's site key. */
const recaptchaV3Token = (form) => {
  const siteKey = form.dataset.recaptchaV3SiteKey;
  if (!siteKey || !window.grecaptcha) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => window.grecaptcha.ready(() => window.grecaptcha.execute(siteKey, { action: 'lead_form' }).then(resolve, reject)));
};

/** A token is used once: the widget gives a new one for the next submission. */
const resetChallenge = (form) => {
  if (form.querySelector('.cf-turnstile') && window.turnstile) window.turnstile.reset();
  if (form.querySelector('.g-recaptcha') && window.grecaptcha && window.grecaptcha.reset) window.grecaptcha.reset();
  if (form.querySelector('.h-captcha') && window.hcaptcha) window.hcaptcha.reset();
};

/** UTM parameters and click ids of this visit: the URL's, else those kept from an earlier page. */
export const trackingParameters = (search = window.location.search) => {
  let kept = {};
  try {
    kept = JSON.parse(window.sessionStorage.getItem(TRACKING_STORAGE_KEY) || '{}') || {};
  } catch {
    // storage blocked or unreadable: the URL alone
  }
  const params = new URLSearchParams(search);
  const fromUrl = {};
  for (const name of TRACKING_PARAMETERS) {
    const value = (params.get(name) || '').trim().slice(0, TRACKING_MAX_LENGTH);
    if (value) fromUrl[name] = value;
  }
  // A new campaign click replaces the whole set, rather than mixing two visits.
  const tracking = Object.keys(fromUrl).length > 0 ? fromUrl : kept;
  try {
    window.sessionStorage.setItem(TRACKING_STORAGE_KEY, JSON.stringify(tracking));
  } catch {
    // not kept: fine
  }
  const result = {};
  for (const name of TRACKING_PARAMETERS) {
    if (typeof tracking[name] === 'string' && tracking[name]) result[name] = tracking[name];
  }
  return result;
};

const messageOf = (form, name) => {
  const attribute = `message${name[0].toUpperCase()}${name.slice(1)}`;
  return form.dataset[attribute] || MESSAGES[name];
};

/** A control's visible label, without its "(optional)" mark. */
const labelOf = (control) => {
  const label = control.labels && control.labels[0];
  if (!label) return control.name;
  const copy = label.cloneNode(true);
  copy.querySelectorAll('.lead-form__optional').forEach((mark) => mark.remove());
  return copy.textContent.replace(/\s+/g, ' ').trim() || control.name;
};

/** "mobile_number must be ..." reads "Mobile number must be ..." next to the field. */
const fieldMessage = (control, message) =>
  message.startsWith(`${control.name} `) ? `${labelOf(control)}${message.slice(control.name.length)}` : message;

const errorElementOf = (control) => {
  const form = control.form;
  const id = `${control.id || `lead-form-${control.name}`}-error`;
  let element = form.querySelector(`#${CSS.escape(id)}`);
  if (!element) {
    element = document.createElement('p');
    element.className = 'lead-form__error';
    element.id = id;
    element.hidden = true;
    (control.closest('.lead-form__field') || control.parentElement).append(element);
  }
  return element;
};

const describedBy = (control) => (control.getAttribute('aria-describedby') || '').split(/\s+/).filter(Boolean);

const showFieldError = (control, text) => {
  const error = errorElementOf(control);
  error.textContent = text;
  error.hidden = false;
  control.setAttribute('aria-invalid', 'true');
  const ids = describedBy(control);
  if (!ids.includes(error.id)) control.setAttribute('aria-describedby', [...ids, error.id].join(' '));
};

const clearFieldError = (control) => {
  if (control.getAttribute('aria-invalid') !== 'true') return;
  control.removeAttribute('aria-invalid');
  const error = errorElementOf(control);
  error.textContent = '';
  error.hidden = true;
  const ids = describedBy(control).filter((id) => id !== error.id);
  if (ids.length) control.setAttribute('aria-describedby', ids.join(' '));
  else control.removeAttribute('aria-describedby');
};

/** The form's named controls that hold a value (not buttons). */
const controlsOf = (form) =>
  Array.from(form.elements).filter((element) => element.name && !['submit', 'button', 'reset', 'fieldset'].includes(element.type));

const setMessage = (form, text, kind) => {
  const region = form.querySelector('.lead-form__message');
  if (!region) return;
  region.textContent = text;
  region.classList.toggle('lead-form__message--success', kind === 'success');
  region.classList.toggle('lead-form__message--notice', kind === 'notice');
  region.classList.toggle('lead-form__message--error', kind === 'error');
};

/** Host names of this machine, as `location.hostname` and `URL.hostname` spell them. */
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * Trying the page locally: served from this machine, it may name the local service with
 * `?api_base=http://127.0.0.1:PORT` (npm start on another PORT than the page's data-api-base says).
 * Only a loopback page, and only a loopback service: on a real site the query cannot send a
 * visitor's details anywhere else.
 */
const localApiBase = () => {
  if (typeof window === 'undefined' || !LOOPBACK.has(window.location.hostname)) return undefined;
  const given = new URLSearchParams(window.location.search).get('api_base');
  if (!given) return undefined;
  try {
    const url = new URL(given);
    return url.protocol === 'http:' && LOOPBACK.has(url.hostname) ? url.origin : undefined;
  } catch {
    return undefined;
  }
};

const configOf = (form) => {
  const { apiBase: configured = '', apiKey = '', project = '', campaign = '', subSource = '' } = form.dataset;
  const apiBase = localApiBase() ?? configured;
  return { url: `${apiBase.trim().replace(/\/+$/, '')}${ENDPOINT}`, apiKey: apiKey.trim(), project, campaign, subSource };
};

const twoDigits = (n) => String(n).padStart(2, '0');

/** A time as ISO 8601 with the visitor's own offset: `2026-11-02T10:15:00+05:30`. */
const localIsoTime = (date) => {
  const offset = -date.getTimezoneOffset();
  const sign = offset >= 0 ? '+' : '-';
  const day = `${date.getFullYear()}-${twoDigits(date.getMonth() + 1)}-${twoDigits(date.getDate())}`;
  const time = `${twoDigits(date.getHours())}:${twoDigits(date.getMinutes())}:${twoDigits(date.getSeconds())}`;
  return `${day}T${time}${sign}${twoDigits(Math.floor(Math.abs(offset) / 60))}:${twoDigits(Math.abs(offset) % 60)}`;
};

/**
 * The consent a ticked checkbox gives: its notice, when it was ticked, its purposes. The time is kept
 * on the box when it is ticked, so that a retry of the same submission sends the same consent (and keeps
 * its Idempotency-Key).
 */
const consentOf = (control) => {
  if (!control.checked) return undefined;
  const notice = (control.dataset.consentNotice || '').trim();
  if (!notice) {
    console.error('Lead form: the consent checkbox has no data-consent-notice: no consent is sent.');
    return undefined;
  }
  if (!control.dataset.givenAt) control.dataset.givenAt = localIsoTime(new Date());
  const purposes = (control.dataset.consentPurposes || '').split(',').map((purpose) => purpose.trim()).filter(Boolean);
  return { notice, given_at: control.dataset.givenAt, ...(purposes.length > 0 && { purposes }) };
};

const consentControlOf = (form) => form.querySelector(`input[type="checkbox"][name="${CONSENT_FIELD}"]`);

const payloadOf = (form, config) => {
  const payload = {
    ...trackingParameters(),
    projectID: config.project,
    campaignID: config.campaign,
    sub_source: config.subSource,
  };
  // The trap's input has a neutral name (so autofill leaves it alone); its value goes as the field the service checks.
  const trap = form.querySelector('[data-honeypot]');
  // Form controls come last: a page may offer its own projectID choice, for instance.
  for (const [name, value] of new FormData(form)) {
    if (typeof value !== 'string') continue;
    const text = value.trim();
    if (!text) continue;
    if (name === CONSENT_FIELD) continue; // below, as an object
    if (trap && name === trap.name) payload[trap.dataset.honeypot] = text;
    else if (CHALLENGE_FIELDS.has(name)) payload.captcha_token = text;
    else payload[name] = text;
  }
  const consentControl = consentControlOf(form);
  const consent = consentControl && consentOf(consentControl);
  if (consent) payload.consent = consent;
  return payload;
};

/** A random UUID; crypto.randomUUID exists only on https (and localhost) pages. */
const newIdempotencyKey = () => {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6] & 0x0f) | 0x40; // version 4
  bytes[8] = (bytes[8] & 0x3f) | 0x80; // RFC 4122 variant
  const hex = Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
};

/** Seconds to wait from a Retry-After header (seconds or an HTTP date); undefined when absent or unreadable. */
const retryAfterSeconds = (value) => {
  if (!value) return undefined;
  const text = value.trim();
  const seconds = /^\d+$/.test(text) ? Number(text) : Math.ceil((Date.parse(text) - Date.now()) / 1000);
  return Number.isFinite(seconds) && seconds > 0 ? seconds : undefined;
};

/** Sends the lead; resolves to { status, body, retryAfter } (body null when the answer is not JSON). */
const send = async (config, body, idempotencyKey) => {
  const response = await fetch(config.url, {
    method: 'POST',
    mode: 'cors',
    credentials: 'omit',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json',
      'x-api-key': config.apiKey,
      'idempotency-key': idempotencyKey,
    },
    body,
    ...(typeof AbortSignal.timeout === 'function' && { signal: AbortSignal.timeout(TIMEOUT_MS) }),
  });
  let answer = null;
  try {
    answer = await response.json();
  } catch {
    // a proxy's HTML error page, or an empty body
  }
  return { status: response.status, body: answer, retryAfter: retryAfterSeconds(response.headers.get('retry-after')) };
};

/**
 * Whether the service answers at all: an opaque (no-cors) GET of the endpoint resolves whenever an HTTP
 * answer arrives, whatever its CORS headers, and rejects only when the network fails.
 */
const serverReachable = async (config) => {
  try {
    await fetch(config.url, { method: 'GET', mode: 'no-cors', credentials: 'omit', cache: 'no-store', ...(typeof AbortSignal.timeout === 'function' && { signal: AbortSignal.timeout(5000) }) });
    return true;
  } catch {
    return false;
  }
};

/** For the site owner, in the browser console; never shown to visitors. */
const reportSetupProblem = (status, message, detail) => {
  console.error(`Lead form: the lead service answered ${status} ${JSON.stringify(message)}${detail ? ` (${detail})` : ''}. Check the form's data-api-key, data-project, data-campaign and data-sub-source.`);
};

/** Shows the service's answer: success, field errors under their fields, or a message in words. */
const showAnswer = (form, { status, body, retryAfter }) => {
  const message = body && typeof body.message === 'string' ? body.message : '';
  if (status === 200 && body && body.status === true) {
    form.reset();
    setMessage(form, messageOf(form, 'success'), 'success');
    form.dispatchEvent(new CustomEvent('lead-form:success', { detail: body.data }));
    return;
  }
  if (status === 422 && body && body.errors && typeof body.errors === 'object') {
    const controls = controlsOf(form);
    const shown = [];
    const elsewhere = [];
    for (const [field, problems] of Object.entries(body.errors)) {
      const text = Array.isArray(problems) ? problems.join(' ') : String(problems);
      const control = controls.find((c) => c.name === field && c.type !== 'hidden');
      if (control) {
        showFieldError(control, fieldMessage(control, text));
        shown.push(control);
      } else {
        elsewhere.push(`${field}: ${text}`);
      }
    }
    if (elsewhere.length) {
      reportSetupProblem(status, message, elsewhere.join('; '));
      setMessage(form, messageOf(form, 'setup'), 'error');
    } else {
      setMessage(form, messageOf(form, shown.length === 1 ? 'invalidOne' : 'invalid'), 'error');
    }
    const first = controls.find((c) => shown.includes(c));
    if (first) first.focus();
    return;
  }
  // Not an error for the visitor: their details are with the team already, and the message says so.
  if (status === 422 && message === 'Lead already exists') return setMessage(form, messageOf(form, 'duplicate'), 'notice');
  // No token (the visitor has not done the check yet) or one the provider refused: a new one is needed.
  if (status === 403 && message === 'Captcha verification failed') return setMessage(form, messageOf(form, 'challenge'), 'error');
  if (status === 413) return setMessage(form, messageOf(form, 'tooLarge'), 'error');
  if (status === 503 || status === 429) {
    const wait = retryAfter === undefined ? undefined : retryAfter < 120 ? `${retryAfter} second${retryAfter === 1 ? '' : 's'}` : `${Math.ceil(retryAfter / 60)} minutes`;
    return setMessage(form, wait ? messageOf(form, 'busyFor').replace('{wait}', wait) : messageOf(form, 'busy'), 'error');
  }
  if (status === 401 || status === 404 || SETUP_MESSAGES.has(message)) {
    reportSetupProblem(status, message);
    return setMessage(form, messageOf(form, 'setup'), 'error');
  }
  setMessage(form, messageOf(form, 'unexpected'), 'error');
};

/** Required fields left empty are reported here, without a round trip. */
const checkRequired = (form) => {
  const missing = controlsOf(form).filter((control) => control.required && (control.type === 'checkbox' ? !control.checked : !control.value.trim()));
  for (const control of missing) showFieldError(control, control.type === 'checkbox' ? messageOf(form, 'unticked') : `${labelOf(control)} is required`);
  return missing;
};

export const enhanceLeadForm = (form) => {
  if (form.dataset.leadFormReady) return;
  form.dataset.leadFormReady = 'true';
  form.noValidate = true; // our messages, in the page, instead of the browser's bubbles
  trackingParameters(); // keep them now, should the visitor browse on before sending
  const button = form.querySelector('[type="submit"]');
  const buttonText = button ? button.textContent : '';
  let sending = false;
  /** The Idempotency-Key of the last submission, the values it was sent with (all but the token) and its reCAPTCHA v3 token. */
  let attempt = null;

  form.addEventListener('input', (event) => {
    if (event.target instanceof Element && event.target.name) clearFieldError(event.target);
  });
  // Consent is given when the box is ticked: that time is sent, and forgotten when it is unticked.
  form.addEventListener('change', (event) => {
    const control = event.target;
    if (!(control instanceof HTMLInputElement) || control !== consentControlOf(form)) return;
    clearFieldError(control);
    if (control.checked) control.dataset.givenAt = localIsoTime(new Date());
    else delete control.dataset.givenAt;
  });
  form.addEventListener('reset', () => {
    const control = consentControlOf(form);
    if (control) delete control.dataset.givenAt;
  });

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    if (sending) return;
    controlsOf(form).forEach(clearFieldError);
    const missing = checkRequired(form);
    if (missing.length) {
      setMessage(form, messageOf(form, missing.length === 1 ? 'invalidOne' : 'invalid'), 'error');
      missing[0].focus();
      return;
    }
    const config = configOf(form);
    sending = true;
    form.setAttribute('aria-busy', 'true');
    if (button) {
      button.disabled = true;
      button.textContent = messageOf(form, 'sending');
    }
    setMessage(form, '', null);
    try {
      // A retry after a network failure resends the same token (the widget is reset only after an answer).
      const v3Token = attempt && attempt.v3Token ? attempt.v3Token : await recaptchaV3Token(form);
      const payload = { ...payloadOf(form, config), ...(v3Token && { captcha_token: v3Token }) };
      // The same values keep the key, so that the service answers a retry with the first answer. The token
      // is not one of them: after a refused challenge the visitor solves a new one and sends the same
      // submission under the same key (the service leaves the token out of what the key is checked
      // against), so the quarantine record of the refusal and the retry become one lead, not two.
      const { captcha_token: _token, ...values } = payload;
      const valuesText = JSON.stringify(values);
      if (!attempt || attempt.values !== valuesText) attempt = { key: newIdempotencyKey(), values: valuesText };
      attempt.v3Token = v3Token;
      const answer = await send(config, JSON.stringify(payload), attempt.key);
      const refusedChallenge = answer.status === 403 && answer.body && answer.body.message === 'Captcha verification failed';
      if (answer.status === 200 && answer.body && answer.body.status === true) attempt = null;
      // A refused token is spent: the next submission asks for a new one, under the same key.
      else if (refusedChallenge) attempt.v3Token = undefined;
      // A token is used once the service answered; after a 503 or 429 the same body (and token) is resent,
      // so that a lead stored before a lost answer is answered by its Idempotency-Key, not stored twice.
      if (answer.status !== 503 && answer.status !== 429) resetChallenge(form);
      showAnswer(form, answer);
    } catch (error) {
      // fetch rejects on network failures, on timeouts, and on answers the page may not read: a refused
      // origin, or an answer API Gateway makes itself (429, a body over its limits), which has no CORS headers.
      const timedOut = error && (error.name === 'TimeoutError' || error.name === 'AbortError');
      const reason = timedOut ? 'timeout' : (await serverReachable(config)) ? 'unreadable' : 'network';
      if (reason === 'unreadable') {
        console.error('Lead form: the lead service answered, but the page may not read its answer. Is this page\'s origin one of the key\'s origins (admin list-keys)? Or the API throttled the request (429).');
      }
      setMessage(form, messageOf(form, reason), 'error');
    } finally {
      sending = false;
      form.removeAttribute('aria-busy');
      if (button) {
        button.disabled = false;
        button.textContent = buttonText;
      }
    }
  });
};

document.querySelectorAll('form[data-lead-form]').forEach(enhanceLeadForm);
