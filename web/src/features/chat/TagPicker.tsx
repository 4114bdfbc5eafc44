// The chat's tag area (spec section 2): the ticket's tags as chips, and a picker (400 px
// wide, spec section 9) to toggle the tenant's tags or type a new one. A typed tag is
// created first (POST /tags answers the existing tag of that name when there is one),
// then the ticket's whole tag set is replaced (POST /tags/sync). The ticket prop follows
// the socket's `ticket` updates, which carry the tags; the chips take the tags' names and
// colours from the shared 'tags' resource, reloaded on the `tags` events (renamed,
// recoloured, removed).
import { useEffect, useMemo, useState, type KeyboardEvent } from 'react';
import { useRealtimeEvent } from '../../app/realtime';
import { mutateResource, useResource } from '../../app/resources';
import { useTranslation } from 'react-i18next';
import { tagsApi, ticketTagsApi } from '../../api/endpoints';
import type { Tag, TagEvent, Ticket } from '../../api/types';
import { toastError } from '../../app/errors';
import { Icon } from '../../components/Icon';
import { Input, IconButton, Muted } from '../../components/primitives';
import { MenuItem, Popover } from '../../components/Popover';
import { fold } from '../tags/fold';
import { TagBar, TagChip, TagOptionName, TagSearch, TagSwatch } from './style';

const tagPickerWidth = 400;

const byName = (a: Tag, b: Tag) => a.name.localeCompare(b.name);

export function TagPicker({ ticket, onTicketChanged }: { ticket: Ticket; onTicketChanged: (t: Ticket) => void }) {
  const { t } = useTranslation();
  // While a change is on its way the chips show what was asked for.
  const [pending, setPending] = useState<Tag[] | null>(null);
  const [open, setOpen] = useState(false);
  // The tenant's tags, shared by key with the ticket filters: loaded once the picker
  // opens (or by another reader) and reloaded on every realtime `tags` event.
  const tags = useResource('tags', tagsApi.list, !open);
  const { data, error, reload } = tags;
  useEffect(() => {
    if (error !== undefined && open) toastError(error);
    // a failed load is shown once, when it happens with the picker open
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [error]);
  useRealtimeEvent<TagEvent>('tags', reload);
  const all = useMemo(() => (data === undefined ? (error === undefined ? null : []) : [...(data ?? [])].sort(byName)), [data, error]);
  // The chips: the ticket's tags (or the ones asked for) as the tenant's tags have them
  // now; once those are known, a tag missing from them was deleted.
  const byId = useMemo(() => (data ? new Map(data.map((x) => [x.id, x])) : null), [data]);
  const shown = useMemo(
    () =>
      (pending ?? ticket.tags ?? []).flatMap((tag) => {
        if (!byId) return [tag];
        const cur = byId.get(tag.id);
        return cur ? [cur] : [];
      }),
    [pending, ticket.tags, byId],
  );
  const busy = pending !== null;
  const [query, setQuery] = useState('');

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
        mutateResource<Tag[]>('tags', (a) => (a && !a.some((x) => x.id === created.id) ? [...a, created] : a));
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
            onClick={() => {
              // A failed load is tried again on the next open.
              if (!open && error !== undefined) reload();
              setOpen((o) => !o);
            }}
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
