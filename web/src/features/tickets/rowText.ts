// Text of the ticket rows, translated once per language instead of once per row per
// render. A row mounts every time it scrolls into view (hundreds a second while
// scrolling, BENCHMARKS B8), and i18next's t() costs tens of µs a call (key parsing,
// resource lookup, interpolation): the fixed strings are looked up once per language,
// and the age badge's text is kept per (days, hours, minutes) value.
import type { TFunction } from 'i18next';
import type { Age } from '../../app/format';
import type { KnownChannel } from './ChannelMark';

export interface RowText {
  noQueue: string;
  resolved: string;
  unknownContact: string;
  accept: string;
  spy: string;
  transfer: string;
  ageTitle: string;
  channel: (c: KnownChannel) => string;
  age: (a: Age) => string;
  unread: (count: number) => string;
  // preview is the row's last-message text: a media-only message is stored as its
  // media type ("audio", "image"…), shown translated.
  preview: (lastMessage: string | undefined) => string;
}

// Media types a media-only message leaves as the ticket's last message.
export const previewMediaTypes = ['image', 'audio', 'video', 'document', 'call_log', 'sticker'] as const;
type PreviewMedia = (typeof previewMediaTypes)[number];
const isPreviewMedia = (s: string): s is PreviewMedia => (previewMediaTypes as readonly string[]).includes(s);

// Bounded caches: a few hundred distinct ages or unread counts at most in practice;
// cleared when they grow past this, never unbounded.
export const maxCached = 2000;

const byT = new WeakMap<TFunction, RowText>();
const cachesOf = new WeakMap<RowText, { ages: Map<string, string>; unread: Map<number, string> }>();

// For tests: how many age and unread texts a RowText holds now.
export function cachedSizes(rt: RowText): { ages: number; unread: number } {
  const c = cachesOf.get(rt);
  return { ages: c?.ages.size ?? 0, unread: c?.unread.size ?? 0 };
}

export function rowText(t: TFunction): RowText {
  let rt = byT.get(t);
  if (!rt) {
    rt = build(t);
    byT.set(t, rt);
  }
  return rt;
}

function build(t: TFunction): RowText {
  const channels = new Map<KnownChannel, string>();
  const ages = new Map<string, string>();
  const unread = new Map<number, string>();
  const media = new Map<PreviewMedia, string>();
  const rt: RowText = {
    noQueue: t('tickets.row.noQueue'),
    resolved: t('tickets.row.resolved'),
    unknownContact: t('tickets.row.unknownContact'),
    accept: t('tickets.actions.accept'),
    spy: t('tickets.actions.spy'),
    transfer: t('tickets.actions.transfer'),
    ageTitle: t('tickets.age.title'),
    channel(k) {
      let s = channels.get(k);
      if (s === undefined) {
        s = t(`tickets.channels.${k}`);
        channels.set(k, s);
      }
      return s;
    },
    age(a) {
      const k = a.days > 0 ? `d${a.days}:${a.hours}` : a.hours > 0 ? `h${a.hours}:${a.mins}` : `m${a.mins}`;
      let s = ages.get(k);
      if (s === undefined) {
        s =
          a.days > 0
            ? t('tickets.age.days', { d: a.days, h: a.hours })
            : a.hours > 0
              ? t('tickets.age.hours', { h: a.hours, m: a.mins })
              : t('tickets.age.minutes', { m: a.mins });
        if (ages.size >= maxCached) ages.clear();
        ages.set(k, s);
      }
      return s;
    },
    unread(count) {
      let s = unread.get(count);
      if (s === undefined) {
        s = t('tickets.row.unread', { count });
        if (unread.size >= maxCached) unread.clear();
        unread.set(count, s);
      }
      return s;
    },
    preview(lastMessage) {
      if (!lastMessage || !isPreviewMedia(lastMessage)) return lastMessage ?? '';
      let s = media.get(lastMessage);
      if (s === undefined) {
        s = t(`tickets.preview.${lastMessage}`);
        media.set(lastMessage, s);
      }
      return s;
    },
  };
  cachesOf.set(rt, { ages, unread });
  return rt;
}
