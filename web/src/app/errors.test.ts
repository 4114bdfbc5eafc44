import { ApiError } from '../api/errors';
import { errorText } from './errors';

describe('errorText', () => {
  it('adds the wait the server asked for, translated', () => {
    const err = (s?: number) => new ApiError(429, 'ERR_TOO_MANY_ATTEMPTS', 'ERR_TOO_MANY_ATTEMPTS', undefined, s);
    expect(errorText(err())).toBe('Muitas tentativas. Aguarde um pouco e tente de novo.');
    expect(errorText(err(1))).toBe('Muitas tentativas. Aguarde um pouco e tente de novo. Tente de novo em 1 segundo.');
    expect(errorText(err(30))).toBe('Muitas tentativas. Aguarde um pouco e tente de novo. Tente de novo em 30 segundos.');
    expect(errorText(err(61))).toBe('Muitas tentativas. Aguarde um pouco e tente de novo. Tente de novo em 2 minutos.');
  });
});
