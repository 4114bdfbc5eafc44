// Create or edit an internal chat: the colleagues taking part (the owner always does)
// and, for a group of three or more, its title (required then, as the server says).
import { useEffect, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { chatsApi, usersApi } from '../../api/endpoints';
import { toastError } from '../../app/errors';
import { FormDialog, FormErrorText } from '../../components/FormDialog';
import { Field, Input } from '../../components/primitives';
import type { ID, InternalChat, User } from '../../api/types';
import { UserChoices } from './style';

export function ChatDialog({
  me,
  chat,
  onClose,
  onSaved,
}: {
  me: ID;
  chat: InternalChat | null; // null: a new chat
  onClose: () => void;
  onSaved: (c: InternalChat) => void;
}) {
  const { t } = useTranslation();
  const [users, setUsers] = useState<User[]>([]);
  const [chosen, setChosen] = useState<ID[]>(() => chat?.users.map((u) => u.userId).filter((id) => id !== me) ?? []);
  const [title, setTitle] = useState(chat?.title ?? '');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<'users' | 'title' | null>(null);
  useEffect(() => {
    usersApi.list().then(setUsers, toastError);
  }, []);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (chosen.length === 0) return setError('users');
    if (chosen.length > 1 && !title.trim()) return setError('title');
    setError(null);
    setBusy(true);
    try {
      const saved = chat ? await chatsApi.update(chat.id, chosen, title) : await chatsApi.create(chosen, title);
      onSaved(saved);
    } catch (err) {
      toastError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <FormDialog
      id="internal-chat-form"
      title={chat ? t('internalChat.form.editTitle') : t('internalChat.form.newTitle')}
      busy={busy}
      onClose={onClose}
      onSubmit={submit}
    >
      <UserChoices>
        <legend>{t('internalChat.form.users')}</legend>
        {users
          .filter((u) => u.id !== me)
          .map((u) => (
            <label key={u.id}>
              <input
                type="checkbox"
                checked={chosen.includes(u.id)}
                onChange={(e) => setChosen((c) => (e.target.checked ? [...c, u.id] : c.filter((id) => id !== u.id)))}
              />
              {u.name}
            </label>
          ))}
      </UserChoices>
      {error === 'users' && <FormErrorText error="internalChat.form.usersRequired" />}
      <Field>
        {t('internalChat.form.title')}
        <Input value={title} maxLength={100} onChange={(e) => setTitle(e.target.value)} />
      </Field>
      {error === 'title' && <FormErrorText error="internalChat.form.titleRequired" />}
    </FormDialog>
  );
}
