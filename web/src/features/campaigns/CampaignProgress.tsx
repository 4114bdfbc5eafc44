// One campaign or broadcast with its live progress: a progress bar (sent and failed
// over the total), the counts, the next send time and why sending waits, the actions
// its status allows (pause, resume, cancel — a campaign is never removed), and on
// demand the per-contact statuses with their error text.
import { useState } from 'react';
import styled from 'styled-components';
import { useTranslation } from 'react-i18next';
import { tenantTimeZone } from '../../app/format';
import { errorText } from '../../app/errors';
import { ApiError } from '../../api/errors';
import { Badge, Button, Muted, Row } from '../../components/primitives';
import { toast } from '../../components/toast/toastStore';
import { campaignsApi, progress, type Campaign, type CampaignSend } from './api';

const Card = styled.section`
  border: 1px solid ${({ theme }) => theme.colors.border};
  border-radius: 8px;
  padding: ${({ theme }) => theme.space.md}px;
  display: flex;
  flex-direction: column;
  gap: ${({ theme }) => theme.space.sm}px;
`;

const Bar = styled.progress`
  width: 100%;
  height: 14px;
`;

const Sends = styled.ul`
  list-style: none;
  margin: 0;
  padding: 0;
  max-height: 240px;
  overflow: auto;
  li {
    display: flex;
    gap: 8px;
    padding: 2px 0;
  }
`;

function waitText(reason: string): string {
  return reason ? errorText(new ApiError(400, reason, reason)) : '';
}

export function CampaignProgress({ campaign: c, onChange }: { campaign: Campaign; onChange: (c: Campaign) => void }) {
  const { t, i18n } = useTranslation();
  const [sends, setSends] = useState<CampaignSend[] | null>(null);
  const pct = progress(c);
  const fmt = new Intl.DateTimeFormat(i18n.language, { dateStyle: 'short', timeStyle: 'medium', timeZone: tenantTimeZone });
  const act = (run: () => Promise<Campaign>) => () => {
    run().then(onChange, (e: unknown) => toast.error(errorText(e)));
  };
  const loadSends = () => {
    campaignsApi.sends(c.id).then(
      (r) => setSends(r.sends),
      (e: unknown) => toast.error(errorText(e)),
    );
  };
  const live = c.status === 'running' || c.status === 'scheduled';
  return (
    <Card aria-label={c.name} data-testid={`campaign-${c.id}`} data-status={c.status}>
      <Row $gap={8} $wrap>
        <strong>{c.name}</strong>
        {c.planName && <Muted>{c.planName}</Muted>}
        <Badge $tone={c.status === 'finished' ? 'success' : c.status === 'cancelled' ? 'danger' : 'primary'}>
          {t(`outbound.progress.status.${c.status}`)}
        </Badge>
      </Row>
      <Bar max={100} value={pct} aria-label={t('outbound.progress.label', { name: c.name })} aria-valuenow={pct} data-testid="progress" />
      <Muted data-testid="counts">{t('outbound.progress.counts', { sent: c.sent, errors: c.errors, pending: c.pending })}</Muted>
      {live && c.nextSendAt && !c.nextSendAt.startsWith('0001') && (
        <Muted>
          {t('outbound.progress.next', { when: fmt.format(new Date(c.nextSendAt)) })}
          {c.waitReason ? ` · ${waitText(c.waitReason)}` : ''}
        </Muted>
      )}
      <Row $gap={8} $wrap>
        {live && (
          <Button type="button" $small $variant="ghost" onClick={act(() => campaignsApi.pause(c.id))}>
            {t('outbound.progress.pause')}
          </Button>
        )}
        {c.status === 'paused' && (
          <Button type="button" $small $variant="ghost" onClick={act(() => campaignsApi.resume(c.id))}>
            {t('outbound.progress.resume')}
          </Button>
        )}
        {(live || c.status === 'paused') && (
          <Button type="button" $small $variant="ghost" onClick={act(() => campaignsApi.cancel(c.id))}>
            {t('outbound.progress.cancel')}
          </Button>
        )}
        <Button type="button" $small $variant="ghost" onClick={() => (sends ? setSends(null) : loadSends())} aria-expanded={!!sends}>
          {sends ? t('outbound.progress.hideDetails') : t('outbound.progress.details')}
        </Button>
        {c.kind === 'campaign' && (
          <Button type="button" $small $variant="ghost" onClick={() => campaignsApi.downloadReport(c.id).catch((e: unknown) => toast.error(errorText(e)))}>
            {t('outbound.campaigns.report')}
          </Button>
        )}
      </Row>
      {sends && (
        <Sends data-testid="sends">
          {sends.map((s) => (
            <li key={s.id} data-testid={`send-${s.number}`} data-status={s.status}>
              <span>{s.contactName || s.number}</span>
              <Muted>{s.number}</Muted>
              <Badge $tone={s.status === 'sent' ? 'success' : s.status === 'error' ? 'danger' : 'muted'}>
                {t(`outbound.progress.send.${s.status}`)}
              </Badge>
              {s.error && <Muted>{waitText(s.error.split(':')[0]) || s.error}</Muted>}
            </li>
          ))}
        </Sends>
      )}
    </Card>
  );
}
