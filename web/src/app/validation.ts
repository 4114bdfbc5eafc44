// Form rules of spec section 5 and the generic messages. A rule returns an i18n key of
// `validation.*` or null. The server applies the same rules and answers ERR_VALIDATION
// with fields like {name: 'Too Short!'}: serverFieldKey maps those texts to the same keys.
import { isApiError } from '../api/errors';

export type ValidationKey =
  | 'validation.required'
  | 'validation.tooShort'
  | 'validation.tooLong'
  | 'validation.csvFormat'
  | 'validation.invalidEmail'
  | 'validation.notNumber'
  | 'validation.invalidColor'
  | 'validation.invalidTime'
  | 'validation.invalidValue'
  | 'validation.dateBeforeNow'
  | 'validation.alreadyExists'
  | 'validation.commonPassword'
  | 'validation.wrongPassword';

export type Rule = (value: string) => ValidationKey | null;

export const required: Rule = (v) => (v.trim() ? null : 'validation.required');

// Characters as the server counts them (runes, i.e. code points), not UTF-16 units.
const runes = (v: string) => [...v].length;

// length counts the trimmed value's characters as the server does (runes).
export const length =
  (min: number, max: number): Rule =>
  (v) => {
    const n = runes(v.trim());
    if (n === 0) return null;
    if (n < min) return 'validation.tooShort';
    if (n > max) return 'validation.tooLong';
    return null;
  };

// A pragmatic check: something@something.tld, no spaces.
export const email: Rule = (v) => (!v.trim() || /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(v.trim()) ? null : 'validation.invalidEmail');

export function check(value: string, ...rules: Rule[]): ValidationKey | null {
  for (const r of rules) {
    const e = r(value);
    if (e) return e;
  }
  return null;
}

export function validate<F extends string>(
  values: Record<F, string>,
  rules: Partial<Record<F, Rule[]>>,
): Partial<Record<F, ValidationKey>> {
  const out: Partial<Record<F, ValidationKey>> = {};
  for (const field of Object.keys(rules) as F[]) {
    const e = check(values[field] ?? '', ...(rules[field] ?? []));
    if (e) out[field] = e;
  }
  return out;
}

const serverTexts: Record<string, ValidationKey> = {
  'Required': 'validation.required',
  'Too Short!': 'validation.tooShort',
  'Too Long!': 'validation.tooLong',
  'Invalid email': 'validation.invalidEmail',
  'Not a number': 'validation.notNumber',
  'Invalid number': 'validation.notNumber',
  'Invalid color': 'validation.invalidColor',
  'Invalid time': 'validation.invalidTime',
  'Invalid value': 'validation.invalidValue',
  'Date before current moment': 'validation.dateBeforeNow',
  'Already exists': 'validation.alreadyExists',
  'Too common': 'validation.commonPassword',
  'Wrong password': 'validation.wrongPassword',
  'CSV format wrong': 'validation.csvFormat',
};

export function serverFieldKey(text: string): ValidationKey | null {
  return serverTexts[text] ?? null;
}

// mapServerFields turns an ERR_VALIDATION answer's fields into the form's messages,
// keeping only the fields the form shows (allowed) and the texts it knows; null when
// the error carries no fields.
export function mapServerFields<F extends string>(err: unknown, allowed: readonly F[]): Partial<Record<F, ValidationKey>> | null {
  if (!isApiError(err) || !err.fields) return null;
  const mapped: Partial<Record<F, ValidationKey>> = {};
  for (const [k, v] of Object.entries(err.fields)) {
    const key = serverFieldKey(v);
    if (key && (allowed as readonly string[]).includes(k)) mapped[k as F] = key;
  }
  return mapped;
}

// The contact form (spec section 5): name required 2–50, number 8–50, email valid.
export const contactRules = {
  name: [required, length(2, 50)],
  number: [required, length(8, 50)],
  email: [email],
};

// rawLength is length() for fields the server does not trim: passwords.
export const rawLength =
  (min: number, max: number): Rule =>
  (v) => {
    const n = runes(v);
    if (n === 0) return null;
    if (n < min) return 'validation.tooShort';
    if (n > max) return 'validation.tooLong';
    return null;
  };

// presentRaw is required() for untrimmed fields: only '' is missing.
export const presentRaw: Rule = (v) => (v ? null : 'validation.required');

