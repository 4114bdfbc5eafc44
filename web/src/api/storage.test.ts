import { memoryStore, memoryTokenStore, storageKeys } from './storage';

describe('memoryTokenStore', () => {
  it('keeps the access token in memory only and the other keys in the base store', () => {
    const base = memoryStore();
    base.setItem(storageKeys.token, 'left-by-an-old-version');
    const s = memoryTokenStore(base);
    expect(base.getItem(storageKeys.token)).toBeNull();
    expect(s.getItem(storageKeys.token)).toBeNull();

    s.setItem(storageKeys.token, 'jwt');
    s.setItem(storageKeys.userId, '7');
    expect(s.getItem(storageKeys.token)).toBe('jwt');
    expect(base.getItem(storageKeys.token)).toBeNull();
    expect(base.getItem(storageKeys.userId)).toBe('7');

    // A reload is a new store over the same base: the token is gone, the user id stays.
    const reloaded = memoryTokenStore(base);
    expect(reloaded.getItem(storageKeys.token)).toBeNull();
    expect(reloaded.getItem(storageKeys.userId)).toBe('7');

    s.removeItem(storageKeys.token);
    expect(s.getItem(storageKeys.token)).toBeNull();
  });
});
