// /groupjoin?b=<token> (public): asks the server for the next group of the batch with
// room (counting this visitor) and sends the browser to its WhatsApp invite link. A
// batch whose groups are full, or an unknown link, says so.
import { useEffect, useRef, useState } from 'react';
import { useSearchParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { errorText } from '../../app/errors';
import { groupsApi } from './api';
import { JoinBody } from './style';

// go leaves the page; a seam for tests.
export const navigation = { go: (url: string) => window.location.replace(url) };

export default function GroupJoinPage() {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const token = params.get('b') ?? '';
  const [error, setError] = useState('');
  const asked = useRef(false);
  useEffect(() => {
    // One visitor, one seat: StrictMode's second effect run asks nothing.
    if (!token || asked.current) return;
    asked.current = true;
    groupsApi.join(token).then(
      (r) => navigation.go(r.inviteLink),
      (e: unknown) => setError(errorText(e)),
    );
  }, [token]);
  return (
    <JoinBody>
      <h1>{t('pages.titles.groupJoin')}</h1>
      <p role={error || !token ? 'alert' : 'status'}>{!token ? t('groups.join.noLink') : error || t('groups.join.redirecting')}</p>
    </JoinBody>
  );
}
