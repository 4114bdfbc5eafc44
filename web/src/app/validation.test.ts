import { ApiError } from '../api/errors';
import { announcementRules, check, connectionRules, contactRules, length, mapServerFields, queueErrors, quickAnswerRules, serverFieldKey, tagRules, userRules, validate } from './validation';

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

describe('user form rules', () => {
  it.each([
    [true, { name: '', password: '', email: '' }, { name: 'validation.required', password: 'validation.required', email: 'validation.required' }],
    [true, { name: 'A', password: '1234', email: 'ana@' }, { name: 'validation.tooShort', password: 'validation.tooShort', email: 'validation.invalidEmail' }],
    [true, { name: 'Ana', password: 'x'.repeat(51), email: 'ana@atende.dev' }, { password: 'validation.tooLong' }],
    [true, { name: 'Ana', password: '12345', email: 'ana@atende.dev' }, {}],
    // Editing: an empty password keeps the current one.
    [false, { name: 'Ana', password: '', email: 'ana@atende.dev' }, {}],
    [false, { name: 'Ana', password: '123', email: 'ana@atende.dev' }, { password: 'validation.tooShort' }],
  ])('creating=%s %j → %j', (creating, values, want) => {
    expect(validate(values, userRules(creating))).toEqual(want);
  });

  it('counts a password as the server does: untrimmed, by character', () => {
    expect(validate({ name: 'Ana', password: '    ', email: 'a@b.co' }, userRules(true))).toEqual({ password: 'validation.tooShort' });
    expect(validate({ name: 'Ana', password: '😀😀😀😀😀', email: 'a@b.co' }, userRules(true))).toEqual({});
  });
});

describe('queue form rules', () => {
  const base = {
    name: 'Suporte',
    color: '#1976d2',
    greetingMessage: '',
    startWork: '',
    endWork: '',
    absenceMessage: '',
    encouragingMessage: '',
    ratingQuestion: '',
    url: '',
  };
  it.each([
    [{}, false, {}],
    [{ name: 'S', color: '' }, false, { name: 'validation.tooShort', color: 'validation.required' }],
    [{ color: 'blue' }, false, { color: 'validation.invalidColor' }],
    [{}, true, { greetingMessage: 'validation.required' }],
    [{ greetingMessage: 'Olá! Escolha uma opção.' }, true, {}],
    [{ startWork: '08:00' }, false, { endWork: 'validation.required' }],
    [{ endWork: '18:00' }, false, { startWork: 'validation.required' }],
    [{ startWork: '24:00', endWork: '18:00' }, false, { startWork: 'validation.invalidTime' }],
    [{ startWork: '22:00', endWork: '06:00' }, false, {}],
    [{ url: 'javascript:alert(1)' }, false, { url: 'validation.invalidValue' }],
    [{ url: 'https://atende.dev/fila' }, false, {}],
    [{ ratingQuestion: 'Nota? 1, 2 ou 3' }, false, {}],
    [{ ratingQuestion: 'Gostou? Responda sim ou não' }, false, { ratingQuestion: 'validation.invalidValue' }],
    [{ ratingQuestion: '1 ou 2?' }, false, { ratingQuestion: 'validation.invalidValue' }],
    [{ ratingQuestion: '1 2 3 ' + 'á'.repeat(500) }, false, { ratingQuestion: 'validation.tooLong' }],
  ])('%j (greeting required: %s) → %j', (patch, greetingRequired, want) => {
    expect(queueErrors({ ...base, ...patch }, greetingRequired)).toEqual(want);
  });
});

describe('tag and quick answer rules', () => {
  it.each([
    [{ name: '', color: '' }, { name: 'validation.required' }],
    [{ name: 'V', color: '' }, {}],
    [{ name: 'V'.repeat(51), color: '#ABCDEF' }, { name: 'validation.tooLong' }],
    [{ name: 'VIP', color: '#abc' }, { color: 'validation.invalidColor' }],
  ])('tag %j → %j', (values, want) => {
    expect(validate(values, tagRules)).toEqual(want);
  });

  it.each([
    [{ shortcut: '', message: '' }, { shortcut: 'validation.required', message: 'validation.required' }],
    [{ shortcut: '/', message: 'Bom dia!' }, { shortcut: 'validation.required' }],
    [{ shortcut: '/bd', message: 'Bom dia!' }, {}],
    [{ shortcut: 'bd', message: 'x'.repeat(4097) }, { message: 'validation.tooLong' }],
  ])('quick answer %j → %j', (values, want) => {
    expect(validate(values, quickAnswerRules)).toEqual(want);
  });

  it('maps the server’s other field texts', () => {
    expect(serverFieldKey('Invalid color')).toBe('validation.invalidColor');
    expect(serverFieldKey('Invalid time')).toBe('validation.invalidTime');
    expect(serverFieldKey('Already exists')).toBe('validation.alreadyExists');
    expect(serverFieldKey('Invalid value')).toBe('validation.invalidValue');
  });

  it.each([
    [{ title: '', text: '' }, { title: 'validation.required', text: 'validation.required' }],
    // 100 emoji: 200 UTF-16 units, 100 runes as the server counts them.
    [{ title: '📣'.repeat(100), text: 'Olá' }, {}],
    [{ title: '📣'.repeat(101), text: 'Olá' }, { title: 'validation.tooLong' }],
    [{ title: 'Aviso', text: '😀'.repeat(4096) }, {}],
  ])('announcement %j → %j', (values, want) => {
    expect(validate(values, announcementRules)).toEqual(want);
  });

  it('counts runes (code points) in length, as the server does', () => {
    expect(check('😀😀', length(2, 2))).toBeNull();
    expect(check('😀', length(2, 50))).toBe('validation.tooShort');
    expect(check('😀'.repeat(51), length(2, 50))).toBe('validation.tooLong');
  });

  it.each([
    [{ name: 'Zap', number: '', dailyMax: '5', greetingMessage: '', farewellMessage: '' }, 2, { greetingMessage: 'validation.required' }],
    [{ name: 'Zap', number: '', dailyMax: '5', greetingMessage: '', farewellMessage: '' }, 1, {}],
    [
      { name: 'Z', number: '1'.repeat(51), dailyMax: 'x', greetingMessage: '', farewellMessage: '😀'.repeat(4097) },
      0,
      { name: 'validation.tooShort', number: 'validation.tooLong', dailyMax: 'validation.notNumber', farewellMessage: 'validation.tooLong' },
    ],
  ])('connection %j with %i queues → %j', (values, queues, want) => {
    expect(validate(values, connectionRules(queues))).toEqual(want);
  });

  it('maps server field errors onto the allowed fields only', () => {
    const err = new ApiError(400, 'ERR_VALIDATION', undefined, { title: 'Too Long!', other: 'Required', text: '???' });
    expect(mapServerFields(err, ['title', 'text'])).toEqual({ title: 'validation.tooLong' });
    expect(mapServerFields(new ApiError(500), ['title'])).toBeNull();
    expect(mapServerFields(new Error('x'), ['title'])).toBeNull();
  });
});
