import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Route, Routes, useLocation } from 'react-router';
import { mockFetch, route } from '../../test/fetch';
import { renderPage } from '../users/pageHarness';
import AgendaPage from './AgendaPage';

function Where() {
  return <output data-testid="where">{useLocation().pathname}</output>;
}

describe('AgendaPage', () => {
  it('toggles between the kanban board and the lazily loaded calendar with the header buttons', async () => {
    Object.defineProperty(document, 'elementFromPoint', { value: () => null, configurable: true });
    mockFetch(
      route('POST', '/agenda/kanboard', { body: [{ id: 1, name: 'Novo', position: 1, kind: 'open', short: true, ConfirmedBooking: [] }] }),
      route('GET', '/agenda/', { body: { tasks: [], count: 0, hasMore: false } }),
      route('GET', '/agenda/bookings', { body: { bookings: [] } }),
    );
    renderPage(
      <>
        <Routes>
          <Route path="/" element={<AgendaPage view="kanban" />} />
          <Route path="/Kanban" element={<AgendaPage view="kanban" />} />
          <Route path="/advscheduler" element={<AgendaPage view="calendar" />} />
        </Routes>
        <Where />
      </>,
      { profile: 'user' },
    );
    expect(await screen.findByRole('region', { name: 'Novo' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Kanban' })).toHaveAttribute('aria-pressed', 'true');
    expect(screen.getByRole('button', { name: 'Calendário' })).toHaveAttribute('aria-pressed', 'false');

    await userEvent.click(screen.getByRole('button', { name: 'Calendário' }));
    await waitFor(() => expect(screen.getByTestId('where')).toHaveTextContent('/advscheduler'));
    expect(await screen.findByLabelText('Calendário da agenda')).toHaveAttribute('data-view', 'day');
    expect(screen.getByRole('button', { name: 'Calendário' })).toHaveAttribute('aria-pressed', 'true');

    await userEvent.click(screen.getByRole('button', { name: 'Kanban' }));
    await waitFor(() => expect(screen.getByTestId('where')).toHaveTextContent('/Kanban'));
    expect(await screen.findByRole('region', { name: 'Novo' })).toBeInTheDocument();
  });

  it('opens the agenda-task modal from the header', async () => {
    mockFetch(
      route('POST', '/agenda/kanboard', { body: [] }),
      route('GET', '/tags/list', { body: [] }),
    );
    renderPage(<AgendaPage view="kanban" />, { profile: 'user' });
    await userEvent.click(await screen.findByRole('button', { name: 'Nova tarefa' }));
    expect(await screen.findByRole('dialog', { name: 'Nova tarefa da agenda' })).toBeInTheDocument();
  });
});
