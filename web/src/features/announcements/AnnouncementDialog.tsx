// The announcement popup (spec section 2, Other modals): title, priority, date and text.
import { useTranslation } from 'react-i18next';
import { Dialog } from '../../components/Dialog';
import { formatDay } from '../../app/format';
import type { Announcement } from '../../api/types';
import { Body, Meta, PriorityDot } from './style';
import { AnnouncementMedia } from './AnnouncementMedia';

export function AnnouncementDialog({ announcement, onClose }: { announcement: Announcement | null; onClose: () => void }) {
  const { t } = useTranslation();
  return (
    <Dialog open={announcement !== null} onClose={onClose} title={announcement?.title ?? ''} width={520}>
      {announcement && (
        <>
          <Meta>
            <PriorityDot $priority={announcement.priority} aria-hidden />
            {t(`announcements.priority.${announcement.priority}`)}
            <span>{formatDay(announcement.createdAt)}</span>
          </Meta>
          <Body>{announcement.text}</Body>
          <AnnouncementMedia announcement={announcement} />
        </>
      )}
    </Dialog>
  );
}
