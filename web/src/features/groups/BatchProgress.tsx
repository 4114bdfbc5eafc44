// One group batch with its live progress: a bar of the groups created over the
// batch's count, each group with its status (its invite link once created, its error
// when refused), the visitors /groupjoin sent, and the public link to share.
import styled from 'styled-components';
import { useTranslation } from 'react-i18next';
import { ApiError } from '../../api/errors';
import { errorText } from '../../app/errors';
import { Badge, Muted, Row } from '../../components/primitives';
import { joinLink, type GroupBatch } from './api';
import { Bar, Card, Groups } from './style';

const Link = styled.a`
  color: ${({ theme }) => theme.colors.primary};
  word-break: break-all;
`;

// reason is the text of a group's recorded error ("ERR_…: cause").
function reason(error: string): string {
  const code = error.split(':')[0].trim();
  return errorText(new ApiError(400, code, error));
}

export function BatchProgress({ batch: b }: { batch: GroupBatch }) {
  const { t } = useTranslation();
  const done = b.created + b.failed;
  const link = joinLink(b.token);
  return (
    <Card aria-label={b.name} data-testid={`batch-${b.id}`} data-status={b.status}>
      <Row $gap={8} $wrap>
        <strong>{b.name}</strong>
        <Badge $tone={b.status === 'finished' ? (b.failed ? 'danger' : 'success') : 'primary'}>{t(`groups.status.${b.status}`)}</Badge>
        <span data-testid="batch-count">{t('groups.progress', { done: b.created, total: b.count })}</span>
        {b.failed > 0 && <Muted>{t('groups.failed', { count: b.failed })}</Muted>}
      </Row>
      <Bar max={b.count} value={done} aria-label={t('groups.progressLabel', { name: b.name })} />
      <Row $gap={8} $wrap>
        <Muted>{t('groups.joinLink')}</Muted>
        <Link href={link} target="_blank" rel="noreferrer" data-testid="join-link">
          {link}
        </Link>
        <Muted>{t('groups.joined', { count: b.joined })}</Muted>
      </Row>
      <Groups aria-label={t('groups.list', { name: b.name })}>
        {b.groups.map((g) => (
          <li key={g.seq} data-testid={`group-${g.seq}`} data-status={g.status}>
            <span>{g.name}</span>
            <Badge $tone={g.status === 'created' ? 'success' : g.status === 'error' ? 'danger' : 'muted'}>{t(`groups.groupStatus.${g.status}`)}</Badge>
            {g.status === 'created' && <Muted>{t('groups.seats', { n: g.participants + g.joined, max: b.maxParticipants })}</Muted>}
            {g.inviteLink && <Link href={g.inviteLink} target="_blank" rel="noreferrer">{g.inviteLink}</Link>}
            {g.error && <Muted>{reason(g.error)}</Muted>}
          </li>
        ))}
      </Groups>
    </Card>
  );
}
