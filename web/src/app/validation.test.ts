import { contactRules, serverFieldKey, validate } from './validation';

describe('contact form rules', () => {
  it.each([
    [{ name: '', number: '5565999990000', email: '' }, { name: 'validation.required' }],
    [{ name: 'A', number: '5565999990000', email: '' }, { name: 'validation.tooShort' }],
    [{ name: 'A'.repeat(51), number: '5565999990000', email: '' }, { name: 'validation.tooLong' }],
    [{ name: 'Ana', number: '1234567', email: '' }, { number: 'validation.tooShort' }],
    [{ name: 'Ana', number: '12345678', email: 'ana@' }, { email: 'validation.invalidEmail' }],
    [{ name: 'Ana', number: '12345678', email: 'ana@atende.dev' }, {}],
  ])('%j → %j', (values, want) => {
    expect(validate(values, contactRules)).toEqual(want);
  });

  it('maps the server’s field texts to the same messages', () => {
    expect(serverFieldKey('Too Short!')).toBe('validation.tooShort');
    expect(serverFieldKey('Invalid email')).toBe('validation.invalidEmail');
    expect(serverFieldKey('whatever')).toBeNull();
  });
});
