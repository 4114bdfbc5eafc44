import { memo } from 'react';
import { useT } from '../../i18n/useT';
import { useNow } from '../../app/hooks';
import { clockSkew, ticketAge } from '../../app/format';
import { AgePill } from './style';

// Recomputed every 60 s on one shared ticker (spec section 4).
export const AgeBadge = memo(function AgeBadge({ updatedAt }: { updatedAt: string }) {
  const t = useT();
  const now = useNow(60_000);
  const age = ticketAge(updatedAt, now, clockSkew());
  const text =
    age.days > 0
      ? t('tickets.age.days', { d: age.days, h: age.hours })
      : age.hours > 0
        ? t('tickets.age.hours', { h: age.hours, m: age.mins })
        : t('tickets.age.minutes', { m: age.mins });
  return (
    <AgePill $level={age.level} title={t('tickets.age.title')} data-level={age.level}>
      {text}
    </AgePill>
  );
});
