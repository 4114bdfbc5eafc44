// /googlecalendar: subscribe to the tenant's agenda (bookings and agenda tasks) from
// Google Calendar or any iCalendar client. The server issues a per-user secret link
// (GET /ical/<secret>.ics); only its hash is stored, so the link is shown once, right
// after it is made, and a new link revokes the old one (docs/calendar.md).
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { calendarFeedApi, type CalendarFeedView } from '../../api/endpoints';
import { toastError } from '../../app/errors';
import { formatCuiaba } from '../../app/format';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { Header, Page, Title } from '../../components/pageStyle';
import { Button, Field, Input, Muted, Row } from '../../components/primitives';
import { Spinner } from '../../components/Splash';
import { toast } from '../../components/toast/toastStore';
import { Panel, Steps } from './style';

// googleAddURL opens Google Calendar's "add by URL" for a webcal address.
export function googleAddURL(feedURL: string): string {
  const webcal = feedURL.replace(/^https?:\/\//, 'webcal://');
  return `https://calendar.google.com/calendar/r?cid=${encodeURIComponent(webcal)}`;
}

export default function GoogleCalendarPage() {
  const { t } = useTranslation();
  const [view, setView] = useState<CalendarFeedView | null>(null);
  const [busy, setBusy] = useState(false);
  const [confirm, setConfirm] = useState(false);

  useEffect(() => {
    let live = true;
    calendarFeedApi
      .status()
      .then((v) => live && setView(v))
      .catch((err) => {
        if (live) setView({ active: false });
        toastError(err);
      });
    return () => {
      live = false;
    };
  }, []);

  const run = async (call: () => Promise<CalendarFeedView>, done: string) => {
    setBusy(true);
    try {
      setView(await call());
      toast.success(done);
    } catch (err) {
      toastError(err);
    } finally {
      setBusy(false);
    }
  };

  const copy = async (url: string) => {
    try {
      await navigator.clipboard.writeText(url);
      toast.success(t('calendarFeed.copied'));
    } catch (err) {
      toastError(err);
    }
  };

  return (
    <Page>
      <Header>
        <Title>{t('calendarFeed.title')}</Title>
      </Header>
      <Panel>
        <p>{t('calendarFeed.intro')}</p>
        {view === null ? (
          <Spinner />
        ) : (
          <>
            <p data-testid="calendar-feed-state">
              {view.active && view.issuedAt ? t('calendarFeed.issuedAt', { date: formatCuiaba(view.issuedAt) }) : t('calendarFeed.none')}
            </p>
            {view.url && (
              <>
                <Field>
                  {t('calendarFeed.urlLabel')}
                  <Input readOnly value={view.url} data-testid="calendar-feed-url" onFocus={(e) => e.currentTarget.select()} />
                </Field>
                <Muted role="note">{t('calendarFeed.onceHint')}</Muted>
                <Row $gap={8} $wrap>
                  <Button type="button" onClick={() => void copy(view.url!)}>
                    {t('calendarFeed.copy')}
                  </Button>
                  <Button as="a" $variant="ghost" href={googleAddURL(view.url)} target="_blank" rel="noopener noreferrer">
                    {t('calendarFeed.openGoogle')}
                  </Button>
                  <Button as="a" $variant="ghost" href={view.url} download="atende.ics">
                    {t('calendarFeed.download')}
                  </Button>
                </Row>
                <Steps aria-label={t('calendarFeed.steps.title')}>
                  <li>{t('calendarFeed.steps.one')}</li>
                  <li>{t('calendarFeed.steps.two')}</li>
                  <li>{t('calendarFeed.steps.three')}</li>
                </Steps>
              </>
            )}
            <Row $gap={8} $wrap>
              <Button type="button" disabled={busy} onClick={() => void run(calendarFeedApi.issue, t('calendarFeed.created'))}>
                {view.active ? t('calendarFeed.regenerate') : t('calendarFeed.generate')}
              </Button>
              {view.active && (
                <Button type="button" $variant="danger" disabled={busy} onClick={() => setConfirm(true)}>
                  {t('calendarFeed.revoke')}
                </Button>
              )}
            </Row>
            {view.active && <Muted>{t('calendarFeed.regenerateHint')}</Muted>}
          </>
        )}
      </Panel>
      <ConfirmDialog
        open={confirm}
        title={t('calendarFeed.revoke')}
        busy={busy}
        onClose={() => setConfirm(false)}
        onConfirm={() => {
          setConfirm(false);
          void run(calendarFeedApi.revoke, t('calendarFeed.revoked'));
        }}
      >
        {t('calendarFeed.confirmRevoke')}
      </ConfirmDialog>
    </Page>
  );
}
