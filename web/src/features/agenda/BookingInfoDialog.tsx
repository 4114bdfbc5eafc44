// The kanban card's info button: every booking field of spec section 3 that is set.
import { useTranslation } from 'react-i18next';
import { Dialog } from '../../components/Dialog';
import { formatDay, formatTime } from '../../app/format';
import type { Booking } from './api';
import { InfoList } from './style';

const fields = [
  'bookingTypeName',
  'bookingTypeInfo',
  'username',
  'positionName',
  'name',
  'contactNumber',
  'contactCpf',
  'contactDob',
  'distance',
  'label',
] as const;

export function BookingInfoDialog({ booking, onClose }: { booking: Booking | null; onClose: () => void }) {
  const { t } = useTranslation();
  if (!booking) return null;
  return (
    <Dialog open title={booking.bookingName || t('agenda.booking.infoTitle')} onClose={onClose} width={520}>
      <p>{booking.description}</p>
      <InfoList>
        <dt>{t('agenda.booking.fields.when')}</dt>
        <dd>
          {formatDay(booking.bookingTzidFrom)} {formatTime(booking.bookingTzidFrom)}–{formatTime(booking.bookingTzidTo)}
        </dd>
        {fields
          .filter((f) => booking[f])
          .map((f) => (
            <div key={f} style={{ display: 'contents' }}>
              <dt>{t(`agenda.booking.fields.${f}`)}</dt>
              <dd>{booking[f]}</dd>
            </div>
          ))}
      </InfoList>
    </Dialog>
  );
}
