import { useState, type FormEvent } from 'react';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { renderWithProviders } from '../test/render';
import i18n from '../i18n';
import { ApiError } from '../api/errors';
import { required, validate } from '../app/validation';
import { useFormSave } from '../app/useFormSave';
import { toastStore } from './toast/toastStore';
import { Field, Input } from './primitives';
import { FormDialog, FormErrorText } from './FormDialog';

// A one-field form as the modals build it: FormDialog, useFormSave and FormErrorText.
function NameForm({ send, onSaved, onClose }: { send: (name: string) => Promise<string>; onSaved: (s: string) => void; onClose: () => void }) {
  const [name, setName] = useState('');
  const { errors, busy, save } = useFormSave({ fields: ['name'] as const, onSaved, onClose });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void save(validate({ name }, { name: [required] }), () => send(name));
  };
  return (
    <FormDialog id="name-form" title="Name it" busy={busy} onClose={onClose} onSubmit={submit}>
      <Field>
        Name
        <Input name="name" value={name} onChange={(e) => setName(e.target.value)} />
        <FormErrorText error={errors.name} />
      </Field>
    </FormDialog>
  );
}

const save = () => screen.getByRole('button', { name: i18n.t('common.actions.save') });

describe('FormDialog with useFormSave', () => {
  beforeEach(() => toastStore.clear());

  it('shows the client-side errors and sends nothing', async () => {
    const send = vi.fn(() => Promise.resolve('x'));
    renderWithProviders(<NameForm send={send} onSaved={() => {}} onClose={() => {}} />);
    expect(screen.getByRole('dialog', { name: 'Name it' })).toBeInTheDocument();
    await userEvent.click(save());
    expect(screen.getByRole('alert')).toHaveTextContent(i18n.t('validation.required'));
    expect(send).not.toHaveBeenCalled();
  });

  it('sends, disables save meanwhile, hands over the answer and closes', async () => {
    let answer!: (v: string) => void;
    const send = vi.fn(() => new Promise<string>((r) => (answer = r)));
    const onSaved = vi.fn();
    const onClose = vi.fn();
    renderWithProviders(<NameForm send={send} onSaved={onSaved} onClose={onClose} />);
    await userEvent.type(screen.getByRole('textbox'), 'Ana');
    await userEvent.click(save());
    expect(send).toHaveBeenCalledWith('Ana');
    expect(save()).toBeDisabled();
    answer('saved Ana');
    await waitFor(() => expect(onSaved).toHaveBeenCalledWith('saved Ana'));
    expect(onClose).toHaveBeenCalledTimes(1);
    await waitFor(() => expect(save()).toBeEnabled());
  });

  it('puts the server field errors on their fields, toasts, and stays open', async () => {
    const send = () => Promise.reject(new ApiError(400, 'ERR_VALIDATION', 'bad', { name: 'Already exists', other: 'Too Long!' }));
    const onSaved = vi.fn();
    const onClose = vi.fn();
    renderWithProviders(<NameForm send={send} onSaved={onSaved} onClose={onClose} />);
    await userEvent.type(screen.getByRole('textbox'), 'Ana');
    await userEvent.click(save());
    await waitFor(() => expect(screen.getByRole('alert')).toHaveTextContent(i18n.t('validation.alreadyExists')));
    expect(screen.getAllByRole('alert')).toHaveLength(1);
    expect(toastStore.getSnapshot()).toHaveLength(1);
    expect(onSaved).not.toHaveBeenCalled();
    expect(onClose).not.toHaveBeenCalled();
    expect(save()).toBeEnabled();
  });

  it('cancel closes', async () => {
    const onClose = vi.fn();
    renderWithProviders(<NameForm send={vi.fn()} onSaved={() => {}} onClose={onClose} />);
    await userEvent.click(screen.getByRole('button', { name: i18n.t('common.actions.cancel') }));
    expect(onClose).toHaveBeenCalledTimes(1);
  });
});
