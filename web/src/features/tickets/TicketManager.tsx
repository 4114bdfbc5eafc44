// The ticket manager of spec section 2: tabs open (assigned / pending, with counts),
// closed and search; tag, attendant and queue filters; the show-all toggle.
import { useEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useUser, usePermissions } from '../../app/session';
import { actions as perms } from '../../app/permissions';
import { useRoom } from '../../app/realtime';
import { useResource } from '../../app/resources';
import { useDebounced } from '../../app/hooks';
import { store } from '../../api/client';
import { storageKeys } from '../../api/storage';
import { tagsApi, usersApi } from '../../api/endpoints';
import { emptyFilters, type TicketFilters } from '../../machines/ticketList.machine';
import { Icon } from '../../components/Icon';
import { Badge, IconButton, Input, Muted, Switch } from '../../components/primitives';
import { MultiSelect } from '../../components/MultiSelect';
import { TicketList } from './TicketList';
import { TransferModal } from './TransferModal';
import { NewTicketModal } from './NewTicketModal';
import { ScheduleModal } from '../scheduledMessages/ScheduleModal';
import { useListCount, useListView, useTicketList, useTicketListActor, type TicketListActor } from './useTicketList';
import { useRowActions } from './useRowActions';
import type { ID } from '../../api/types';
import { FilterBar, ManagerShell, SearchBox, SubTab, SubTabs, Tab, Tabs, ToggleLabel } from './style';
import { viewerOf } from '../../app/rules';

type TopTab = 'open' | 'closed' | 'search';
type SubTabKey = 'assigned' | 'pending';

export const searchDebounceMs = 500;

const openSpec = { status: 'open' as const };
const pendingSpec = { status: 'pending' as const };
const closedSpec = { status: 'closed' as const };
const searchSpec = { search: true };

function readShowAll(): boolean {
  return store.getItem(storageKeys.showAllTickets) === 'true';
}

export function TicketManager({ selectedId }: { selectedId: ID | null }) {
  const { t } = useTranslation();
  const user = useUser();
  const { can } = usePermissions();
  const canShowAll = can(perms.showAllTickets);
  const [tab, setTab] = useState<TopTab>('open');
  const [sub, setSub] = useState<SubTabKey>('assigned');
  const [showAll, setShowAllState] = useState(() => canShowAll && readShowAll());
  const [tags, setTags] = useState<ID[]>([]);
  const [users, setUsers] = useState<ID[]>([]);
  const [queueIds, setQueueIds] = useState<ID[]>(() => user.queues.map((q) => q.id));
  const [newOpen, setNewOpen] = useState(false);
  const [scheduleOpen, setScheduleOpen] = useState(false);
  const row = useRowActions();

  const setShowAll = (v: boolean) => {
    setShowAllState(v);
    store.setItem(storageKeys.showAllTickets, String(v));
  };

  const filters: TicketFilters = useMemo(
    () => ({ ...emptyFilters, showAll: canShowAll && showAll, tags, users: canShowAll ? users : [], queueIds }),
    [canShowAll, showAll, tags, users, queueIds],
  );

  useRoom(useMemo(() => ({ kind: 'tickets' as const, status: 'open' }), []));
  useRoom(useMemo(() => ({ kind: 'tickets' as const, status: 'pending' }), []));
  // The manager hosts the two open-tab lists but does not read them: the list and the
  // count badges subscribe themselves, so a ticket update re-renders only those.
  const openList = useTicketListActor(openSpec, filters, viewerOf(user));
  const pendingList = useTicketListActor(pendingSpec, filters, viewerOf(user));

  const tagChoices = useResource('tags', tagsApi.list);
  const userChoices = useResource(canShowAll ? 'users:list' : null, usersApi.list);

  const refresh = () => {
    openList.send({ type: 'list.refresh' });
    pendingList.send({ type: 'list.refresh' });
  };

  const active = sub === 'assigned' ? openList : pendingList;

  return (
    <ManagerShell>
      <Tabs role="tablist" aria-label={t('tickets.tabs.label')}>
        {(['open', 'closed', 'search'] as const).map((k) => (
          <Tab key={k} role="tab" type="button" aria-selected={tab === k} $active={tab === k} onClick={() => setTab(k)}>
            <Icon name={k === 'open' ? 'chat' : k === 'closed' ? 'doneAll' : 'search'} size={18} />
            {t(`tickets.tabs.${k}`)}
          </Tab>
        ))}
      </Tabs>

      <FilterBar>
        <MultiSelect label={t('tickets.filters.tags')} choices={tagChoices.data ?? []} value={tags} onChange={setTags} />
        {canShowAll && (
          <MultiSelect
            label={t('tickets.filters.users')}
            choices={(userChoices.data ?? []).map((u) => ({ id: u.id, name: u.name }))}
            value={users}
            onChange={setUsers}
          />
        )}
        <MultiSelect label={t('tickets.filters.queues')} choices={user.queues} value={queueIds} onChange={setQueueIds} />
        {canShowAll && tab === 'open' && (
          <ToggleLabel>
            <Switch checked={showAll} onChange={(e) => setShowAll(e.target.checked)} />
            {t('tickets.filters.showAll')}
          </ToggleLabel>
        )}
        <IconButton type="button" $size={32} aria-label={t('tickets.actions.newTicket')} title={t('tickets.actions.newTicket')} onClick={() => setNewOpen(true)}>
          <Icon name="add" />
        </IconButton>
        {/* Schedule a message to any number from the manager (spec section 2's modals). */}
        {can(perms.createScheduledMessage) && (
          <IconButton type="button" $size={32} aria-label={t('tickets.actions.schedule')} title={t('tickets.actions.schedule')} onClick={() => setScheduleOpen(true)}>
            <Icon name="clock" />
          </IconButton>
        )}
        <IconButton type="button" $size={32} aria-label={t('tickets.actions.refresh')} title={t('tickets.actions.refresh')} onClick={refresh}>
          <Icon name="refresh" />
        </IconButton>
      </FilterBar>

      {tab === 'open' && (
        <>
          <SubTabs role="tablist" aria-label={t('tickets.tabs.open')}>
            {(['assigned', 'pending'] as const).map((k) => (
              <SubTab key={k} role="tab" type="button" aria-selected={sub === k} $active={sub === k} onClick={() => setSub(k)}>
                {t(`tickets.tabs.${k}`)}
                <CountBadge actor={k === 'assigned' ? openList : pendingList} tone={k === 'pending' ? 'danger' : 'primary'} />
              </SubTab>
            ))}
          </SubTabs>
          <LiveList key={sub} actor={active} label={t(`tickets.tabs.${sub}`)} selectedId={selectedId} actions={row.actions} />
        </>
      )}
      {tab === 'closed' && <ClosedTab filters={filters} selectedId={selectedId} actions={row.actions} />}
      {tab === 'search' && (
        <SearchTab filters={filters} selectedId={selectedId} actions={row.actions} onEmpty={() => setTab('open')} />
      )}

      <TransferModal
        ticketId={row.transferring?.id ?? null}
        open={row.transferring !== null}
        onClose={row.closeTransfer}
        onSubmit={row.submitTransfer}
      />
      <NewTicketModal open={newOpen} onClose={() => setNewOpen(false)} />
      {scheduleOpen && <ScheduleModal schedule={null} onClose={() => setScheduleOpen(false)} onSaved={() => undefined} />}
    </ManagerShell>
  );
}

