// The generic error handler of spec section 8: a toast with the translated text of the
// server's code (backendErrors.<CODE>), else the server's raw text, else a generic line;
// when the server said how long to wait (a 429's Retry-After), the wait follows.
import i18n from '../i18n';
import { ApiError, NetworkError } from '../api/errors';
import { toast } from '../components/toast/toastStore';

export function errorText(err: unknown): string {
  const text = baseErrorText(err);
  if (err instanceof ApiError && err.retryAfter !== undefined && err.retryAfter > 0) return `${text} ${retryInText(err.retryAfter)}`;
  return text;
}

// retryInText says when to try again: seconds under a minute, else whole minutes
// rounded up.
export function retryInText(seconds: number): string {
  if (seconds < 60) return i18n.t('common.errors.retryInSeconds', { count: seconds });
  return i18n.t('common.errors.retryInMinutes', { count: Math.ceil(seconds / 60) });
}

function baseErrorText(err: unknown): string {
  if (err instanceof ApiError) {
    if (err.code && i18n.exists(`backendErrors.${err.code}`)) return i18n.t(`backendErrors.${err.code}` as 'backendErrors.ERR_INTERNAL');
    if (err.message && i18n.exists(`backendErrors.${err.message}`))
      return i18n.t(`backendErrors.${err.message}` as 'backendErrors.ERR_INTERNAL');
    if (err.message) return err.message;
  } else if (err instanceof NetworkError) {
    return i18n.t('common.errors.network');
  } else if (err instanceof Error && err.message) {
    if (i18n.exists(`backendErrors.${err.message}`)) return i18n.t(`backendErrors.${err.message}` as 'backendErrors.ERR_INTERNAL');
    return err.message;
  }
  return i18n.t('common.errors.generic');
}

export function toastError(err: unknown): void {
  toast.error(errorText(err));
}
