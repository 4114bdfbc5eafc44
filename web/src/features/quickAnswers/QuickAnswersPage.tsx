// /quickAnswers: searchable, virtualised list (GET /quickAnswers/, 20 a page, by
// shortcut) with add, edit and delete (quick-answers:manage: every profile). The
// realtime "quickAnswer" event keeps it current in every browser.
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { fromPromise } from 'xstate';
import type { RowComponentProps } from 'react-window';
import { createPagedListMachine } from '../../machines/pagedList.machine';
import { quickAnswersApi } from '../../api/endpoints';
import { usePermissions } from '../../app/session';
import { actions as perms } from '../../app/permissions';
import { usePagedCrudList } from '../../app/usePagedCrudList';
import { Muted } from '../../components/primitives';
import { ConfirmDelete, ListPage, RowActions } from '../../components/ListPage';
import { ContactRow as ItemRow, RowInfo } from '../../components/pageStyle';
import type { QuickAnswer, QuickAnswerEvent } from '../../api/types';
import { fold } from '../tags/fold';
import { QuickAnswerModal } from './QuickAnswerModal';
import { Shortcut } from './style';

export const quickAnswersListMachine = createPagedListMachine<QuickAnswer>().provide({
  actors: {
    fetchPage: fromPromise(async ({ input }) => {
      const r = await quickAnswersApi.search(input.searchParam, input.pageNumber);
      return { items: r.quickAnswers ?? [], hasMore: !!r.hasMore };
    }),
  },
});

function matches(a: QuickAnswer, search: string): boolean {
  const s = fold(search.replace(/^\//, ''));
  return !s || fold(a.shortcut).includes(s) || fold(a.message).includes(s);
}

interface RowData {
  items: QuickAnswer[];
  manage: boolean;
  onEdit: (a: QuickAnswer) => void;
  onDelete: (a: QuickAnswer) => void;
  labels: { edit: string; del: string };
}

function Row({ index, style, ariaAttributes, items, manage, onEdit, onDelete, labels }: RowComponentProps<RowData>) {
  const a = items[index];
  if (!a) return null;
  return (
    <ItemRow style={style} {...ariaAttributes} data-testid={`quick-answer-${a.id}`}>
      <RowInfo>
        <Shortcut>/{a.shortcut}</Shortcut>
        <Muted title={a.message}>{a.message}</Muted>
      </RowInfo>
      {manage && <RowActions editLabel={labels.edit} deleteLabel={labels.del} onEdit={() => onEdit(a)} onDelete={() => onDelete(a)} />}
    </ItemRow>
  );
}

export default function QuickAnswersPage() {
  const { t } = useTranslation();
  const { can } = usePermissions();
  const manage = can(perms.manageQuickAnswers);
  const { items, loading, text, setText, editing, setEditing, deleting, setDeleting, onScroll, upsert, remove } = usePagedCrudList<
    QuickAnswer,
    QuickAnswerEvent
  >({
    machine: quickAnswersListMachine,
    event: 'quickAnswer',
    change: (e) => (e.action === 'delete' ? (e.quickAnswerId ? { remove: e.quickAnswerId } : null) : e.quickAnswer ? { upsert: e.quickAnswer } : null),
    matches,
  });

  const rowProps = useMemo<RowData>(
    () => ({
      items,
      manage,
      onEdit: (a) => setEditing(a),
      onDelete: (a) => setDeleting(a),
      labels: { edit: t('quickAnswers.actions.edit'), del: t('quickAnswers.actions.delete') },
    }),
    [items, manage, t, setEditing, setDeleting],
  );

  return (
    <ListPage
      title={t('quickAnswers.title')}
      search={{ value: text, onChange: setText, label: t('quickAnswers.search') }}
      add={{ label: t('quickAnswers.actions.add'), onClick: () => setEditing('new'), allowed: manage }}
      loading={loading}
      empty={items.length === 0}
      emptyText={t('quickAnswers.empty')}
      rows={{ rowComponent: Row, rowCount: items.length, rowHeight: 64, rowProps, onScroll }}
    >
      {editing !== null && (
        <QuickAnswerModal
          answer={editing === 'new' ? null : editing}
          onClose={() => setEditing(null)}
          onSaved={upsert}
        />
      )}
      <ConfirmDelete
        item={deleting}
        title={t('quickAnswers.delete.title')}
        body={t('quickAnswers.delete.body', { shortcut: deleting?.shortcut ?? '' })}
        onClose={() => setDeleting(null)}
        remove={(a) => quickAnswersApi.remove(a.id)}
        onRemoved={(a) => remove(a.id)}
      />
    </ListPage>
  );
}