type RowActs = ReturnType<typeof useRowActions>['actions'];

function CountBadge({ actor, tone }: { actor: TicketListActor; tone: 'danger' | 'primary' }) {
  const { t } = useTranslation();
  const count = useListCount(actor);
  return (
    <Badge $tone={tone} aria-label={t('tickets.tabs.count', { count })}>
      {count}
    </Badge>
  );
}

function LiveList({ actor, label, selectedId, actions }: { actor: TicketListActor; label: string; selectedId: ID | null; actions: RowActs }) {
  const list = useListView(actor);
  return (
    <TicketList
      label={label}
      rowStatus={actor.getSnapshot().context.spec.status}
      ids={list.ids}
      hasMore={list.hasMore}
      loading={list.loading}
      loadingMore={list.loadingMore}
      selectedId={selectedId}
      onNextPage={() => actor.send({ type: 'list.nextPage' })}
      {...actions}
    />
  );
}

// The closed tab and search always show all (spec section 6).
function ClosedTab({ filters, selectedId, actions }: { filters: TicketFilters; selectedId: ID | null; actions: RowActs }) {
  const { t } = useTranslation();
  const user = useUser();
  useRoom(useMemo(() => ({ kind: 'tickets' as const, status: 'closed' }), []));
  const list = useTicketList(closedSpec, { ...filters, showAll: true }, viewerOf(user));
  return (
    <TicketList
      label={t('tickets.tabs.closed')}
      rowStatus="closed"
      ids={list.ids}
      hasMore={list.hasMore}
      loading={list.loading}
      loadingMore={list.loadingMore}
      selectedId={selectedId}
      onNextPage={() => list.actor.send({ type: 'list.nextPage' })}
      {...actions}
    />
  );
}

function SearchTab({
  filters,
  selectedId,
  actions,
  onEmpty,
}: {
  filters: TicketFilters;
  selectedId: ID | null;
  actions: RowActs;
  onEmpty: () => void;
}) {
  const { t } = useTranslation();
  const [text, setText] = useState('');
  const searchParam = useDebounced(text.trim(), searchDebounceMs);
  const typed = useRef(false);
  useEffect(() => {
    if (typed.current && searchParam === '' && text.trim() === '') onEmpty();
  }, [searchParam, text, onEmpty]);
  return (
    <>
      <SearchBox>
        <Input
          type="search"
          autoFocus
          value={text}
          aria-label={t('tickets.search.label')}
          placeholder={t('tickets.search.placeholder')}
          onChange={(e) => {
            typed.current = true;
            setText(e.target.value);
          }}
        />
        <Muted>{t('tickets.search.hint')}</Muted>
      </SearchBox>
      {searchParam ? (
        <SearchResults filters={{ ...filters, showAll: true, searchParam }} selectedId={selectedId} actions={actions} />
      ) : null}
    </>
  );
}

function SearchResults({ filters, selectedId, actions }: { filters: TicketFilters; selectedId: ID | null; actions: RowActs }) {
  const { t } = useTranslation();
  const user = useUser();
  const list = useTicketList(searchSpec, filters, viewerOf(user));
  return (
    <TicketList
      label={t('tickets.tabs.search')}
      ids={list.ids}
      hasMore={list.hasMore}
      loading={list.loading}
      loadingMore={list.loadingMore}
      selectedId={selectedId}
      onNextPage={() => list.actor.send({ type: 'list.nextPage' })}
      {...actions}
    />
  );
}
