// The announcements popover of the top bar (spec section 2): the active announcements,
// newest first, each with its priority colour (1 red, 2 orange, 3 grey), its text and
// its attachment (an image shown, anything else a link). The list is cleared 30 s
// after the popover closes (useAnnouncementList).
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { useTranslation } from 'react-i18next';
import { Icon } from '../../components/Icon';
import { IconButton, Muted } from '../../components/primitives';
import { Popover } from '../../components/Popover';
import type { Announcement } from '../../api/types';
import { useAnnouncementList } from './useAnnouncementList';
import { AnnouncementMedia } from './AnnouncementMedia';
import { PopoverBadge, PopoverFooter, PopoverItem, PopoverText, PopoverTitle } from './style';

export function AnnouncementsPopover() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [open, setOpen] = useState(false);
  const { state, unseen } = useAnnouncementList(open);
  const label = unseen > 0 ? t('announcements.popover.buttonNew', { count: unseen }) : t('announcements.popover.button');
  return (
    <Popover
      open={open}
      onClose={() => setOpen(false)}
      align="right"
      width={320}
      label={t('announcements.popover.title')}
      anchor={
        <IconButton type="button" aria-label={label} aria-expanded={open} onClick={() => setOpen((o) => !o)}>
          <Icon name="info" />
          {unseen > 0 && <PopoverBadge aria-hidden="true">{unseen > 99 ? '99+' : unseen}</PopoverBadge>}
        </IconButton>
      }
    >
      <div role="list" aria-label={t('announcements.popover.title')}>
        {state.status === 'loading' && <PopoverText><Muted>{t('announcements.popover.loading')}</Muted></PopoverText>}
        {state.status === 'error' && <PopoverText role="alert">{t('announcements.popover.error')}</PopoverText>}
        {state.status === 'ready' && state.records.length === 0 && (
          <PopoverText><Muted>{t('announcements.popover.empty')}</Muted></PopoverText>
        )}
        {state.status === 'ready' && state.records.map((a) => <AnnouncementItem key={a.id} a={a} />)}
      </div>
      <PopoverFooter
        type="button"
        onClick={() => {
          setOpen(false);
          navigate('/announcements');
        }}
      >
        {t('announcements.popover.all')}
      </PopoverFooter>
    </Popover>
  );
}

function AnnouncementItem({ a }: { a: Announcement }) {
  return (
    <PopoverItem role="listitem" $priority={a.priority} data-priority={a.priority}>
      <PopoverTitle>{a.title}</PopoverTitle>
      <PopoverText>{a.text}</PopoverText>
      <AnnouncementMedia announcement={a} />
    </PopoverItem>
  );
}
