// The generic error handler of spec section 8: a toast with the translated text of the
// server's code (backendErrors.<CODE>), else the server's raw text, else a generic line.
import i18n from '../i18n';
import { ApiError, NetworkError } from '../api/errors';
import { toast } from '../components/toast/toastStore';

export function errorText(err: unknown): string {
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
