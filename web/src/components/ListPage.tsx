// ListPage: the reference-data pages' skeleton (announcements, quick answers, tags,
// users, contacts, queues): a header with the title, an optional search box and an
// optional add button, then the list area: a spinner while the first page loads, the
// empty text when nothing is listed, else a virtualised list (rows) or the page's own
// content. RowActions is a row's edit and delete buttons; ConfirmDelete the delete
// confirmation. No text of their own: every label comes from the page, through t().
import type { ReactNode, UIEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { List, type ListProps } from 'react-window';
import { toastError } from '../app/errors';
import { ConfirmDialog } from './ConfirmDialog';
import { Icon } from './Icon';
import { Button, IconButton, Input, Muted } from './primitives';
import { Spinner } from './Splash';
import { Header, ListArea, Page, Title } from './pageStyle';

// The virtualised list's part of react-window's props; its aria-label is the title.
export interface ListPageRows<R extends object> {
  rowComponent: ListProps<R>['rowComponent'];
  rowCount: number;
  rowHeight: number;
  rowProps: ListProps<R>['rowProps'];
  onScroll?: (e: UIEvent<HTMLDivElement>) => void;
}

export interface ListPageProps<R extends object> {
  title: string;
  /** The search box; omitted: none. */
  search?: { value: string; onChange: (value: string) => void; label: string };
  /** The add button; omitted or allowed false: none. */
  add?: { label: string; onClick: () => void; allowed?: boolean };
  loading: boolean;
  empty: boolean;
  emptyText: string;
  /** A virtualised list of the rows… */
  rows?: ListPageRows<R>;
  /** …or the page's own list (a short one that needs no virtualising). */
  content?: ReactNode;
  /** The page's dialogs (edit, delete…), after the list area. */
  children?: ReactNode;
}

export function ListPage<R extends object>({ title, search, add, loading, empty, emptyText, rows, content, children }: ListPageProps<R>) {
  return (
    <Page>
      <Header>
        <Title>{title}</Title>
        {search && (
          <Input
            type="search"
            value={search.value}
            aria-label={search.label}
            placeholder={search.label}
            onChange={(e) => search.onChange(e.target.value)}
            style={{ maxWidth: 280 }}
          />
        )}
        {add && add.allowed !== false && (
          <Button type="button" onClick={add.onClick}>
            <Icon name="add" size={18} />
            {add.label}
          </Button>
        )}
      </Header>
      <ListArea>
        {loading && empty ? (
          <Spinner />
        ) : empty ? (
          <Muted>{emptyText}</Muted>
        ) : rows ? (
          <List aria-label={title} {...rows} style={{ height: '100%' }} />
        ) : (
          content
        )}
      </ListArea>
      {children}
    </Page>
  );
}

// RowActions: a row's edit and delete buttons; each shows only with its callback.
export function RowActions({
  editLabel,
  deleteLabel,
  onEdit,
  onDelete,
}: {
  editLabel: string;
  deleteLabel: string;
  onEdit?: () => void;
  onDelete?: () => void;
}) {
  return (
    <>
      {onEdit && (
        <IconButton type="button" aria-label={editLabel} title={editLabel} onClick={onEdit}>
          <Icon name="edit" />
        </IconButton>
      )}
      {onDelete && (
        <IconButton type="button" aria-label={deleteLabel} title={deleteLabel} onClick={onDelete}>
          <Icon name="delete" />
        </IconButton>
      )}
    </>
  );
}

// ConfirmDelete asks before deleting item (open while it is not null). Confirming
// closes it and calls remove(item); once that succeeds, onRemoved(item); a failure is
// a toast.
export function ConfirmDelete<T>({
  item,
  title,
  body,
  onClose,
  remove,
  onRemoved,
}: {
  item: T | null;
  title: string;
  body: ReactNode;
  onClose: () => void;
  remove: (item: T) => Promise<unknown>;
  onRemoved: (item: T) => void;
}) {
  const { t } = useTranslation();
  return (
    <ConfirmDialog
      open={item !== null}
      title={title}
      confirmLabel={t('common.actions.delete')}
      onClose={onClose}
      onConfirm={() => {
        const x = item;
        onClose();
        if (x !== null) remove(x).then(() => onRemoved(x), toastError);
      }}
    >
      {body}
    </ConfirmDialog>
  );
}
