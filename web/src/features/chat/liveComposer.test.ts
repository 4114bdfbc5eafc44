import { mockFetch, route } from '../../test/fetch';
import { sendOutgoing } from './liveComposer';
import type { OutgoingMessage } from '../../machines/composer.machine';

const out = (over: Partial<OutgoingMessage> = {}): OutgoingMessage => ({
  ticketId: 5,
  body: 'Seu pedido saiu para entrega',
  mode: 'normal',
  sign: true,
  language: null,
  quotedMsgId: null,
  ...over,
});

describe('the signature', () => {
  // Only WhatsApp renders *bold*: elsewhere the asterisks would reach the customer as
  // written (web chat, Messenger, Instagram, and Telegram's plain-text sends).
  it.each([
    ['whatsapp', '*Ana:*\nSeu pedido saiu para entrega'],
    ['waba', '*Ana:*\nSeu pedido saiu para entrega'],
    ['socket', 'Ana:\nSeu pedido saiu para entrega'],
    ['telegram', 'Ana:\nSeu pedido saiu para entrega'],
    ['facebook', 'Ana:\nSeu pedido saiu para entrega'],
    ['instagram', 'Ana:\nSeu pedido saiu para entrega'],
  ])('on %s is sent as %j', async (channel, want) => {
    const { calls } = mockFetch(route('POST', '/messages/5', { status: 201, body: {} }));
    await sendOutgoing(out(), 'Ana', channel);
    expect(calls.map((c) => (c.body as { body: string }).body)).toEqual([want]);
  });

  it('is plain on an internal note, read in our own app', async () => {
    const { calls } = mockFetch(route('POST', '/messages/whisper/5', { status: 201, body: {} }));
    await sendOutgoing(out({ mode: 'whisper' }), 'Ana', 'whatsapp');
    expect(calls.map((c) => (c.body as { body: string }).body)).toEqual(['Ana:\nSeu pedido saiu para entrega']);
  });

  it('is left out when the toggle is off', async () => {
    const { calls } = mockFetch(route('POST', '/messages/5', { status: 201, body: {} }));
    await sendOutgoing(out({ sign: false }), 'Ana', 'whatsapp');
    expect(calls.map((c) => (c.body as { body: string }).body)).toEqual(['Seu pedido saiu para entrega']);
  });
});