// '#RRGGBB', as the server stores colours.
export const hexColor: Rule = (v) => (!v.trim() || /^#[0-9a-f]{6}$/i.test(v.trim()) ? null : 'validation.invalidColor');

// 'HH:MM', 00:00 to 23:59 (queue working hours).
export const hhmm: Rule = (v) => (!v.trim() || /^([01]\d|2[0-3]):[0-5]\d$/.test(v.trim()) ? null : 'validation.invalidTime');

// An http(s) address with a host.
export const webUrl: Rule = (v) => {
  const s = v.trim();
  if (!s) return null;
  try {
    const u = new URL(s);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.host && s.length <= 2048 ? null : 'validation.invalidValue';
  } catch {
    return 'validation.invalidValue';
  }
};

// Long texts (greetings, quick answer messages): at most 4096 characters.
export const longTextMax = 4096;

// The user form (spec section 5): name required 2–50; password 5–50, required when
// creating (on edit empty means unchanged); email required and valid.
export function userRules(creating: boolean) {
  return {
    name: [required, length(2, 50)],
    password: creating ? [presentRaw, rawLength(5, 50)] : [rawLength(5, 50)],
    email: [required, email],
  };
}

export type QueueField =
  | 'name'
  | 'color'
  | 'greetingMessage'
  | 'startWork'
  | 'endWork'
  | 'absenceMessage'
  | 'encouragingMessage'
  | 'ratingQuestion'
  | 'url';

// The longest rating question (engine.RatingQuestionMax).
export const ratingQuestionMax = 500;

// A rating question must show the three answers the survey reads (engine.ParseRating).
const ratingAnswers: Rule = (v) => (!v.trim() || ['1', '2', '3'].every((d) => v.includes(d)) ? null : 'validation.invalidValue');

// The queue form: name required 2–50; colour required, #RRGGBB; a greeting is required
// once there is more than one queue (spec section 5; the server decides by the tenant's
// queue count, and so does the page: see QueuesPage); working hours HH:MM, both or
// neither; url http(s); the rating question optional, up to 500, showing 1, 2 and 3.
export function queueErrors(
  values: Record<QueueField, string>,
  greetingRequired: boolean,
): Partial<Record<QueueField, ValidationKey>> {
  const long = length(0, longTextMax);
  const out = validate(values, {
    name: [required, length(2, 50)],
    color: [required, hexColor],
    greetingMessage: greetingRequired ? [required, long] : [long],
    startWork: [hhmm],
    endWork: [hhmm],
    absenceMessage: [long],
    encouragingMessage: [long],
    ratingQuestion: [length(0, ratingQuestionMax), ratingAnswers],
    url: [webUrl],
  });
  const start = values.startWork.trim();
  const end = values.endWork.trim();
  if (start && !end && !out.endWork) out.endWork = 'validation.required';
  if (end && !start && !out.startWork) out.startWork = 'validation.required';
  return out;
}

// Tags: name required 1–50; colour optional, #RRGGBB.
export const tagRules = {
  name: [required, length(1, 50)],
  color: [hexColor],
};

// Quick answers: shortcut required 1–50 (a leading '/', the composer's trigger, is not
// part of it); message required, up to 4096 characters.
export const quickAnswerRules = {
  shortcut: [(v: string) => required(v.replace(/^\s*\//, '')), length(1, 50)],
  message: [required, length(1, longTextMax)],
};

// Announcements: title required 1–100, text required up to 4096 characters.
export const announcementRules = {
  title: [required, length(1, 100)],
  text: [required, length(1, longTextMax)],
};

// Digits only (e.g. a connection's daily maximum); empty passes.
export const digits: Rule = (v) => (/^\d*$/.test(v.trim()) ? null : 'validation.notNumber');

// The WhatsApp connection form (spec section 2; server: ValidateConnection): name
// required 2–50; number up to 50; daily maximum digits; greeting and farewell up to
// 4096, the greeting required with more than one queue (it offers the choice).
export function connectionRules(queueCount: number) {
  const long = length(0, longTextMax);
  return {
    name: [required, length(2, 50)],
    number: [length(0, 50)],
    dailyMax: [digits],
    greetingMessage: queueCount > 1 ? [required, long] : [long],
    farewellMessage: [long],
  };
}

// Scheduled message (spec section 5): phone 12–15 digits with country code (asked only
// without a contact or ticket), message 3–400 characters, a date later than now.
export const scheduleRules = {
  phoneNumber: [required, (v: string) => (/^\d*$/.test(v.replace(/[\s+\-().]/g, '')) ? null : 'validation.notNumber'), (v: string) => length(12, 15)(v.replace(/[\s+\-().]/g, ''))] as Rule[],
  message: [required, length(3, 400)],
  sendAt: [required, (v: string) => (!v || new Date(v).getTime() > Date.now() ? null : 'validation.dateBeforeNow')] as Rule[],
};

// New tenant (POST /tenants): company name required 2–50; the first admin's name,
// e-mail and password as the user form's (userRules).
export const tenantRules = {
  name: [required, length(2, 50)],
  adminName: userRules(true).name,
  email: userRules(true).email,
  password: userRules(true).password,
};
