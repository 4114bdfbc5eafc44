import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { renderWithProviders } from '../../test/render';
import { mockFetch, route } from '../../test/fetch';
import { toastStore } from '../../components/toast/toastStore';
import { Composer, useComposer } from './Composer';
import type { Message, TicketStatus } from '../../api/types';

function Harness({ status, canSign = false, quote }: { status: TicketStatus; canSign?: boolean; quote?: Message }) {
  const actor = useComposer(9, status === 'open', canSign, 'Ana');
  return (
    <>
      {quote && (
        <button type="button" onClick={() => actor.send({ type: 'composer.reply', message: quote })}>
          reply
        </button>
      )}
      <Composer actor={actor} ticketId={9} status={status} canSign={canSign} />
    </>
  );
}

const sent = route('POST', /^\/messages\//, { body: { id: 1 } });

function input() {
  return screen.getByRole('textbox', { name: 'Mensagem' });
}

describe('Composer', () => {
  it('is disabled with the closed placeholder unless the ticket is open', () => {
    mockFetch();
    renderWithProviders(<Harness status="closed" />);
    expect(input()).toBeDisabled();
    expect(input()).toHaveAttribute('placeholder', 'Reabra ou aceite este atendimento para enviar mensagens');
    expect(screen.getByRole('button', { name: 'Sussurro' })).toBeDisabled();
  });

  it('shows the send button only with text', async () => {
    mockFetch(sent);
    renderWithProviders(<Harness status="open" />);
    expect(screen.queryByRole('button', { name: 'Enviar' })).toBeNull();
    expect(screen.getByRole('button', { name: 'Gravar áudio' })).toBeInTheDocument();
    await userEvent.type(input(), '   ');
    expect(screen.queryByRole('button', { name: 'Enviar' })).toBeNull();
    await userEvent.type(input(), 'oi');
    expect(screen.getByRole('button', { name: 'Enviar' })).toBeInTheDocument();
  });

  it('Enter sends and clears; Shift+Enter adds a line', async () => {
    const { calls } = mockFetch(sent);
    renderWithProviders(<Harness status="open" />);
    await userEvent.type(input(), 'linha 1{Shift>}{Enter}{/Shift}linha 2');
    expect(input()).toHaveValue('linha 1\nlinha 2');
    expect(input()).toHaveAttribute('rows', '2');
    expect(calls).toHaveLength(0);
    await userEvent.type(input(), '{Enter}');
    await waitFor(() => expect(input()).toHaveValue(''));
    expect(calls).toEqual([
      {
        method: 'POST',
        url: '/messages/9',
        body: { body: 'linha 1\nlinha 2', fromMe: true, read: true, mediaUrl: '', quotedMsg: null },
      },
    ]);
  });

  it('grows to at most 5 rows', async () => {
    mockFetch();
    renderWithProviders(<Harness status="open" />);
    await userEvent.type(input(), 'a{Shift>}{Enter}{Enter}{Enter}{Enter}{Enter}{Enter}{/Shift}b');
    expect(input()).toHaveAttribute('rows', '5');
  });

  it('whisper mode posts to the whisper route; modes exclude each other', async () => {
    const { calls } = mockFetch(sent);
    renderWithProviders(<Harness status="open" />);
    const whisper = screen.getByRole('button', { name: 'Sussurro' });
    const ai = screen.getByRole('button', { name: 'Perguntar à IA' });
    await userEvent.click(ai);
    expect(ai).toHaveAttribute('aria-pressed', 'true');
    await userEvent.click(whisper);
    expect(whisper).toHaveAttribute('aria-pressed', 'true');
    expect(ai).toHaveAttribute('aria-pressed', 'false');
    await userEvent.type(input(), 'nota interna{Enter}');
    await waitFor(() => expect(calls).toHaveLength(1));
    expect(calls[0]).toMatchObject({ url: '/messages/whisper/9', body: { body: 'nota interna', fromMe: true } });
  });

  it('translation asks for a language and sends it', async () => {
    const { calls } = mockFetch(sent);
    renderWithProviders(<Harness status="open" />);
    await userEvent.click(screen.getByRole('button', { name: 'Traduzir ao enviar' }));
    await userEvent.selectOptions(screen.getByRole('combobox', { name: 'Idioma da tradução' }), 'gb');
    await userEvent.type(input(), 'bom dia{Enter}');
    await waitFor(() => expect(calls).toHaveLength(1));
    expect(calls[0].body).toMatchObject({ body: 'bom dia', translateTo: 'gb' });
  });

  it('the signature (with permission) prefixes the name and survives mode changes', async () => {
    const { calls } = mockFetch(sent);
    renderWithProviders(<Harness status="open" canSign />);
    await userEvent.click(screen.getByRole('button', { name: 'Assinar mensagens' }));
    await userEvent.click(screen.getByRole('button', { name: 'Texto para áudio' }));
    expect(screen.getByRole('button', { name: 'Assinar mensagens' })).toHaveAttribute('aria-pressed', 'true');
    await userEvent.type(input(), 'olá{Enter}');
    await waitFor(() => expect(calls).toHaveLength(1));
    expect(calls[0].body).toMatchObject({ body: '*Ana:*\nolá', textToAudio: true });
  });

  it('hides the signature toggle without the permission', () => {
    mockFetch();
    renderWithProviders(<Harness status="open" />);
    expect(screen.queryByRole('button', { name: 'Assinar mensagens' })).toBeNull();
  });

  it("'/' lists quick answers and choosing one fills the text", async () => {
    const { calls } = mockFetch(
      route('GET', '/quickAnswers/', { body: { quickAnswers: [{ id: 1, shortcut: 'bd', message: 'Bom dia! Como posso ajudar?' }] } }),
    );
    renderWithProviders(<Harness status="open" />);
    await userEvent.type(input(), '/bd');
    const list = await screen.findByRole('listbox', { name: 'Respostas rápidas' });
    expect(calls.at(-1)?.url).toBe('/quickAnswers/?searchParam=bd');
    await userEvent.click(within(list).getByRole('option'));
    expect(input()).toHaveValue('Bom dia! Como posso ajudar?');
    await waitFor(() => expect(screen.queryByRole('listbox')).toBeNull());
  });

  it('a failed quick answer search shows nothing', async () => {
    toastStore.clear();
    const { fn } = mockFetch(route('GET', '/quickAnswers/', { status: 500, body: { error: 'ERR_INTERNAL' } }));
    renderWithProviders(<Harness status="open" />);
    await userEvent.type(input(), '/x');
    await waitFor(() => expect(fn).toHaveBeenCalled());
    await waitFor(() => expect(fn.mock.results[0]?.type).toBe('return'));
    await Promise.resolve();
    expect(screen.queryByRole('listbox')).toBeNull();
    expect(toastStore.getSnapshot()).toEqual([]);
  });

  it('the emoji picker has 16 per line and inserts at the end', async () => {
    mockFetch();
    renderWithProviders(<Harness status="open" />);
    await userEvent.type(input(), 'oi ');
    await userEvent.click(screen.getByRole('button', { name: 'Emojis' }));
    const picker = screen.getByRole('dialog', { name: 'Emojis' });
    const grid = picker.firstElementChild as HTMLElement;
    expect(getComputedStyle(grid).gridTemplateColumns).toBe('repeat(16, 32px)');
    await userEvent.click(within(picker).getByRole('button', { name: '😀' }));
    expect(input()).toHaveValue('oi 😀');
  });

  it('replies quote the message and send its id', async () => {
    const { calls } = mockFetch(sent);
    const quote: Message = { id: 55, ticketId: 9, body: 'Qual o prazo?', fromMe: false, ack: 0, createdAt: '2026-11-22T10:00:00Z' };
    renderWithProviders(<Harness status="open" quote={quote} />);
    await userEvent.click(screen.getByRole('button', { name: 'reply' }));
    expect(screen.getByText('Qual o prazo?')).toBeInTheDocument();
    await userEvent.type(input(), 'Amanhã{Enter}');
    await waitFor(() => expect(calls).toHaveLength(1));
    expect(calls[0].body).toMatchObject({ quotedMsg: { id: 55 } });
    await waitFor(() => expect(screen.queryByText('Qual o prazo?')).toBeNull());
  });

  it('keeps the text and shows the server error when sending fails', async () => {
    toastStore.clear();
    mockFetch(route('POST', '/messages/9', { status: 502, body: { error: 'ERR_SENDING_WAPP_MSG' } }));
    renderWithProviders(<Harness status="open" />);
    await userEvent.type(input(), 'oi{Enter}');
    await waitFor(() =>
      expect(toastStore.getSnapshot().map((t) => t.text)).toEqual(['Erro ao enviar a mensagem. Verifique a página de conexões.']),
    );
    expect(input()).toHaveValue('oi');
  });
});
