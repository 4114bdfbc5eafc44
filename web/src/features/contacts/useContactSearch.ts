// Contacts matching what the user types, for the pickers of the new-ticket and agenda
// task modals: the text is debounced (500 ms) and searched from 3 characters; a
// failed search, a shorter text or a disabled picker gives an empty list. An answer
// that arrives after the text changed again is dropped.
import { useEffect, useState } from 'react';
import { useDebounced } from '../../app/hooks';
import { contactsApi } from '../../api/endpoints';
import type { Contact } from '../../api/types';

export const contactSearchMinChars = 3;

export function useContactSearch(text: string, enabled: boolean): Contact[] {
  const query = useDebounced(text.trim(), 500);
  const [found, setFound] = useState<Contact[]>([]);
  useEffect(() => {
    if (!enabled || query.length < contactSearchMinChars) {
      setFound([]);
      return;
    }
    let live = true;
    contactsApi.search(query).then(
      (r) => live && setFound(r.contacts ?? []),
      () => live && setFound([]),
    );
    return () => {
      live = false;
    };
  }, [enabled, query]);
  return found;
}
