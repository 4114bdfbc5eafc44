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

export const ChannelMark = memo(function ChannelMark({ channel }: { channel: string | undefined }) {
  const c = channelOf(channel);
  const name = rowText(useT()).channel(c);
  return (
    <ChannelDot $channel={c} title={name} role="img" aria-label={name}>
      {short[c]}
    </ChannelDot>
  );
});
