import { memo } from 'react';
import { useT } from '../../i18n/useT';
import { rowText } from './rowText';
import { ChannelDot } from './style';

const known = ['whatsapp', 'waba', 'facebook', 'instagram', 'telegram', 'socket'] as const;
export type KnownChannel = (typeof known)[number];

export function channelOf(c: string | undefined): KnownChannel {
  return (known as readonly string[]).includes(c ?? '') ? (c as KnownChannel) : 'whatsapp';
}

const short: Record<KnownChannel, string> = {
  whatsapp: 'W',
  waba: 'WB',
  facebook: 'f',
  instagram: 'IG',
  telegram: 'T',
  socket: '</>',
};

// ChannelMark: a channel's short mark on its colour, named for screen readers; size is
// its height in px (20 in ticket rows, larger on the connection cards).
export const ChannelMark = memo(function ChannelMark({ channel, size = 20 }: { channel: string | undefined; size?: number }) {
  const c = channelOf(channel);
  const name = rowText(useT()).channel(c);
  return (
    <ChannelDot $channel={c} $size={size} title={name} role="img" aria-label={name}>
      {short[c]}
    </ChannelDot>
  );
});
