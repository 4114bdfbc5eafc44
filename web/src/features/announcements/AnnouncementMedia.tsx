// An announcement's attachment: an image is shown, anything else is a link named
// after the file. Nothing when there is none.
import { useTranslation } from 'react-i18next';
import type { Announcement } from '../../api/types';
import { PopoverImage } from './style';

// isImage: whether a media URL names an image (the server's URLs end in the stored
// file's extension, chosen from the sniffed content).
export function isImage(url: string): boolean {
  return /\.(png|jpe?g|gif|webp)$/i.test(url.split('?')[0]);
}

export function AnnouncementMedia({ announcement: a }: { announcement: Announcement }) {
  const { t } = useTranslation();
  if (!a.mediaPath) return null;
  if (isImage(a.mediaPath)) {
    return <PopoverImage src={a.mediaPath} alt={t('announcements.popover.imageAlt', { title: a.title })} loading="lazy" />;
  }
  return (
    <a href={a.mediaPath} target="_blank" rel="noreferrer">
      {t('announcements.popover.attachment', { name: a.mediaName })}
    </a>
  );
}
