// Form rules of spec section 5 and the generic messages. A rule returns an i18n key of
// `validation.*` or null. The server applies the same rules and answers ERR_VALIDATION
// with fields like {name: 'Too Short!'}: serverFieldKey maps those texts to the same keys.
export type ValidationKey =
  | 'validation.required'
  | 'validation.tooShort'
  | 'validation.tooLong'
  | 'validation.invalidEmail'
  | 'validation.notNumber';

export type Rule = (value: string) => ValidationKey | null;

export const required: Rule = (v) => (v.trim() ? null : 'validation.required');

export const length =
  (min: number, max: number): Rule =>
  (v) => {
    const n = v.trim().length;
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
};

export function serverFieldKey(text: string): ValidationKey | null {
  return serverTexts[text] ?? null;
}

// The contact form (spec section 5): name required 2–50, number 8–50, email valid.
export const contactRules = {
  name: [required, length(2, 50)],
  number: [required, length(8, 50)],
  email: [email],
};
