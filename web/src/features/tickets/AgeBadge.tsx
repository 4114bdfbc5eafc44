import { memo } from 'react';
import { useT } from '../../i18n/useT';
import { useNow } from '../../app/hooks';
import { clockSkew, ticketAge } from '../../app/format';
import { rowText } from './rowText';
import { AgePill } from './style';

// Recomputed every 60 s on one shared ticker (spec section 4).
export const AgeBadge = memo(function AgeBadge({ updatedAt }: { updatedAt: string }) {
  const text = rowText(useT());
  const now = useNow(60_000);
  const age = ticketAge(updatedAt, now, clockSkew());
  return (
    <AgePill $level={age.level} title={text.ageTitle} data-level={age.level}>
      {text.age(age)}
    </AgePill>
  );
});
