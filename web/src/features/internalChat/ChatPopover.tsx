// The top bar's internal chat (spec section 2): an icon that shakes and carries a
// badge while chats have unread messages, and a popover listing the chats, newest
// activity first; choosing one opens it on /chats/:id.
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { useTranslation } from 'react-i18next';
import { useUser } from '../../app/session';
import { Icon } from '../../components/Icon';
import { Badge, IconButton, Muted } from '../../components/primitives';
import { MenuItem, Popover } from '../../components/Popover';
import { AttentionIcon } from '../connections/attention';
import { BellBadge, NotificationText } from '../layout/style';
import { chatName, unreadsOf, useChatFeed, useChats, useUnreadChats } from './store';

export function ChatPopover() {
  const { t } = useTranslation();
  const user = useUser();
  const navigate = useNavigate();
  const [open, setOpen] = useState(false);
  useChatFeed(user.id);
  const unread = useUnreadChats(user.id);
  const chats = useChats();
  const go = (path: string) => {
    setOpen(false);
    navigate(path);
  };
  return (
    <Popover
      open={open}
      onClose={() => setOpen(false)}
      align="right"
      width={300}
      label={t('internalChat.popover.title')}
      anchor={
        <IconButton
          type="button"
          aria-label={t('internalChat.popover.button', { count: unread })}
          aria-expanded={open}
          data-testid="chat-popover-button"
          onClick={() => setOpen((o) => !o)}
        >
          <AttentionIcon on={unread > 0}>
            <Icon name="group" />
          </AttentionIcon>
          {unread > 0 && <BellBadge data-testid="chat-unread-badge">{unread > 99 ? '99+' : unread}</BellBadge>}
        </IconButton>
      }
    >
      {chats.length === 0 ? (
        <NotificationText>
          <Muted>{t('internalChat.popover.empty')}</Muted>
        </NotificationText>
      ) : (
        chats.slice(0, 20).map((c) => {
          const n = unreadsOf(c, user.id);
          return (
            <MenuItem key={c.id} type="button" onClick={() => go(`/chats/${c.id}`)}>
              <NotificationText>
                <strong>{chatName(c, user.id)}</strong>
                <Muted>{c.lastMessage}</Muted>
              </NotificationText>
              {n > 0 && <Badge $tone="danger">{n}</Badge>}
            </MenuItem>
          );
        })
      )}
      <MenuItem type="button" onClick={() => go('/chats')}>
        {t('internalChat.popover.all')}
      </MenuItem>
    </Popover>
  );
}
