// Which connection can open a conversation with a contact. A contact's number says
// which channel reaches it: web chat visitors ("webchat:…"), Messenger ("fb:…"),
// Instagram ("ig:…") and Telegram ("tg:…") are reachable only on their own channel; a
// phone number on WhatsApp or the WhatsApp Cloud API. A phone contact bound to a web
// chat connection (the tenant's default, say) would fail on the first message.
import type { Connection, ID } from '../../api/types';

const byPrefix: [string, readonly string[]][] = [
  ['webchat:', ['socket']],
  ['fb:', ['facebook']],
  ['ig:', ['instagram']],
  ['tg:', ['telegram']],
];
const phoneChannels = ['whatsapp', 'waba'] as const;

// channelsFor lists the channels that can reach number.
export function channelsFor(number: string): readonly string[] {
  for (const [prefix, channels] of byPrefix) if (number.startsWith(prefix)) return channels;
  return phoneChannels;
}

// reachingConnection picks the connection to open the ticket on: among those whose
// channel reaches the contact, the default connection, else a connected one, else the
// first; null when none can reach it. The tenant's default is kept when it fits, so a
// WhatsApp tenant sees no change.
export function reachingConnection(number: string, connections: readonly Connection[]): ID | null {
  const channels = channelsFor(number);
  const fit = connections.filter((c) => channels.includes(c.channel));
  const pick = fit.find((c) => c.isDefault) ?? fit.find((c) => c.status === 'CONNECTED') ?? fit[0];
  return pick ? pick.id : null;
}
