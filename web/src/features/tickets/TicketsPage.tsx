// / and /tickets/:ticketId? — the ticket manager beside the conversation. Below the
// split breakpoint only one shows: the list, or the conversation once a ticket is open.
import { lazy, Suspense, useEffect } from 'react';
import { useParams } from 'react-router';
import { useTheme } from 'styled-components';
import { useTranslation } from 'react-i18next';
import { useMediaQuery } from '../../app/hooks';
import { Splash } from '../../components/Splash';
import { Icon } from '../../components/Icon';
import { TicketManager } from './TicketManager';
import { ChatPane, ListPane, PageSplit, Welcome } from './style';

const loadChat = () => import('../chat/ChatPanel');
const ChatPanel = lazy(loadChat);

export function TicketsPage() {
  const { ticketId } = useParams();
  const theme = useTheme();
  const { t } = useTranslation();
  const narrow = useMediaQuery(`(max-width: ${theme.breakpoints.split - 1}px)`);
  const id = ticketId && /^\d+$/.test(ticketId) ? Number(ticketId) : null;
  const showList = !narrow || id === null;
  const showChat = !narrow || id !== null;
  // The conversation is its own chunk; fetch it while the list is on screen.
  useEffect(() => {
    void loadChat();
  }, []);
  return (
    <PageSplit>
      {showList && (
        <ListPane $full={narrow}>
          <TicketManager selectedId={id} />
        </ListPane>
      )}
      {showChat && (
        <ChatPane>
          {id !== null ? (
            <Suspense fallback={<Splash />}>
              <ChatPanel key={id} ticketId={id} />
            </Suspense>
          ) : (
            <Welcome>
              <Icon name="chat" size={56} />
              <strong>{t('tickets.welcome.title')}</strong>
              <span>{t('tickets.welcome.message')}</span>
            </Welcome>
          )}
        </ChatPane>
      )}
    </PageSplit>
  );
}
