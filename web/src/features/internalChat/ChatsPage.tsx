// /chats/:id? — the internal chat (spec sections 2 and 3): the signed-in user's chats
// on the left (search, new chat, unread badges), the chosen one on the right with its
// virtualised conversation and a composer (Enter sends, Shift+Enter breaks the line).
// The owner edits the participants and title or deletes the chat. Opening a chat, or
// receiving a message while it is open, marks it read.
import { useCallback, useEffect, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import { useNavigate, useParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { chatsApi } from '../../api/endpoints';
import { toastError } from '../../app/errors';
import { useUser } from '../../app/session';
import { useMediaQuery } from '../../app/hooks';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { Icon } from '../../components/Icon';
import { Badge, Button, IconButton, Input, Muted, TextArea, VisuallyHidden } from '../../components/primitives';
import { Header, Title } from '../../components/pageStyle';
import type { ID, InternalChat, InternalChatMessage } from '../../api/types';
import { fold } from '../tags/fold';
import { ChatDialog } from './ChatDialog';
import { ChatMessageList } from './ChatMessageList';
import { chatName, chatStore, unreadsOf, useChats } from './store';
import { ChatItem, ChatItems, ChatLayout, ChatText, ComposerForm, Conversation, ConversationHead, Empty, Side } from './style';

export default function ChatsPage() {
  const { t } = useTranslation();
  const user = useUser();
  const navigate = useNavigate();
  const params = useParams();
  const id = params.id ? Number(params.id) : null;
  const narrow = useMediaQuery('(max-width: 700px)');
  const chats = useChats();
  const [search, setSearch] = useState('');
  const [editing, setEditing] = useState<InternalChat | 'new' | null>(null);
  const s = fold(search.trim());
  const shown = s
    ? chats.filter((c) => fold(chatName(c, user.id)).includes(s) || fold(c.lastMessage).includes(s))
    : chats;
  const current = id ? chats.find((c) => c.id === id) : undefined;
  return (
    <ChatLayout>
      <Side $hidden={narrow && id !== null} aria-labelledby="internal-chat-title">
        <Header>
          <Title id="internal-chat-title">{t('internalChat.title')}</Title>
          <Button type="button" onClick={() => setEditing('new')}>
            <Icon name="add" />
            {t('internalChat.actions.new')}
          </Button>
        </Header>
        <Input
          type="search"
          aria-label={t('internalChat.search')}
          placeholder={t('internalChat.search')}
          value={search}
          onChange={(e) => setSearch(e.target.value)}
        />
        {shown.length === 0 ? (
          <Empty>{t('internalChat.empty')}</Empty>
        ) : (
          <ChatItems aria-label={t('internalChat.listLabel')}>
            {shown.map((c) => {
              const n = unreadsOf(c, user.id);
              return (
                <li key={c.id}>
                  <ChatItem
                    type="button"
                    $active={c.id === id}
                    aria-current={c.id === id ? 'true' : undefined}
                    data-testid={`chat-item-${c.id}`}
                    onClick={() => navigate(`/chats/${c.id}`)}
                  >
                    <ChatText>
                      <strong>{chatName(c, user.id)}</strong>
                      <Muted>{c.lastMessage}</Muted>
                    </ChatText>
                    {n > 0 && (
                      <Badge $tone="danger" aria-label={t('internalChat.unread', { count: n })}>
                        {n}
                      </Badge>
                    )}
                  </ChatItem>
                </li>
              );
            })}
          </ChatItems>
        )}
      </Side>
      <Conversation $hidden={narrow && id === null}>
        {current ? (
          <OpenChat key={current.id} chat={current} me={user.id} onEdit={() => setEditing(current)} />
        ) : (
          <Empty>{id && chatStore.loaded ? t('internalChat.notFound') : t('internalChat.choose')}</Empty>
        )}
      </Conversation>
      {editing && (
        <ChatDialog
          me={user.id}
          chat={editing === 'new' ? null : editing}
          onClose={() => setEditing(null)}
          onSaved={(c) => {
            chatStore.upsert(c);
            setEditing(null);
            navigate(`/chats/${c.id}`);
          }}
        />
      )}
    </ChatLayout>
  );
}

function OpenChat({ chat, me, onEdit }: { chat: InternalChat; me: ID; onEdit: () => void }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [messages, setMessages] = useState<InternalChatMessage[]>([]);
  const [page, setPage] = useState(1);
  const [hasMore, setHasMore] = useState(false);
  const [loadingOlder, setLoadingOlder] = useState(false);
  const [text, setText] = useState('');
  const [sending, setSending] = useState(false);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const unread = unreadsOf(chat, me);
  const reading = useRef(false);

  useEffect(() => {
    let live = true;
    chatsApi.messages(chat.id, 1).then((r) => {
      if (!live) return;
      setMessages(r.records ?? []);
      setHasMore(!!r.hasMore);
    }, toastError);
    const off = chatStore.onMessage((m) => {
      if (m.chatId !== chat.id) return;
      setMessages((list) => (list.some((x) => x.id === m.id) ? list : [...list, m]));
    });
    return () => {
      live = false;
      off();
    };
  }, [chat.id]);

  // What arrives while the chat is open is read at once.
  useEffect(() => {
    if (unread === 0 || reading.current) return;
    reading.current = true;
    chatsApi
      .read(chat.id)
      .then((c) => chatStore.upsert(c), toastError)
      .finally(() => {
        reading.current = false;
      });
  }, [chat.id, unread]);

  const loadOlder = useCallback(() => {
    setLoadingOlder(true);
    chatsApi
      .messages(chat.id, page + 1)
      .then((r) => {
        setMessages((list) => [...(r.records ?? []).filter((m) => !list.some((x) => x.id === m.id)), ...list]);
        setHasMore(!!r.hasMore);
        setPage((p) => p + 1);
      }, toastError)
      .finally(() => setLoadingOlder(false));
  }, [chat.id, page]);

  const fileInput = useRef<HTMLInputElement>(null);
  const sendFiles = async (files: File[]) => {
    if (files.length === 0) return;
    setSending(true);
    try {
      const r = await chatsApi.sendFiles(chat.id, files, text.trim());
      const posted = Array.isArray(r) ? r : [r];
      setMessages((list) => [...list, ...posted.filter((m) => !list.some((x) => x.id === m.id))]);
      setText('');
    } catch (err) {
      toastError(err);
    } finally {
      setSending(false);
      if (fileInput.current) fileInput.current.value = '';
    }
  };
  const send = async (e?: FormEvent) => {
    e?.preventDefault();
    const body = text.trim();
    if (!body || sending) return;
    setSending(true);
    try {
      const m = await chatsApi.send(chat.id, body);
      setMessages((list) => (list.some((x) => x.id === m.id) ? list : [...list, m]));
      setText('');
    } catch (err) {
      toastError(err);
    } finally {
      setSending(false);
    }
  };
  const onKey = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === 'Enter' && !e.shiftKey) {
      e.preventDefault();
      void send();
    }
  };
  const owner = chat.ownerId === me;
  return (
    <>
      <ConversationHead>
        <IconButton type="button" aria-label={t('internalChat.actions.back')} onClick={() => navigate('/chats')}>
          <Icon name="arrowBack" />
        </IconButton>
        <h2>{chatName(chat, me)}</h2>
        <Muted>{t('internalChat.participants', { count: chat.users.length })}</Muted>
        {owner && (
          <>
            <IconButton type="button" aria-label={t('internalChat.actions.edit')} onClick={onEdit}>
              <Icon name="edit" />
            </IconButton>
            <IconButton type="button" aria-label={t('internalChat.actions.delete')} onClick={() => setConfirmDelete(true)}>
              <Icon name="delete" />
            </IconButton>
          </>
        )}
      </ConversationHead>
      <ChatMessageList messages={messages} me={me} hasMore={hasMore} loadingOlder={loadingOlder} onLoadOlder={loadOlder} />
      <ComposerForm onSubmit={send}>
        <VisuallyHidden as="label" htmlFor="internal-chat-composer">
          {t('internalChat.composer.label')}
        </VisuallyHidden>
        <IconButton
          type="button"
          aria-label={t('internalChat.composer.attach')}
          disabled={sending}
          onClick={() => fileInput.current?.click()}
        >
          <Icon name="attach" />
        </IconButton>
        <input
          ref={fileInput}
          type="file"
          multiple
          hidden
          aria-label={t('internalChat.composer.attach')}
          onChange={(e) => void sendFiles(Array.from(e.target.files ?? []))}
        />
        <TextArea
          id="internal-chat-composer"
          rows={2}
          value={text}
          placeholder={t('internalChat.composer.placeholder')}
          onChange={(e) => setText(e.target.value)}
          onKeyDown={onKey}
        />
        <IconButton type="submit" aria-label={t('internalChat.composer.send')} disabled={!text.trim() || sending}>
          <Icon name="send" />
        </IconButton>
      </ComposerForm>
      <ConfirmDialog
        open={confirmDelete}
        title={t('internalChat.delete.title')}
        confirmLabel={t('internalChat.actions.delete')}
        onClose={() => setConfirmDelete(false)}
        onConfirm={() => {
          setConfirmDelete(false);
          chatsApi.remove(chat.id).then(() => {
            chatStore.remove(chat.id);
            navigate('/chats');
          }, toastError);
        }}
      >
        {t('internalChat.delete.body', { name: chatName(chat, me) })}
      </ConfirmDialog>
    </>
  );
}
