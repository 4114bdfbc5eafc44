import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { mockFetch, route } from '../../test/fetch';
import { toastStore } from '../../components/toast/toastStore';
import { renderPage } from '../users/pageHarness';
import GoogleCalendarPage, { googleAddURL } from './GoogleCalendarPage';

const url = 'https://atende.example.com/ical/s3cr3t.ics';

describe('GoogleCalendarPage', () => {
  beforeEach(() => toastStore.clear());

  it('makes a link shown once, replaces it, and revokes it after confirmation', async () => {
    let issued = 0;
    const { calls } = mockFetch(
      route('GET', '/calendar-feed', () => ({ body: { active: false } })),
      route('POST', '/calendar-feed', () => {
        issued++;
        return { status: 201, body: { active: true, issuedAt: '2026-11-27T12:00:00Z', url: url.replace('s3cr3t', `s3cr3t${issued}`) } };
      }),
      route('DELETE', '/calendar-feed', () => ({ body: { active: false } })),
    );
    renderPage(<GoogleCalendarPage />, { profile: 'user' });
    expect(await screen.findByText('Você ainda não tem um link de agenda.')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Desativar link' })).not.toBeInTheDocument();

    await userEvent.click(screen.getByRole('button', { name: 'Gerar link' }));
    const field = await screen.findByTestId('calendar-feed-url');
    expect(field).toHaveValue('https://atende.example.com/ical/s3cr3t1.ics');
    expect(screen.getByText('Copie agora: por segurança, o link só é mostrado uma vez.')).toBeInTheDocument();
    const google = screen.getByRole('link', { name: 'Adicionar ao Google Agenda' });
    expect(google).toHaveAttribute('href', googleAddURL('https://atende.example.com/ical/s3cr3t1.ics'));
    expect(screen.getByTestId('calendar-feed-state').textContent).toMatch(/^Link atual criado em \d\d\/\d\d\/2026 \d\d:\d\d\.$/);

    await userEvent.click(screen.getByRole('button', { name: 'Gerar novo link' }));
    await waitFor(() => expect(screen.getByTestId('calendar-feed-url')).toHaveValue('https://atende.example.com/ical/s3cr3t2.ics'));

    await userEvent.click(screen.getByRole('button', { name: 'Desativar link' }));
    const dialog = await screen.findByRole('dialog', { name: 'Desativar link' });
    expect(calls.filter((c) => c.method === 'DELETE')).toEqual([]);
    await userEvent.click(within(dialog).getByRole('button', { name: 'Confirmar' }));
    expect(await screen.findByText('Você ainda não tem um link de agenda.')).toBeInTheDocument();
    expect(screen.queryByTestId('calendar-feed-url')).not.toBeInTheDocument();
    expect(calls.filter((c) => c.method === 'DELETE')).toHaveLength(1);
  });

  it('an existing link is reported without showing it again', async () => {
    mockFetch(route('GET', '/calendar-feed', () => ({ body: { active: true, issuedAt: '2026-11-20T10:00:00Z' } })));
    renderPage(<GoogleCalendarPage />, { profile: 'user' });
    expect(await screen.findByTestId('calendar-feed-state')).toHaveTextContent('Link atual criado em');
    expect(screen.queryByTestId('calendar-feed-url')).not.toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Gerar novo link' })).toBeInTheDocument();
  });

  it('googleAddURL hands Google a webcal address', () => {
    expect(googleAddURL('https://a.example/ical/x.ics')).toBe(
      'https://calendar.google.com/calendar/r?cid=' + encodeURIComponent('webcal://a.example/ical/x.ics'),
    );
    expect(googleAddURL('http://localhost:8080/ical/x.ics')).toContain(encodeURIComponent('webcal://localhost:8080/'));
  });
});
