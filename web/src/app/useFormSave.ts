// useFormSave: the save step the reference-data form modals share. save(found, send)
// shows the client-side errors found; with none it sends (busy meanwhile), hands the
// answer to onSaved and closes. A failure is a toast, and an ERR_VALIDATION answer's
// fields (only those listed in fields) land on their fields.
import { useState } from 'react';
import { toastError } from './errors';
import { mapServerFields, type ValidationKey } from './validation';

export function useFormSave<F extends string, R, X extends string = never>({
  fields,
  onSaved,
  onClose,
}: {
  fields: readonly F[];
  onSaved: (saved: R) => void;
  onClose: () => void;
}) {
  const [errors, setErrors] = useState<Partial<Record<F, ValidationKey | X>>>({});
  const [busy, setBusy] = useState(false);

  const save = async (found: Partial<Record<F, ValidationKey | X>>, send: () => Promise<R>) => {
    setErrors(found);
    if (Object.keys(found).length) return;
    setBusy(true);
    try {
      onSaved(await send());
      onClose();
    } catch (err) {
      const mapped = mapServerFields<F>(err, fields);
      if (mapped) setErrors(mapped);
      toastError(err);
    } finally {
      setBusy(false);
    }
  };

  return { errors, busy, save };
}
