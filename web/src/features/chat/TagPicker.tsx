// The chat's tag area (spec section 2): the ticket's tags as chips, and a picker (400 px
// wide, spec section 9) to toggle the tenant's tags or type a new one. A typed tag is
// created first (POST /tags answers the existing tag of that name when there is one),
// then the ticket's whole tag set is replaced (POST /tags/sync). The ticket prop follows
// the socket's `ticket` updates, which carry the tags; the `tags` events rename, recolour
// and remove tags in place.
import { useEffect, useMemo, useState, type KeyboardEvent } from 'react';
import { useRealtimeEvent } from '../../app/realtime';
import { useTranslation } from 'react-i18next';
import { tagsApi, ticketTagsApi } from '../../api/endpoints';
import type { ID, Tag, TagEvent, Ticket } from '../../api/types';
import { toastError } from '../../app/errors';
import { Icon } from '../../components/Icon';
import { Input, IconButton, Muted } from '../../components/primitives';
import { MenuItem, Popover } from '../../components/Popover';
import { fold } from '../tags/fold';
import { TagBar, TagChip, TagOptionName, TagSearch, TagSwatch } from './style';

export const tagPickerWidth = 400;

const byName = (a: Tag, b: Tag) => a.name.localeCompare(b.name);

export function TagPicker({ ticket, onTicketChanged }: { ticket: Ticket; onTicketChanged: (t: Ticket) => void }) {
  const { t } = useTranslation();
  // While a change is on its way the chips show what was asked for.
  const [pending, setPending] = useState<Tag[] | null>(null);
  // Tags changed (or deleted: null) by the realtime `tags` events since mount.
  const [changed, setChanged] = useState<ReadonlyMap<ID, Tag | null>>(new Map());
  const shown = useMemo(
    () =>
      (pending ?? ticket.tags ?? []).flatMap((tag) => {
        const c = changed.get(tag.id);
        return c === null ? [] : [c ?? tag];
      }),
    [pending, ticket.tags, changed],
  );
  const busy = pending !== null;
  const [open, setOpen] = useState(false);
  const [all, setAll] = useState<Tag[] | null>(null);
  const [query, setQuery] = useState('');

  useEffect(() => {
    if (!open) return;
    let live = true;
    tagsApi.list().then(
      (list) => live && setAll([...(list ?? [])].sort(byName)),
      (e) => {
        if (!live) return;
        toastError(e);
        setAll([]);
      },
    );
    return () => {
      live = false;
    };
  }, [open]);

  useRealtimeEvent<TagEvent>('tags', (e) => {
    const id = e.tag?.id ?? e.tagId;
    if (id === undefined) return;
    const next = e.action === 'delete' ? null : e.tag;
    if (next === undefined) return;
    setChanged((m) => new Map(m).set(id, next));
    setAll((a) => {
      if (!a) return a;
      const rest = a.filter((x) => x.id !== id);
      return next ? [...rest, next].sort(byName) : rest;
    });
  });

  const selected = useMemo(() => new Set(shown.map((x) => x.id)), [shown]);
  const term = fold(query.trim());
  const matches = useMemo(() => (all ?? []).filter((x) => fold(x.name).includes(term)), [all, term]);
  const exact = term ? (all ?? []).find((x) => fold(x.name) === term) : undefined;

  // Replaces the ticket's tag set with next; a typed name is created first.
  const apply = async (next: Tag[], newName?: string) => {
    setPending(next);
    try {
      let tags = next;
      if (newName) {
        const created = await tagsApi.create({ name: newName });
        setQuery('');
        setAll((a) => (a && !a.some((x) => x.id === created.id) ? [...a, created].sort(byName) : a));
        tags = [...next.filter((x) => x.id !== created.id), created];
        setPending(tags);
      }
      const updated = await ticketTagsApi.sync(
        ticket.id,
        tags.map((x) => x.id),
      );
      onTicketChanged({ ...updated, tags: updated.tags ?? [] });
    } catch (e) {
      toastError(e);
    } finally {
      setPending(null);
    }
  };

  const toggle = (tag: Tag) => {
    if (busy) return;
    void apply(selected.has(tag.id) ? shown.filter((x) => x.id !== tag.id) : [...shown, tag]);
  };

  const createTyped = () => {
    const name = query.trim();
    if (!name || busy) return;
    if (exact) {
      if (!selected.has(exact.id)) void apply([...shown, exact]);
      setQuery('');
      return;
    }
    void apply(shown, name);
  };

  const onKeyDown = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === 'Enter' && !e.nativeEvent.isComposing) {
      e.preventDefault();
      createTyped();
    }
  };

  return (
    <TagBar role="group" aria-label={t('chat.tags.label')} aria-busy={busy}>
      <Icon name="label" size={16} />
      {shown.length === 0 && <Muted>{t('chat.tags.none')}</Muted>}
      {shown.map((tag) => (
        <TagChip key={tag.id} $color={tag.color}>
          <span>{tag.name}</span>
          <button type="button" aria-label={t('chat.tags.remove', { name: tag.name })} disabled={busy} onClick={() => toggle(tag)}>
            <Icon name="close" size={14} />
          </button>
        </TagChip>
      ))}
      <Popover
        open={open}
        onClose={() => setOpen(false)}
        width={tagPickerWidth}
        label={t('chat.tags.add')}
        anchor={
          <IconButton
            type="button"
            $size={28}
            aria-label={t('chat.tags.add')}
            title={t('chat.tags.add')}
            aria-expanded={open}
            onClick={() => setOpen((o) => !o)}
          >
            <Icon name="add" size={18} />
          </IconButton>
        }
      >
        <TagSearch>
          <Input
            aria-label={t('chat.tags.search')}
            placeholder={t('chat.tags.search')}
            value={query}
            disabled={busy}
            autoFocus
            onChange={(e) => setQuery(e.target.value)}
            onKeyDown={onKeyDown}
          />
        </TagSearch>
        {all === null ? (
          <TagSearch>
            <Muted>{t('chat.tags.loading')}</Muted>
          </TagSearch>
        ) : (
          <div role="listbox" aria-label={t('chat.tags.options')} aria-multiselectable="true">
            {query.trim() && !exact && (
              <MenuItem type="button" role="option" aria-selected={false} disabled={busy} onClick={createTyped}>
                <Icon name="add" size={16} />
                <TagOptionName>{t('chat.tags.create', { name: query.trim() })}</TagOptionName>
              </MenuItem>
            )}
            {matches.map((tag) => (
              <MenuItem key={tag.id} type="button" role="option" aria-selected={selected.has(tag.id)} disabled={busy} onClick={() => toggle(tag)}>
                <TagSwatch $color={tag.color} />
                <TagOptionName>{tag.name}</TagOptionName>
                {selected.has(tag.id) && <Icon name="check" size={16} />}
              </MenuItem>
            ))}
            {matches.length === 0 && !query.trim() && (
              <TagSearch>
                <Muted>{t('chat.tags.noMatch')}</Muted>
              </TagSearch>
            )}
          </div>
        )}
      </Popover>
    </TagBar>
  );
}
