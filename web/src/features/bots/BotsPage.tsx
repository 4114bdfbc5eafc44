// /Bots: the reception menu (docs/bots.md) as a tree of numbered options. The options
// without a parent are the first menu the customer gets after the connection's
// greeting; a "menu" option opens the options below it. bots:manage (admin, super)
// adds options at any level, edits, deletes (with everything below) and moves them up
// and down (which renumbers the menu). The realtime "bot" event keeps every open page
// current.
import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import styled from 'styled-components';
import { usePermissions } from '../../app/session';
import { actions as perms } from '../../app/permissions';
import { useRealtimeEvent } from '../../app/realtime';
import { useResource } from '../../app/resources';
import { toastError } from '../../app/errors';
import { queuesApi, usersApi } from '../../api/endpoints';
import type { ID } from '../../api/types';
import { ConfirmDelete, ListPage, RowActions } from '../../components/ListPage';
import { Badge, IconButton, Muted } from '../../components/primitives';
import { Icon } from '../../components/Icon';
import { applyEvent, botsApi, children, nextCommand, type BotEvent, type BotLevel } from './api';
import { BotModal } from './BotModal';

const Tree = styled.ul`
  list-style: none;
  margin: 0;
  padding: 0;
  overflow: auto;
  height: 100%;
  ul {
    list-style: none;
    margin: 0;
    padding-left: ${({ theme }) => theme.space.lg}px;
    border-left: 2px solid ${({ theme }) => theme.colors.border};
  }
`;

const Node = styled.div`
  display: flex;
  align-items: center;
  flex-wrap: wrap;
  gap: ${({ theme }) => theme.space.sm}px;
  padding: ${({ theme }) => theme.space.xs}px ${({ theme }) => theme.space.sm}px;
  min-height: 44px;
  strong {
    min-width: 2ch;
  }
  > span:first-of-type {
    flex: 1;
  }
`;

type Editing = { level: BotLevel | null; parentId: ID } | null;

export default function BotsPage() {
  const { t } = useTranslation();
  const { can } = usePermissions();
  const manage = can(perms.manageBots);
  const [levels, setLevels] = useState<BotLevel[] | null>(null);
  const [editing, setEditing] = useState<Editing>(null);
  const [deleting, setDeleting] = useState<BotLevel | null>(null);
  const queues = useResource('queues', queuesApi.list);
  const users = useResource('users:list', usersApi.list);

  const load = useCallback(() => {
    botsApi.list().then(
      (r) => setLevels(r.bots ?? []),
      (err) => {
        setLevels([]);
        toastError(err);
      },
    );
  }, []);
  useEffect(load, [load]);
  useRealtimeEvent<BotEvent>('bot', (e) => setLevels((cur) => (cur ? applyEvent(cur, e) : cur)));
  useRealtimeEvent('resync', load);

  const all = levels ?? [];
  const queueName = (id: ID) => queues.data?.find((q) => q.id === id)?.name ?? `#${id}`;
  const userName = (id: ID) => users.data?.find((u) => u.id === id)?.name ?? `#${id}`;
  const target = (l: BotLevel) => {
    switch (l.commandType) {
      case 'queue':
        return t('bots.target.queue', { name: queueName(l.queueId) });
      case 'user':
        return t('bots.target.user', { name: userName(l.userId) });
      case 'menu':
        return t('bots.target.menu', { count: children(all, l.id).length });
      default:
        return l.showMessage;
    }
  };

  const move = async (l: BotLevel, by: -1 | 1) => {
    const siblings = children(all, l.parentId || 0);
    const i = siblings.findIndex((s) => s.id === l.id);
    const j = i + by;
    if (i < 0 || j < 0 || j >= siblings.length) return;
    const ids = siblings.map((s) => s.id);
    [ids[i], ids[j]] = [ids[j], ids[i]];
    try {
      const r = await botsApi.reorder(l.parentId || 0, ids);
      setLevels((cur) => applyEvent(cur ?? [], { action: 'reorder', bots: r.bots }));
    } catch (err) {
      toastError(err);
    }
  };

  const branch = (parent: ID) => {
    const opts = children(all, parent);
    return opts.map((l, i) => (
      <li key={l.id} data-testid={`bot-${l.id}`}>
        <Node>
          <strong>{l.commandBot}</strong>
          <span>
            {l.descriptionBot} <Muted>· {target(l)}</Muted>
          </span>
          <Badge $tone="muted">{t(`bots.types.${l.commandType}`)}</Badge>
          {manage && (
            <>
              {l.commandType === 'menu' && (
                <IconButton
                  type="button"
                  aria-label={t('bots.actions.addChild', { name: l.descriptionBot })}
                  title={t('bots.actions.addChild', { name: l.descriptionBot })}
                  onClick={() => setEditing({ level: null, parentId: l.id })}
                >
                  <Icon name="add" />
                </IconButton>
              )}
              <IconButton type="button" aria-label={t('bots.actions.up', { name: l.descriptionBot })} disabled={i === 0} onClick={() => void move(l, -1)}>
                <Icon name="arrowUp" />
              </IconButton>
              <IconButton
                type="button"
                aria-label={t('bots.actions.down', { name: l.descriptionBot })}
                disabled={i === opts.length - 1}
                onClick={() => void move(l, 1)}
              >
                <Icon name="arrowDown" />
              </IconButton>
              <RowActions
                editLabel={t('bots.actions.edit', { name: l.descriptionBot })}
                deleteLabel={t('bots.actions.delete', { name: l.descriptionBot })}
                onEdit={() => setEditing({ level: l, parentId: l.parentId || 0 })}
                onDelete={() => setDeleting(l)}
              />
            </>
          )}
        </Node>
        {l.commandType === 'menu' && children(all, l.id).length > 0 && <ul aria-label={l.descriptionBot}>{branch(l.id)}</ul>}
      </li>
    ));
  };

  return (
    <ListPage
      title={t('bots.title')}
      add={{ label: t('bots.actions.add'), onClick: () => setEditing({ level: null, parentId: 0 }), allowed: manage }}
      loading={levels === null}
      empty={all.length === 0}
      emptyText={t('bots.empty')}
      content={
        <Tree aria-label={t('bots.title')} data-testid="bots-tree">
          {branch(0)}
        </Tree>
      }
    >
      {editing && (
        <BotModal
          level={editing.level}
          parentId={editing.parentId}
          suggested={nextCommand(all, editing.parentId)}
          onClose={() => setEditing(null)}
          onSaved={(b) => setLevels((cur) => applyEvent(cur ?? [], { action: 'update', bot: b }))}
        />
      )}
      <ConfirmDelete
        item={deleting}
        title={t('bots.delete.title')}
        body={t('bots.delete.body', { name: deleting?.descriptionBot ?? '' })}
        onClose={() => setDeleting(null)}
        remove={(l) => botsApi.remove(l.id)}
        onRemoved={(l) => setLevels((cur) => applyEvent(cur ?? [], { action: 'delete', botId: l.id }))}
      />
    </ListPage>
  );
}
