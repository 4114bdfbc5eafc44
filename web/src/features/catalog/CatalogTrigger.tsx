// The composer's catalog triggers (spec sections 2 and 9): '#' as the first character
// searches the catalog (GET /catalog/?searchParam=<term>&activeOnly=true), '@' the
// stickers (searchParam=sticker, then the term against the sticker's name). A failed
// search silently hides the list (spec section 8). Choosing an item sends it at once:
// its image (a stored productImg) with the text its category's template renders
// (item.message, rendered by the server with the values in BRL) as the caption, the
// text alone or the image alone as the category's way of sending says; a sticker is
// its image alone. An image given as a web address cannot be attached, so its address
// goes at the end of the text.
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useDebounced } from '../../app/hooks';
import { toastError } from '../../app/errors';
import { messagesApi } from '../../api/endpoints';
import { MenuItem } from '../../components/Popover';
import type { ID } from '../../api/types';
import { QuickList } from '../chat/style';
import { fold } from '../tags/fold';
import { catalogApi, formatBRL, type CatalogItem } from './api';

export const catalogDebounceMs = 500;

type Trigger = { kind: 'catalog' | 'sticker'; term: string } | null;

export function triggerOf(text: string): Trigger {
  if (text.startsWith('#')) return { kind: 'catalog', term: text.slice(1) };
  if (text.startsWith('@')) return { kind: 'sticker', term: text.slice(1) };
  return null;
}

// outgoing is what choosing it sends: body and a stored media path (or '').
export function outgoing(it: CatalogItem, sticker: boolean): { body: string; mediaUrl: string } {
  const stored = it.productImg !== '' && !/^https?:\/\//.test(it.productImg);
  const way = sticker ? 'image' : (it.category?.mustaccio ?? 'imageText');
  if (stored && way === 'image') return { body: '', mediaUrl: it.productImg };
  if (stored && way === 'imageText') return { body: it.message, mediaUrl: it.productImg };
  const link = !stored && it.productImg && way !== 'text' ? `\n${it.productImg}` : '';
  return { body: it.message + link, mediaUrl: '' };
}

export function CatalogTrigger({ text, enabled, ticketId, onSent }: { text: string; enabled: boolean; ticketId: ID; onSent: () => void }) {
  const { t } = useTranslation();
  // Debounce the text itself (a string compares by value), then read the trigger.
  const debounced = useDebounced(enabled && triggerOf(text) ? text : null, catalogDebounceMs);
  const trigger = debounced === null ? null : triggerOf(debounced);
  const [items, setItems] = useState<CatalogItem[]>([]);
  const [sending, setSending] = useState(false);
  const kind = trigger?.kind ?? null;
  const term = trigger?.term ?? '';

  useEffect(() => {
    if (!kind) {
      setItems([]);
      return;
    }
    let live = true;
    const search = kind === 'sticker' ? catalogApi.search('sticker', undefined, true) : catalogApi.search(term, undefined, true);
    search.then(
      (r) => {
        if (!live) return;
        const list = r.catalog ?? [];
        setItems(kind === 'sticker' ? list.filter((it) => fold(it.itemName).includes(fold(term))) : list);
      },
      () => live && setItems([]),
    );
    return () => {
      live = false;
    };
  }, [kind, term]);

  // Hide at once when the trigger goes (text sent or cleared), not after the debounce.
  if (items.length === 0 || !triggerOf(text) || !enabled) return null;

  const choose = async (it: CatalogItem) => {
    if (sending) return;
    setSending(true);
    try {
      const out = outgoing(it, kind === 'sticker');
      await messagesApi.send(ticketId, { ...out, fromMe: true, read: true });
      setItems([]);
      onSent();
    } catch (err) {
      toastError(err);
    } finally {
      setSending(false);
    }
  };

  return (
    <QuickList role="listbox" aria-label={kind === 'sticker' ? t('catalog.composer.stickers') : t('catalog.composer.catalog')}>
      {items.map((it) => (
        <MenuItem key={it.id} type="button" role="option" disabled={sending} onClick={() => void choose(it)}>
          {it.productImgUrl ? <img src={it.productImgUrl} alt="" width={32} height={32} /> : null}
          <strong>{it.itemName}</strong> {kind === 'catalog' && <span>{formatBRL(it.baseValue)}</span>}
        </MenuItem>
      ))}
    </QuickList>
  );
}
