// /quickAnswers: searchable, virtualised list (GET /quickAnswers/, 20 a page, by
// shortcut) with add, edit and delete (quick-answers:manage: every profile). The
// realtime "quickAnswer" event keeps it current in every browser.
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { fromPromise } from 'xstate';
import { List, type RowComponentProps } from 'react-window';
import { createPagedListMachine } from '../../machines/pagedList.machine';
import { quickAnswersApi } from '../../api/endpoints';
import { usePermissions } from '../../app/session';
import { actions as perms } from '../../app/permissions';
import { usePagedCrudList } from '../../app/usePagedCrudList';
import { toastError } from '../../app/errors';
import { Icon } from '../../components/Icon';
import { Button, IconButton, Input, Muted } from '../../components/primitives';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { Spinner } from '../../components/Splash';
import type { QuickAnswer, QuickAnswerEvent } from '../../api/types';
import { ContactRow as ItemRow, Header, ListArea, Page, RowInfo, Title } from '../contacts/style';
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
      {manage && (
        <>
          <IconButton type="button" aria-label={labels.edit} title={labels.edit} onClick={() => onEdit(a)}>
            <Icon name="edit" />
          </IconButton>
          <IconButton type="button" aria-label={labels.del} title={labels.del} onClick={() => onDelete(a)}>
            <Icon name="delete" />
          </IconButton>
        </>
      )}
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
    <Page>
      <Header>
        <Title>{t('quickAnswers.title')}</Title>
        <Input
          type="search"
          value={text}
          aria-label={t('quickAnswers.search')}
          placeholder={t('quickAnswers.search')}
          onChange={(e) => setText(e.target.value)}
          style={{ maxWidth: 280 }}
        />
        {manage && (
          <Button type="button" onClick={() => setEditing('new')}>
            <Icon name="add" size={18} />
            {t('quickAnswers.actions.add')}
          </Button>
        )}
      </Header>
      <ListArea>
        {loading && items.length === 0 ? (
          <Spinner />
        ) : items.length === 0 ? (
          <Muted>{t('quickAnswers.empty')}</Muted>
        ) : (
          <List
            aria-label={t('quickAnswers.title')}
            rowComponent={Row}
            rowCount={items.length}
            rowHeight={64}
            rowProps={rowProps}
            onScroll={onScroll}
            style={{ height: '100%' }}
          />
        )}
      </ListArea>
      {editing !== null && (
        <QuickAnswerModal
          answer={editing === 'new' ? null : editing}
          onClose={() => setEditing(null)}
          onSaved={upsert}
        />
      )}
      <ConfirmDialog
        open={deleting !== null}
        title={t('quickAnswers.delete.title')}
        confirmLabel={t('common.actions.delete')}
        onClose={() => setDeleting(null)}
        onConfirm={() => {
          const a = deleting;
          setDeleting(null);
          if (a)
            quickAnswersApi.remove(a.id).then(
              () => remove(a.id),
              toastError,
            );
        }}
      >
        {t('quickAnswers.delete.body', { shortcut: deleting?.shortcut ?? '' })}
      </ConfirmDialog>
    </Page>
  );
}
