import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { RowComponentProps } from 'react-window';
import { Providers, renderWithProviders } from '../test/render';
import i18n from '../i18n';
import { toastStore } from './toast/toastStore';
import { ConfirmDelete, ListPage, RowActions } from './ListPage';

interface RowData {
  names: string[];
}

function Row({ index, style, ariaAttributes, names }: RowComponentProps<RowData>) {
  return (
    <div style={style} {...ariaAttributes}>
      {names[index]}
    </div>
  );
}

const base = { title: 'Things', loading: false, empty: false, emptyText: 'Nothing here' };

describe('ListPage', () => {
  it('shows the title, the search box and a list of the rows labelled by the title', async () => {
    const onChange = vi.fn();
    renderWithProviders(
      <ListPage
        {...base}
        search={{ value: '', onChange, label: 'Search things' }}
        rows={{ rowComponent: Row, rowCount: 2, rowHeight: 40, rowProps: { names: ['one', 'two'] } }}
      />,
    );
    expect(screen.getByRole('heading', { name: 'Things' })).toBeInTheDocument();
    const list = screen.getByRole('list', { name: 'Things' });
    expect(within(list).getByText('one')).toBeInTheDocument();
    expect(within(list).getByText('two')).toBeInTheDocument();
    const box = screen.getByRole('searchbox', { name: 'Search things' });
    expect(box).toHaveAttribute('placeholder', 'Search things');
    await userEvent.type(box, 'a');
    expect(onChange).toHaveBeenLastCalledWith('a');
  });

  it('has no search box without search', () => {
    renderWithProviders(<ListPage {...base} content={<p>custom</p>} />);
    expect(screen.queryByRole('searchbox')).not.toBeInTheDocument();
    expect(screen.getByText('custom')).toBeInTheDocument();
  });

  it('shows the add button only when allowed, and calls back on click', async () => {
    const onClick = vi.fn();
    const { unmount } = renderWithProviders(<ListPage {...base} add={{ label: 'Add thing', onClick, allowed: false }} content={null} />);
    expect(screen.queryByRole('button', { name: 'Add thing' })).not.toBeInTheDocument();
    unmount();
    renderWithProviders(<ListPage {...base} add={{ label: 'Add thing', onClick }} content={null} />);
    await userEvent.click(screen.getByRole('button', { name: 'Add thing' }));
    expect(onClick).toHaveBeenCalledTimes(1);
  });

  // The list area: the element after the header (which holds the title).
  const listArea = () => screen.getByRole('heading', { name: 'Things' }).parentElement!.nextElementSibling!;

  it('shows a spinner while the first page loads, then the empty text, and never the list', () => {
    const { rerender } = renderWithProviders(<ListPage {...base} loading empty content={<p>custom</p>} />);
    // The spinner: one element with no text in place of the list.
    expect(listArea().children).toHaveLength(1);
    expect(listArea()).toHaveTextContent(/^$/);
    expect(screen.queryByText('custom')).not.toBeInTheDocument();
    rerender(
      <Providers>
        <ListPage {...base} empty content={<p>custom</p>} />
      </Providers>,
    );
    expect(listArea()).toHaveTextContent(/^Nothing here$/);
    expect(screen.queryByText('custom')).not.toBeInTheDocument();
  });

  it('keeps showing the rows it has while loading more', () => {
    renderWithProviders(<ListPage {...base} loading content={<p>custom</p>} />);
    expect(screen.getByText('custom')).toBeInTheDocument();
    expect(screen.queryByText('Nothing here')).not.toBeInTheDocument();
  });

  it('renders its children (the dialogs) after the list area', () => {
    renderWithProviders(
      <ListPage {...base} empty content={null}>
        <p>dialog</p>
      </ListPage>,
    );
    expect(screen.getByText('dialog')).toBeInTheDocument();
  });
});

describe('RowActions', () => {
  it('shows a labelled button for each callback given and calls it back', async () => {
    const onEdit = vi.fn();
    const onDelete = vi.fn();
    renderWithProviders(<RowActions editLabel="Edit it" deleteLabel="Delete it" onEdit={onEdit} onDelete={onDelete} />);
    await userEvent.click(screen.getByRole('button', { name: 'Edit it' }));
    expect(onEdit).toHaveBeenCalledTimes(1);
    expect(onDelete).not.toHaveBeenCalled();
    await userEvent.click(screen.getByRole('button', { name: 'Delete it' }));
    expect(onDelete).toHaveBeenCalledTimes(1);
    expect(screen.getByRole('button', { name: 'Edit it' })).toHaveAttribute('title', 'Edit it');
  });

  it('leaves out the buttons without a callback', () => {
    renderWithProviders(<RowActions editLabel="Edit it" deleteLabel="Delete it" onEdit={() => {}} />);
    expect(screen.getByRole('button', { name: 'Edit it' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Delete it' })).not.toBeInTheDocument();
  });
});

describe('ConfirmDelete', () => {
  beforeEach(() => toastStore.clear());

  const item = { id: 7, name: 'seven' };
  const deleteLabel = () => i18n.t('common.actions.delete');

  it('is closed without an item', () => {
    renderWithProviders(<ConfirmDelete item={null} title="Delete?" body="sure" onClose={() => {}} remove={vi.fn()} onRemoved={() => {}} />);
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  });

  it('closes, removes the item and reports it removed', async () => {
    const onClose = vi.fn();
    const remove = vi.fn(() => Promise.resolve());
    const onRemoved = vi.fn();
    renderWithProviders(<ConfirmDelete item={item} title="Delete?" body="Delete seven" onClose={onClose} remove={remove} onRemoved={onRemoved} />);
    const dialog = screen.getByRole('dialog', { name: 'Delete?' });
    expect(within(dialog).getByText('Delete seven')).toBeInTheDocument();
    await userEvent.click(within(dialog).getByRole('button', { name: deleteLabel() }));
    expect(onClose).toHaveBeenCalledTimes(1);
    expect(remove).toHaveBeenCalledWith(item);
    await waitFor(() => expect(onRemoved).toHaveBeenCalledWith(item));
    expect(toastStore.getSnapshot()).toHaveLength(0);
  });

  it('toasts a failed removal and does not report it removed', async () => {
    const onRemoved = vi.fn();
    renderWithProviders(
      <ConfirmDelete item={item} title="Delete?" body="x" onClose={() => {}} remove={() => Promise.reject(new Error('boom'))} onRemoved={onRemoved} />,
    );
    await userEvent.click(screen.getByRole('button', { name: deleteLabel() }));
    await waitFor(() => expect(toastStore.getSnapshot()).toHaveLength(1));
    expect(onRemoved).not.toHaveBeenCalled();
  });

  it('cancel closes without removing', async () => {
    const onClose = vi.fn();
    const remove = vi.fn(() => Promise.resolve());
    renderWithProviders(<ConfirmDelete item={item} title="Delete?" body="x" onClose={onClose} remove={remove} onRemoved={() => {}} />);
    await userEvent.click(screen.getByRole('button', { name: i18n.t('common.actions.cancel') }));
    expect(onClose).toHaveBeenCalledTimes(1);
    expect(remove).not.toHaveBeenCalled();
  });
});
