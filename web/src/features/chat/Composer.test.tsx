import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { renderWithProviders } from '../../test/render';
import { mockFetch, route } from '../../test/fetch';
import { toastStore } from '../../components/toast/toastStore';
import { Composer, useComposer } from './Composer';
import type { Message, TicketStatus } from '../../api/types';

function Harness({ status, canSign = false, quote, aiOn = true }: { status: TicketStatus; canSign?: boolean; quote?: Message; aiOn?: boolean }) {
  const actor = useComposer(9, status === 'open', canSign, 'Ana', 'whatsapp');
  return (
    <>
      {quote && (
        <button type="button" onClick={() => actor.send({ type: 'composer.reply', message: quote })}>
          reply
        </button>
      )}
      <Composer actor={actor} ticketId={9} status={status} canSign={canSign} channel="whatsapp" aiOn={aiOn} />
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
    expect(calls[0]).toMatchObject({ url: '/messages/translated/9', body: { body: 'bom dia', language: 'gb' } });
  });

  it('the signature (with permission) prefixes the name and survives mode changes', async () => {
    const { calls } = mockFetch(sent);
    renderWithProviders(<Harness status="open" canSign />);
    await userEvent.click(screen.getByRole('button', { name: 'Assinar mensagens' }));
    await userEvent.click(screen.getByRole('button', { name: 'Texto para áudio' }));
    expect(screen.getByRole('button', { name: 'Assinar mensagens' })).toHaveAttribute('aria-pressed', 'true');
    await userEvent.type(input(), 'olá{Enter}');
    await waitFor(() => expect(calls).toHaveLength(1));
    expect(calls[0]).toMatchObject({ url: '/messages/audio/9', body: { body: '*Ana:*\nolá' } });
  });

  it('without AI configured the AI toggles are disabled with a hint; whisper stays', () => {
    mockFetch();
    renderWithProviders(<Harness status="open" aiOn={false} />);
    for (const name of ['Perguntar à IA', 'Texto para áudio', 'Traduzir ao enviar']) {
      const b = screen.getByRole('button', { name });
      expect(b).toBeDisabled();
      expect(b).toHaveAttribute('title', 'Configure a inteligência artificial em Configuração de IA para usar esta opção.');
    }
    expect(screen.getByRole('button', { name: 'Sussurro' })).toBeEnabled();
  });

  it('ask-AI posts the question to askgpt and a provider failure is a translated toast', async () => {
    toastStore.clear();
    const { calls } = mockFetch(route('POST', '/messages/askgpt/9', { status: 429, body: { error: 'ERR_AI_RATE_LIMITED' } }));
    renderWithProviders(<Harness status="open" />);
    await userEvent.click(screen.getByRole('button', { name: 'Perguntar à IA' }));
    await userEvent.type(input(), 'o que respondo?{Enter}');
    await waitFor(() => expect(calls).toHaveLength(1));
    expect(calls[0]).toMatchObject({ url: '/messages/askgpt/9', body: { body: 'o que respondo?' } });
    await waitFor(() =>
      expect(toastStore.getSnapshot().map((t) => t.text)).toEqual(['O provedor de IA está limitando as solicitações. Tente novamente em instantes.']),
    );
    expect(input()).toHaveValue('o que respondo?');
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

  describe('files', () => {
    const fileInput = () => document.querySelector<HTMLInputElement>('input[type="file"]')!;
    const png = (name = 'foto.png', size = 3) => new File(['x'.repeat(size)], name, { type: 'image/png' });

    it('lists the chosen files with remove, and sends them with the text as caption', async () => {
      const { calls } = mockFetch(route('POST', '/messages/9', { status: 201, body: [{ id: 1 }, { id: 2 }] }));
      renderWithProviders(<Harness status="open" />);
      expect(fileInput()).toHaveAttribute('multiple');
      await userEvent.upload(fileInput(), [png('a.png'), png('b.pdf'), png('c.png')]);
      const list = screen.getByRole('list', { name: 'Arquivos anexados' });
      expect(within(list).getAllByRole('listitem').map((li) => li.textContent)).toEqual(['a.png', 'b.pdf', 'c.png']);
      await userEvent.click(screen.getByRole('button', { name: 'Remover b.pdf' }));
      expect(within(list).getAllByRole('listitem')).toHaveLength(2);
      // Files lock the mode toggles (they go out as ordinary messages).
      expect(screen.getByRole('button', { name: 'Sussurro' })).toBeDisabled();
      expect(screen.queryByRole('button', { name: 'Gravar áudio' })).toBeNull();
      await userEvent.type(input(), 'veja');
      await userEvent.click(screen.getByRole('button', { name: 'Enviar' }));
      await waitFor(() => expect(screen.queryByRole('list', { name: 'Arquivos anexados' })).toBeNull());
      expect(input()).toHaveValue('');
      expect(calls).toHaveLength(1);
      expect(calls[0]).toMatchObject({ method: 'POST', url: '/messages/9' });
      const form = calls[0].body as FormData;
      expect(form.get('body')).toBe('veja');
      expect(form.getAll('medias').map((f) => (f as File).name)).toEqual(['a.png', 'c.png']);
    });

    it('sends files without text on Enter, with the quoted message', async () => {
      const { calls } = mockFetch(route('POST', '/messages/9', { status: 201, body: { id: 1 } }));
      const quote: Message = { id: 55, ticketId: 9, body: 'Manda a foto', fromMe: false, ack: 0, createdAt: '2026-11-22T10:00:00Z' };
      renderWithProviders(<Harness status="open" quote={quote} />);
      await userEvent.click(screen.getByRole('button', { name: 'reply' }));
      await userEvent.upload(fileInput(), png());
      await userEvent.type(input(), '{Enter}');
      await waitFor(() => expect(calls).toHaveLength(1));
      const form = calls[0].body as FormData;
      expect(form.get('body')).toBeNull();
      expect(form.get('quotedMsgId')).toBe('55');
      await waitFor(() => expect(screen.queryByText('Manda a foto')).toBeNull());
    });

    it('refuses a file above its limit and more than 10 files', async () => {
      toastStore.clear();
      mockFetch();
      renderWithProviders(<Harness status="open" />);
      const big = png('grande.png');
      Object.defineProperty(big, 'size', { value: 16 * 1024 * 1024 + 1 });
      await userEvent.upload(fileInput(), [big, png('ok.png')]);
      expect(toastStore.getSnapshot().map((x) => x.text)).toEqual(['Arquivo muito grande']);
      await userEvent.upload(fileInput(), Array.from({ length: 10 }, (_, i) => png(`f${i}.png`)));
      expect(within(screen.getByRole('list', { name: 'Arquivos anexados' })).getAllByRole('listitem')).toHaveLength(10);
      expect(toastStore.getSnapshot().at(-1)?.text).toBe('No máximo 10 arquivos por envio');
      expect(screen.getByRole('button', { name: 'Anexar arquivos' })).toBeDisabled();
    });

    it('keeps the files and shows the error when the server refuses them', async () => {
      toastStore.clear();
      mockFetch(route('POST', '/messages/9', { status: 415, body: { error: 'ERR_MEDIA_TYPE_NOT_ALLOWED' } }));
      renderWithProviders(<Harness status="open" />);
      await userEvent.upload(fileInput(), png('x.png'));
      await userEvent.click(screen.getByRole('button', { name: 'Enviar' }));
      await waitFor(() => expect(toastStore.getSnapshot().map((x) => x.text)).toEqual(['Tipo de arquivo não permitido.']));
      expect(screen.getByRole('button', { name: 'Remover x.png' })).toBeInTheDocument();
    });

    it('the attach button is disabled unless the ticket is open', () => {
      mockFetch();
      renderWithProviders(<Harness status="pending" />);
      expect(screen.getByRole('button', { name: 'Anexar arquivos' })).toBeDisabled();
    });
  });
});
