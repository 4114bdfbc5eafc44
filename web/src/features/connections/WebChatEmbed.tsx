// A web chat connection's embed code (channel socket), on its card: the <script> tag
// that puts the widget on a site — wrapped, so a phone-width card shows all of it
// instead of overflowing —, a button that copies it, and a link to the demo page
// where the widget can be tried (transport/channel/webchat serves both).
import { useTranslation } from 'react-i18next';
import styled from 'styled-components';
import type { Connection } from '../../api/types';
import { Button } from '../../components/primitives';
import { toast } from '../../components/toast/toastStore';

export function embedSnippet(origin: string, id: number): string {
  return `<script src="${origin}/webchat/widget.js" data-connection="${id}" async></script>`;
}

const Box = styled.details`
  font-size: ${({ theme }) => theme.fontSizes.sm}px;
  summary {
    cursor: pointer;
    color: ${({ theme }) => theme.colors.primaryDark};
    font-weight: 600;
  }
`;

export const Snippet = styled.pre`
  margin: ${({ theme }) => theme.space.xs}px 0;
  padding: ${({ theme }) => theme.space.sm}px;
  background: ${({ theme }) => theme.colors.surfaceAlt};
  border-radius: ${({ theme }) => theme.radii.sm}px;
  font-size: ${({ theme }) => theme.fontSizes.xs}px;
  white-space: pre-wrap;
  word-break: break-all;
  max-width: 100%;
`;

const Row = styled.div`
  display: flex;
  flex-wrap: wrap;
  align-items: center;
  gap: ${({ theme }) => theme.space.sm}px;
  a {
    color: ${({ theme }) => theme.colors.primaryDark};
    font-weight: 600;
  }
`;

export function WebChatEmbed({ connection: c, origin = window.location.origin }: { connection: Connection; origin?: string }) {
  const { t } = useTranslation();
  const code = embedSnippet(origin, c.id);
  const copy = () => {
    const done = () => toast.success(t('connections.embed.copied'));
    const fail = () => toast.error(t('connections.embed.copyFailed'));
    if (!navigator.clipboard) {
      fail();
      return;
    }
    navigator.clipboard.writeText(code).then(done, fail);
  };
  return (
    <Box data-testid={`webchat-embed-${c.id}`}>
      <summary>{t('connections.embed.title')}</summary>
      <Snippet data-testid={`webchat-snippet-${c.id}`}>
        <code>{code}</code>
      </Snippet>
      <Row>
        <Button type="button" $small $variant="secondary" onClick={copy}>
          {t('connections.embed.copy')}
        </Button>
        <a href={`/webchat/demo?c=${c.id}`} target="_blank" rel="noopener noreferrer">
          {t('connections.embed.demo')}
        </a>
      </Row>
    </Box>
  );
}
